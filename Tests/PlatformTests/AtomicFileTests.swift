import Glibc
import Testing
@testable import Platform

private func mode(of path: String) -> UInt32 {
    var info = stat()
    precondition(stat(path, &info) == 0)
    return UInt32(info.st_mode) & 0o7777
}

private func inode(of path: String) -> UInt64 {
    var info = stat()
    precondition(stat(path, &info) == 0)
    return UInt64(info.st_ino)
}

@Suite struct AtomicFileTests {
    @Test func newFileHasExactlyMode0600AndTheBytes() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/bonds.json"
            try AtomicFile.write(path: path, bytes: Array("{\"bonds\":[]}".utf8))
            #expect(mode(of: path) == 0o600)
            #expect(try FileSystem.readFile(path: path) == Array("{\"bonds\":[]}".utf8))
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["bonds.json"])
        }
    }

    /// The mode is set with fchmod, so neither the umask nor the old file's mode leaks through.
    @Test(arguments: [0o600, 0o644, 0o640] as [UInt32])
    func modeIsExactWhateverTheOldFileHad(requested: UInt32) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/config"
            try AtomicFile.write(path: path, bytes: [1], mode: 0o666)
            try AtomicFile.write(path: path, bytes: [2], mode: requested)
            #expect(mode(of: path) == requested)
        }
    }

    /// A reader holding the old file keeps seeing the whole old contents; the path switches to
    /// the whole new contents (a new inode: replaced by rename, not rewritten in place); no
    /// temporary file is left behind.
    @Test func replaceIsAtomic() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/bonds"
            let old = pattern(10_000, seed: 1)
            let new = pattern(7_000, seed: 2)
            try AtomicFile.write(path: path, bytes: old)
            let oldInode = inode(of: path)
            let reader = try FileReader(path: path)
            try AtomicFile.write(path: path, bytes: new)
            #expect(try reader.read(upToCount: 20_000) == old)
            #expect(try FileSystem.readFile(path: path) == new)
            #expect(inode(of: path) != oldInode)
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["bonds"])
        }
    }

    @Test func emptyContentsAreWritten() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/empty"
            try AtomicFile.write(path: path, bytes: [9, 9])
            try AtomicFile.write(path: path, bytes: [])
            #expect(try FileSystem.readFile(path: path) == [])
        }
    }

    @Test func missingDirectoryFailsAndLeavesNothing() throws {
        try withTemporaryDirectory { directory in
            do {
                try AtomicFile.write(path: directory + "/missing/bonds", bytes: [1])
                Issue.record("wrote into a directory that does not exist")
            } catch let error as PlatformError {
                #expect(error.errno == ENOENT)
                #expect(error.operation.hasPrefix("open(\(directory)/missing/.bonds."))
            }
            #expect(try FileSystem.contentsOfDirectory(path: directory) == [])
        }
    }

    @Test func directoryInTheWayFailsAndLeavesNoTemporary() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.createDirectories(path: directory + "/bonds")
            #expect(throws: PlatformError.self) { try AtomicFile.write(path: directory + "/bonds", bytes: [1]) }
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["bonds"])
        }
    }

    @Test(arguments: [
        ("/var/lib/vigil/bonds", "/var/lib/vigil", "bonds"),
        ("bonds", ".", "bonds"),
        ("/bonds", "/", "bonds"),
        ("state/bonds", "state", "bonds"),
        ("/var/lib/vigil/", "/var/lib/vigil", ""),
    ])
    func pathIsSplitIntoDirectoryAndName(path: String, directory: String, base: String) {
        let split = AtomicFile.split(path)
        #expect(split.directory == directory)
        #expect(split.base == base)
    }

    @Test func pathEndingInSlashIsRefused() {
        #expect(throws: PlatformError(operation: "write(/tmp/)", errno: EISDIR, reason: "the path names a directory, not a file")) {
            try AtomicFile.write(path: "/tmp/", bytes: [1])
        }
    }

    /// The owner given is set before the rename: a replaced token file stays readable to the
    /// service's group. As root any group can be given; otherwise the caller's own.
    @Test func theOwnerGivenIsTheNewFilesAndSoAreThePermissions() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/web-token"
            let group: UInt32 = getuid() == 0 ? 1 : getgid()
            try AtomicFile.write(path: path, bytes: Array("token\n".utf8), mode: 0o640, owner: (getuid(), group))
            #expect(try FileSystem.owner(path: path) == (getuid(), group))
            #expect(try FileSystem.permissions(path: path) == 0o640)
            #expect(mode(of: path) == 0o640)
        }
    }
}
