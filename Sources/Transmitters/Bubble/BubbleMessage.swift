import Readings

/// Bubble bridge commands and responses on the Nordic UART Service
/// (docs/protocols/miaomiao-bubble.md §Bubble: xDrip Bubble.java, xdripswift
/// CGMBubbleTransmitter.swift, LibreTransmitter BubbleTransmitter.swift).
///
/// The second byte of each command is an "app id" on which the three projects disagree
/// (xDrip 0x01, LibreTransmitter 0x00, xdripswift 0xA0), which suggests the device ignores it.
/// Vigil sends xDrip's 0x01 by default, the oldest of the three implementations; it is a
/// configuration value (`BubbleDriver.Configuration.appID`) in case a firmware cares.
public enum Bubble {
    public enum Command: Hashable, Sendable {
        /// `00 <app> <minutes>`: start, and report every `minutes`.
        case start(appID: UInt8, intervalMinutes: UInt8)
        /// `02 <app> 00 00 00 2B`: send the raw (plain) FRAM; sent after the info message.
        case requestData(appID: UInt8)

        public var bytes: [UInt8] {
            switch self {
            case let .start(appID, minutes): [0x00, appID, minutes]
            case let .requestData(appID): [0x02, appID, 0x00, 0x00, 0x00, 0x2B]
            }
        }
    }

    /// A bridge → central message.
    public enum Message: Hashable, Sendable {
        /// `0x80`: firmware `b[2].b[3]`, battery % `b[4]`, hardware = the last two bytes.
        case info(firmware: Version, battery: Percent, hardware: Version?)
        /// `0xC0`: sensor UID in bytes 2–9.
        case serial(uid: [UInt8])
        /// `0xC1`: patchInfo, bytes 5–10 from firmware 1.35 on, bytes 3–8 before. The bytes are
        /// kept whole because where the patchInfo sits depends on the firmware from `info`.
        case patchInfo(message: [UInt8])
        /// `0x82`: a chunk of FRAM, payload from byte 4.
        case data(payload: [UInt8])
        /// `0x88`: a chunk of FRAM the Bubble deciphered itself (a Libre 2 on firmware 2.6 or
        /// later, asked with `08`), already plain, payload from byte 4 as in `0x82`
        /// (docs/protocols/libre2-fram.md §Through the bridges).
        case plainData(payload: [UInt8])
        /// `0x8C`: a "dataPacket2" newer xdripswift names, whose content no source describes.
        case undescribedData(code: UInt8)
        /// `0xBF`.
        case noSensor

        public init(decoding bytes: [UInt8]) throws(BubbleMessageError) {
            guard let code = bytes.first else { throw .empty }
            switch code {
            case 0x80:
                guard bytes.count >= 5 else { throw .truncated(code: code, count: bytes.count, needed: 5) }
                guard let battery = Percent(Int(bytes[4])) else { throw .batteryOutOfRange(bytes[4]) }
                // The hardware version is the last two bytes; in a message too short to have
                // them apart from the firmware and battery fields, there is none.
                let hardware = bytes.count >= 7 ? Version(major: bytes[bytes.count - 2], minor: bytes[bytes.count - 1]) : nil
                self = .info(firmware: Version(major: bytes[2], minor: bytes[3]), battery: battery, hardware: hardware)
            case 0xC0:
                guard bytes.count >= 10 else { throw .truncated(code: code, count: bytes.count, needed: 10) }
                self = .serial(uid: Array(bytes[2..<10]))
            case 0xC1:
                guard bytes.count >= 9 else { throw .truncated(code: code, count: bytes.count, needed: 9) }
                self = .patchInfo(message: bytes)
            case 0x82:
                guard bytes.count > 4 else { throw .truncated(code: code, count: bytes.count, needed: 5) }
                self = .data(payload: Array(bytes[4...]))
            case 0x88:
                guard bytes.count > 4 else { throw .truncated(code: code, count: bytes.count, needed: 5) }
                self = .plainData(payload: Array(bytes[4...]))
            case 0x8C:
                self = .undescribedData(code: code)
            case 0xBF:
                self = .noSensor
            default:
                throw .unknownCode(code)
            }
        }
    }

    /// A firmware or hardware version, `major.minor`.
    public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible {
        public var major: UInt8
        public var minor: UInt8

        public init(major: UInt8, minor: UInt8) {
            self.major = major
            self.minor = minor
        }

        public static func < (a: Self, b: Self) -> Bool { (a.major, a.minor) < (b.major, b.minor) }

        public var description: String { "\(major).\(minor)" }
    }

    /// From this firmware on, patchInfo sits at bytes 5–10 of `0xC1`.
    public static let patchInfoMovedInFirmware = Version(major: 1, minor: 35)

    /// The patchInfo in a `0xC1` message for a bridge running `firmware` (nil: not yet known,
    /// in which case the current layout is assumed).
    public static func patchInfo(in message: [UInt8], firmware: Version?) throws(BubbleMessageError) -> LibrePatchInfo {
        let start = (firmware ?? patchInfoMovedInFirmware) >= patchInfoMovedInFirmware ? 5 : 3
        guard message.count >= start + 6 else { throw .truncated(code: 0xC1, count: message.count, needed: start + 6) }
        return LibrePatchInfo(checked: Array(message[start ..< start + 6]))
    }
}

public enum BubbleMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case truncated(code: UInt8, count: Int, needed: Int)
    case batteryOutOfRange(UInt8)
    case unknownCode(UInt8)

    public var description: String {
        switch self {
        case .empty: "empty Bubble message"
        case let .truncated(code, count, needed): "Bubble message 0x\(hex2(code)) of \(count) bytes, needs \(needed)"
        case let .batteryOutOfRange(byte): "Bubble battery \(byte) % is out of range"
        case let .unknownCode(code): "unknown Bubble message 0x\(hex2(code))"
        }
    }
}
