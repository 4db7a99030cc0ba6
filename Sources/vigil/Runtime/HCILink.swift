import Clocks
import HCI
import Platform
import Wire

/// Where HCI packets come from and go to: a kernel transport, a btsnoop replay, or the
/// in-process simulated controller. The runner treats them alike.
protocol HCILink: AnyObject {
    /// The descriptor to poll, or nil for links that are driven by deadlines and always ready.
    var fileDescriptor: Int32? { get }
    /// True when `receive` has packets without waiting (replays, the simulator), or has yet
    /// to say that the input ended: a link with no descriptor is read only while this holds.
    var hasPendingInput: Bool { get }
    /// When the link itself needs a turn (the simulator's radio timers).
    var nextDeadline: MonotonicInstant? { get }
    func send(_ h4: [UInt8], at now: MonotonicInstant) throws(PlatformError)
    /// Whole H4 packets received; nil at end of stream (the controller is gone).
    func receive(at now: MonotonicInstant) throws(PlatformError) -> [[UInt8]]?
    func handleDeadline(at now: MonotonicInstant)
    func close()
    var name: String { get }
    /// What the end of input was, for the log line of a run that stops there.
    var endOfInputDescription: String { get }
}

extension HCILink {
    var endOfInputDescription: String { "end of input" }
}

/// A controller link as it comes from opening: at once (a device node, a UART, a capture),
/// or still connecting on a thread of its own (TCP), so that the loop keeps turning meanwhile.
enum LinkOpening {
    case opened(any HCILink)
    /// Becomes a `TransportLink` named `name` once the attempt ends, if it connected.
    case connecting(TCPConnection.Attempt, name: String)
}

/// A kernel byte transport (HCI user channel, TCP, UART) with H4 framing.
final class TransportLink: HCILink {
    let transport: any ByteTransport
    let name: String
    private var framer = HCI.H4Framer()
    private var buffer: [UInt8] = []

    init(_ transport: any ByteTransport, name: String) {
        self.transport = transport
        self.name = name
    }

    var fileDescriptor: Int32? { transport.fileDescriptor >= 0 ? transport.fileDescriptor : nil }
    var hasPendingInput: Bool { false }
    var nextDeadline: MonotonicInstant? { nil }
    func handleDeadline(at now: MonotonicInstant) {}

    func send(_ h4: [UInt8], at now: MonotonicInstant) throws(PlatformError) { try transport.write(h4) }

    func receive(at now: MonotonicInstant) throws(PlatformError) -> [[UInt8]]? {
        let count: Int
        do {
            count = try transport.read(into: &buffer, maxCount: 65536 + 5)
        } catch {
            if error.isWouldBlock { return [] }
            throw error
        }
        if count == 0 { return nil }
        framer.append(buffer)
        var packets: [[UInt8]] = []
        do {
            while let packet = try framer.nextPacket() { packets.append(packet) }
        } catch {
            // H4 has no resynchronisation: a corrupt stream means reopening the transport.
            throw PlatformError(operation: "H4 framing on \(name)", errno: 0, reason: "\(error)", hint: "the byte stream lost sync; the transport will be reopened")
        }
        return packets
    }

    func close() { transport.close() }
}

/// Replays a btsnoop capture's controller-to-host packets as fast as the host takes them;
/// what the host sends is dropped (the host knows it is a replay: `Host.Configuration.replay`).
final class ReplayLink: HCILink {
    let name: String
    private var reader: BTSnoop.Reader
    /// Every record has been read: the next `receive` says the capture ended.
    private var exhausted = false
    /// `receive` has said so (nil). Until then input is pending: a replay has no descriptor
    /// to poll, so a link that went quiet before saying it ended would never be read again,
    /// and the run would never learn that the capture is over.
    private var ended = false
    private(set) var records = 0
    private(set) var packetsFromController = 0
    /// Packets handed over per `receive`: the loop turns between batches (signals, the
    /// session's descriptors, deadlines) while a large capture plays.
    static let batchSize = 4096

    init(path: String) throws(PlatformError) {
        let bytes = try FileSystem.readFile(path: path)
        do {
            reader = try BTSnoop.Reader(bytes)
        } catch {
            throw PlatformError(operation: "open btsnoop \(path)", errno: 0, reason: "\(error)", hint: "expected a btsnoop file with datalink 1001 or 1002")
        }
        name = "btsnoop:\(path)"
    }

    var fileDescriptor: Int32? { nil }
    var hasPendingInput: Bool { !ended }
    var nextDeadline: MonotonicInstant? { nil }
    func handleDeadline(at now: MonotonicInstant) {}
    func send(_ h4: [UInt8], at now: MonotonicInstant) throws(PlatformError) {}

    func receive(at now: MonotonicInstant) throws(PlatformError) -> [[UInt8]]? {
        if ended { return nil }
        var packets: [[UInt8]] = []
        do {
            while !exhausted, packets.count < Self.batchSize {
                guard let record = try reader.next() else {
                    exhausted = true
                    break
                }
                records += 1
                if record.direction == .received { packets.append(record.packet) }
            }
        } catch {
            throw PlatformError(operation: "read \(name)", errno: 0, reason: "\(error)", hint: nil)
        }
        packetsFromController += packets.count
        if exhausted && packets.isEmpty {
            ended = true
            return nil
        }
        return packets
    }

    var endOfInputDescription: String {
        "the capture ended after \(records) records (\(packetsFromController) from the controller)"
    }

    func close() { ended = true }
}

/// Writes every packet in and out to a btsnoop file (datalink 1002) that Wireshark, btmon and
/// bumble-show open — so a field trace becomes a replayable test fixture.
final class SnoopTap {
    private let writer: FileWriter
    /// The first write error, reported once by the runner; the tap stops after it.
    private(set) var failure: PlatformError?

    init(path: String) throws(PlatformError) {
        writer = try FileWriter(path: path, mode: 0o644, truncate: true)
        try writer.write(BTSnoop.fileHeader())
    }

    func record(_ h4: [UInt8], direction: BTSnoop.Direction) {
        guard failure == nil else { return }
        var w = ByteWriter(capacity: 24 + h4.count)
        BTSnoop.encode(h4, direction: direction, timestampMicroseconds: SystemClock.wallNow().microsecondsSinceEpoch, into: &w)
        do { try writer.write(w.bytes) } catch { failure = error }
    }

    func flush() {
        guard failure == nil else { return }
        do { try writer.flush() } catch { failure = error }
    }

    func close() { try? writer.close() }
}
