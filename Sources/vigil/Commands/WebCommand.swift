import App
import ArgumentParser
import Platform

/// `vigil web`: the page's own commands.
struct WebCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "The page on the home network: make its access token.",
        subcommands: [WebTokenCommand.self])
}

/// `vigil web token`: a new random token in the file `[web] token-file` names (docs/web.md
/// "Configuration"), printed once so the person who asked can sign in with it. The file is
/// replaced atomically with mode 0640, keeping its owner and group (the service's group reads
/// it); a running Vigil uses the new token after a restart.
struct WebTokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Write a new random access token for the page and print it once.",
        discussion: """
            The token goes to --file, else to the configuration's [web] token-file, else to \(VigilConfiguration.Web.defaultTokenFile).
            Restart Vigil afterwards: the old token stops working then.
            Exit codes: 0 written, 1 the file could not be written, 78 the configuration has errors.
            """)

    @Option(help: "The configuration file whose [web] token-file receives the token.")
    var config: String?

    @Option(help: "Write the token to this file instead.")
    var file: String?

    func run() throws {
        let (path, web) = try destination()
        let token = WebToken.make(from: SecureRandom.bytes(WebToken.generatedLength))
        do throws(PlatformError) {
            // A file being replaced keeps its owner and group; a new one is the caller's.
            let owner = FileSystem.exists(path: path) ? try FileSystem.owner(path: path) : nil
            try AtomicFile.write(path: path, bytes: Array((token + "\n").utf8), mode: 0o640, owner: owner)
        } catch {
            StandardError.write("vigil web token: \(error)")
            throw ExitCode(1)
        }
        let listen = web?.listen ?? VigilConfiguration.Web.ListenAddress()
        let scheme = web?.isHTTPS == true ? "https" : "http"
        let host = ["0.0.0.0", "::"].contains(listen.host) ? "<this machine's address>"
            : listen.host.contains(":") ? "[\(listen.host)]" : listen.host
        print(token)
        print("Written to \(path). Sign in by opening \(scheme)://\(host):\(listen.port)/?token=\(token) on the phone (restart Vigil first if it is running).")
        StandardOutput.flush()
    }

    /// The token file and the `[web]` section it belongs to: --file, else the configuration's.
    /// A configuration named with --config must be valid; the default one is read if it exists.
    private func destination() throws -> (String, VigilConfiguration.Web?) {
        let configPath = config ?? VigilConfiguration.defaultPath
        var web: VigilConfiguration.Web?
        if config != nil || FileSystem.exists(path: configPath) {
            web = try RunCommand.loadConfiguration(configPath).web
        }
        if let file { return (file, web) }
        return (VigilConfiguration.Web.path(web?.tokenFile ?? VigilConfiguration.Web.defaultTokenFile, relativeTo: configPath), web)
    }
}
