import Bluetooth
import Wire

/// A BTHome v2 advertisement: the Service Data of UUID 0xFCD2 (docs/protocols/bthome.md; bthome-ble
/// parser.py).
///
/// ```
/// byte 0        device information: bit 0 encrypted, bit 1 MAC included, bit 2 trigger-based
///               ("sleepy") device, bits 5–7 version (must be 2)
/// [bytes 1–6]   the MAC, least significant byte first, if bit 1 is set
/// then          objects (`BTHomeObject`), in the clear, or if bit 0 is set:
///               ciphertext · counter u32le · MIC (4 bytes)
/// ```
/// Encryption is AES-128-CCM with a 4-byte MIC and no associated data; the 13-byte nonce is
/// MAC (most significant byte first, as printed) ‖ `D2 FC` ‖ device-information byte ‖ the
/// counter's four bytes as sent.
public struct BTHomePacket: Hashable, Sendable {
    public static let serviceUUID = BluetoothUUID(0xFCD2)
    public static let micLength = 4

    public struct DeviceInformation: Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public init(encrypted: Bool, macIncluded: Bool = false, triggerBased: Bool = false) {
            rawValue = 2 << 5 | (encrypted ? 0x01 : 0) | (macIncluded ? 0x02 : 0) | (triggerBased ? 0x04 : 0)
        }
        public var isEncrypted: Bool { rawValue & 0x01 != 0 }
        public var isMACIncluded: Bool { rawValue & 0x02 != 0 }
        /// The device advertises on events rather than at a steady interval.
        public var isTriggerBased: Bool { rawValue & 0x04 != 0 }
        public var version: Int { Int(rawValue >> 5) }
    }

    public var deviceInformation: DeviceInformation
    /// The MAC the packet carried (bit 1), else nil.
    public var mac: Address?
    /// The encryption counter, for encrypted packets.
    public var counter: UInt32?
    /// The objects decoded, in order (up to `stoppedAt`).
    public var objects: [BTHomeObject]
    /// Where parsing stopped at an object ID of unknown size; nil when every byte was read.
    public var stoppedAt: UnknownObject?

    /// An object ID outside the known table, and how many bytes were left unread from it on.
    public struct UnknownObject: Hashable, Sendable {
        public var id: UInt8
        public var unreadBytes: Int
        public init(id: UInt8, unreadBytes: Int) {
            self.id = id
            self.unreadBytes = unreadBytes
        }
    }

    public init(deviceInformation: DeviceInformation, mac: Address? = nil, counter: UInt32? = nil, objects: [BTHomeObject],
                stoppedAt: UnknownObject? = nil) {
        self.deviceInformation = deviceInformation
        self.mac = mac
        self.counter = counter
        self.objects = objects
        self.stoppedAt = stoppedAt
    }

    /// Decodes service data. `advertiser` is the advertising address, the nonce's MAC when the
    /// packet does not include one; `key` is needed for encrypted packets.
    public init(decoding data: [UInt8], advertiser: Address, key: [UInt8]? = nil) throws(BTHomeError) {
        var reader = ByteReader(data)
        guard let first = reader.peekUInt8() else {
            throw .malformed(.truncated(field: "device information", needed: 1, available: 0))
        }
        deviceInformation = DeviceInformation(rawValue: first)
        guard deviceInformation.version == 2 else { throw .unsupportedVersion(deviceInformation.version) }
        do throws(WireError) {
            try reader.skip(1, "device information")
            mac = deviceInformation.isMACIncluded ? try reader.readAddress("MAC") : nil
        } catch {
            throw .malformed(error)
        }
        var plain = Array(data[reader.offset...])
        if deviceInformation.isEncrypted {
            guard let key else { throw .noKey }
            guard key.count == 16 else { throw .invalidKeyLength(key.count) }
            // At least one byte of ciphertext: an object ID.
            guard plain.count >= 1 + 4 + Self.micLength else {
                throw .malformed(.truncated(field: "encrypted payload, counter and MIC", needed: 9, available: plain.count))
            }
            let counterBytes = Array(plain[(plain.count - 8)..<(plain.count - 4)])
            let sealed = Array(plain[..<(plain.count - 8)]) + plain[(plain.count - 4)...]
            let nonce = Self.nonce(mac: mac ?? advertiser, deviceInformation: deviceInformation, counterBytes: counterBytes)
            guard let opened = AESCCM.open(sealed, key: key, nonce: nonce, tagLength: Self.micLength) else { throw .notAuthentic }
            counter = counterBytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
            plain = opened
        }
        var objects: [BTHomeObject] = []
        var objectReader = ByteReader(plain)
        do throws(WireError) {
            while !objectReader.isAtEnd {
                guard let object = try BTHomeObject.read(from: &objectReader) else {
                    stoppedAt = UnknownObject(id: objectReader.peekUInt8() ?? 0, unreadBytes: objectReader.remainingCount)
                    break
                }
                objects.append(object)
            }
        } catch {
            throw .malformed(error)
        }
        self.objects = objects
    }

    /// The 13-byte CCM nonce: MAC (most significant byte first) ‖ UUID 0xFCD2 (`D2 FC`) ‖
    /// device information ‖ counter as sent (bthome-ble parser.py `get_nonce`).
    public static func nonce(mac: Address, deviceInformation: DeviceInformation, counterBytes: [UInt8]) -> [UInt8] {
        mac.wireBytes.reversed() + [0xD2, 0xFC, deviceInformation.rawValue] + counterBytes
    }

    /// Service data for `objects` (for simulated thermometers and tests): in the clear, or
    /// encrypted with `key` and `counter`. `advertiser` is the address the nonce uses unless
    /// `includeMAC` puts it in the packet (where the nonce then takes it from). Nil if an
    /// object cannot be encoded or the key is not 16 bytes.
    public static func serviceData(_ objects: [BTHomeObject], advertiser: Address, key: [UInt8]? = nil, counter: UInt32 = 0,
                                   includeMAC: Bool = false, triggerBased: Bool = false) -> [UInt8]? {
        let info = DeviceInformation(encrypted: key != nil, macIncluded: includeMAC, triggerBased: triggerBased)
        var payload: [UInt8] = []
        for object in objects {
            guard let bytes = object.encoded else { return nil }
            payload += bytes
        }
        var data = [info.rawValue] + (includeMAC ? advertiser.wireBytes : [])
        guard let key else { return data + payload }
        guard key.count == 16, !payload.isEmpty else { return nil }
        let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> (8 * UInt32($0))) }
        let sealed = AESCCM.seal(payload, key: key, nonce: nonce(mac: advertiser, deviceInformation: info, counterBytes: counterBytes),
                                 tagLength: micLength)
        data += sealed[..<payload.count] + counterBytes + sealed[payload.count...]
        return data
    }

    // MARK: What the decoder uses

    /// The first object of a quantity (a device with two probes sends two temperatures; the
    /// first is the one Vigil reports).
    public func first(_ quantity: BTHomeObject.Quantity) -> BTHomeObject? { objects.first { $0.format?.quantity == quantity } }

    public var packetID: UInt8? {
        if case let .number(value)? = first(.packetID)?.value { return UInt8(value) }
        return nil
    }
}

/// Why a BTHome advertisement was refused.
public enum BTHomeError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(WireError)
    case unsupportedVersion(Int)
    /// Encrypted, and no key is configured.
    case noKey
    /// The MIC does not match: the key is wrong, or the packet is not from our device.
    case notAuthentic
    /// The key given is not the 16 bytes of AES-128.
    case invalidKeyLength(Int)

    public var description: String {
        switch self {
        case let .malformed(error): "\(error)"
        case let .unsupportedVersion(version): "BTHome version \(version); only version 2 is supported"
        case .noKey: "the advertisement is encrypted and no key is configured"
        case .notAuthentic: "the advertisement does not authenticate with the configured key (wrong key?)"
        case let .invalidKeyLength(count): "the key is \(count) bytes; BTHome keys are 16"
        }
    }
}
