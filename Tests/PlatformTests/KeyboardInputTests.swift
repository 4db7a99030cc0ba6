#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import Platform

/// On a pseudo-terminal, as a person's terminal would be: keys arrive without Enter and without
/// echo, and the settings come back afterwards.
@Suite struct KeyboardInputTests {
    @Test func aPipeIsNotAKeyboard() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(try KeyboardInput(fileDescriptor: fds[0]) == nil)
    }

    @Test func keysArriveAtOnceWithoutEchoAndTheTerminalIsRestored() throws {
        let terminal = try PseudoTerminal.openPair()
        defer { terminal.primary.close(); terminal.secondary.close() }
        let secondary = open(terminal.secondaryPath, O_RDWR | O_NOCTTY)
        #expect(secondary >= 0)
        defer { close(secondary) }
        // The pair starts raw; make it the cooked, echoing terminal a person types in.
        var before = termios()
        #expect(tcgetattr(secondary, &before) == 0)
        before.c_lflag |= tcflag_t(ICANON | ECHO | ISIG)
        #expect(tcsetattr(secondary, TCSANOW, &before) == 0)
        #expect(tcgetattr(secondary, &before) == 0)

        let keyboard = try #require(try KeyboardInput(fileDescriptor: secondary))
        var during = termios()
        #expect(tcgetattr(secondary, &during) == 0)
        #expect(during.c_lflag & tcflag_t(ICANON | ECHO) == 0)
        #expect(during.c_lflag & tcflag_t(ISIG) != 0, "Ctrl-C must still stop Vigil")
        #expect(keyboard.readKeys().isEmpty, "nothing typed yet, and the read must not block")

        try terminal.primary.write(Array("b".utf8))
        var keys: [UInt8] = []
        for _ in 0..<100 where keys.isEmpty {
            keys = keyboard.readKeys()
            if keys.isEmpty { usleep(10_000) }
        }
        #expect(keys == Array("b".utf8), "one key, no Enter needed")

        keyboard.restore()
        var after = termios()
        #expect(tcgetattr(secondary, &after) == 0)
        #expect(after.c_lflag == before.c_lflag)
    }
}
