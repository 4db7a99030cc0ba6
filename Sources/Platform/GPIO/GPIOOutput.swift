#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPIO

/// A requested output line (buzzer, LED), from `GPIOChip.requestOutput`.
///
/// Released by `release()`, by deinit, and when its chip closes, each time switched off first:
/// the kernel leaves a released pin at its last level, and a buzzer left on would sound until
/// the next boot. If the process dies without releasing (SIGKILL, a crash) the kernel releases
/// the line when it closes the request's descriptor at exit, at whatever level it had; so the
/// owner catches SIGTERM (SignalWatcher) and calls `release()` before exiting.
public final class GPIOOutput {
    /// Kept alive as long as the line: closing the chip releases its lines.
    public let chip: GPIOChip
    public let offset: Int
    /// The last level set (logical: "on" honours active-low).
    public private(set) var isOn: Bool
    /// The line request's descriptor from GPIO_V2_GET_LINE_IOCTL; -1 once released.
    private var lineDescriptor: Int32

    init(chip: GPIOChip, offset: Int, lineDescriptor: Int32, isOn: Bool) {
        self.chip = chip
        self.offset = offset
        self.lineDescriptor = lineDescriptor
        self.isOn = isOn
    }

    deinit { release() }

    /// Whether the line is still requested.
    public var isRequested: Bool { lineDescriptor >= 0 && chip.isOpen }

    /// Drives the line on or off (GPIO_V2_LINE_SET_VALUES_IOCTL, one ioctl).
    public func set(_ on: Bool) throws(GPIOError) {
        guard isRequested else { throw .lineReleased(chip: chip.name, offset: offset) }
        let result = vigil_gpio_set_value(lineDescriptor, on ? 1 : 0)
        guard result == 0 else {
            throw .classify(errno: -result, operation: "GPIO_V2_LINE_SET_VALUES_IOCTL(\(chip.name) line \(offset), \(on ? 1 : 0))",
                            chip: chip.name, offset: offset)
        }
        isOn = on
    }

    /// The level the kernel reports for the line (GPIO_V2_LINE_GET_VALUES_IOCTL, logical), to
    /// check a write.
    public func readBack() throws(GPIOError) -> Bool {
        guard isRequested else { throw .lineReleased(chip: chip.name, offset: offset) }
        let value = vigil_gpio_get_value(lineDescriptor)
        guard value >= 0 else {
            throw .classify(errno: -value, operation: "GPIO_V2_LINE_GET_VALUES_IOCTL(\(chip.name) line \(offset))",
                            chip: chip.name, offset: offset)
        }
        return value != 0
    }

    /// Switches the line off and gives it back to the kernel (closing the request's
    /// descriptor releases it). Idempotent; the chip calls it when it closes.
    public func release() {
        guard lineDescriptor >= 0 else { return }
        // Best effort: if the write fails the line is released anyway, and there is nobody to tell.
        _ = vigil_gpio_set_value(lineDescriptor, 0)
        isOn = false
        closeDescriptor(lineDescriptor)
        lineDescriptor = -1
    }
}
