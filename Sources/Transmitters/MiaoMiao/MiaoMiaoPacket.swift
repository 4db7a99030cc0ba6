import Readings

/// The MiaoMiao data packet (response 0x28), reassembled from its notifications
/// (docs/protocols/miaomiao-bubble.md §MiaoMiao):
///
/// | Offset | Field |
/// |---|---|
/// | 0 | `0x28` |
/// | 1–2 | total length, big-endian (xDrip `256*b[1] + b[2]`) |
/// | 3–4 | Libre minute counter ("index", LibreTransmitter; read big-endian here, unconfirmed) |
/// | 5–12 | sensor UID |
/// | 13 | bridge battery % |
/// | 14–15 | firmware version |
/// | 16–17 | hardware version |
/// | 18–361 | Libre FRAM, 344 bytes |
/// | 362 | end marker `0x29` |
/// | 363–368 | patchInfo, newer firmware only |
///
/// The FRAM is kept as bytes: a packet can be well-formed while its FRAM is corrupt, and the
/// driver reports the two differently (the bridge's battery is still worth showing).
public struct MiaoMiaoPacket: Hashable, Sendable {
    public static let headerLength = 18
    public static let lengthWithoutPatchInfo = 363
    public static let lengthWithPatchInfo = 369
    public static let endMarker: UInt8 = 0x29

    public let declaredLength: Int
    public let minuteCounter: UInt16
    public let sensorUID: [UInt8]
    public let battery: Percent
    public let firmware: [UInt8]
    public let hardware: [UInt8]
    public let fram: [UInt8]
    public let patchInfo: LibrePatchInfo?

    public init(decoding bytes: [UInt8]) throws(MiaoMiaoPacketError) {
        guard bytes.first == MiaoMiao.ResponseCode.dataPacket.rawValue else { throw .notADataPacket(bytes.first) }
        guard bytes.count == Self.lengthWithoutPatchInfo || bytes.count == Self.lengthWithPatchInfo else {
            throw .wrongLength(bytes.count)
        }
        declaredLength = Int(bytes[1]) << 8 | Int(bytes[2])
        // The declared length names the packet without patchInfo (363) or with it (369); a
        // firmware that declares 363 and appends patchInfo anyway is accepted, any other
        // declaration means the framing is not what we think it is.
        guard declaredLength == Self.lengthWithoutPatchInfo || declaredLength == bytes.count else {
            throw .declaredLengthMismatch(declared: declaredLength, received: bytes.count)
        }
        guard bytes[362] == Self.endMarker else { throw .missingEndMarker(bytes[362]) }
        guard let battery = Percent(Int(bytes[13])) else { throw .batteryOutOfRange(bytes[13]) }
        minuteCounter = UInt16(bytes[3]) << 8 | UInt16(bytes[4])
        sensorUID = Array(bytes[5..<13])
        self.battery = battery
        firmware = Array(bytes[14..<16])
        hardware = Array(bytes[16..<18])
        fram = Array(bytes[18..<362])
        patchInfo = bytes.count == Self.lengthWithPatchInfo ? try? LibrePatchInfo(Array(bytes[363..<369])) : nil
    }

    /// Firmware and hardware versions as the projects show them: the two bytes in hex.
    public var firmwareVersion: String { firmware.map(hex2).joined() }
    public var hardwareVersion: String { hardware.map(hex2).joined() }
    public var sensorUIDHex: String { sensorUID.map(hex2).joined() }
}

public enum MiaoMiaoPacketError: Error, Hashable, Sendable, CustomStringConvertible {
    case notADataPacket(UInt8?)
    case wrongLength(Int)
    case declaredLengthMismatch(declared: Int, received: Int)
    case missingEndMarker(UInt8)
    case batteryOutOfRange(UInt8)

    public var description: String {
        switch self {
        case let .notADataPacket(first): "MiaoMiao packet starts with \(first.map { "0x" + hex2($0) } ?? "nothing"), expected 0x28"
        case let .wrongLength(count): "MiaoMiao packet of \(count) bytes, expected 363 or 369"
        case let .declaredLengthMismatch(declared, received): "MiaoMiao packet declares \(declared) bytes but \(received) arrived"
        case let .missingEndMarker(byte): "MiaoMiao packet byte 362 is 0x\(hex2(byte)), expected end marker 0x29"
        case let .batteryOutOfRange(byte): "MiaoMiao battery \(byte) % is out of range"
        }
    }
}
