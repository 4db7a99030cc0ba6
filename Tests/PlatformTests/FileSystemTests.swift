import Glibc
import Testing
@testable import Platform

@Suite struct FileSystemTests {
    @Test func readFileReturnsEveryByte() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/data"
            let bytes = pattern(300_000)
            try AtomicFile.write(path: path, bytes: bytes)
            #expect(try FileSystem.readFile(path: path) == bytes)
            #expect(try FileSystem.fileSize(path: path) == 300_000)
        }
    }

    /// /proc files report size 0 but have contents: reading must go to end of file, not stat size.
    @Test func readFileReadsProcFiles() throws {
        let statm = String(decoding: try FileSystem.readFile(path: "/proc/self/statm"), as: UTF8.self)
        #expect(statm.split(separator: " ").count == 7)
    }

    @Test func missingFileIsENOENT() {
        #expect(throws: PlatformError.system("open(/nonexistent/vigil.conf)", errno: ENOENT)) {
            try FileSystem.readFile(path: "/nonexistent/vigil.conf")
        }
    }

    @Test func createDirectoriesMakesParentsAndIsIdempotent() throws {
        try withTemporaryDirectory { directory in
            let nested = directory + "/var/lib/vigil"
            try FileSystem.createDirectories(path: nested, mode: 0o700)
            #expect(FileSystem.isDirectory(path: nested))
            try FileSystem.createDirectories(path: nested + "/", mode: 0o700)
            #expect(try FileSystem.contentsOfDirectory(path: directory + "/var/lib") == ["vigil"])
            var info = stat()
            #expect(stat(nested, &info) == 0)
            #expect(UInt32(info.st_mode) & 0o077 == 0)  // 0700 less any umask: private
        }
    }

    @Test func fileInTheWayOfADirectoryIsENOTDIR() throws {
        try withTemporaryDirectory { directory in
            try AtomicFile.write(path: directory + "/vigil", bytes: [1])
            do {
                try FileSystem.createDirectories(path: directory + "/vigil/bonds")
                Issue.record("made a directory through a file")
            } catch let error as PlatformError {
                #expect(error.errno == ENOTDIR)
                #expect(error.hint == "\(directory)/vigil exists and is not a directory")
            }
        }
    }

    @Test func existsAndIsDirectory() throws {
        try withTemporaryDirectory { directory in
            #expect(FileSystem.exists(path: directory))
            #expect(FileSystem.isDirectory(path: directory))
            #expect(FileSystem.exists(path: directory + "/nothing") == false)
            try AtomicFile.write(path: directory + "/file", bytes: [])
            #expect(FileSystem.exists(path: directory + "/file"))
            #expect(FileSystem.isDirectory(path: directory + "/file") == false)
        }
    }

    @Test func removeAndRemoveTree() throws {
        let directory = try FileSystem.makeTemporaryDirectory(prefix: "vigil-remove")
        try FileSystem.createDirectories(path: directory + "/a/b")
        try AtomicFile.write(path: directory + "/a/b/c", bytes: [1])
        try AtomicFile.write(path: directory + "/d", bytes: [2])
        #expect(try FileSystem.contentsOfDirectory(path: directory) == ["a", "d"])
        try FileSystem.remove(path: directory + "/d")
        #expect(FileSystem.exists(path: directory + "/d") == false)
        try FileSystem.removeTree(path: directory)
        #expect(FileSystem.exists(path: directory) == false)
    }

    /// A symlink that loops is there (the state files must not take it for "none yet") but
    /// cannot be read; `move` moves the link itself, not what it would point to.
    @Test func aLoopingSymlinkIsThereButUnreadableAndMovesAsALink() throws {
        try withTemporaryDirectory { directory in
            let link = directory + "/bonds"
            #expect(symlink("bonds", link) == 0)
            do throws(PlatformError) {
                _ = try FileSystem.readFile(path: link)
                Issue.record("read a looping symlink")
            } catch {
                #expect(error.errno == ELOOP)
                #expect(!error.isNoSuchFile)
            }
            do throws(PlatformError) {
                _ = try FileSystem.readFile(path: directory + "/none")
                Issue.record("read a file that is not there")
            } catch {
                #expect(error.isNoSuchFile)
            }
            try FileSystem.move(path: link, to: directory + "/bonds.aside")
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["bonds.aside"])
            var info = stat()
            #expect(lstat(directory + "/bonds.aside", &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
            #expect(throws: PlatformError.self) { try FileSystem.move(path: link, to: directory + "/again") }
        }
    }

    @Test func emptyDirectoryIsRemoved() throws {
        let directory = try FileSystem.makeTemporaryDirectory(prefix: "vigil-remove")
        try FileSystem.remove(path: directory)
        #expect(FileSystem.exists(path: directory) == false)
    }

    @Test func temporaryDirectoryIsPrivate() throws {
        try withTemporaryDirectory { directory in
            var info = stat()
            #expect(stat(directory, &info) == 0)
            #expect(UInt32(info.st_mode) & 0o777 == 0o700)
            #expect(directory.contains("/vigil-platform-tests."))
        }
    }
}
