import Bluetooth
import Clocks
import Host

/// `vigil scan`: nearby devices with duplicates folded (the host reports only new or changed
/// data), as NDJSON lines for scripts or a table for people.
public struct ScanTable: Sendable {
    public struct Row: Sendable, Equatable {
        public var advertisement: Advertisement
        public var updates: Int
    }

    public private(set) var rows: [DeviceAddress: Row] = [:]

    public init() {}

    /// Folds an advertisement; returns the row to print (every call is a new or changed device).
    @discardableResult
    public mutating func update(_ advertisement: Advertisement) -> Row {
        var row = rows[advertisement.address] ?? Row(advertisement: advertisement, updates: 0)
        row.advertisement = advertisement
        row.updates += 1
        rows[advertisement.address] = row
        return row
    }

    /// One device as a JSON object (the `--json` contract, one line each).
    public static func json(_ a: Advertisement) -> JSON {
        var members: [(String, JSON)] = [
            ("address", .string("\(a.address.address)")),
            ("addressType", .string("\(a.address.type)")),
        ]
        if let rssi = a.rssi { members.append(("rssi", .int(Int64(rssi)))) }
        if let name = a.name { members.append(("name", .string(name))) }
        members.append(("services", .array(a.serviceUUIDs.map { .string("\($0)") })))
        if let appearance = a.appearance { members.append(("appearance", .int(Int64(appearance)))) }
        if let tx = a.parsed?.txPower ?? a.parsedScanResponse?.txPower { members.append(("txPower", .int(Int64(tx)))) }
        members.append(("connectable", .bool(a.isConnectable)))
        let parsed = [a.parsed, a.parsedScanResponse].compactMap { $0 }
        let serviceData = parsed.flatMap { p in p.serviceData.map { ("\($0.uuid)", JSON.string(Hex.encode(p.bytes[$0.range]))) } }
        if !serviceData.isEmpty { members.append(("serviceData", .object(serviceData))) }
        let manufacturer = parsed.flatMap { p in
            p.manufacturerData.map { (ScanTable.companyKey($0.company), JSON.string(Hex.encode(p.bytes[$0.range]))) }
        }
        if !manufacturer.isEmpty { members.append(("manufacturerData", .object(manufacturer))) }
        if let decoded = BroadcastDecoding.decode(a) { members.append(("decoded", decoded)) }
        if let error = a.parseError { members.append(("malformed", .string(error))) }
        return .object(members)
    }

    static func companyKey(_ company: UInt16) -> String {
        let hex = String(company, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// A fixed-width table of every device seen, strongest signal first.
    public func table() -> String {
        var lines = ["ADDRESS            TYPE       RSSI  NAME                  SERVICES"]
        for row in rows.values.sorted(by: { ($0.advertisement.rssi ?? -127) > ($1.advertisement.rssi ?? -127) }) {
            let a = row.advertisement
            func pad(_ s: String, _ n: Int) -> String { s.count >= n ? String(s.prefix(n)) : s + String(repeating: " ", count: n - s.count) }
            let rssi = a.rssi.map { String($0) } ?? "?"
            var line = pad("\(a.address.address)", 19) + pad("\(a.address.type)", 11) + pad(rssi, 6)
            line += pad(a.name ?? "-", 22) + a.serviceUUIDs.map { "\($0)" }.joined(separator: ",")
            if let decoded = BroadcastDecoding.decode(a) { line += "  " + decoded.rendered }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

import Wire
