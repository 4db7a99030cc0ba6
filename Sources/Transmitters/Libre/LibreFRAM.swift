/// The 344-byte FRAM of a FreeStyle Libre 1 sensor, as a MiaoMiao or Bubble forwards it
/// (docs/protocols/libre-fram.md: LibreTransmitter SensorData.swift, xDrip LibreUtils.java and
/// NFCReaderX.java, xdripswift LibreDataParser.swift).
///
/// Layout (43 blocks of 8 bytes):
/// - header, bytes 0–23: CRC at 0–1, sensor state at 4;
/// - body, bytes 24–319: CRC at 24–25, trend index at 26, history index at 27, the 16-record
///   trend ring at 28–123, the 32-record history ring at 124–315, sensor age in minutes
///   (u16le) at 316–317;
/// - footer, bytes 320–343: CRC at 320–321, maximum wear time in minutes (u16le) at 326–327.
///
/// Decoding checks all three CRCs, the state byte, both ring indices and the sensor age, so a
/// `LibreFRAM` in hand is one whose values may be shown; a corrupt frame is an error that says
/// which check failed.
public struct LibreFRAM: Hashable, Sendable {
    public static let byteCount = 344
    public static let trendCount = 16
    public static let historyCount = 32
    /// Used when the footer's maximum wear time is zero: 14 days 12 hours
    /// (docs/protocols/libre-fram.md).
    public static let defaultMaximumWearMinutes = (14 * 24 + 12) * 60

    /// A CRC-protected region.
    public enum Region: String, Hashable, Sendable, CaseIterable {
        case header, body, footer

        public var range: Range<Int> {
            switch self {
            case .header: 0..<24
            case .body: 24..<320
            case .footer: 320..<344
            }
        }
    }

    public let bytes: [UInt8]
    public let sensorState: LibreSensorState
    /// Slot (0–15) the sensor writes its next trend record to.
    public let trendIndex: Int
    /// Slot (0–31) the sensor writes its next history record to.
    public let historyIndex: Int
    /// Minutes since the sensor started.
    public let sensorAgeMinutes: Int
    /// Minutes the sensor may be worn, from the footer (the default when the footer says 0).
    public let maximumWearMinutes: Int

    public init(decoding bytes: [UInt8]) throws(LibreFRAMError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(bytes.count) }
        for region in Region.allCases {
            let slice = bytes[region.range]
            let stored = LibreBlockCRC.stored(slice)!
            let computed = LibreBlockCRC.compute(slice)
            guard stored == computed else { throw .crcMismatch(region, stored: stored, computed: computed) }
        }
        guard let state = LibreSensorState(rawValue: bytes[4]) else { throw .unknownSensorState(bytes[4]) }
        guard Int(bytes[26]) < Self.trendCount else { throw .trendIndexOutOfRange(Int(bytes[26])) }
        guard Int(bytes[27]) < Self.historyCount else { throw .historyIndexOutOfRange(Int(bytes[27])) }
        let age = Int(bytes[316]) | Int(bytes[317]) << 8
        let footerWear = Int(bytes[326]) | Int(bytes[327]) << 8
        let maximumWear = footerWear == 0 ? Self.defaultMaximumWearMinutes : footerWear
        // Only the states that claim to be measuring constrain the age: an expired sensor is by
        // definition past its wear time, and one not yet started has no age.
        if state == .ready || state == .starting {
            guard age > 0 else { throw .impossibleSensorAge(minutes: age, reason: "zero while \(state)") }
            guard age <= maximumWear else {
                throw .impossibleSensorAge(minutes: age, reason: "beyond the maximum wear time of \(maximumWear) minutes while \(state)")
            }
        }
        self.bytes = bytes
        self.sensorState = state
        self.trendIndex = Int(bytes[26])
        self.historyIndex = Int(bytes[27])
        self.sensorAgeMinutes = age
        self.maximumWearMinutes = maximumWear
    }

    /// The trend record in ring slot `slot` (0–15; callers hold that range, the ring API is `trend`).
    func trendSlot(_ slot: Int) -> LibreRecord {
        let start = 28 + LibreRecord.byteCount * slot
        return LibreRecord(bytes[start ..< start + LibreRecord.byteCount])
    }

    /// The history record in ring slot `slot` (0–31).
    func historySlot(_ slot: Int) -> LibreRecord {
        let start = 124 + LibreRecord.byteCount * slot
        return LibreRecord(bytes[start ..< start + LibreRecord.byteCount])
    }

    /// The 16 trend records, newest first: the newest is the slot before `trendIndex`, and
    /// each further one is a minute older (docs/protocols/libre-fram.md §Reading the rings).
    public var trend: [LibreRecord] {
        (0..<Self.trendCount).map { k in trendSlot(floorMod(trendIndex - 1 - k, Self.trendCount)) }
    }

    /// The 32 history records, newest first, 15 minutes apart.
    public var history: [LibreRecord] {
        (0..<Self.historyCount).map { k in historySlot(floorMod(historyIndex - 1 - k, Self.historyCount)) }
    }

    /// How long before the read trend record `k` (0 = newest) was measured: k minutes.
    public func trendAge(_ k: Int) -> Duration { .seconds(60 * k) }

    /// The sensor minute trend record `k` was measured at: the sensor's age minus k.
    public func trendSensorMinute(_ k: Int) -> Int { sensorAgeMinutes - k }

    /// When the history ring's records were measured, or why they cannot be dated
    /// (`LibreHistoryTiming`).
    public func historyTiming() throws(LibreHistoryTimingError) -> LibreHistoryTiming {
        try LibreHistoryTiming(sensorAgeMinutes: sensorAgeMinutes, historyIndex: historyIndex)
    }

    /// How long before the read history record `k` (0 = newest) was measured, or nil if it
    /// would be at or before the sensor's start (the first record is at minute 15, so such a
    /// slot holds nothing of this sensor's yet).
    public func historyAge(_ k: Int, timing: LibreHistoryTiming) -> Duration? {
        guard timing.sensorMinute(ofHistoryRecord: k) > 0 else { return nil }
        return .seconds(60 * timing.minutesBeforeRead(ofHistoryRecord: k))
    }
}

/// Why 344 bytes are not a usable Libre 1 FRAM.
public enum LibreFRAMError: Error, Hashable, Sendable, CustomStringConvertible {
    case wrongLength(Int)
    case crcMismatch(LibreFRAM.Region, stored: UInt16, computed: UInt16)
    case unknownSensorState(UInt8)
    case trendIndexOutOfRange(Int)
    case historyIndexOutOfRange(Int)
    case impossibleSensorAge(minutes: Int, reason: String)

    public var description: String {
        switch self {
        case let .wrongLength(count): "Libre FRAM of \(count) bytes, expected \(LibreFRAM.byteCount)"
        case let .crcMismatch(region, stored, computed):
            "Libre FRAM \(region.rawValue) CRC mismatch: stored 0x\(hex4(stored)), computed 0x\(hex4(computed))"
        case let .unknownSensorState(value): "unknown Libre sensor state 0x\(String(value, radix: 16))"
        case let .trendIndexOutOfRange(index): "Libre trend index \(index) outside 0–15"
        case let .historyIndexOutOfRange(index): "Libre history index \(index) outside 0–31"
        case let .impossibleSensorAge(minutes, reason): "impossible Libre sensor age \(minutes) min: \(reason)"
        }
    }
}

func hex4(_ value: UInt16) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}
