import Foundation

/// The real `vigil` executable, run once per call with arguments and a timeout; stdout and
/// stderr come back separately because stdout carries the machine-readable contract (NDJSON
/// or one JSON document) and stderr the human logs.
struct VigilProcess {
    let binary: URL

    /// Uses `InteropEnvironment.vigilBinary()` unless a binary is given (harness self-tests).
    init(binary: URL? = nil) throws {
        self.binary = try binary ?? InteropEnvironment.vigilBinary()
    }

    /// `stopWhen`: SIGTERM as soon as it holds for the output so far (`ChildProcess.run`).
    func run(_ arguments: [String], timeout: Duration = .seconds(30),
             stopWhen: ((_ soFar: ChildProcessResult) -> Bool)? = nil) throws -> ChildProcessResult {
        try ChildProcess.run(executable: binary, arguments: arguments, timeout: timeout, stopWhen: stopWhen)
    }

    /// `--hci tcp:127.0.0.1:PORT`, the transport every interop command uses.
    static func hci(_ rig: Rig) -> [String] { ["--hci", "tcp:127.0.0.1:\(rig.port)"] }
}
