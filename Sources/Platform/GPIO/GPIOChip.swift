#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPIOD
import CPlatform

/// An open GPIO chip (/dev/gpiochipN) through libgpiod v1, from which the buzzer, LED and button
/// lines are requested.
///
/// libgpiod 1.6 speaks the kernel's GPIO character-device uAPI v1 (GPIO_GET_LINEHANDLE_IOCTL,
/// GPIO_GET_LINEEVENT_IOCTL; Linux Documentation/userspace-api/gpio/chardev_v1.rst), which
/// Debian 12 and Raspberry Pi OS kernels build in (CONFIG_GPIO_CDEV_V1).
///
/// Lines requested from a chip keep it alive. `close()` (and deinit, once no line refers to the
/// chip any more) frees libgpiod's handle; closing switches every output still requested off
/// before the kernel releases it, so a buzzer is never left sounding.
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

    /// libgpiod's `struct gpiod_chip *`; nil once closed.
    private(set) var handle: OpaquePointer?
    /// Outputs requested from this chip, so `close()` can switch them off first.
    private var outputs: [WeakOutput] = []

    private init(handle: OpaquePointer, openedBy: GPIOChipSelector.Attempt) {
        self.handle = handle
        self.openedBy = openedBy
        name = gpiod_chip_name(handle).map { String(cString: $0) } ?? "gpiochip?"
        label = gpiod_chip_label(handle).map { String(cString: $0) } ?? ""
        lineCount = Int(gpiod_chip_num_lines(handle))
    }

    deinit { close() }

    /// Opens the first chip `selector` finds (labels first, then names and paths).
    /// Throws `.noChipFound` listing every attempt and what exists under /dev, or
    /// `.permissionDenied` when a chip exists but may not be opened.
    public static func open(_ selector: GPIOChipSelector) throws(GPIOError) -> GPIOChip {
        let (handle, attempt) = try selector.firstMatch(open: openWithLibgpiod)
        return GPIOChip(handle: handle, openedBy: attempt)
    }

    /// The libgpiod call for each kind of attempt.
    static func openWithLibgpiod(_ attempt: GPIOChipSelector.Attempt) -> Result<OpaquePointer, GPIOChipSelector.OpenFailure> {
        let chip: OpaquePointer?
        switch attempt {
        case .label(let label): chip = gpiod_chip_open_by_label(label)
        case .name(let name): chip = gpiod_chip_open_by_name(name)
        case .path(let path): chip = gpiod_chip_open(path)
        }
        if let chip { return .success(chip) }
        // libgpiod leaves errno 0 in rare paths (an iterator that found nothing); call that "not found".
        let code = currentErrno
        return .failure(.init(errno: code == 0 ? ENOENT : code))
    }

    /// Switches off every output still requested, then frees the chip (the kernel releases its
    /// lines). Idempotent.
    public func close() {
        guard let handle else { return }
        for output in outputs { output.value?.switchOffBeforeChipCloses() }
        outputs.removeAll()
        gpiod_chip_close(handle)
        self.handle = nil
    }

    /// Requests line `offset` as an output driven by Vigil (buzzer, LED).
    ///
    /// `activeLow`: "on" drives the pin low (an LED wired from 3V3 through a resistor to the pin,
    /// or a low-side switch that conducts on low). `initiallyOn` is the level set atomically with
    /// the request, so the line never glitches the other way first.
    public func requestOutput(offset: Int, consumer: String, activeLow: Bool, initiallyOn: Bool) throws(GPIOError) -> GPIOOutput {
        let line = try line(at: offset)
        let flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        if gpiod_line_request_output_flags(line, consumer, flags, initiallyOn ? 1 : 0) != 0 {
            throw requestFailure(line: line, offset: offset, call: "gpiod_line_request_output_flags", consumer: consumer)
        }
        let output = GPIOOutput(chip: self, line: line, offset: offset, isOn: initiallyOn)
        outputs.removeAll { $0.value == nil }
        outputs.append(WeakOutput(value: output))
        return output
    }

    /// Requests line `offset` as a button input with edge events on both edges.
    ///
    /// `activeLow`: pressed pulls the pin low (a button to ground with a pull-up, the usual
    /// wiring); the kernel then reports "pressed" as the logical value 1 and as a rising edge.
    /// `pullUp` asks the pin controller for its internal pull-up (kernel 5.5 or later; the
    /// Raspberry Pi's is about 50 kOhm).
    public func requestButton(offset: Int, consumer: String, activeLow: Bool, pullUp: Bool) throws(GPIOError) -> GPIOButton {
        let line = try line(at: offset)
        var flags: Int32 = 0
        if activeLow { flags |= Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) }
        if pullUp { flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP) }
        if gpiod_line_request_both_edges_events_flags(line, consumer, flags) != 0 {
            throw requestFailure(line: line, offset: offset, call: "gpiod_line_request_both_edges_events_flags", consumer: consumer)
        }
        let fd = gpiod_line_event_get_fd(line)
        guard fd >= 0 else {
            let code = currentErrno
            gpiod_line_release(line)
            throw .system(operation: "gpiod_line_event_get_fd(\(name) line \(offset))", errno: code == 0 ? EBADF : code)
        }
        // Edge events arrive on the event loop through poll(2); a read must never block it.
        guard vigil_set_nonblocking(fd) == 0 else {
            let code = currentErrno
            gpiod_line_release(line)
            throw .system(operation: "fcntl(\(name) line \(offset) events, O_NONBLOCK)", errno: code)
        }
        return GPIOButton(chip: self, line: line, offset: offset, fileDescriptor: fd)
    }

    /// libgpiod's line object for `offset`, checked against the chip's size first (libgpiod
    /// would only say EINVAL).
    private func line(at offset: Int) throws(GPIOError) -> OpaquePointer {
        guard let handle else { throw .lineReleased(chip: name, offset: offset) }
        guard (0..<lineCount).contains(offset) else {
            throw .lineOutOfRange(chip: name, offset: offset, lineCount: lineCount)
        }
        guard let line = gpiod_chip_get_line(handle, UInt32(offset)) else {
            throw .classify(errno: currentErrno, operation: "gpiod_chip_get_line(\(name), \(offset))")
        }
        return line
    }

    private func requestFailure(line: OpaquePointer, offset: Int, call: String, consumer: String) -> GPIOError {
        let code = currentErrno
        return .classify(errno: code, operation: "\(call)(\(name) line \(offset), \"\(consumer)\")", chip: name, offset: offset) {
            // The line info libgpiod cached may predate the other holder's request: refresh it.
            guard gpiod_line_update(line) == 0, let holder = gpiod_line_consumer(line) else { return nil }
            return String(cString: holder)
        }
    }
}

private struct WeakOutput {
    weak var value: GPIOOutput?
}
