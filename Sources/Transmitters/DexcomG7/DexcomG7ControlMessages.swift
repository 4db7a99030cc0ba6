import Readings
import Wire

// Requests and replies on the Control characteristic (F8083534-…) and the Backfill records, none
// with a CRC (docs/protocols/dexcom-g7.md §Control messages). Algorithm states are the G6
// family's (`Dexcom.CalibrationState`).

extension DexcomG7 {
    /// A glucose field: mg/dL in the low 12 bits, `FFFF` none.
    static func glucose(_ field: UInt16) -> UInt16? { field == 0xFFFF ? nil : field & 0x0FFF }

    /// A trend byte: signed tenths of mg/dL per minute, `7F` none.
    static func rate(_ byte: UInt8) -> Double? { byte == 0x7F ? nil : Double(Int8(bitPattern: byte)) / 10 }

    /// `4E` GlucoseRx, 19 bytes: status · message time · sequence u16 · 2 unknown · age u16 ·
    /// glucose · algorithm state · trend · predicted · flags (§Glucose; G7SensorKit
    /// `G7GlucoseMessage.swift`).
    public struct GlucoseRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x4E
        public var status: UInt8
        /// When the sensor sent the message, in sensor time.
        public var messageTime: SensorTime
        public var sequence: UInt16
        /// Seconds from the measurement to the message.
        public var age: UInt16
        public var glucoseField: UInt16
        public var state: Dexcom.CalibrationState
        public var trendByte: UInt8
        public var predictedField: UInt16
        public var flags: UInt8

        public init(status: UInt8 = 0, messageTime: SensorTime, sequence: UInt16, age: UInt16, glucoseField: UInt16,
                    state: Dexcom.CalibrationState, trendByte: UInt8, predictedField: UInt16 = 0xFFFF, flags: UInt8 = 0x0F) {
            self.status = status
            self.messageTime = messageTime
            self.sequence = sequence
            self.age = age
            self.glucoseField = glucoseField
            self.state = state
            self.trendByte = trendByte
            self.predictedField = predictedField
            self.flags = flags
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 19, name: "GlucoseRx")
            status = try reader.readUInt8("status")
            messageTime = try reader.readUInt32("messageTime")
            sequence = try reader.readUInt16("sequence")
            try reader.skip(2, "unknown")
            age = try reader.readUInt16("age")
            glucoseField = try reader.readUInt16("glucose")
            state = Dexcom.CalibrationState(rawValue: try reader.readUInt8("algorithmState"))
            trendByte = try reader.readUInt8("trend")
            predictedField = try reader.readUInt16("predicted")
            flags = try reader.readUInt8("flags")
        }

        public var bytes: [UInt8] {
            var writer = ByteWriter()
            writer.write(Self.opcode); writer.write(status); writer.write(messageTime); writer.write(sequence)
            writer.write(UInt16(0x0100)); writer.write(age); writer.write(glucoseField); writer.write(state.rawValue)
            writer.write(trendByte); writer.write(predictedField); writer.write(flags)
            return writer.bytes
        }

        /// The sensor time the glucose was measured at.
        public var measuredAt: SensorTime { messageTime >= UInt32(age) ? messageTime - UInt32(age) : 0 }
        public var milligramsPerDeciliter: UInt16? { DexcomG7.glucose(glucoseField) }
        public var predictedMilligramsPerDeciliter: UInt16? { DexcomG7.glucose(predictedField) }
        /// mg/dL per minute.
        public var rate: Double? { DexcomG7.rate(trendByte) }
        /// A calibration just moved the value: shown by Dexcom's apps, not used by them for
        /// treatment decisions (G7SensorKit `glucoseIsDisplayOnly`).
        public var isDisplayOnly: Bool { flags & 0x10 != 0 }
    }

    /// `59 · start · end`: asks for the records measured between two sensor times.
    public struct BackfillTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x59
        public var start: SensorTime
        public var end: SensorTime
        public init(start: SensorTime, end: SensorTime) {
            self.start = start
            self.end = end
        }
        public var bytes: [UInt8] {
            var writer = ByteWriter()
            writer.write(Self.opcode); writer.write(start); writer.write(end)
            return writer.bytes
        }
    }

    /// One 9-byte backfill record: sensor time u24 · unknown · glucose · algorithm state · flags ·
    /// trend (§Backfill records; G7SensorKit `G7BackfillMessage.swift`).
    public struct BackfillRecord: Hashable, Sendable {
        public static let length = 9
        public var measuredAt: SensorTime
        public var glucoseField: UInt16
        public var state: Dexcom.CalibrationState
        public var flags: UInt8
        public var trendByte: UInt8

        public init(measuredAt: SensorTime, glucoseField: UInt16, state: Dexcom.CalibrationState, flags: UInt8 = 0x0F, trendByte: UInt8) {
            self.measuredAt = measuredAt
            self.glucoseField = glucoseField
            self.state = state
            self.flags = flags
            self.trendByte = trendByte
        }

        public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
            guard bytes.count == Self.length else {
                throw .malformed("backfill record of \(bytes.count) bytes (expected \(Self.length))")
            }
            var reader = ByteReader(bytes)
            measuredAt = try reader.readUInt24("measuredAt")
            try reader.skip(1, "unknown")
            glucoseField = try reader.readUInt16("glucose")
            state = Dexcom.CalibrationState(rawValue: try reader.readUInt8("algorithmState"))
            flags = try reader.readUInt8("flags")
            trendByte = try reader.readUInt8("trend")
        }

        /// The records of one Backfill notification: one or two, 9 bytes each.
        public static func records(in bytes: [UInt8]) throws(WireError) -> [BackfillRecord] {
            guard !bytes.isEmpty, bytes.count % length == 0 else {
                throw .malformed("backfill notification of \(bytes.count) bytes (a multiple of \(length) expected)")
            }
            var records: [BackfillRecord] = []
            var offset = 0
            while offset < bytes.count {
                records.append(try BackfillRecord(decoding: bytes[offset..<(offset + length)]))
                offset += length
            }
            return records
        }

        public var bytes: [UInt8] {
            var writer = ByteWriter()
            writer.write(UInt8(measuredAt & 0xFF)); writer.write(UInt8((measuredAt >> 8) & 0xFF)); writer.write(UInt8((measuredAt >> 16) & 0xFF))
            writer.write(UInt8(0)); writer.write(glucoseField); writer.write(state.rawValue); writer.write(flags); writer.write(trendByte)
            return writer.bytes
        }

        public var milligramsPerDeciliter: UInt16? { DexcomG7.glucose(glucoseField) }
        public var rate: Double? { DexcomG7.rate(trendByte) }
        public var isDisplayOnly: Bool { flags & 0x10 != 0 }
    }

    /// `52` ExtendedVersionRx, at least 15 bytes: status · session length u32 (s) · warm-up u16
    /// (s) · algorithm version u32 · hardware u8 · maximum lifetime u16 (days) (§Versions;
    /// G7SensorKit `ExtendedVersionMessage.swift`).
    public struct ExtendedVersionRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x52
        public var status: UInt8
        public var sessionLength: Duration
        public var warmUp: Duration
        public var algorithmVersion: UInt32
        public var hardwareVersion: UInt8
        public var maximumLifetimeDays: UInt16

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 15, name: "ExtendedVersionRx", allowsMore: true)
            status = try reader.readUInt8("status")
            sessionLength = .seconds(Int64(try reader.readUInt32("sessionLength")))
            warmUp = .seconds(Int64(try reader.readUInt16("warmUp")))
            algorithmVersion = try reader.readUInt32("algorithmVersion")
            hardwareVersion = try reader.readUInt8("hardwareVersion")
            maximumLifetimeDays = try reader.readUInt16("maximumLifetimeDays")
        }
    }

    /// `4A` TransmitterVersionRx, 20 bytes: status · firmware (4 bytes, dotted) · software
    /// number u32 · silicon version u32 · serial u48 (§Versions; G7SensorKit
    /// `TransmitterVersionMessage.swift`).
    public struct TransmitterVersionRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x4A
        public var status: UInt8
        public var firmware: [UInt8]
        public var softwareNumber: UInt32
        public var siliconVersion: UInt32
        public var serialNumber: UInt64

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 20, name: "TransmitterVersionRx", allowsMore: true)
            status = try reader.readUInt8("status")
            firmware = try reader.readBytes(4, "firmware")
            softwareNumber = try reader.readUInt32("softwareNumber")
            siliconVersion = try reader.readUInt32("siliconVersion")
            serialNumber = try reader.readUInt48("serialNumber")
        }

        public var firmwareText: String { firmware.map(String.init).joined(separator: ".") }
    }

    /// `34 · glucose u16 · sensor time u32`: a fingerstick for the sensor (§Calibration).
    public struct CalibrateTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x34
        public var milligramsPerDeciliter: UInt16
        public var measuredAt: SensorTime
        public init(milligramsPerDeciliter: UInt16, measuredAt: SensorTime) {
            self.milligramsPerDeciliter = milligramsPerDeciliter
            self.measuredAt = measuredAt
        }
        public var bytes: [UInt8] {
            var writer = ByteWriter()
            writer.write(Self.opcode); writer.write(milligramsPerDeciliter); writer.write(measuredAt)
            return writer.bytes
        }
    }

    /// `34 · x · status u16`: 1 accepted, anything else refused (G7SensorKit `G7CalibrateRxMessage`).
    public struct CalibrateRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x34
        public var status: UInt16
        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 4, name: "CalibrateRx", allowsMore: true)
            try reader.skip(1, "unknown")
            status = try reader.readUInt16("status")
        }
        public var isAccepted: Bool { status == 1 }
    }
}
