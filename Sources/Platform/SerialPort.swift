#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// A serial port (a Raspberry Pi UART, a USB serial adapter, a PTY) in raw 8N1 mode: the export
/// line protocol and H4 over UART both need every byte 0x00...0xFF to pass unmodified, so no
/// line discipline processing (no CR/LF translation, no ^C, no echo, no XON/XOFF).
public enum SerialPort {
    /// The baud rates `open` accepts (POSIX and Linux termios constants up to 3 Mbaud).
    public static let supportedBaudRates = [
        1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000,
        921_600, 1_000_000, 1_152_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000,
    ]

    /// Opens `path` (O_NOCTTY: a serial port must never become Vigil's controlling terminal)
    /// in raw mode at `baud`, with RTS/CTS hardware flow control when `flowControl` is true,
    /// CLOCAL | CREAD, VMIN = 0 and VTIME = 0 (reads return what is there; the poll loop waits).
    public static func open(path: String, baud: Int, flowControl: Bool) throws(PlatformError) -> any ByteTransport {
        let speed = vigil_speed_for_baud(baud)
        guard supportedBaudRates.contains(baud), speed >= 0 else {
            throw PlatformError(
                operation: "open(\(path))", errno: EINVAL, reason: "\(baud) baud is not a supported rate",
                hint: "use one of " + supportedBaudRates.map(String.init).joined(separator: ", "))
        }
        let fd = vigil_open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0)
        guard fd >= 0 else {
            let code = currentErrno
            throw .system("open(\(path))", errno: code, hint: hint(forErrno: code, path: path))
        }
        guard isatty(fd) == 1 else {
            closeDescriptor(fd)
            throw .system("open(\(path))", errno: ENOTTY, hint: "\(path) is not a serial port or terminal")
        }
        if vigil_configure_raw_tty(fd, speed, flowControl ? 1 : 0) != 0 {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("tcsetattr(\(path), \(baud) baud raw)", errno: code)
        }
        // Best effort: keeps a second program (a stray `screen`) from opening the port and
        // stealing bytes. Root can still open it, and PTYs may refuse; neither is an error.
        _ = vigil_tty_exclusive(fd)
        return try FileDescriptorTransport(adopting: fd, kind: .terminal, name: path)
    }

    static func hint(forErrno code: Int32, path: String) -> String? {
        switch code {
        case ENOENT: return "no such device: check the path (ls /dev/serial* /dev/tty{AMA,S,USB,ACM}*)"
        case EACCES, EPERM: return "no permission: add the user to the dialout group or run as root"
        case EBUSY: return "\(path) is held by another program"
        case ENXIO, ENODEV: return "the device behind \(path) is gone (unplugged?)"
        default: return nil
        }
    }
}

/// The settings the kernel actually holds for a terminal, read back after `SerialPort.open`.
public struct TerminalSettings: Equatable, Sendable {
    public var canonical: Bool
    public var echo: Bool
    public var signals: Bool
    public var outputProcessing: Bool
    public var inputCarriageReturnToNewline: Bool
    public var softwareFlowControl: Bool
    public var ignoresModemLines: Bool
    public var receiverEnabled: Bool
    public var hardwareFlowControl: Bool
    public var eightDataBits: Bool
    public var minimumBytes: Int
    public var timeoutDeciseconds: Int
    /// The baud rate both directions are set to, or nil if they differ or are not in the table.
    public var baud: Int?

    /// Reads the settings of terminal `fileDescriptor` (tcgetattr).
    public static func read(fileDescriptor: Int32) throws(PlatformError) -> TerminalSettings {
        var raw = vigil_tty_settings()
        guard vigil_read_tty_settings(fileDescriptor, &raw) == 0 else {
            throw .fromErrno("tcgetattr(fd \(fileDescriptor))")
        }
        let baud = raw.input_speed == raw.output_speed
            ? SerialPort.supportedBaudRates.first { vigil_speed_for_baud($0) == raw.input_speed }
            : nil
        return TerminalSettings(
            canonical: raw.canonical != 0, echo: raw.echo != 0, signals: raw.signals != 0,
            outputProcessing: raw.output_processing != 0, inputCarriageReturnToNewline: raw.input_cr_to_nl != 0,
            softwareFlowControl: raw.software_flow != 0, ignoresModemLines: raw.local != 0,
            receiverEnabled: raw.receiver_enabled != 0, hardwareFlowControl: raw.hardware_flow != 0,
            eightDataBits: raw.eight_bits != 0, minimumBytes: Int(raw.vmin), timeoutDeciseconds: Int(raw.vtime),
            baud: baud)
    }
}
