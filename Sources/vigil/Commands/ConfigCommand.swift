import App
import ArgumentParser
import Platform

/// `vigil config`: the configuration's own commands.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Configuration commands: check a file before Vigil runs it.",
        subcommands: [ConfigCheckCommand.self])
}

/// `vigil config check [FILE]`: everything `vigil run` checks before it starts — the TOML, every
/// key and value with its line, each device's options as its driver and the alarm engine read
/// them, the face against its board — without touching the radio, the GPIO lines or the state
/// directory. Exit 0 and a summary when the file would run; 78 and every problem otherwise.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a configuration file: every problem with its line, exit 0 when vigil run would accept it.",
        discussion: "Exit codes: 0 the file is good (warnings, if any, are printed), 78 it has errors.")

    @Argument(help: "The configuration file.")
    var file: String = VigilConfiguration.defaultPath

    func run() throws {
        let configuration = try RunCommand.loadConfiguration(file)
        try RunCommand.refuseExposedSecrets(configuration, file: file)
        _ = try RunCommand.devices(of: configuration, file: file)
        let web = try WebSetup.load(configuration, file: file)
        let authorities = try NetworkSetup.load(configuration, file: file)
        let setup: FaceSetup
        do {
            setup = try configuration.face.setup()
        } catch {
            StandardError.write("\(file): [face]: \(error)")
            throw ExitCode(ConfigurationFault.exitCode)
        }
        for warning in configuration.warnings { StandardError.write("warning: " + warning.formatted(file: file)) }
        let face: String = switch setup.backend {
        case let .gpio(lines): "GPIO on board \(lines.board) (buzzer \(lines.buzzer.offset), LED \(lines.led.offset), button \(lines.button))"
        case .console: "the console"
        case .none: "none (alarms are logged only)"
        }
        print("\(file): ok")
        print("  controller: \(configuration.bluetooth.transport)")
        print("  devices: \(configuration.devices.count)" + (configuration.devices.isEmpty ? "" : " (" + configuration.devices.map { "\($0.displayName) (\($0.type))" }.joined(separator: ", ") + ")"))
        // A follower's service and server, never its secrets (docs/followers.md).
        for (device, source) in configuration.followers { print("  follows: \(device) from \(source)") }
        print("  face: \(face)")
        print("  state directory: \(configuration.storage.stateDirectory)")
        print("  nightscout: " + (configuration.nightscout.map { "upload to \($0)" } ?? "off (no [nightscout] section)"))
        print("  web: " + (web.map { "\($0.scheme)://\($0.listen)/ (token in \($0.tokenPath))" } ?? "off (no [web] section)"))
        print("  certificate authorities: " + NetworkSetup.summary(authorities))
        StandardOutput.flush()
    }
}
