import Clocks
import Glibc
import Testing
@testable import Platform

/// A configuration that cannot be read must be refused at once, never waited on:
/// `FileSystem.readFile` on a FIFO with no writer (open(2) would block until one comes), and
/// on a directory. `vigil run` turns these into exit 78 (FaultConfigurationInteropTests).
@Suite struct FileSystemFaultTests {
    @Test func aFIFOWithNoWriterIsRefusedAtOnce() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/vigil.conf"
            try #require(mkfifo(path, 0o600) == 0, "mkfifo: errno \(errno)")
            let start = SystemClock.monotonicNow()
            #expect(throws: PlatformError(operation: "open(\(path))", errno: 0, reason: "it is a FIFO (named pipe), not a file",
                                          hint: "reading it would wait for a writer; give the path of a regular file")) {
                try FileSystem.readFile(path: path)
            }
            #expect(SystemClock.monotonicNow() - start < .seconds(1))
        }
    }

    @Test func aDirectoryIsAnErrorNamingIt() throws {
        try withTemporaryDirectory { directory in
            do throws(PlatformError) {
                let bytes = try FileSystem.readFile(path: directory)
                Issue.record("read \(bytes.count) bytes from a directory")
            } catch {
                #expect(error.errno == EISDIR)
                #expect(error.operation == "read(\(directory))")
            }
        }
    }

    /// The FIFO check opens non-blocking; what it then reads is read as before, to the end.
    @Test func aRegularFileStillReadsWhole() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/big"
            let bytes = pattern(3 << 20)
            let writer = try FileWriter(path: path, mode: 0o600, truncate: true)
            try writer.write(bytes)
            try writer.close()
            #expect(try FileSystem.readFile(path: path) == bytes)
        }
    }
}
