import App
import ArgumentParser
import Clocks
import Platform
import Transmitters

/// `vigil status`: asks the running daemon over its unix socket (`StatusRequest`) and prints
/// the answer. Exit codes: 0 answered; 69 (EX_UNAVAILABLE) nothing listens or it did not
/// answer; 77 (EX_NOPERM) not allowed to connect; 1 the daemon refused the request.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ask the running vigil for its devices, last readings and active alarms.")

    @Option(help: "The daemon's status socket (default: the configuration's [status] socket).")
    var socket: String?

    @Option(help: "The configuration file that names the socket, when --socket is not given.")
    var config: String = VigilConfiguration.defaultPath

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    /// How long the daemon may take to answer: it answers within one turn of its loop.
    static let answerTimeout: Duration = .seconds(5)
    static let unavailable: Int32 = 69
    static let noPermission: Int32 = 77

    func run() throws {
        let path = try socketPath()
        let connection: any ByteTransport
        do {
            connection = try UnixStreamSocket.connect(path: path)
        } catch where error.isNothingListening {
            StandardError.write("vigil is not running: nothing listens on \(path)")
            throw ExitCode(Self.unavailable)
        } catch where error.isPermissionDenied {
            StandardError.write("vigil status: permission denied on \(path): add yourself to the vigil group (sudo adduser $USER vigil, then log in again) or run it with sudo")
            throw ExitCode(Self.noPermission)
        } catch {
            StandardError.write("vigil status: \(error)")
            throw ExitCode(Self.unavailable)
        }
        defer { connection.close() }
        // A daemon that refuses us (too many clients) writes its ERR line and closes, maybe
        // before our request is out: a failed write still leaves that line to read.
        var writeFailure: PlatformError?
        do {
            try connection.write(Array((json ? "STATUS JSON\n" : "STATUS\n").utf8))
        } catch {
            writeFailure = error
        }
        let answer: [UInt8]
        do {
            answer = try Self.readToEnd(connection, within: Self.answerTimeout)
        } catch {
            StandardError.write("vigil status: vigil on \(path) did not answer: \(writeFailure ?? error)")
            throw ExitCode(Self.unavailable)
        }
        if answer.isEmpty {
            StandardError.write("vigil status: vigil on \(path) closed the connection without an answer" + (writeFailure.map { " (\($0))" } ?? ""))
            throw ExitCode(Self.unavailable)
        }
        let text = String(decoding: answer, as: UTF8.self)
        if text.hasPrefix("ERR ") {
            StandardError.write("vigil status: the daemon said: \(text.dropFirst(4).trimmingSuffix("\n"))")
            throw ExitCode(1)
        }
        print(text, terminator: "")
        StandardOutput.flush()
    }

    /// `--socket`, else the configuration's; a configuration that cannot be read (a person
    /// without read access to /etc/vigil) falls back to the default path rather than failing.
    private func socketPath() throws -> String {
        if let socket { return socket }
        let fallback = VigilConfiguration.Status().socketPath ?? "/run/vigil/status.sock"
        guard FileSystem.exists(path: config), let bytes = try? FileSystem.readFile(path: config),
              let parsed = try? VigilConfiguration(parsing: String(decoding: bytes, as: UTF8.self),
                                                   knownDeviceTypes: TransmitterCatalog.builtIn.names)
        else { return fallback }
        guard let path = parsed.status.socketPath else {
            StandardError.write("vigil status: \(config) turns the status socket off ([status] socket = \"\")")
            throw ExitCode(Self.unavailable)
        }
        return path
    }

    /// Reads until the daemon closes the connection (it closes after its answer). A reset
    /// after the answer began is its end too: Linux resets a unix socket closed with bytes
    /// unread (our request, when the daemon refused us before reading it).
    static func readToEnd(_ connection: any ByteTransport, within timeout: Duration) throws(PlatformError) -> [UInt8] {
        let deadline = SystemClock.monotonicNow() + timeout
        var poll = PollLoop()
        poll.register(connection.fileDescriptor)
        var answer: [UInt8] = []
        var buffer: [UInt8] = []
        while true {
            let ready = try poll.wait(until: deadline)
            if ready.isEmpty {
                throw PlatformError(operation: "read(status answer)", errno: 0, reason: "no complete answer within \(timeout)",
                                    hint: "the daemon may be stuck; see journalctl -u vigil")
            }
            do {
                let count = try connection.read(into: &buffer, maxCount: 64 * 1024)
                if count == 0 { return answer }
                answer += buffer
            } catch where error.isWouldBlock {
                continue
            } catch where error.isConnectionReset && !answer.isEmpty {
                return answer
            }
        }
    }
}

private extension StringProtocol {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : String(self) }
}
