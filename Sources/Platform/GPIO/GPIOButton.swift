#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPIOD

/// One edge the kernel saw on a button line (`struct gpiod_line_event`, from the kernel's
/// `struct gpioevent_data`, Linux include/uapi/linux/gpio.h).
public struct GPIOEdge: Equatable, Sendable {
    /// True for a rising edge of the logical value, which with `activeLow` is the button going down.
    /// The kernel decides by reading the level after the interrupt, so a bouncing contact can
    /// give two presses in a row: the button classifier debounces.
    public var pressed: Bool
    /// When the interrupt fired, in nanoseconds of CLOCK_MONOTONIC (the kernel's clock for v1 line
    /// events since Linux 5.7), comparable with `SystemClock.monotonicNow()`.
    public var kernelTimestampNanoseconds: UInt64

    public init(pressed: Bool, kernelTimestampNanoseconds: UInt64) {
        self.pressed = pressed
        self.kernelTimestampNanoseconds = kernelTimestampNanoseconds
    }
}

/// A button input with edge events, from `GPIOChip.requestButton`.
///
/// Register `fileDescriptor` with the event loop (PollLoop); when it is readable, `readEdges()`
/// drains what the kernel queued (its FIFO holds 16 events per line). Nothing polls the level.
/// Released by `release()`, by deinit, when the chip closes, and by the kernel at process exit.
public final class GPIOButton {
    /// The chip is kept alive as long as the line: libgpiod frees line objects with their chip.
    public let chip: GPIOChip
    public let offset: Int
    /// The non-blocking event descriptor (owned by libgpiod: do not close it); -1 once released
    /// or once the chip closed (which closes it), so a stale number is never polled.
    public var fileDescriptor: Int32 { isRequested ? eventDescriptor : -1 }
    private let eventDescriptor: Int32
    /// libgpiod's `struct gpiod_line *`; nil once released.
    private var line: OpaquePointer?

    /// The kernel's per-line event FIFO is 16 deep, and so is libgpiod's read buffer.
    static let eventsPerRead = 16
    /// A bound on one drain, so a contact chattering faster than we read cannot hold the loop:
    /// what is left makes the descriptor readable again.
    static let maximumReadsPerDrain = 8

    init(chip: GPIOChip, line: OpaquePointer, offset: Int, fileDescriptor: Int32) {
        self.chip = chip
        self.line = line
        self.offset = offset
        eventDescriptor = fileDescriptor
    }

    deinit { release() }

    /// Whether the line is still requested.
    public var isRequested: Bool { line != nil && chip.handle != nil }

    /// The button's current state (the logical level: 1 is pressed with `activeLow`). For the
    /// "held at boot" check; presses themselves arrive as edges.
    public func isPressed() throws(GPIOError) -> Bool {
        let line = try requestedLine()
        let value = gpiod_line_get_value(line)
        guard value >= 0 else {
            throw .classify(errno: currentErrno, operation: "gpiod_line_get_value(\(chip.name) line \(offset))",
                            chip: chip.name, offset: offset)
        }
        return value != 0
    }

    /// Every edge queued now, oldest first; empty when none (never blocks).
    public func readEdges() throws(GPIOError) -> [GPIOEdge] {
        _ = try requestedLine()
        var buffer = [gpiod_line_event](repeating: gpiod_line_event(), count: Self.eventsPerRead)
        var edges: [GPIOEdge] = []
        var reads = 0
        while reads < Self.maximumReadsPerDrain {
            let count = gpiod_line_event_read_fd_multiple(eventDescriptor, &buffer, UInt32(Self.eventsPerRead))
            if count < 0 {
                let code = currentErrno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                throw .classify(errno: code, operation: "gpiod_line_event_read_fd_multiple(\(chip.name) line \(offset))",
                                chip: chip.name, offset: offset)
            }
            reads += 1
            for event in buffer.prefix(Int(count)) {
                let nanoseconds = UInt64(max(0, event.ts.tv_sec)) * 1_000_000_000 + UInt64(max(0, event.ts.tv_nsec))
                edges.append(GPIOEdge(pressed: event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE),
                                      kernelTimestampNanoseconds: nanoseconds))
            }
            // A short read means the FIFO was empty: no need for one more read to hear EAGAIN.
            if Int(count) < Self.eventsPerRead { break }
        }
        return edges
    }

    /// Gives the line back to the kernel (which closes the event descriptor). Idempotent.
    public func release() {
        guard let line else { return }
        self.line = nil
        // A closed chip already released and freed the line.
        guard chip.handle != nil else { return }
        gpiod_line_release(line)
    }

    private func requestedLine() throws(GPIOError) -> OpaquePointer {
        guard let line, chip.handle != nil else { throw .lineReleased(chip: chip.name, offset: offset) }
        return line
    }
}
