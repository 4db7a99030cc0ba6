import Bluetooth
import Clocks
import HCI

/// What the simulated devices sent toward the host, counted from the controller's H4 packets
/// (Core v5.4 Vol 4 Part A §2) before the host decodes them: the "expected" side of the soak.
///
/// - Heart rate: every ATT Handle Value Notification (opcode 0x1B, Vol 3 Part F §3.4.7.1) of
///   the Heart Rate Measurement handle on a connection to the strap's address, taken from LE
///   (Enhanced) Connection Complete (Vol 4 Part E §7.7.65.1/.10) and forgotten at Disconnection
///   Complete (§7.7.5). One notification is one measurement, hence one heart-rate row.
/// - Thermometer: advertising reports from its address whose AdvData differ from the previous
///   one heard. The thermometer repeats each measurement in three advertisements and every new
///   measurement changes its BTHome packet id, so "different from the last heard" is exactly
///   the decoder's rule for a new measurement (a repeat is dropped), without using the decoder.
/// - Everything else: advertising reports counted, for the figures.
struct SoakAirCount {
    let heartRate: Address
    let thermometer: Address
    let heartRateMeasurementHandle: UInt16
    private var heartRateConnections: Set<UInt16> = []
    private var lastThermometerData: [UInt8]?

    private(set) var heartRateNotifications = 0
    private(set) var firstHeartRateNotification: MonotonicInstant?
    private(set) var lastHeartRateNotification: MonotonicInstant?
    /// Every silence of the strap longer than 5 s between two notifications (it notifies at
    /// 1 Hz): the out-of-range stretch, and anything else the report must explain.
    private(set) var heartRateGaps: [Range<MonotonicInstant>] = []
    private(set) var thermometerMeasurements = 0
    private(set) var advertisingReports = 0
    private(set) var undecodableEvents = 0

    init(heartRate: Address, thermometer: Address, heartRateMeasurementHandle: UInt16) {
        self.heartRate = heartRate
        self.thermometer = thermometer
        self.heartRateMeasurementHandle = heartRateMeasurementHandle
    }

    mutating func count(_ packet: [UInt8], at now: MonotonicInstant) {
        guard let indicator = packet.first else { return }
        if indicator == HCI.PacketType.aclData.rawValue {
            countACL(packet, at: now)
        } else if indicator == HCI.PacketType.event.rawValue {
            countEvent(packet)
        }
    }

    /// H4 ACL: indicator, handle and flags (2), length (2), then the first fragment's L2CAP
    /// header: length (2), CID (2, 0x0004 is ATT), then the ATT PDU: opcode, attribute handle.
    private mutating func countACL(_ packet: [UInt8], at now: MonotonicInstant) {
        guard packet.count >= 12 else { return }
        let handle = (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF
        let firstFragment = packet[2] & 0x30 != 0x10
        guard firstFragment, heartRateConnections.contains(handle), packet[7] == 0x04, packet[8] == 0x00, packet[9] == 0x1B,
              UInt16(packet[10]) | UInt16(packet[11]) << 8 == heartRateMeasurementHandle
        else { return }
        heartRateNotifications += 1
        if let last = lastHeartRateNotification, now - last > .seconds(5) { heartRateGaps.append(last..<now) }
        lastHeartRateNotification = now
        if firstHeartRateNotification == nil { firstHeartRateNotification = now }
    }

    private mutating func countEvent(_ packet: [UInt8]) {
        // Only the events counted here are decoded (command completions and the rest are not).
        guard packet.count >= 3 else { return }
        let code = packet[1]
        guard code == HCI.Event.Code.leMeta || code == HCI.Event.Code.disconnectionComplete else { return }
        // A single legacy advertising report (H4 indicator, event code, length, subevent 0x02,
        // count 1, event type, address type, address at 7..<13, Vol 4 Part E §7.7.65.2):
        // counted without decoding unless it is the thermometer's, as the crowd sends tens of
        // them a second.
        if code == HCI.Event.Code.leMeta, packet.count >= 13, packet[3] == HCI.LEMetaEvent.Subevent.advertisingReport, packet[4] == 1 {
            advertisingReports += 1
            var address: UInt64 = 0
            for i in (7..<13).reversed() { address = address << 8 | UInt64(packet[i]) }
            guard address == thermometer.value else { return }
            advertisingReports -= 1  // counted again below, decoded
        }
        let event: HCI.Event
        do { event = try HCI.Event(bytes: packet, range: 1..<packet.count) } catch {
            undecodableEvents += 1
            return
        }
        switch event {
        case let .le(.connectionComplete(complete)) where complete.status == .success:
            if complete.peer.address == heartRate { heartRateConnections.insert(complete.handle) }
        case let .disconnectionComplete(complete):
            heartRateConnections.remove(complete.handle)
        case let .le(.advertisingReports(reports)):
            advertisingReports += reports.count
            for report in reports where report.address.address == thermometer {
                if lastThermometerData.map({ !$0.elementsEqual(report.data) }) ?? true {
                    thermometerMeasurements += 1
                    lastThermometerData = Array(report.data)
                }
            }
        default:
            break
        }
    }

    /// The strap's silence at the end of the run, if it is silent (a gap still open).
    func openGap(at end: MonotonicInstant) -> Range<MonotonicInstant>? {
        guard let last = lastHeartRateNotification else { return .zero..<end }
        return end - last > .seconds(5) ? last..<end : nil
    }
}
