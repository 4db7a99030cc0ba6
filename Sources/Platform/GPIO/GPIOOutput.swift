#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPIOD

/// A requested output line (buzzer, LED), from `GPIOChip.requestOutput`.
///
/// Released by `release()`, by deinit, and when its chip closes, each time switched off first:
/// the kernel leaves a released pin at its last level, and a buzzer left on would sound until
/// the next boot. If the process dies without releasing (SIGKILL, a crash) the kernel releases
/// the line when it closes the request's descriptor at exit, at whatever level it had; so the
/// owner catches SIGTERM (SignalWatcher) and calls `release()` before exiting.
public final class GPIOOutput {
    /// The chip is kept alive as long as the line: libgpiod frees line objects with their chip.
    public let chip: GPIOChip
    public let offset: Int
    /// The last level set (logical: "on" honours active-low).
    public private(set) var isOn: Bool
    /// libgpiod's `struct gpiod_line *`; nil once released.
    private var line: OpaquePointer?

    init(chip: GPIOChip, line: OpaquePointer, offset: Int, isOn: Bool) {
        self.chip = chip
        self.line = line
        self.offset = offset
        self.isOn = isOn
    }

    deinit { release() }

    /// Whether the line is still requested.
    public var isRequested: Bool { line != nil && chip.handle != nil }

    /// Drives the line on or off (`gpiod_line_set_value`, one ioctl).
    public func set(_ on: Bool) throws(GPIOError) {
        guard let line, chip.handle != nil else { throw .lineReleased(chip: chip.name, offset: offset) }
        guard gpiod_line_set_value(line, on ? 1 : 0) == 0 else {
            throw .classify(errno: currentErrno, operation: "gpiod_line_set_value(\(chip.name) line \(offset), \(on ? 1 : 0))",
                            chip: chip.name, offset: offset)
        }
        isOn = on
    }

    /// The level the kernel reports for the line (`gpiod_line_get_value`, logical), to check a write.
    public func readBack() throws(GPIOError) -> Bool {
        guard let line, chip.handle != nil else { throw .lineReleased(chip: chip.name, offset: offset) }
        let value = gpiod_line_get_value(line)
        guard value >= 0 else {
            throw .classify(errno: currentErrno, operation: "gpiod_line_get_value(\(chip.name) line \(offset))",
                            chip: chip.name, offset: offset)
        }
        return value != 0
    }

    /// Switches the line off and gives it back to the kernel. Idempotent.
    public func release() {
        guard let line else { return }
        self.line = nil
        // The chip may already be closed, in which case libgpiod released (and freed) the line.
        guard chip.handle != nil else { return }
        // Best effort: if the write fails the line is released anyway, and there is nobody to tell.
        _ = gpiod_line_set_value(line, 0)
        isOn = false
        gpiod_line_release(line)
    }

    /// Called by the chip just before `gpiod_chip_close` releases the line.
    func switchOffBeforeChipCloses() {
        guard let line else { return }
        _ = gpiod_line_set_value(line, 0)
        isOn = false
        self.line = nil
    }
}
