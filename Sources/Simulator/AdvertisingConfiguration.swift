import Bluetooth
import Clocks
import HCI

/// How a simulated device advertises: legacy advertising PDUs on a fixed interval
/// (Core v5.4 Vol 6 Part B §2.3.1, §4.4.2.2).
///
/// The spec adds a pseudo-random 0–10 ms advDelay to every interval; the simulator leaves it
/// out so report times are exact multiples a test can predict.
public struct AdvertisingConfiguration: Sendable {
    /// The legacy PDU type, with the HCI advertising report kind it produces.
    public enum Kind: Sendable, Equatable {
        /// ADV_IND: connectable and scannable.
        case connectable
        /// ADV_SCAN_IND: scannable, not connectable.
        case scannable
        /// ADV_NONCONN_IND.
        case nonConnectable

        var reportKind: HCIReportKind {
            switch self {
            case .connectable: .connectableUndirected
            case .scannable: .scannableUndirected
            case .nonConnectable: .nonConnectable
            }
        }
        var isScannable: Bool { self != .nonConnectable }
    }

    public var kind: Kind
    public var interval: Duration
    /// AdvData, at most 31 bytes for legacy PDUs.
    public var data: [UInt8]
    /// ScanRspData, sent to active scanners of scannable advertisers.
    public var scanResponse: [UInt8]
    /// Offset of the first advertising event from the moment advertising starts.
    public var phase: Duration
    /// When set, each event's AdvData is computed from the event number (for noisy advertisers).
    public var dataForEvent: (@Sendable (UInt64) -> [UInt8])?
    /// RSSI swings deterministically by up to ± this many dB from event to event.
    public var rssiJitter: Int8

    public init(kind: Kind = .connectable, interval: Duration = .milliseconds(100), data: [UInt8], scanResponse: [UInt8] = [],
                phase: Duration = .zero, dataForEvent: (@Sendable (UInt64) -> [UInt8])? = nil, rssiJitter: Int8 = 0) {
        self.kind = kind
        self.interval = interval
        self.data = data
        self.scanResponse = scanResponse
        self.phase = phase
        self.dataForEvent = dataForEvent
        self.rssiJitter = rssiJitter
    }

    /// The index of the first event at or after `t`, for events at anchor + n × interval.
    func firstEvent(atOrAfter t: MonotonicInstant, anchor: MonotonicInstant) -> (index: UInt64, time: MonotonicInstant) {
        let step = max(interval.nanosecondsClamped, 1)
        guard t > anchor else { return (0, anchor) }
        let elapsed = (t - anchor).nanosecondsClamped
        let index = (elapsed + step - 1) / step
        return (UInt64(index), MonotonicInstant(nanoseconds: anchor.nanoseconds + index * step))
    }

    func data(forEvent index: UInt64) -> [UInt8] { dataForEvent?(index) ?? data }

    func rssi(base: Int8, event index: UInt64) -> Int8 {
        guard rssiJitter > 0 else { return base }
        // A fixed pseudo-random walk: same event, same RSSI, on every run.
        let span = Int(rssiJitter) * 2 + 1
        let mixed = (index &* 2_654_435_761) >> 7
        let offset = Int(mixed % UInt64(span)) - Int(rssiJitter)
        return Int8(clamping: Int(base) + offset)
    }
}

typealias HCIReportKind = HCI.AdvertisingReport.Kind

