import Glibc
import Testing
@testable import Platform

@Suite struct TerminalTests {
    @Test func ptyIsATerminalAndAPipeIsNot() throws {
        let pty = try PseudoTerminal.openPair()
        #expect(Terminal.isTerminal(fd: pty.secondary.fileDescriptor))
        let pipe = makePipe()
        defer { close(pipe.read); close(pipe.write) }
        #expect(Terminal.isTerminal(fd: pipe.read) == false)
        #expect(Terminal.isTerminal(fd: -1) == false)
    }
}
