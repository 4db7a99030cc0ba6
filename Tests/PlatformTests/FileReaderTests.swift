import Glibc
import Testing
@testable import Platform

@Suite struct FileReaderTests {
    /// 2.5 MiB + 17 bytes read back in btsnoop-like pieces (24-byte header, then a body),
    /// so items straddle the 1 MiB chunk boundaries.
    @Test(arguments: [FileReader.defaultChunkSize, 4096, 1])
    func fileBiggerThanOneChunkReadsBackExactly(chunkSize: Int) throws {
        let size = chunkSize == 1 ? 70_001 : (5 << 19) + 17
        try withTemporaryDirectory { directory in
            let path = directory + "/capture.btsnoop"
            let bytes = pattern(size, seed: 3)
            try AtomicFile.write(path: path, bytes: bytes)
            let reader = try FileReader(path: path, chunkSize: chunkSize)
            var collected: [UInt8] = []
            var body = 1
            while collected.count < size {
                let header = try #require(try reader.readExactly(min(24, size - collected.count)))
                collected += header
                body = body % 1021 + 13
                collected += try reader.read(upToCount: body)
                #expect(reader.offset == collected.count)
            }
            #expect(collected == bytes)
            #expect(try reader.isAtEnd())
            #expect(try reader.read(upToCount: 10) == [])
            #expect(try reader.readExactly(10) == nil)
        }
    }

    @Test func readBiggerThanAChunkAtOnce() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/big"
            let bytes = pattern(3 << 20, seed: 4)
            try AtomicFile.write(path: path, bytes: bytes)
            let reader = try FileReader(path: path)
            #expect(try reader.read(upToCount: 3 << 20) == bytes)
            #expect(try reader.isAtEnd())
        }
    }

    /// A capture cut off by a power loss: the reader says where it ends instead of padding or
    /// silently dropping the tail.
    @Test func truncatedItemThrowsSayingWhere() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/cut.btsnoop"
            try AtomicFile.write(path: path, bytes: pattern(40))
            let reader = try FileReader(path: path)
            #expect(try reader.readExactly(24) == pattern(24))
            do {
                _ = try reader.readExactly(24)
                Issue.record("a 16-byte tail was returned as a 24-byte item")
            } catch let error as PlatformError {
                #expect(error.errno == 0)
                #expect(error.reason == "the file ends 16 bytes into a 24-byte item at offset 24")
                #expect(error.hint == "the file was cut short (written while power was lost?)")
            }
        }
    }

    @Test func emptyFileIsAtEndAtOnce() throws {
        try withTemporaryDirectory { directory in
            try AtomicFile.write(path: directory + "/empty", bytes: [])
            let reader = try FileReader(path: directory + "/empty")
            #expect(try reader.isAtEnd())
            #expect(try reader.readExactly(16) == nil)
        }
    }

    @Test func missingFileIsENOENT() {
        #expect(throws: PlatformError.system("open(/nonexistent.btsnoop)", errno: ENOENT)) {
            try FileReader(path: "/nonexistent.btsnoop")
        }
    }

    @Test func closedReaderSaysSo() throws {
        try withTemporaryDirectory { directory in
            try AtomicFile.write(path: directory + "/f", bytes: [1, 2])
            let reader = try FileReader(path: directory + "/f")
            reader.close()
            #expect(throws: PlatformError.system("read(\(directory)/f)", errno: EBADF, hint: "the reader is closed")) {
                try reader.read(upToCount: 1)
            }
        }
    }
}
