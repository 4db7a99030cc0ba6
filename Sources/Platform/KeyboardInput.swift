#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Single key presses from a terminal, for the console face's button (`vigil demo`): the
/// terminal leaves canonical mode and echo, so a key arrives at once without Enter, and keeps
/// ISIG, so Ctrl-C still stops Vigil. The settings are restored by `restore()` or deinit.
///
/// Reads never block (VMIN = VTIME = 0): the event loop polls `fileDescriptor` and reads what
/// is there.
public final class KeyboardInput {
    public let fileDescriptor: Int32
    private var saved: termios
    private var restored = false

    /// Nil when `fileDescriptor` is not a terminal (input piped or redirected): there are no
    /// keys to read, and the caller says so instead of drawing a button nobody can press.
    public init?(fileDescriptor: Int32 = STDIN_FILENO) throws(PlatformError) {
        guard isatty(fileDescriptor) == 1 else { return nil }
        var settings = termios()
        guard tcgetattr(fileDescriptor, &settings) == 0 else { throw .fromErrno("tcgetattr(\(fileDescriptor))") }
        saved = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fileDescriptor, TCSANOW, &settings) == 0 else { throw .fromErrno("tcsetattr(\(fileDescriptor), no echo)") }
        self.fileDescriptor = fileDescriptor
    }

    /// Every key waiting, as bytes (an arrow key is several); empty when there are none.
    public func readKeys() -> [UInt8] {
        var keys: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return keys }
            keys += buffer.prefix(count)
            if count < buffer.count { return keys }
        }
    }

    /// Puts the terminal back as it was. Idempotent.
    public func restore() {
        guard !restored else { return }
        restored = true
        _ = tcsetattr(fileDescriptor, TCSANOW, &saved)
    }

    deinit { restore() }
}
