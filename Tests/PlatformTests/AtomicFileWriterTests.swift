import Glibc
import Testing
@testable import Platform

@Suite struct AtomicFileWriterTests {
    /// The target does not exist until commit; afterwards it holds every piece, and only it.
    @Test func fileAppearsWholeOnlyAtCommit() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/export.csv"
            let writer = try AtomicFileWriter(path: path)
            try writer.write(Array("device,kind\r\n".utf8))
            try writer.write(Array("a,glucose\r\n".utf8))
            #expect(!FileSystem.exists(path: path))
            #expect(writer.temporaryPath.hasPrefix(directory + "/.export.csv."))
            #expect(writer.size == 24)
            try writer.commit()
            #expect(try FileSystem.readFile(path: path) == Array("device,kind\r\na,glucose\r\n".utf8))
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["export.csv"])
            // A second commit is refused rather than silently doing nothing.
            #expect(throws: PlatformError.self) { try writer.commit() }
        }
    }

    /// Abandoning (an export that failed half-way) leaves an older file exactly as it was.
    @Test func abandonKeepsTheOldFileAndRemovesTheTemporary() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/export.csv"
            try AtomicFile.write(path: path, bytes: Array("old".utf8), mode: 0o644)
            let writer = try AtomicFileWriter(path: path)
            try writer.write(Array("half of a new export".utf8))
            writer.abandon()
            #expect(try FileSystem.readFile(path: path) == Array("old".utf8))
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["export.csv"])
            #expect(throws: PlatformError.self) { try writer.write([1]) }
        }
    }

    /// Dropped without a commit (an error path that forgot): the temporary file still goes.
    @Test func deinitWithoutCommitRemovesTheTemporary() throws {
        try withTemporaryDirectory { directory in
            do {
                let writer = try AtomicFileWriter(path: directory + "/x.json")
                try writer.write([0x7B, 0x7D])
            }
            #expect(try FileSystem.contentsOfDirectory(path: directory).isEmpty)
        }
    }

    @Test func aMissingDirectoryIsAClearError() throws {
        try withTemporaryDirectory { directory in
            do {
                _ = try AtomicFileWriter(path: directory + "/missing/x.csv")
                Issue.record("expected an error")
            } catch let error as PlatformError {
                #expect(error.errno == ENOENT)
                #expect(error.description.contains("missing"))
            } catch {
                Issue.record("not a PlatformError: \(error)")
            }
        }
    }
}
