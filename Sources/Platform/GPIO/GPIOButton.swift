#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CGPIO

/// One edge the kernel saw on a button line (a `struct gpio_v2_line_event` read from the line
/// request's descriptor; docs/gpio-uapi.md).
public struct GPIOEdge: Equatable, Sendable {
    /// True for a rising edge of the logical value, which with `activeLow` is the button going down.
    /// The kernel decides by reading the level after the interrupt, so a bouncing contact can
    /// give two presses in a row: the button classifier debounces.
    public var pressed: Bool
    /// When the interrupt fired, in nanoseconds of CLOCK_MONOTONIC (the v2 uAPI's default event
    /// clock), comparable with `SystemClock.monotonicNow()`.
    public var kernelTimestampNanoseconds: UInt64

    public init(pressed: Bool, kernelTimestampNanoseconds: UInt64) {
        self.pressed = pressed
        self.kernelTimestampNanoseconds = kernelTimestampNanoseconds
    }

    /// The size of one event record as the kernel writes it: 48 bytes on every architecture.
    static let recordSize = MemoryLayout<gpio_v2_line_event>.size

    /// The edges in `bytes`, whole records as read(2) returns them from a line request (a read
    /// never splits one); a trailing fragment is ignored. A record whose id is neither rising
    /// nor falling (none exists in the uAPI today) is skipped rather than guessed at.
    static func decode(records bytes: UnsafeRawBufferPointer) -> [GPIOEdge] {
        stride(from: 0, through: bytes.count - recordSize, by: recordSize).compactMap { start in
            let event = bytes.loadUnaligned(fromByteOffset: start, as: gpio_v2_line_event.self)
            switch event.id {
            case UInt32(GPIO_V2_LINE_EVENT_RISING_EDGE.rawValue):
                return GPIOEdge(pressed: true, kernelTimestampNanoseconds: event.timestamp_ns)
            case UInt32(GPIO_V2_LINE_EVENT_FALLING_EDGE.rawValue):
                return GPIOEdge(pressed: false, kernelTimestampNanoseconds: event.timestamp_ns)
            default:
                return nil
            }
        }
    }
}

/// A button input with edge events, from `GPIOChip.requestButton`.
///
/// Register `fileDescriptor` with the event loop (PollLoop); when it is readable, `readEdges()`
/// drains what the kernel queued (16 events for the line). Nothing polls the level.
/// Released by `release()`, by deinit, when the chip closes, and by the kernel at process exit.
public final class GPIOButton {
    /// Kept alive as long as the line: closing the chip releases its lines.
    public let chip: GPIOChip
    public let offset: Int
    /// The line request's non-blocking descriptor, which delivers the edge events; -1 once
    /// released or once the chip closed (which releases it), so a stale number is never polled.
    public var fileDescriptor: Int32 { isRequested ? lineDescriptor : -1 }
    private var lineDescriptor: Int32

    /// The kernel's event queue for the request (`GPIOLineSettings.eventBufferSize`), read whole.
    static let eventsPerRead = 16
    /// A bound on one drain, so a contact chattering faster than we read cannot hold the loop:
    /// what is left makes the descriptor readable again.
    static let maximumReadsPerDrain = 8

    init(chip: GPIOChip, offset: Int, lineDescriptor: Int32) {
        self.chip = chip
        self.offset = offset
        self.lineDescriptor = lineDescriptor
    }

    deinit { release() }

    /// Whether the line is still requested.
    public var isRequested: Bool { lineDescriptor >= 0 && chip.isOpen }

    /// The button's current state (the logical level: 1 is pressed with `activeLow`). For the
    /// "held at boot" check; presses themselves arrive as edges.
    public func isPressed() throws(GPIOError) -> Bool {
        guard isRequested else { throw .lineReleased(chip: chip.name, offset: offset) }
        let value = vigil_gpio_get_value(lineDescriptor)
        guard value >= 0 else {
            throw .classify(errno: -value, operation: "GPIO_V2_LINE_GET_VALUES_IOCTL(\(chip.name) line \(offset))",
                            chip: chip.name, offset: offset)
        }
        return value != 0
    }

    /// Every edge queued now, oldest first; empty when none (never blocks).
    public func readEdges() throws(GPIOError) -> [GPIOEdge] {
        guard isRequested else { throw .lineReleased(chip: chip.name, offset: offset) }
        let capacity = Self.eventsPerRead * GPIOEdge.recordSize
        var buffer = [UInt8](repeating: 0, count: capacity)
        var edges: [GPIOEdge] = []
        var reads = 0
        while reads < Self.maximumReadsPerDrain {
            // errno is taken at once, before anything else can change it: a failure is -errno.
            let count = buffer.withUnsafeMutableBytes { bytes in
                let count = readDescriptor(lineDescriptor, bytes.baseAddress, capacity)
                return count < 0 ? -Int(currentErrno) : count
            }
            if count < 0 {
                let code = Int32(-count)
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                throw .classify(errno: code, operation: "read(\(chip.name) line \(offset) events)", chip: chip.name, offset: offset)
            }
            reads += 1
            edges += buffer.withUnsafeBytes { GPIOEdge.decode(records: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            // A short read means the queue was empty: no need for one more read to hear EAGAIN.
            if count < capacity { break }
        }
        return edges
    }

    /// Gives the line back to the kernel (closing the request's descriptor releases it).
    /// Idempotent; the chip calls it when it closes.
    public func release() {
        guard lineDescriptor >= 0 else { return }
        closeDescriptor(lineDescriptor)
        lineDescriptor = -1
    }
}
