import Wire

// Replies on the Control characteristic (F8083534-…), each ending in CRC-16/XMODEM
// (docs/protocols/dexcom-g5-g6.md §Framing and CRC, §Control messages). Byte 1 is the transmitter
// status in all of them.

extension Dexcom {
    /// Byte 1 of every Control reply: 0x00 OK, 0x81 low battery, 0x83 expired (xdrip-js
    /// README); xDrip calls anything above 0x81 "bricked" (TransmitterStatus.java). Vigil keeps
    /// the byte and names the three documented values (docs/protocols/sources-disagree.md §Dexcom).
    public struct TransmitterStatus: Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public var isOK: Bool { rawValue == 0 }
        public var description: String {
            switch rawValue {
            case 0x00: "ok"
            case 0x81: "low battery"
            case 0x83: "expired"
            default: "status 0x\(String(rawValue, radix: 16, uppercase: true))"
            }
        }
    }

    /// 0x25 TransmitterTimeRx, 16 bytes: status · currentTime · sessionStartTime (`FFFFFFFF` =
    /// no session) · 4 unknown bytes · CRC (CGMBLEKit TransmitterTimeRxMessage; xDrip
    /// TransmitterTimeRxMessage.java).
    public struct TransmitterTimeRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x25
        public var status: TransmitterStatus
        public var currentTime: DexTime
        /// nil when no sensor session is running.
        public var sessionStartTime: DexTime?
        public var unknown: UInt32

        public init(status: TransmitterStatus = .init(rawValue: 0), currentTime: DexTime, sessionStartTime: DexTime?, unknown: UInt32 = 1) {
            self.status = status
            self.currentTime = currentTime
            self.sessionStartTime = sessionStartTime
            self.unknown = unknown
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [16], name: "TransmitterTimeRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            currentTime = try r.readUInt32("currentTime")
            let start = try r.readUInt32("sessionStartTime")
            sessionStartTime = start == Dexcom.invalidDexTime ? nil : start
            unknown = try r.readUInt32("unknown")
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(Self.opcode); w.write(status.rawValue); w.write(currentTime)
            w.write(sessionStartTime ?? Dexcom.invalidDexTime); w.write(unknown)
            return Dexcom.withCRC(w.bytes)
        }
    }

    /// 0x31 (G5) / 0x4F (G6) GlucoseRx: status · sequence u32 · timestamp (dex s) · glucose u16
    /// (low 12 bits mg/dL; any of the top 4 set = display only) · calibration state · trend i8
    /// (0.1 mg/dL/min) · CRC; 16 bytes (CGMBLEKit GlucoseRxMessage; xDrip GlucoseRxMessage.java).
    /// A 0x4F may be 18 bytes with a u16 "predicted glucose" (low 10 bits) before the CRC
    /// (xDrip EGlucoseRxMessage.java); CGMBLEKit parses 0x4F as 16 bytes. Both are accepted.
    public struct GlucoseRx: Hashable, Sendable {
        public static let opcodeG5: UInt8 = 0x31
        public static let opcodeG6: UInt8 = 0x4F
        public var opcode: UInt8
        public var status: TransmitterStatus
        public var sequence: UInt32
        public var timestamp: DexTime
        /// The whole u16 as sent; see `glucoseMilligramsPerDeciliter` and `isDisplayOnly`.
        public var glucoseField: UInt16
        public var calibrationState: CalibrationState
        /// Raw trend byte: 0.1 mg/dL per minute, 127 = unknown.
        public var trend: Int8
        /// Only in the 18-byte G6 form: low 10 bits, 0x3FF = invalid (xDrip).
        public var predictedGlucose: UInt16?

        public init(opcode: UInt8 = opcodeG5, status: TransmitterStatus = .init(rawValue: 0), sequence: UInt32, timestamp: DexTime,
                    glucoseField: UInt16, calibrationState: CalibrationState, trend: Int8, predictedGlucose: UInt16? = nil) {
            self.opcode = opcode
            self.status = status
            self.sequence = sequence
            self.timestamp = timestamp
            self.glucoseField = glucoseField
            self.calibrationState = calibrationState
            self.trend = trend
            self.predictedGlucose = predictedGlucose
        }

        public var glucoseMilligramsPerDeciliter: UInt16 { glucoseField & 0x0FFF }
        public var isDisplayOnly: Bool { glucoseField & 0xF000 != 0 }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            let lengths: Set<Int> = bytes.first == Self.opcodeG6 ? [16, 18] : [16]
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcodeG5, Self.opcodeG6], lengths: lengths, name: "GlucoseRx")
            opcode = bytes[0]
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            sequence = try r.readUInt32("sequence")
            timestamp = try r.readUInt32("timestamp")
            glucoseField = try r.readUInt16("glucose")
            calibrationState = CalibrationState(rawValue: try r.readUInt8("state"))
            trend = try r.readInt8("trend")
            predictedGlucose = r.isAtEnd ? nil : try r.readUInt16("predicted") & 0x03FF
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(opcode); w.write(status.rawValue); w.write(sequence); w.write(timestamp)
            w.write(glucoseField); w.write(calibrationState.rawValue); w.write(trend)
            if let predictedGlucose { w.write(predictedGlucose) }
            return Dexcom.withCRC(w.bytes)
        }
    }

    /// 0x2F SensorRx: status · timestamp (dex s) · raw values · CRC (xDrip SensorRxMessage.java;
    /// xdrip-js sensor-rx-message.js). Three lengths exist (docs/protocols/dexcom-g5-g6.md §Control
    /// messages): 16 bytes with u32 unfiltered at 6 and filtered at 10; 18 bytes (G6 rev2) with
    /// float32 values there and an unknown u16 at 14; 8 bytes with no raw values (Firefly). Vigil
    /// follows xDrip and xdrip-js for which is unfiltered (6–9); xdripswift swaps them. The raw
    /// values are kept as sent; the firmware-specific scalings (×34, ×35) are not applied.
    public struct SensorRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x2F

        public enum Raw: Hashable, Sendable {
            case counts(unfiltered: UInt32, filtered: UInt32)
            case floats(unfiltered: Float, filtered: Float, unknown: UInt16)
            case none
        }

        public var status: TransmitterStatus
        public var timestamp: DexTime
        public var raw: Raw

        public init(status: TransmitterStatus = .init(rawValue: 0), timestamp: DexTime, raw: Raw) {
            self.status = status
            self.timestamp = timestamp
            self.raw = raw
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [8, 16, 18], name: "SensorRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            timestamp = try r.readUInt32("timestamp")
            switch bytes.count {
            case 16: raw = .counts(unfiltered: try r.readUInt32("unfiltered"), filtered: try r.readUInt32("filtered"))
            case 18:
                raw = .floats(unfiltered: Float(bitPattern: try r.readUInt32("unfiltered")),
                              filtered: Float(bitPattern: try r.readUInt32("filtered")), unknown: try r.readUInt16("unknown"))
            default: raw = .none
            }
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(Self.opcode); w.write(status.rawValue); w.write(timestamp)
            switch raw {
            case let .counts(unfiltered, filtered): w.write(unfiltered); w.write(filtered)
            case let .floats(unfiltered, filtered, unknown): w.write(unfiltered.bitPattern); w.write(filtered.bitPattern); w.write(unknown)
            case .none: break
            }
            return Dexcom.withCRC(w.bytes)
        }
    }

    /// 0x23 BatteryStatusRx. 12-byte form (G5/G6): status · voltageA u16 · voltageB u16 ·
    /// resistance u16 · runtime (days) · temperature (°C) · CRC. 10-byte form (G6 rev2):
    /// status · voltageA · voltageB · byte 6 · temperature · CRC (xDrip BatteryInfoRxMessage;
    /// xdrip-js battery-status-rx-message.js). Sources disagree on byte 6 of the short form
    /// (xDrip: not runtime; xdrip-js: runtime); Vigil reports no runtime for it and keeps the
    /// byte, since a wrong "days used" is worse than none. Voltages are in units of 0.01 V
    /// (the CGMBLEKit sample reads 316 and 303 from a healthy ~3 V cell; xDrip warns below 300).
    public struct BatteryStatusRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x23
        public var status: TransmitterStatus
        public var voltageA: UInt16
        public var voltageB: UInt16
        /// 12-byte form only.
        public var resistance: UInt16?
        /// 12-byte form only.
        public var runtimeDays: UInt8?
        public var temperatureCelsius: Int8
        /// 10-byte form only: the byte the sources disagree about.
        public var shortFormByte6: UInt8?

        public init(status: TransmitterStatus = .init(rawValue: 0), voltageA: UInt16, voltageB: UInt16, resistance: UInt16?,
                    runtimeDays: UInt8?, temperatureCelsius: Int8, shortFormByte6: UInt8? = nil) {
            self.status = status
            self.voltageA = voltageA
            self.voltageB = voltageB
            self.resistance = resistance
            self.runtimeDays = runtimeDays
            self.temperatureCelsius = temperatureCelsius
            self.shortFormByte6 = shortFormByte6
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [10, 12], name: "BatteryStatusRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            voltageA = try r.readUInt16("voltageA")
            voltageB = try r.readUInt16("voltageB")
            if bytes.count == 12 {
                resistance = try r.readUInt16("resistance")
                runtimeDays = try r.readUInt8("runtime")
                shortFormByte6 = nil
            } else {
                resistance = nil
                runtimeDays = nil
                shortFormByte6 = try r.readUInt8("byte6")
            }
            temperatureCelsius = try r.readInt8("temperature")
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(Self.opcode); w.write(status.rawValue); w.write(voltageA); w.write(voltageB)
            if let resistance, let runtimeDays { w.write(resistance); w.write(runtimeDays) } else { w.write(shortFormByte6 ?? 0) }
            w.write(temperatureCelsius)
            return Dexcom.withCRC(w.bytes)
        }

        /// For the status page: "A 3.16 V, B 3.03 V, 717 Ω, 31 days, 36 °C".
        public var summary: String {
            func volts(_ centivolts: UInt16) -> String {
                let cents = Int(centivolts) % 100
                return "\(centivolts / 100).\(cents < 10 ? "0" : "")\(cents) V"
            }
            var parts = ["A \(volts(voltageA))", "B \(volts(voltageB))"]
            if let resistance { parts.append("\(resistance) Ω") }
            if let runtimeDays { parts.append("\(runtimeDays) days") }
            parts.append("\(temperatureCelsius) °C")
            if !status.isOK { parts.append("transmitter \(status)") }
            return parts.joined(separator: ", ")
        }
    }

    /// Four version bytes printed dotted, "1.0.0.17".
    static func dotted(_ bytes: [UInt8]) -> String { bytes.map(String.init).joined(separator: ".") }

    /// 0x21 VersionRx ("Version 0"), 18 bytes: status · firmware[4] · BT firmware[4] · hardware
    /// revision · other firmware[3] · ASIC u16 · CRC (xDrip VersionRequestRxMessage.java).
    /// xdrip-js reads the ASIC at 15–16, overlapping the CRC; xDrip's layout is self-consistent
    /// and is the one used (docs/protocols/sources-disagree.md §Dexcom).
    public struct VersionRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x21
        public var status: TransmitterStatus
        public var firmware: [UInt8]
        public var bluetoothFirmware: [UInt8]
        public var hardwareRevision: UInt8
        public var otherFirmware: [UInt8]
        public var asic: UInt16

        public init(status: TransmitterStatus = .init(rawValue: 0), firmware: [UInt8], bluetoothFirmware: [UInt8],
                    hardwareRevision: UInt8, otherFirmware: [UInt8], asic: UInt16) {
            self.status = status
            self.firmware = firmware
            self.bluetoothFirmware = bluetoothFirmware
            self.hardwareRevision = hardwareRevision
            self.otherFirmware = otherFirmware
            self.asic = asic
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [18], name: "VersionRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            firmware = try r.readBytes(4, "firmware")
            bluetoothFirmware = try r.readBytes(4, "bluetoothFirmware")
            hardwareRevision = try r.readUInt8("hardwareRevision")
            otherFirmware = try r.readBytes(3, "otherFirmware")
            asic = try r.readUInt16("asic")
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(Self.opcode); w.write(status.rawValue); w.write(contentsOf: firmware); w.write(contentsOf: bluetoothFirmware)
            w.write(hardwareRevision); w.write(contentsOf: otherFirmware); w.write(asic)
            return Dexcom.withCRC(w.bytes)
        }

        public var firmwareText: String { Dexcom.dotted(firmware) }
    }

    /// 0x4B TransmitterVersionRx ("Version 1"), 19 bytes: status · firmware[4] · build u32 ·
    /// inactive days u16 · version code · 4 bytes · CRC (CGMBLEKit TransmitterVersionRxMessage;
    /// xDrip VersionRequest1RxMessage.java). The 4 tail bytes are read per xDrip (max runtime
    /// days u16, max inactive days u16); xdrip-js reads u8 + u16 there
    /// (docs/protocols/sources-disagree.md §Dexcom).
    public struct TransmitterVersionRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x4B
        public var status: TransmitterStatus
        public var firmware: [UInt8]
        public var build: UInt32
        public var inactiveDays: UInt16
        public var versionCode: UInt8
        public var maxRuntimeDays: UInt16
        public var maxInactiveDays: UInt16

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [19], name: "TransmitterVersionRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            firmware = try r.readBytes(4, "firmware")
            build = try r.readUInt32("build")
            inactiveDays = try r.readUInt16("inactiveDays")
            versionCode = try r.readUInt8("versionCode")
            maxRuntimeDays = try r.readUInt16("maxRuntimeDays")
            maxInactiveDays = try r.readUInt16("maxInactiveDays")
        }

        public var firmwareText: String { Dexcom.dotted(firmware) }
    }

    /// 0x33 CalibrationDataRx: 19 bytes (G5) or 20 (G6, xdrip-js); glucose u16 at 11–12 masked
    /// with 0x0FFF, timestamp (dex s) at 13–16, CRC last (CGMBLEKit CalibrationDataRxMessage;
    /// xdrip-js calibration-data-rx-message.js). Bytes 2–10 (and 17 in the G6 form) are not
    /// understood by any source and are kept as they came.
    public struct CalibrationDataRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x33
        public var status: TransmitterStatus
        public var undecoded: [UInt8]
        public var glucoseMilligramsPerDeciliter: UInt16
        public var timestamp: DexTime
        public var g6Tail: UInt8?

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [19, 20], name: "CalibrationDataRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            undecoded = try r.readBytes(9, "bytes 2-10")
            glucoseMilligramsPerDeciliter = try r.readUInt16("glucose") & 0x0FFF
            timestamp = try r.readUInt32("timestamp")
            g6Tail = r.isAtEnd ? nil : try r.readUInt8("byte 17")
        }
    }
}
