import Bluetooth
import Clocks
import HCI

/// What the host knows about an advertiser: its advertising and scan-response data merged by
/// address (Core v5.4 Vol 3 Part C §11 — the two PDUs together are the device's data).
public struct Advertisement: Sendable, Equatable {
    public var address: DeviceAddress
    public var rssi: Int8?
    public var isConnectable: Bool
    public var advertisingData: [UInt8]
    public var scanResponse: [UInt8]?
    public var firstSeen: MonotonicInstant
    public var lastSeen: MonotonicInstant
    /// True the first time this address is reported.
    public var isNew: Bool

    /// The parsed structures of both PDUs; nil for a PDU whose structures are malformed.
    public var parsed: AdvertisingData? { try? AdvertisingData(advertisingData) }
    public var parsedScanResponse: AdvertisingData? { scanResponse.flatMap { try? AdvertisingData($0) } }

    /// Why the data could not be parsed, for a log line.
    public var parseError: String? {
        do {
            _ = try AdvertisingData(advertisingData)
            if let scanResponse { _ = try AdvertisingData(scanResponse) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    public var name: String? { parsed?.name ?? parsedScanResponse?.name }

    public var serviceUUIDs: [BluetoothUUID] {
        var all = parsed?.serviceUUIDs ?? []
        for uuid in parsedScanResponse?.serviceUUIDs ?? [] where !all.contains(uuid) { all.append(uuid) }
        return all
    }

    public var appearance: UInt16? { parsed?.appearance ?? parsedScanResponse?.appearance }
}

/// Scanning state and duplicate folding in the host: controllers' own duplicate filters are
/// unreliable (Bumble ignores it) and would hide data changes, so Vigil scans with the filter
/// off and reports a device only when it is new or its data changed.
struct Scanner: Sendable {
    enum State: Sendable, Equatable {
        case stopped
        case starting(active: Bool)
        case scanning(active: Bool)
        case stopping
    }

    var state: State = .stopped
    /// What the owner asked for; reconciled with `state` whenever commands can be sent.
    var wanted: Bool? = nil  // nil = off, else active?
    private(set) var devices: [DeviceAddress: Advertisement] = [:]
    /// Addresses the owner wants to hear every time, data changed or not: a remembered
    /// transmitter it will connect to the moment it advertises.
    var watched: Set<DeviceAddress> = []
    /// A crowded radio (or a hostile one rotating random addresses) must not grow memory
    /// without bound: the least recently seen entries go first.
    static let maximumDevices = 256

    /// Folds one report. Returns the advertisement to report, or nil for a duplicate.
    mutating func fold(_ report: HCI.AdvertisingReport, at now: MonotonicInstant) -> Advertisement? {
        let data = Array(report.data)
        if var known = devices[report.address] {
            known.lastSeen = now
            known.rssi = report.rssi ?? known.rssi
            known.isNew = false
            var changed = false
            if report.kind == .scanResponse {
                // An empty scan response, or one that echoes the advertising data (Bumble's
                // controller does), adds nothing: it is not news.
                if known.scanResponse != data { known.scanResponse = data; changed = !data.isEmpty && data != known.advertisingData }
            } else {
                if known.advertisingData != data { known.advertisingData = data; changed = true }
                if known.isConnectable != report.isConnectable { known.isConnectable = report.isConnectable; changed = true }
            }
            devices[report.address] = known
            return changed || watched.contains(report.address) ? known : nil
        }
        if devices.count >= Self.maximumDevices, let oldest = devices.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            devices.removeValue(forKey: oldest)
        }
        let isResponse = report.kind == .scanResponse
        let fresh = Advertisement(
            address: report.address, rssi: report.rssi, isConnectable: isResponse ? false : report.isConnectable,
            advertisingData: isResponse ? [] : data, scanResponse: isResponse ? data : nil,
            firstSeen: now, lastSeen: now, isNew: true)
        devices[report.address] = fresh
        return fresh
    }

    func lastSeen(_ address: DeviceAddress) -> MonotonicInstant? { devices[address]?.lastSeen }

    mutating func forgetAll() { devices.removeAll() }

    /// The next report from `address` is news again.
    mutating func forget(_ address: DeviceAddress) { devices.removeValue(forKey: address) }
}
