import Clocks
import Glibc
import Testing
@testable import Platform

/// Every test here runs against a real PTY pair (the kernel's pty driver with the n_tty line
/// discipline), the closest thing to a UART this machine has.
@Suite struct SerialPortTests {
    @Test func everyByteValuePassesUnmodifiedBothWays() throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: 115_200, flowControl: false)
        // 0x03 (^C), 0x04 (^D), 0x0A/0x0D (newline translation), 0x11/0x13 (XON/XOFF), 0x7F
        // (erase) are the bytes a cooked terminal would eat or change.
        let everyValue = (0...255).map { UInt8($0) }
        try pty.primary.write(everyValue)
        #expect(try receive(256, from: serial) == everyValue)
        try serial.write(everyValue.reversed())
        #expect(try receive(256, from: pty.primary) == everyValue.reversed())
        // Nothing was echoed back to the sender.
        var buffer: [UInt8] = []
        #expect(throws: PlatformError.self) { try pty.primary.read(into: &buffer, maxCount: 16) }
    }

    @Test func rawModeSettingsAreWhatTheKernelKept() throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: 115_200, flowControl: false)
        let settings = try TerminalSettings.read(fileDescriptor: serial.fileDescriptor)
        #expect(settings == TerminalSettings(
            canonical: false, echo: false, signals: false, outputProcessing: false,
            inputCarriageReturnToNewline: false, softwareFlowControl: false, ignoresModemLines: true,
            receiverEnabled: true, hardwareFlowControl: false, eightDataBits: true,
            minimumBytes: 0, timeoutDeciseconds: 0, baud: 115_200))
        #expect(fcntl(serial.fileDescriptor, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(serial.fileDescriptor, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func hardwareFlowControlIsSetWhenAsked() throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: 3_000_000, flowControl: true)
        let settings = try TerminalSettings.read(fileDescriptor: serial.fileDescriptor)
        #expect(settings.hardwareFlowControl)
        #expect(settings.baud == 3_000_000)
        #expect(settings.canonical == false)
    }

    @Test(arguments: SerialPort.supportedBaudRates)
    func everySupportedBaudRateIsApplied(baud: Int) throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: baud, flowControl: false)
        #expect(try TerminalSettings.read(fileDescriptor: serial.fileDescriptor).baud == baud)
    }

    @Test(arguments: [0, -9600, 300, 12_345, 115_201, 3_000_001, 4_000_000, Int.max])
    func unsupportedBaudRateIsRejectedClearly(baud: Int) {
        do {
            _ = try SerialPort.open(path: "/dev/null", baud: baud, flowControl: false)
            Issue.record("\(baud) baud was accepted")
        } catch {
            #expect(error.errno == EINVAL)
            #expect(error.reason == "\(baud) baud is not a supported rate")
            #expect(error.hint?.hasPrefix("use one of 1200, 2400, ") == true)
            #expect(error.hint?.hasSuffix(", 2500000, 3000000") == true)
        }
    }

    @Test func missingDeviceSaysWhereToLook() {
        do {
            _ = try SerialPort.open(path: "/dev/ttyVIGIL-does-not-exist", baud: 115_200, flowControl: false)
            Issue.record("opened a missing device")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.operation == "open(/dev/ttyVIGIL-does-not-exist)")
            #expect(error.hint == "no such device: check the path (ls /dev/serial* /dev/tty{AMA,S,USB,ACM}*)")
        }
    }

    @Test func nonTerminalIsRefused() {
        do {
            _ = try SerialPort.open(path: "/dev/null", baud: 9600, flowControl: false)
            Issue.record("/dev/null was accepted as a serial port")
        } catch {
            #expect(error.errno == ENOTTY)
            #expect(error.hint == "/dev/null is not a serial port or terminal")
        }
    }

    /// The receiver sees a long message in small reads: reassembly must give back exactly what
    /// was sent, and each read must respect maxCount and leave the buffer holding just its bytes.
    @Test(arguments: [1, 7, 64, 4096])
    func partialReadsReassemble(maxCount: Int) throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: 921_600, flowControl: false)
        let message = pattern(3000, seed: maxCount)
        try pty.primary.write(message)
        var loop = PollLoop()
        loop.register(serial.fileDescriptor)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0xEE, count: 10_000)
        let deadline = SystemClock.monotonicNow() + .seconds(5)
        while received.count < message.count {
            guard try !loop.wait(until: deadline).isEmpty else { break }
            let n = try serial.read(into: &buffer, maxCount: maxCount)
            #expect(n >= 1 && n <= maxCount)
            #expect(buffer.count == n)
            received += buffer
        }
        #expect(received == message)
    }

    /// With VMIN = 0 an empty terminal read returns 0, which must not be mistaken for end of stream.
    @Test func emptyTerminalIsWouldBlockNotEndOfStream() throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: 115_200, flowControl: false)
        var buffer: [UInt8] = []
        do {
            _ = try serial.read(into: &buffer, maxCount: 64)
            Issue.record("an empty terminal read returned")
        } catch {
            #expect(error.isWouldBlock)
        }
    }

    @Test func primaryReadsEndOfStreamWhenTheSecondaryCloses() throws {
        let pty = try PseudoTerminal.openPair()
        let serial = try SerialPort.open(path: pty.secondaryPath, baud: 115_200, flowControl: false)
        try serial.write([0x42])
        #expect(try receive(1, from: pty.primary) == [0x42])
        serial.close()
        pty.secondary.close()
        var loop = PollLoop()
        loop.register(pty.primary.fileDescriptor)
        let events = try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
        #expect(events.first?.isHangUp == true)
        var buffer: [UInt8] = []
        #expect(try pty.primary.read(into: &buffer, maxCount: 64) == 0)
    }

    @Test func secondaryReadsEndOfStreamWhenThePrimaryCloses() throws {
        let pty = try PseudoTerminal.openPair()
        pty.primary.close()
        var buffer: [UInt8] = []
        #expect(try pty.secondary.read(into: &buffer, maxCount: 64) == 0)
    }
}
