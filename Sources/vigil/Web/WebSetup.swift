#if canImport(Glibc)
import Glibc
#endif
import App
import ArgumentParser
import Platform
import TLS

/// `[web]` made real: the token read from its file and checked, the listen address. Both
/// `vigil config check` and `vigil run` build it through `load`, so a token file that `run`
/// would refuse is refused by `check` first, at the line that names it (docs/web.md
/// "Configuration"). The token never appears in a message.
struct WebSetup {
    let listen: VigilConfiguration.Web.ListenAddress
    let token: String
    /// The token file as opened (relative paths resolved against the configuration's folder).
    let tokenPath: String
    /// HTTPS: the certificate and key, checked to match; nil for plain HTTP.
    let tls: TLS.ServerContext?

    var scheme: String { tls == nil ? "http" : "https" }

    /// nil without `[web]`; exit 78 with every problem on stderr, each with its line.
    static func load(_ configuration: VigilConfiguration, file: String) throws -> WebSetup? {
        guard let web = configuration.web else { return nil }
        var problems: [String] = []
        let tokenPath = VigilConfiguration.Web.path(web.tokenFile, relativeTo: file)
        var token: String?
        do {
            token = try readToken(at: tokenPath)
        } catch {
            problems.append("\(file):\(web.tokenFilePosition.line): [web] token-file \(TOML.quoted(tokenPath)): \(error)")
        }
        var tls: TLS.ServerContext?
        if let certificate = web.certificate, let key = web.key {
            let certificatePath = VigilConfiguration.Web.path(certificate, relativeTo: file)
            let keyPath = VigilConfiguration.Web.path(key, relativeTo: file)
            var pems: [[UInt8]] = []
            for (name, path, position) in [("certificate", certificatePath, web.certificatePosition), ("key", keyPath, web.keyPosition)] {
                do throws(PlatformError) {
                    pems.append(try FileSystem.readFile(path: path))
                } catch {
                    problems.append("\(file):\(position.line): [web] \(name) \(TOML.quoted(path)): \(error)")
                }
            }
            if pems.count == 2 {
                do throws(TLS.Failure) {
                    tls = try TLS.ServerContext(certificatePEM: pems[0], keyPEM: pems[1])
                } catch {
                    problems.append("\(file):\(web.certificatePosition.line): [web] certificate \(TOML.quoted(certificatePath)) and key \(TOML.quoted(keyPath)): \(error)")
                }
            }
        }
        guard problems.isEmpty, let token else {
            for problem in problems { StandardError.write(problem) }
            throw ExitCode(ConfigurationFault.exitCode)
        }
        return WebSetup(listen: web.listen, token: token, tokenPath: tokenPath, tls: tls)
    }

    /// Why a token file is refused: the system's word for an unreadable file, or the token's rules.
    enum TokenFileError: Error, CustomStringConvertible {
        case unreadable(PlatformError)
        case refused(WebToken.Problem)

        var description: String {
            switch self {
            case let .unreadable(error): "\(error)" + (error.errno == ENOENT ? " (`vigil web token` makes one)" : "")
            case let .refused(problem): problem.description
            }
        }
    }

    /// The token in the file at `path`, after its size and mode are checked: a file of any size
    /// is not read whole before the alarms start.
    static func readToken(at path: String) throws(TokenFileError) -> String {
        let mode: UInt32, size: Int
        do throws(PlatformError) {
            mode = try FileSystem.permissions(path: path)
            size = try FileSystem.fileSize(path: path)
        } catch {
            throw .unreadable(error)
        }
        do throws(WebToken.Problem) {
            try WebToken.checkMode(mode)
            if size > WebToken.maximumFileSize { throw .tooLong }
        } catch {
            throw .refused(error)
        }
        let bytes: [UInt8]
        do throws(PlatformError) { bytes = try FileSystem.readFile(path: path) } catch { throw .unreadable(error) }
        do throws(WebToken.Problem) {
            return try WebToken.read(bytes)
        } catch {
            throw .refused(error)
        }
    }
}
