import Glibc
import Testing
@testable import Platform

@Suite struct FileWriterTests {
    /// Many small records through a small buffer: everything arrives in order, `size` tracks
    /// buffered bytes, and close flushes the rest.
    @Test func bufferedWritesArriveInOrder() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log.btsnoop"
            let writer = try FileWriter(path: path, bufferCapacity: 100)
            #expect(writer.size == 0)
            var expected: [UInt8] = []
            for i in 0..<500 {
                let record = pattern(i % 37 + 1, seed: i)
                try writer.write(record)
                expected += record
                #expect(writer.size == expected.count)
            }
            try writer.close()
            #expect(try FileSystem.readFile(path: path) == expected)
        }
    }

    @Test func flushMakesBytesVisibleBeforeClose() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log"
            let writer = try FileWriter(path: path)
            try writer.write([1, 2, 3])
            #expect(try FileSystem.readFile(path: path) == [])  // still buffered
            try writer.flush()
            #expect(try FileSystem.readFile(path: path) == [1, 2, 3])
            try writer.sync()
            try writer.close()
            try writer.close()  // twice is harmless
        }
    }

    @Test func reopeningAppendsAndReportsTheExistingSize() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log"
            let first = try FileWriter(path: path)
            try first.write([0xA0, 0xA1])
            try first.close()
            let second = try FileWriter(path: path)
            #expect(second.size == 2)  // non-zero: the btsnoop header is already there
            try second.write([0xB0])
            try second.close()
            #expect(try FileSystem.readFile(path: path) == [0xA0, 0xA1, 0xB0])
        }
    }

    @Test func truncateStartsOver() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log"
            try AtomicFile.write(path: path, bytes: [1, 2, 3, 4])
            let writer = try FileWriter(path: path, truncate: true)
            #expect(writer.size == 0)
            try writer.write([5])
            try writer.close()
            #expect(try FileSystem.readFile(path: path) == [5])
        }
    }

    @Test func newFileGetsTheModeLessUmask() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/log"
            let writer = try FileWriter(path: path, mode: 0o600)
            try writer.close()
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(UInt32(info.st_mode) & 0o777 == 0o600)
        }
    }

    @Test func writeAfterCloseIsAnError() throws {
        try withTemporaryDirectory { directory in
            let writer = try FileWriter(path: directory + "/log")
            try writer.close()
            #expect(throws: PlatformError.system("write(\(directory)/log)", errno: EBADF, hint: "the writer is closed")) {
                try writer.write([1])
            }
        }
    }

    @Test func missingDirectoryIsENOENT() {
        #expect(throws: PlatformError.system("open(/nonexistent/dir/log)", errno: ENOENT)) {
            try FileWriter(path: "/nonexistent/dir/log")
        }
    }
}
