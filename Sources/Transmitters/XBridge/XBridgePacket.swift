import Wire

/// One notification from an xDrip/xBridge Wixel (docs/protocols/xbridge.md §ASCII packet, §Binary
/// packets).
///
/// Telling the forms apart: a lone 0x00 is the null packet xDrip ignores; `07 F1` is the
/// beacon; `11 00` or `15 00` a binary data packet (xDrip DexCollectionService.java checks byte
/// 0 ∈ {0x07, 0x11, 0x15}; xdripswift checks byte 1, 0x00 data / 0xF1 beacon; requiring both
/// bytes satisfies both readings). Anything else must be the classic ASCII line, or it is
/// rejected: a binary packet of the wrong length must not be parsed as ASCII by accident.
public enum XBridgePacket: Hashable, Sendable {
    case null
    case ascii(XBridgeASCIIPacket)
    case data(XBridgeDataPacket)
    case beacon(XBridgeBeacon)

    public init(decoding bytes: [UInt8]) throws(WireError) {
        if bytes == [0x00] { self = .null; return }
        guard let first = bytes.first else { throw .truncated(field: "xBridge packet", needed: 1, available: 0) }
        if bytes.count >= 2 {
            switch (first, bytes[1]) {
            case (_, 0xF1):
                self = .beacon(try XBridgeBeacon(decoding: bytes))
                return
            case (XBridgeDataPacket.shortSize, 0x00), (XBridgeDataPacket.longSize, 0x00):
                self = .data(try XBridgeDataPacket(decoding: bytes))
                return
            case (_, 0x00), (_, 0xD6):
                // A data type byte with an unknown size, or xdripswift's early beacon type:
                // binary either way, and not a form the xBridge2 struct defines.
                throw .malformed("xBridge binary packet of type 0x\(Hex.encode([bytes[1]])) with length byte \(first) and \(bytes.count) bytes")
            default:
                break
            }
        }
        self = .ascii(try XBridgeASCIIPacket(decoding: bytes))
    }
}

/// The binary data packet, bridge → app, type 0x00 (xBridge2.c `RawRecord` and `print_packet`;
/// xDrip `setSerialDataToTransmitterRawData`). Little-endian, 17 bytes (older firmware) or 21
/// (current, with the delay):
///
/// size · 0x00 · raw u32 · filtered u32 · transmitter battery u8 · bridge battery u8 ·
/// transmitter ID u32 · [delay ms u32] · protocol level u8.
///
/// The xBridge2 header comment describes a u16 bridge battery and no delay; the struct it
/// actually sends has a u8 battery and the u32 delay, and xDrip decodes per the struct, as here.
public struct XBridgeDataPacket: Hashable, Sendable {
    public static let shortSize: UInt8 = 0x11
    public static let longSize: UInt8 = 0x15

    /// The decoded Dexcom raw (unfiltered) sensor value, in Dexcom counts.
    public var raw: UInt32
    /// The firmware sends the decoded filtered value × 2 (xBridge2.c); kept as sent.
    public var filteredTimesTwo: UInt32
    /// The G4 transmitter's own battery byte (Dexcom units, not a percentage).
    public var transmitterBattery: UInt8
    /// The Wixel bridge's battery, percent.
    public var bridgeBattery: UInt8
    /// The transmitter the bridge heard.
    public var transmitterID: UInt32
    /// Milliseconds between capture and sending (21-byte form only); nil for the 17-byte form.
    public var delay: Duration?
    public var protocolLevel: UInt8

    public init(raw: UInt32, filteredTimesTwo: UInt32, transmitterBattery: UInt8, bridgeBattery: UInt8,
                transmitterID: UInt32, delay: Duration?, protocolLevel: UInt8 = 1) {
        self.raw = raw
        self.filteredTimesTwo = filteredTimesTwo
        self.transmitterBattery = transmitterBattery
        self.bridgeBattery = bridgeBattery
        self.transmitterID = transmitterID
        self.delay = delay
        self.protocolLevel = protocolLevel
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        let size = try reader.readUInt8("xBridge size")
        guard size == Self.shortSize || size == Self.longSize else {
            throw .invalidValue(field: "xBridge data packet size", value: Int(size))
        }
        guard bytes.count == Int(size) else {
            throw .malformed("xBridge data packet says \(size) bytes but has \(bytes.count)")
        }
        let type = try reader.readUInt8("xBridge type")
        guard type == 0x00 else { throw .invalidValue(field: "xBridge data packet type", value: Int(type)) }
        raw = try reader.readUInt32("xBridge raw")
        filteredTimesTwo = try reader.readUInt32("xBridge filtered")
        transmitterBattery = try reader.readUInt8("xBridge transmitter battery")
        bridgeBattery = try reader.readUInt8("xBridge bridge battery")
        transmitterID = try reader.readUInt32("xBridge transmitter ID")
        delay = size == Self.longSize ? .milliseconds(Int64(try reader.readUInt32("xBridge delay"))) : nil
        protocolLevel = try reader.readUInt8("xBridge protocol level")
        try reader.expectEnd("xBridge data packet")
    }

    /// The wire form (for rigs and tests; the bridge is the one that sends it).
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.write(delay == nil ? Self.shortSize : Self.longSize)
        writer.write(UInt8(0x00))
        writer.write(raw)
        writer.write(filteredTimesTwo)
        writer.write(transmitterBattery)
        writer.write(bridgeBattery)
        writer.write(transmitterID)
        if let delay { writer.write(UInt32(clamping: delay.nanosecondsClamped / 1_000_000)) }
        writer.write(protocolLevel)
        return writer.bytes
    }
}

/// The beacon, bridge → app: `07 F1 t0 t1 t2 t3 level` (xBridge2.c `sendBeacon`). Sent when the
/// bridge wakes and as the answer to a TXID packet, carrying the ID it now filters on (0 when
/// none is set). The xBridge2 header comment says length 6, but the code sends 7 and xDrip
/// checks `b[0]==0x07 && b[1]==0xF1`; the code wins.
public struct XBridgeBeacon: Hashable, Sendable {
    public var transmitterID: UInt32
    public var protocolLevel: UInt8

    public init(transmitterID: UInt32, protocolLevel: UInt8 = 1) {
        self.transmitterID = transmitterID
        self.protocolLevel = protocolLevel
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        let size = try reader.readUInt8("xBridge beacon size")
        guard size == 7 else { throw .invalidValue(field: "xBridge beacon length byte", value: Int(size)) }
        let type = try reader.readUInt8("xBridge beacon type")
        guard type == 0xF1 else { throw .invalidValue(field: "xBridge beacon type", value: Int(type)) }
        transmitterID = try reader.readUInt32("xBridge beacon transmitter ID")
        protocolLevel = try reader.readUInt8("xBridge beacon protocol level")
        try reader.expectEnd("xBridge beacon")
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt8(7))
        writer.write(UInt8(0xF1))
        writer.write(transmitterID)
        writer.write(protocolLevel)
        return writer.bytes
    }
}

/// The classic wixel-xDrip line `raw transmitterBattery bridgeBattery` (dexdrip.c
/// `print_packet`, format `"%lu %hhu %d"`), e.g. `123632 218 0`; LimiTTer adds a 4th field, the
/// sensor age in minutes (xDrip TransmitterData.java). No terminator in BT mode, but a trailing
/// CR, LF or NUL from other firmware is tolerated.
public struct XBridgeASCIIPacket: Hashable, Sendable {
    public var raw: UInt32
    public var transmitterBattery: UInt8
    /// What the bridge prints in the third field (the Wixel's supply in mV on classic firmware).
    public var bridgeBattery: Int
    /// LimiTTer only.
    public var sensorAge: Duration?

    public init(raw: UInt32, transmitterBattery: UInt8, bridgeBattery: Int, sensorAge: Duration? = nil) {
        self.raw = raw
        self.transmitterBattery = transmitterBattery
        self.bridgeBattery = bridgeBattery
        self.sensorAge = sensorAge
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var body = bytes[...]
        while let last = body.last, last == 0x0D || last == 0x0A || last == 0x00 { body = body.dropLast() }
        for byte in body where !(byte == 0x20 || (0x30...0x39).contains(byte) || byte == 0x2D) {
            throw .malformed("xBridge ASCII packet has a byte 0x\(Hex.encode([byte])) that is neither a digit nor a space")
        }
        let fields = body.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard (3...4).contains(fields.count) else {
            throw .malformed("xBridge ASCII packet has \(fields.count) field(s), expected 3 (raw, transmitter battery, bridge battery) or 4 (+ sensor age)")
        }
        guard let raw = UInt32(fields[0]) else { throw .malformed("xBridge ASCII raw \"\(fields[0])\" is not a u32") }
        guard let battery = UInt8(fields[1]) else { throw .malformed("xBridge ASCII transmitter battery \"\(fields[1])\" is not a u8") }
        guard let bridge = Int(fields[2]), (-32768...32767).contains(bridge) else {
            throw .malformed("xBridge ASCII bridge battery \"\(fields[2])\" is not an int16")
        }
        self.raw = raw
        self.transmitterBattery = battery
        self.bridgeBattery = bridge
        if fields.count == 4 {
            guard let minutes = Int64(fields[3]), minutes >= 0, minutes <= 60 * 24 * 30 else {
                throw .malformed("xBridge ASCII sensor age \"\(fields[3])\" is not 0…43200 minutes")
            }
            sensorAge = .seconds(minutes * 60)
        } else {
            sensorAge = nil
        }
    }
}

/// Packets app → bridge (docs/protocols/xbridge.md §Binary packets; xDrip
/// DexCollectionService.java, xdripswift).
public enum XBridgeCommand: Hashable, Sendable {
    /// `02 F0`: "acknowledged, go to sleep", after each valid data packet. Without it the
    /// bridge keeps resending and stays awake, draining its battery.
    case acknowledge
    /// `06 01 t0 t1 t2 t3`: the transmitter ID the bridge should filter on.
    case setTransmitterID(XBridgeTransmitterID)

    public var encoded: [UInt8] {
        switch self {
        case .acknowledge: return [0x02, 0xF0]
        case let .setTransmitterID(id):
            var writer = ByteWriter()
            writer.write(UInt8(0x06))
            writer.write(UInt8(0x01))
            writer.write(id.rawValue)
            return writer.bytes
        }
    }
}
