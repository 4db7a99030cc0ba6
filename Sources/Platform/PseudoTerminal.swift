#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// A PTY pair: a serial line inside one machine, for tests and the demo (a simulated export
/// receiver, or H4 to a peer that opens `secondaryPath`).
///
/// Both ends are raw (the pair shares one termios, set through the secondary), non-blocking and
/// close-on-exec. When every descriptor of one end closes, the other end reads end of stream.
public struct PseudoTerminal {
    /// The controlling side (what was once called the master, /dev/ptmx).
    public let primary: any ByteTransport
    /// The terminal side, already open.
    public let secondary: any ByteTransport
    /// The secondary's path (/dev/pts/N), for `SerialPort.open` or another program.
    public let secondaryPath: String

    /// posix_openpt, grantpt, unlockpt, then opens the secondary in raw mode.
    public static func openPair() throws(PlatformError) -> PseudoTerminal {
        var name = [CChar](repeating: 0, count: 256)
        let primaryFD = vigil_open_pty_primary(&name, name.count)
        guard primaryFD >= 0 else {
            throw .fromErrno("posix_openpt", hint: { _ in "is /dev/pts mounted?" })
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let primary = try FileDescriptorTransport(adopting: primaryFD, kind: .terminal, name: "pty primary of \(path)")
        let secondaryFD = vigil_open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0)
        guard secondaryFD >= 0 else { throw .fromErrno("open(\(path))") }
        let secondary = try FileDescriptorTransport(adopting: secondaryFD, kind: .terminal, name: path)
        if vigil_configure_raw_tty(secondaryFD, -1, 0) != 0 {
            throw .fromErrno("tcsetattr(\(path), raw)")
        }
        return PseudoTerminal(primary: primary, secondary: secondary, secondaryPath: path)
    }
}
