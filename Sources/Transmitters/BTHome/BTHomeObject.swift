import Wire

/// One measurement in a BTHome v2 payload: an object ID byte, then a little-endian value whose
/// size, signedness and factor the ID fixes (bthome-ble const.py `MEAS_TYPES`;
/// docs/protocols/bthome.md). IDs 0x53 (text) and 0x54 (raw) carry a length byte after the ID
/// instead.
///
/// Only the IDs in docs/protocols/bthome.md are known. The format has no per-object length, so an
/// unknown ID makes the rest of the payload unreadable: parsing stops there with a reason.
public struct BTHomeObject: Hashable, Sendable, CustomStringConvertible {
    public var id: UInt8
    public var value: Value

    public init(id: UInt8, value: Value) {
        self.id = id
        self.value = value
    }

    public enum Value: Hashable, Sendable, CustomStringConvertible {
        /// A sensor value, already multiplied by its factor, in the quantity's unit.
        case number(Double)
        /// A binary sensor (0 off, 1 on) or a button event code.
        case state(UInt8)
        /// Dimmer: event (1 rotate left, 2 rotate right) and steps.
        case dimmer(event: UInt8, steps: Int8)
        /// Seconds since the Unix epoch, as the device's clock says.
        case timestamp(UInt32)
        case text(String)
        case raw([UInt8])

        public var description: String {
            switch self {
            case let .number(value): "\(value)"
            case let .state(code): "\(code)"
            case let .dimmer(event, steps): "dimmer event \(event), \(steps) steps"
            case let .timestamp(seconds): "unix \(seconds)"
            case let .text(text): "\"\(text)\""
            case let .raw(bytes): bytes.hexString
            }
        }
    }

    /// What an object ID measures.
    public enum Quantity: Hashable, Sendable {
        case packetID
        case battery
        case temperature
        case humidity
        case pressure
        case illuminance
        case dewPoint
        case voltage
        case binary(String)
        case button
        case dimmer
        case timestamp
        case text
        case raw
    }

    /// How an ID's value is laid out.
    public struct Format: Hashable, Sendable {
        public enum Encoding: Hashable, Sendable {
            /// A little-endian integer of `size` bytes, times `factor`.
            case integer(size: Int, signed: Bool, factor: Factor)
            case state
            case dimmer
            case timestamp
            /// A length byte, then that many bytes.
            case lengthPrefixed
        }

        /// A decimal factor as a whole multiplier over a power of ten (0.01 = 1 / 100, 0.35 =
        /// 35 / 100), so that decoding divides an exact integer by an exact power of ten: the
        /// result is the Double nearest the decimal the device meant (5055 → 50.55), where a
        /// multiplication by 0.01, itself inexact, could land a step off and print as noise.
        public struct Factor: Hashable, Sendable {
            public var multiplier: Int64
            public var divisor: Int64

            public init(_ multiplier: Int64, per divisor: Int64 = 1) {
                self.multiplier = multiplier
                self.divisor = divisor
            }

            public func apply(_ raw: Int64) -> Double { Double(raw * multiplier) / Double(divisor) }

            /// The wire integer nearest `value`.
            public func unapply(_ value: Double) -> Double { (value * Double(divisor) / Double(multiplier)).rounded() }
        }

        public var quantity: Quantity
        public var encoding: Encoding
        /// The unit of a `.number` value, for logs.
        public var unit: String
    }

    public var format: Format? { Self.format(of: id) }

    public var description: String {
        guard let format else { return "0x\(Self.hex(id)): \(value)" }
        return "\(format.quantity) \(value)\(format.unit.isEmpty ? "" : " " + format.unit)"
    }

    /// The format of every ID in docs/protocols/bthome.md, nil for any other.
    public static func format(of id: UInt8) -> Format? {
        func integer(_ quantity: Quantity, _ size: Int, signed: Bool = false, _ factor: Format.Factor, _ unit: String) -> Format {
            Format(quantity: quantity, encoding: .integer(size: size, signed: signed, factor: factor), unit: unit)
        }
        switch id {
        case 0x00: return integer(.packetID, 1, .init(1), "")
        case 0x01: return integer(.battery, 1, .init(1), "%")
        case 0x02: return integer(.temperature, 2, signed: true, .init(1, per: 100), "°C")  // signed: const.py and the format (the example script's unsigned read is a bug)
        case 0x03: return integer(.humidity, 2, .init(1, per: 100), "%")
        case 0x04: return integer(.pressure, 3, .init(1, per: 100), "hPa")
        case 0x05: return integer(.illuminance, 3, .init(1, per: 100), "lx")
        case 0x08: return integer(.dewPoint, 2, signed: true, .init(1, per: 100), "°C")
        case 0x0C: return integer(.voltage, 2, .init(1, per: 1000), "V")
        case 0x0F, 0x10, 0x11, 0x15...0x2D:
            return Format(quantity: .binary(binaryName(id)), encoding: .state, unit: "")
        case 0x2E: return integer(.humidity, 1, .init(1), "%")
        case 0x3A: return Format(quantity: .button, encoding: .state, unit: "")
        case 0x3C: return Format(quantity: .dimmer, encoding: .dimmer, unit: "")
        case 0x45: return integer(.temperature, 2, signed: true, .init(1, per: 10), "°C")
        case 0x4A: return integer(.voltage, 2, .init(1, per: 10), "V")
        case 0x50: return Format(quantity: .timestamp, encoding: .timestamp, unit: "")
        case 0x53: return Format(quantity: .text, encoding: .lengthPrefixed, unit: "")
        case 0x54: return Format(quantity: .raw, encoding: .lengthPrefixed, unit: "")
        case 0x57: return integer(.temperature, 1, signed: true, .init(1), "°C")
        case 0x58: return integer(.temperature, 1, signed: true, .init(35, per: 100), "°C")
        default: return nil
        }
    }

    /// Binary sensor names, in ID order from 0x15 (docs/protocols/bthome.md, bthome-ble const.py).
    private static let binaryNames = [
        "battery low", "battery charging", "carbon monoxide", "cold", "connectivity", "door", "garage door", "gas",
        "heat", "light", "lock", "moisture", "motion", "moving", "occupancy", "plug", "presence", "problem",
        "running", "safety", "smoke", "sound", "tamper", "vibration", "window",
    ]

    private static func binaryName(_ id: UInt8) -> String {
        switch id {
        case 0x0F: "generic"
        case 0x10: "power"
        case 0x11: "opening"
        default: binaryNames[Int(id - 0x15)]
        }
    }

    /// Reads one object at the reader's position. Returns nil, reading nothing, for an unknown ID.
    static func read(from reader: inout ByteReader) throws(WireError) -> BTHomeObject? {
        guard let id = reader.peekUInt8(), let format = format(of: id) else { return nil }
        _ = try reader.readUInt8("object id")
        switch format.encoding {
        case let .integer(size, signed, factor):
            var raw: UInt32 = 0
            let bytes = try reader.readBytes(size, "object value")
            for (i, byte) in bytes.enumerated() { raw |= UInt32(byte) << (8 * UInt32(i)) }
            var value = Int64(raw)
            if signed && raw >> (8 * size - 1) & 1 == 1 { value -= Int64(1) << (8 * size) }
            return BTHomeObject(id: id, value: .number(factor.apply(value)))
        case .state:
            return BTHomeObject(id: id, value: .state(try reader.readUInt8("object value")))
        case .dimmer:
            let event = try reader.readUInt8("dimmer event")
            return BTHomeObject(id: id, value: .dimmer(event: event, steps: try reader.readInt8("dimmer steps")))
        case .timestamp:
            return BTHomeObject(id: id, value: .timestamp(try reader.readUInt32("timestamp")))
        case .lengthPrefixed:
            let count = Int(try reader.readUInt8("object length"))
            let bytes = try reader.readBytes(count, "object value")
            return BTHomeObject(id: id, value: id == 0x53 ? .text(String(decoding: bytes, as: UTF8.self)) : .raw(bytes))
        }
    }

    /// The object's bytes on air (for simulated thermometers and tests). A number is divided by
    /// its factor and rounded; nil for an unknown ID, a value of the wrong kind, or a number
    /// outside what the field can hold.
    public var encoded: [UInt8]? {
        guard let format else { return nil }
        switch (format.encoding, value) {
        case let (.integer(size, signed, factor), .number(number)):
            let scaled = factor.unapply(number)
            let bits = 8 * size
            let range: ClosedRange<Double> = signed
                ? -Double(Int64(1) << (bits - 1))...Double((Int64(1) << (bits - 1)) - 1)
                : 0...Double((Int64(1) << bits) - 1)
            guard range.contains(scaled) else { return nil }
            let raw = UInt64(bitPattern: Int64(scaled))
            return [id] + (0..<size).map { UInt8(truncatingIfNeeded: raw >> (8 * UInt64($0))) }
        case let (.state, .state(code)):
            return [id, code]
        case let (.dimmer, .dimmer(event, steps)):
            return [id, event, UInt8(bitPattern: steps)]
        case let (.timestamp, .timestamp(seconds)):
            return [id] + (0..<4).map { UInt8(truncatingIfNeeded: seconds >> (8 * UInt32($0))) }
        case let (.lengthPrefixed, .text(text)) where id == 0x53 && text.utf8.count <= 255:
            return [id, UInt8(text.utf8.count)] + Array(text.utf8)
        case let (.lengthPrefixed, .raw(bytes)) where id == 0x54 && bytes.count <= 255:
            return [id, UInt8(bytes.count)] + bytes
        default:
            return nil
        }
    }

    private static func hex(_ byte: UInt8) -> String { Hex.encode([byte]).uppercased() }
}
