import Foundation
import Testing

/// Another process holding SQLite's write lock on a history (BEGIN EXCLUSIVE, through the
/// venv's python), as a backup tool or a second vigil would: every write vigil tries fails
/// with SQLITE_BUSY until `release`. Released at deinit too.
final class HistoryLocker {
    private let process = Process()
    private let input = Pipe()

    init(database: String) throws {
        let output = Pipe()
        process.executableURL = InteropEnvironment.pythonPath
        process.arguments = ["-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN EXCLUSIVE")
            print("locked", flush=True)
            sys.stdin.read()
            c.execute("ROLLBACK")
            """, database]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        try #require(said.hasPrefix("locked"), "the lock was not taken: \(said)")
    }

    func release() throws {
        guard process.isRunning else { return }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
