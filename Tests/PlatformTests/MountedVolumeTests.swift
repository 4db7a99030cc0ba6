import Glibc
import Testing
@testable import Platform

@Suite struct MountedVolumeTests {
    @Test func aMissingPathIsMissing() throws {
        _ = try withTemporaryDirectory { directory in
            #expect(throws: MountedVolume.Problem.missing(path: directory + "/usb0")) {
                try MountedVolume.inspect(path: directory + "/usb0")
            }
        }
    }

    /// A directory on its parent's file system is where a stick would be mounted, not a stick.
    @Test func anOrdinaryDirectoryIsNotAMountPoint() throws {
        try withTemporaryDirectory { directory in
            #expect(throws: MountedVolume.Problem.notAMountPoint(path: directory)) {
                try MountedVolume.inspect(path: directory)
            }
            // Accepted when the caller asks for any directory, with the free space measured.
            let volume = try MountedVolume.inspect(path: directory, requireMountPoint: false)
            #expect(volume.path == directory)
            #expect(volume.availableBytes > 0)
        }
    }

    @Test func aFileIsNotADirectory() throws {
        try withTemporaryDirectory { directory in
            try AtomicFile.write(path: directory + "/f", bytes: [1])
            #expect(throws: MountedVolume.Problem.notADirectory(path: directory + "/f")) {
                try MountedVolume.inspect(path: directory + "/f", requireMountPoint: false)
            }
        }
    }

    /// /proc is a mount point on every Linux (its own device, unlike /); it is mounted
    /// read-write, so it passes the check. `/` is its own parent and counts as mounted.
    @Test func realMountPointsPass() throws {
        #expect(try MountedVolume.inspect(path: "/proc").path == "/proc")
        #expect(try MountedVolume.inspect(path: "/").path == "/")
    }

    @Test func renameAndSyncDirectoryMoveAFolderAtomically() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.createDirectories(path: directory + "/.bundle.partial")
            try AtomicFile.write(path: directory + "/.bundle.partial/a", bytes: [1])
            try FileSystem.syncDirectory(directory + "/.bundle.partial")
            try FileSystem.rename(directory + "/.bundle.partial", to: directory + "/bundle")
            try FileSystem.syncDirectory(directory)
            #expect(try FileSystem.contentsOfDirectory(path: directory) == ["bundle"])
            #expect(try FileSystem.readFile(path: directory + "/bundle/a") == [1])
            #expect(throws: PlatformError.self) { try FileSystem.rename(directory + "/nothing", to: directory + "/x") }
        }
    }

    @Test func errnoPredicates() {
        #expect(PlatformError.system("write", errno: ENOSPC).isNoSpace)
        #expect(!PlatformError.system("write", errno: EIO).isNoSpace)
        #expect(PlatformError.system("open", errno: EROFS).isReadOnlyFileSystem)
        #expect(!PlatformError.system("open", errno: EACCES).isReadOnlyFileSystem)
    }
}

@Suite struct NonBlockingWriteTests {
    /// A full pipe takes part of a write, then nothing (0, not an error), and after a read
    /// takes more: a poll loop can stream into it without ever waiting.
    @Test func aFullPipeTakesWhatFitsThenZero() throws {
        let (readEnd, writeEnd) = makePipe()
        let ends = [readEnd, writeEnd]
        #expect(fcntl(writeEnd, F_SETFL, O_NONBLOCK) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
        let first = try NonBlockingWrite.write(ends[1], chunk[...])
        #expect(first > 0 && first < chunk.count)
        #expect(try NonBlockingWrite.write(ends[1], chunk[first...]) == 0)
        var sink = [UInt8](repeating: 0, count: 4096)
        #expect(read(ends[0], &sink, sink.count) == 4096)
        #expect(try NonBlockingWrite.write(ends[1], chunk[first...]) > 0)
        #expect(try NonBlockingWrite.write(ends[1], [][...]) == 0)
    }

    @Test func aClosedReaderIsAnError() throws {
        let (readEnd, writeEnd) = makePipe()
        let ends = [readEnd, writeEnd]
        close(ends[0])
        defer { close(ends[1]) }
        signal(SIGPIPE, SIG_IGN)
        #expect(throws: PlatformError.self) { _ = try NonBlockingWrite.write(ends[1], [1, 2, 3][...]) }
    }
}
