import Alarms
import App
import ArgumentParser
import Clocks
import Platform

/// `vigil alarm`: the alarm's own commands: the self-test (`vigil alarm test [pattern]`) a person runs to hear that the buzzer works.
struct AlarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alarm",
        abstract: "Alarm commands: test the buzzer and LED.",
        subcommands: [AlarmTestCommand.self])
}

/// `vigil alarm test [PATTERN]`: plays the start-up chirp, one buzzer pattern or all of them on
/// the configured face, so a person can hear that the buzzer works and learn the patterns.
struct AlarmTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Play the start-up chirp, or a buzzer pattern, on the configured buzzer and LED.",
        discussion: """
            Without a pattern: the start-up chirp (a 60 ms beep and a 300 ms LED blink).
            Patterns: \(AlarmTestPattern.all.map(\.name).joined(separator: ", ")); `all` plays every one, loudest first, \
            2 s apart. High priority is bursts of 10 pulses, medium 3, low 1; an escalated pattern plays two bursts at its \
            more insistent spacing.
            Exit codes: 0 played, 1 the face could not be opened or a line write failed, 78 configuration error, 130 Ctrl-C.
            """)

    @Argument(help: "A pattern to play (see --list), or `all`; none: the start-up chirp.")
    var pattern: String?

    @Option(help: "The configuration file; its [face] section says which buzzer and LED to use.")
    var config: String?

    @Option(help: "Use this face instead of the configuration's: gpio or console.")
    var backend: String?

    @Flag(help: "List the patterns and exit.")
    var list = false

    @Option(name: .customLong("log-level"), help: "debug, info, notice, warning or error.")
    var logLevel: String = "notice"

    func validate() throws {
        if let pattern, pattern != "all", AlarmTestPattern(name: pattern) == nil {
            throw ValidationError("unknown pattern \"\(pattern)\": choose one of \(Self.patternNames.joined(separator: ", ")) or all")
        }
        if let backend, backend != "gpio", backend != "console" {
            throw ValidationError("--backend must be gpio or console")
        }
        guard Logger.level(named: logLevel) != nil else {
            throw ValidationError("--log-level must be debug, info, notice, warning or error")
        }
    }

    static var patternNames: [String] { AlarmTestPattern.all.map(\.name) }

    func run() throws {
        if list {
            for name in Self.patternNames + ["all"] { print(name) }
            return
        }
        let logger = Logger(minimum: Logger.level(named: logLevel) ?? .notice)
        let setup = try faceSetup(logger: logger)
        guard let device = FaceDevices.open(setup, logger: logger) else {
            // FaceDevices logged why; the one line a person needs stays on stdout's neighbour.
            StandardError.write("vigil alarm test: the GPIO face cannot be opened, nothing was played"
                + (GPIOAvailability.chips().isEmpty ? " (no /dev/gpiochip* exists on this machine: try --backend console)" : ""))
            throw ExitCode(1)
        }
        defer { device.close() }
        let code = try play(on: device, drive: setup.sequencerDrive)
        if code != 0 { throw ExitCode(code) }
    }

    /// The face from `--config` (or the default file when it exists), `--backend` applied.
    /// A bad file is exit 78, as for `vigil run`.
    private func faceSetup(logger: Logger) throws -> FaceSetup {
        var face: VigilConfiguration.Face
        if let config {
            face = try RunCommand.loadConfiguration(config).face
        } else if FileSystem.exists(path: VigilConfiguration.defaultPath) {
            face = try RunCommand.loadConfiguration(VigilConfiguration.defaultPath).face
        } else {
            logger.log(.info, "no \(VigilConfiguration.defaultPath): the default [face] (board pi-zero-2w, GPIO)")
            face = VigilConfiguration.Face()
        }
        if let backend, let name = VigilConfiguration.Face.BackendName(rawValue: backend) { face.backend = name }
        let setup: FaceSetup
        do throws(FaceSetup.Problem) {
            setup = try face.setup()
        } catch {
            StandardError.write("vigil alarm test: [face]: \(error)")
            throw ExitCode(78)
        }
        if case .none = setup.backend {
            StandardError.write("vigil alarm test: [face] backend = \"none\": there is no buzzer to test (use --backend console)")
            throw ExitCode(78)
        }
        return setup
    }

    /// Plays the test through `AlarmFace` on the real clock until it ends; 0 when it played,
    /// 1 when a GPIO write failed (logged) or the loop could not wait, 128 + the signal when
    /// Ctrl-C (or SIGTERM, SIGHUP) stopped it, with the buzzer silenced by the caller's close().
    private func play(on device: any FaceDevice, drive: BuzzerSequencer.Drive) throws -> Int32 {
        var now = SystemClock.monotonicNow()
        var face = AlarmFace(drive: drive, bootedAt: now)
        let what: String
        if let pattern, pattern != "all", let test = AlarmTestPattern(name: pattern) {
            what = "pattern \(test.name)"
            face.playTest(test, at: now)
        } else if pattern == "all" {
            what = "every pattern: " + Self.patternNames.joined(separator: ", ")
            face.playTest(nil, at: now)
        } else {
            what = "the start-up chirp"
            face.startSelfTest(at: now)
        }
        device.say("playing \(what) on \(device.name)")
        device.show(status: "testing \(pattern ?? "start-up chirp")")

        var loop = FaceDeviceLoop(device: device)
        defer { loop.close() }
        while true {
            apply(face.takeTimedOutputs(), to: device)
            if let failure = device.failure {
                StandardError.write("vigil alarm test: \(failure)")
                return 1
            }
            guard face.isTesting else { break }
            let wake: FaceDeviceLoop.Wake
            do throws(PlatformError) {
                wake = try loop.wait(until: face.nextDeadline)
            } catch {
                StandardError.write("vigil alarm test: \(error)")
                return 1
            }
            if let signal = wake.signal {
                // The shell's convention for a command a signal stopped: 128 + its number.
                device.say("stopped by \(signal)")
                return 128 + signal.rawValue
            }
            now = wake.woke
            for edge in wake.edges { face.receive(edge.edge, at: edge.at) }
            face.handleDeadline(at: now)
        }
        device.say("done: \(what) played")
        return 0
    }

    /// Line writes (and gestures, which the console prints) to the device. The heartbeat that
    /// resumes at the test's end may switch the LED on for the last instant; close() then
    /// switches every line off.
    private func apply(_ outputs: [TimedFaceOutput], to device: any FaceDevice) {
        for timed in outputs { device.apply(timed.output, at: timed.at) }
    }
}
