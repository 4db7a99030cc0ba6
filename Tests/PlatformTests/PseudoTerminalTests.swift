import Glibc
import Testing
@testable import Platform

@Suite struct PseudoTerminalTests {
    @Test func pairIsRawNonBlockingAndConnected() throws {
        let pty = try PseudoTerminal.openPair()
        #expect(pty.secondaryPath.hasPrefix("/dev/pts/"))
        #expect(Terminal.isTerminal(fd: pty.secondary.fileDescriptor))
        #expect(Terminal.isTerminal(fd: pty.primary.fileDescriptor))
        for fd in [pty.primary.fileDescriptor, pty.secondary.fileDescriptor] {
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        }
        let settings = try TerminalSettings.read(fileDescriptor: pty.secondary.fileDescriptor)
        #expect(settings.canonical == false)
        #expect(settings.echo == false)
        #expect(settings.outputProcessing == false)
        #expect(settings.minimumBytes == 0)
        // CR and LF both ways, untranslated: the first thing a cooked PTY would change.
        try pty.primary.write([0x0D, 0x0A, 0x03])
        #expect(try receive(3, from: pty.secondary) == [0x0D, 0x0A, 0x03])
        try pty.secondary.write([0x0A, 0x0D])
        #expect(try receive(2, from: pty.primary) == [0x0A, 0x0D])
    }

    @Test func eachPairIsItsOwnTerminal() throws {
        let first = try PseudoTerminal.openPair()
        let second = try PseudoTerminal.openPair()
        #expect(first.secondaryPath != second.secondaryPath)
    }
}
