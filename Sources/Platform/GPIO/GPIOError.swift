#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a GPIO chip or line could not be used, worded for the person at the bedside who wired the
/// buzzer, LED and button: each case says what was asked for, what the kernel said, and what to do.
///
/// Errors come from the kernel's GPIO character-device uAPI v2 (Linux
/// Documentation/userspace-api/gpio/chardev.rst; docs/gpio-uapi.md), as errno values.
public enum GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// None of the selector's candidates opened. `tried` lists every attempt in order with why it
    /// failed; `present` is what exists under /dev (empty: "no /dev/gpiochip* on this machine").
    case noChipFound(tried: [GPIOChipAttemptFailure], present: [GPIOChipInfo])
    /// The board profile names a line the chip does not have.
    case lineOutOfRange(chip: String, offset: Int, lineCount: Int)
    /// EBUSY: someone else holds the line. `consumer` is the name they requested it under
    /// (GPIO_V2_GET_LINEINFO_IOCTL's `consumer`), nil when the kernel did not say.
    case lineBusy(chip: String, offset: Int, consumer: String?)
    /// EACCES or EPERM on `operation` (the /dev/gpiochip* node is root:gpio 0660 on Raspberry Pi OS).
    case permissionDenied(operation: String, errno: Int32)
    /// The line was released (or its chip closed) and then used.
    case lineReleased(chip: String, offset: Int)
    /// A request we refuse before asking the kernel (a tone frequency outside the audible range).
    case invalidArgument(operation: String, reason: String)
    /// Any other failure of `operation`, with its errno.
    case system(operation: String, errno: Int32)

    /// The hint for a permission problem: on Raspberry Pi OS and Debian the gpiochip nodes belong
    /// to the `gpio` group, and the packaged service runs as its own user in that group.
    public static let permissionHint =
        "add the user to the gpio group (sudo usermod -aG gpio $USER, then log in again), or run as the vigil service user"

    /// Maps the errno of a failed line request to the case a person can act on.
    ///
    /// `consumer` is asked only for EBUSY, and only then: it re-reads the line's info from the
    /// kernel, which names whoever holds it now.
    public static func classify(errno code: Int32, operation: String, chip: String, offset: Int,
                                consumer: () -> String? = { nil }) -> GPIOError {
        switch code {
        case EBUSY:
            return .lineBusy(chip: chip, offset: offset, consumer: consumer())
        case EACCES, EPERM:
            return .permissionDenied(operation: operation, errno: code)
        default:
            return .system(operation: operation, errno: code)
        }
    }

    /// Maps the errno of a failed chip or descriptor operation (no line involved).
    public static func classify(errno code: Int32, operation: String) -> GPIOError {
        switch code {
        case EACCES, EPERM: return .permissionDenied(operation: operation, errno: code)
        default: return .system(operation: operation, errno: code)
        }
    }

    /// The errno behind this error, or 0 when it did not come from the kernel.
    public var errno: Int32 {
        switch self {
        case .lineBusy: return EBUSY
        case .permissionDenied(_, let code), .system(_, let code): return code
        case .noChipFound(let tried, _): return tried.last?.errno ?? ENOENT
        case .lineOutOfRange: return EINVAL
        case .lineReleased: return EBADF
        case .invalidArgument: return EINVAL
        }
    }

    public var description: String {
        switch self {
        case .noChipFound(let tried, let present):
            let attempts = tried.isEmpty ? "nothing (the selector is empty)" : tried.map(\.description).joined(separator: "; ")
            let found = present.isEmpty
                ? "no /dev/gpiochip* on this machine (not a Raspberry Pi, or its GPIO driver is not loaded)"
                : "present: " + present.map(\.description).joined(separator: ", ")
                    + "; set the chip in the board profile to one of these"
            return "no GPIO chip found: tried \(attempts). \(found)"
        case .lineOutOfRange(let chip, let offset, let lineCount):
            let range = lineCount > 0 ? "0...\(lineCount - 1)" : "none"
            return "GPIO line \(offset) does not exist on \(chip), which has \(lineCount) lines (\(range)): "
                + "check the line offsets in the board profile (they are BCM GPIO numbers, not header pin numbers)"
        case .lineBusy(let chip, let offset, let consumer):
            let holder = consumer.map { "\"\($0)\" holds it" } ?? "an unnamed consumer holds it"
            return "GPIO line \(offset) on \(chip) is busy: \(holder). Another program (another vigil, gpioset, gpiomon, a script) "
                + "or a dtoverlay in /boot/firmware/config.txt (gpio-shutdown, gpio-key, w1-gpio, a HAT's driver) has claimed it: "
                + "stop that program, remove the overlay, or choose another pin in the board profile"
        case .permissionDenied(let operation, let code):
            return "\(operation) failed: \(PlatformError.system(operation, errno: code).reason)\(Self.errnoSuffix(code)): \(Self.permissionHint)"
        case .lineReleased(let chip, let offset):
            return "GPIO line \(offset) on \(chip) was used after it was released (or after its chip was closed)"
        case .invalidArgument(let operation, let reason):
            return "\(operation): \(reason)"
        case .system(let operation, let code):
            return PlatformError.system(operation, errno: code).description
        }
    }

    static func errnoSuffix(_ code: Int32) -> String {
        let error = PlatformError.system("", errno: code)
        if let name = error.errnoName { return " (\(name))" }
        return code == 0 ? "" : " (errno \(code))"
    }
}

/// One way of finding a chip that did not work, as reported in `GPIOError.noChipFound`.
public struct GPIOChipAttemptFailure: Equatable, Sendable, CustomStringConvertible {
    public var attempt: GPIOChipSelector.Attempt
    /// Why the kernel refused (ENOENT: nothing by that name, path or label; ENOTTY: not a GPIO chip).
    public var errno: Int32

    public init(attempt: GPIOChipSelector.Attempt, errno: Int32) {
        self.attempt = attempt
        self.errno = errno
    }

    public var description: String {
        let reason: String
        switch (attempt, errno) {
        case (.label, ENOENT): reason = "no chip has that label"
        case (_, ENOENT): reason = "does not exist"
        case (_, ENOTTY), (_, ENODEV): reason = "not a GPIO chip"
        default: reason = PlatformError.system("", errno: errno).reason + GPIOError.errnoSuffix(errno)
        }
        return "\(attempt) (\(reason))"
    }
}

/// What a /dev/gpiochip* node is, for error messages and `vigil` diagnostics.
public struct GPIOChipInfo: Equatable, Sendable, CustomStringConvertible {
    /// "/dev/gpiochip0".
    public var path: String
    /// The kernel's label ("pinctrl-rp1", "pinctrl-bcm2835"), nil when the chip could not be opened.
    public var label: String?
    public var lineCount: Int?

    public init(path: String, label: String? = nil, lineCount: Int? = nil) {
        self.path = path
        self.label = label
        self.lineCount = lineCount
    }

    public var description: String {
        guard let label else { return path }
        return lineCount.map { "\(path) (\"\(label)\", \($0) lines)" } ?? "\(path) (\"\(label)\")"
    }
}
