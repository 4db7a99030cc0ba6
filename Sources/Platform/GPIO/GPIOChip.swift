#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPIO
import CPlatform

/// An open GPIO chip (/dev/gpiochipN), from which the buzzer, LED and button lines are requested.
///
/// Speaks the kernel's GPIO character-device uAPI v2 directly (GPIO_GET_CHIPINFO_IOCTL,
/// GPIO_V2_GET_LINE_IOCTL; Linux Documentation/userspace-api/gpio/chardev.rst), which every
/// kernel since 5.10 builds in with CONFIG_GPIO_CDEV; the deprecated v1 uAPI is off by default
/// since Linux 7.1 (docs/gpio-uapi.md). No library sits in between: each request is one ioctl
/// on the chip's descriptor and gives the line its own descriptor.
///
/// Lines requested from a chip keep it alive. `close()` (and deinit, once no line refers to the
/// chip any more) releases every line still requested, switching outputs off first so a buzzer
/// is never left sounding, then closes the chip.
/// Not thread-safe: use a chip and its lines from one thread at a time (a `ToneGenerator` owns
/// its output; stop it before closing the chip).
public final class GPIOChip {
    /// The kernel's device name, "gpiochip0".
    public let name: String
    /// The kernel's label, "pinctrl-rp1" on a Pi 5, "pinctrl-bcm2835" / "pinctrl-bcm2711" before.
    public let label: String
    /// How many lines the chip has: valid offsets are 0..<lineCount.
    public let lineCount: Int
    /// Which of the selector's attempts found this chip, for the start-up log.
    public let openedBy: GPIOChipSelector.Attempt

    /// The chip's descriptor, for line requests and line info; -1 once closed.
    private var chipDescriptor: Int32
    /// Lines requested from this chip, so `close()` can release them (outputs switched off).
    private var outputs: [WeakOutput] = []
    private var buttons: [WeakButton] = []

    private init(_ opened: OpenedChip, openedBy: GPIOChipSelector.Attempt) {
        chipDescriptor = opened.fileDescriptor
        name = opened.name
        label = opened.label
        lineCount = opened.lineCount
        self.openedBy = openedBy
    }

    deinit { close() }

    /// Whether the chip is still open (its lines are usable only while it is).
    var isOpen: Bool { chipDescriptor >= 0 }

    /// Opens the first chip `selector` finds (labels first, then names and paths).
    /// Throws `.noChipFound` listing every attempt and what exists under /dev, or
    /// `.permissionDenied` when a chip exists but may not be opened.
    public static func open(_ selector: GPIOChipSelector) throws(GPIOError) -> GPIOChip {
        let (opened, attempt) = try selector.firstMatch(open: OpenedChip.open)
        return GPIOChip(opened, openedBy: attempt)
    }

    /// Releases every line still requested (outputs switched off first), then closes the chip.
    /// Idempotent.
    public func close() {
        guard isOpen else { return }
        for output in outputs { output.value?.release() }
        for button in buttons { button.value?.release() }
        outputs.removeAll()
        buttons.removeAll()
        closeDescriptor(chipDescriptor)
        chipDescriptor = -1
    }

    /// Requests line `offset` as an output driven by Vigil (buzzer, LED).
    ///
    /// `activeLow`: "on" drives the pin low (an LED wired from 3V3 through a resistor to the pin,
    /// or a low-side switch that conducts on low). `initiallyOn` is the level set atomically with
    /// the request, so the line never glitches the other way first.
    public func requestOutput(offset: Int, consumer: String, activeLow: Bool, initiallyOn: Bool) throws(GPIOError) -> GPIOOutput {
        let descriptor = try requestLine(offset: offset, consumer: consumer,
                                         settings: .output(activeLow: activeLow, initiallyOn: initiallyOn))
        let output = GPIOOutput(chip: self, offset: offset, lineDescriptor: descriptor, isOn: initiallyOn)
        outputs.removeAll { $0.value == nil }
        outputs.append(WeakOutput(value: output))
        return output
    }

    /// Requests line `offset` as a button input with edge events on both edges.
    ///
    /// `activeLow`: pressed pulls the pin low (a button to ground with a pull-up, the usual
    /// wiring); the kernel then reports "pressed" as the logical value 1 and as a rising edge.
    /// `pullUp` asks the pin controller for its internal pull-up (the Raspberry Pi's is about
    /// 50 kOhm); without it the bias is left as it is.
    public func requestButton(offset: Int, consumer: String, activeLow: Bool, pullUp: Bool) throws(GPIOError) -> GPIOButton {
        let descriptor = try requestLine(offset: offset, consumer: consumer, settings: .button(activeLow: activeLow, pullUp: pullUp))
        // Edge events arrive on the event loop through poll(2); a read must never block it.
        guard vigil_set_nonblocking(descriptor) == 0 else {
            let code = currentErrno
            closeDescriptor(descriptor)
            throw .system(operation: "fcntl(\(name) line \(offset) events, O_NONBLOCK)", errno: code)
        }
        let button = GPIOButton(chip: self, offset: offset, lineDescriptor: descriptor)
        buttons.removeAll { $0.value == nil }
        buttons.append(WeakButton(value: button))
        return button
    }

    /// GPIO_V2_GET_LINE_IOCTL for one line; the request's descriptor. The offset is checked
    /// against the chip's size first (the kernel would only say EINVAL).
    private func requestLine(offset: Int, consumer: String, settings: GPIOLineSettings) throws(GPIOError) -> Int32 {
        guard isOpen else { throw .lineReleased(chip: name, offset: offset) }
        guard (0..<lineCount).contains(offset) else {
            throw .lineOutOfRange(chip: name, offset: offset, lineCount: lineCount)
        }
        var request = settings.request(offset: offset, consumer: consumer)
        let descriptor = vigil_gpio_get_line(chipDescriptor, &request)
        guard descriptor >= 0 else {
            throw .classify(errno: -descriptor, operation: "GPIO_V2_GET_LINE_IOCTL(\(name) line \(offset), \"\(consumer)\")",
                            chip: name, offset: offset) { self.consumer(ofLine: offset) }
        }
        return descriptor
    }

    /// Who holds line `offset` now, from GPIO_V2_GET_LINEINFO_IOCTL (asked after the request
    /// failed, so it names the current holder); nil when the kernel did not say.
    func consumer(ofLine offset: Int) -> String? {
        var info = gpio_v2_line_info()
        guard vigil_gpio_line_info(chipDescriptor, UInt32(offset), &info) == 0 else { return nil }
        let holder = String(nulTerminated: info.consumer)
        return holder.isEmpty ? nil : holder
    }
}

/// A chip's descriptor with what GPIO_GET_CHIPINFO_IOCTL said about it: the handle
/// `GPIOChipSelector.firstMatch` looks for.
struct OpenedChip {
    var fileDescriptor: Int32
    var name: String
    var label: String
    var lineCount: Int

    /// One attempt of a selector: a path or name is opened; a label is looked for among every
    /// chip (labels need not be unique: the first in numeric order wins).
    static func open(_ attempt: GPIOChipSelector.Attempt) -> Result<OpenedChip, GPIOChipSelector.OpenFailure> {
        switch attempt {
        case .path(let path): return open(path: path)
        case .name(let name): return open(path: "/dev/" + name)
        case .label(let label): return open(label: label)
        }
    }

    /// The chip at `path`, or the errno: ENOENT when nothing is there, ENOTTY when it is not a
    /// GPIO chip (not a character device, or one that does not answer GPIO_GET_CHIPINFO_IOCTL).
    static func open(path: String) -> Result<OpenedChip, GPIOChipSelector.OpenFailure> {
        var status = stat()
        guard stat(path, &status) == 0 else { return .failure(.init(errno: currentErrno)) }
        // Checked before opening: opening some other device (a serial port) has side effects.
        guard (status.st_mode & S_IFMT) == S_IFCHR else { return .failure(.init(errno: ENOTTY)) }
        let fd = vigil_open(path, O_RDWR | O_CLOEXEC | O_NOCTTY, 0)
        guard fd >= 0 else { return .failure(.init(errno: currentErrno)) }
        var info = gpiochip_info()
        let result = vigil_gpio_chip_info(fd, &info)
        guard result == 0 else {
            closeDescriptor(fd)
            // A driver that checks its ioctl numbers says EINVAL; either way it is not a GPIO chip.
            return .failure(.init(errno: result == -EINVAL ? ENOTTY : -result))
        }
        return .success(OpenedChip(fileDescriptor: fd, name: String(nulTerminated: info.name),
                                   label: String(nulTerminated: info.label), lineCount: Int(info.lines)))
    }

    /// The first chip under /dev labelled `label`. ENOENT when none is; EACCES (or EPERM) when
    /// none is among the chips that could be opened and one could not be for permissions: the
    /// chip we may not open is probably the one meant.
    static func open(label: String) -> Result<OpenedChip, GPIOChipSelector.OpenFailure> {
        var denied: Int32?
        for path in GPIOAvailability.chips() {
            switch open(path: path) {
            case .success(let chip) where chip.label == label:
                return .success(chip)
            case .success(let chip):
                closeDescriptor(chip.fileDescriptor)
            case .failure(let failure):
                if failure.errno == EACCES || failure.errno == EPERM { denied = denied ?? failure.errno }
            }
        }
        return .failure(.init(errno: denied ?? ENOENT))
    }
}

extension String {
    /// A fixed-size C `char` array of a kernel structure (imported as a tuple), up to its first
    /// NUL byte. The kernel terminates its strings, but a full array is read whole all the same.
    init<Characters>(nulTerminated characters: Characters) {
        self = withUnsafeBytes(of: characters) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

private struct WeakOutput {
    weak var value: GPIOOutput?
}

private struct WeakButton {
    weak var value: GPIOButton?
}
