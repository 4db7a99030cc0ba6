import Bluetooth
import Readings

/// The persistent memory of which address each configured transmitter has: written at the
/// first successful connection (when the driver emits `TransmitterEvent.connected`, i.e. the
/// peer proved compatible), and from then on the only address that transmitter matches.
///
/// Text form (the platform layer reads and writes the file), one transmitter a line:
/// ```
/// # comment
/// hr1 C0:11:22:33:44:55 random
/// ```
/// name (the configured `DeviceID`, no spaces), address most-significant byte first, and the
/// address type (`public`, `random`, `public-id`, `random-id`). Lines are written sorted by
/// name so the file diffs cleanly. Bad input is rejected with its line number: a silently
/// half-read file would make Vigil pair with whatever strap is nearest.
public struct RememberedTransmitters: Hashable, Sendable {
    public private(set) var addresses: [DeviceID: DeviceAddress]

    public init(_ addresses: [DeviceID: DeviceAddress] = [:]) { self.addresses = addresses }

    public func address(for device: DeviceID) -> DeviceAddress? { addresses[device] }

    /// Remembers `address` if `device` has none yet (first successful connection). Returns true
    /// if the memory changed and should be saved. An existing entry is never overwritten: to
    /// move to a new transmitter the user forgets the old one. Throws for a name the text form
    /// cannot hold (empty, whitespace, a leading `#`), rather than writing a file it cannot read.
    @discardableResult
    public mutating func rememberIfNew(_ address: DeviceAddress, for device: DeviceID) throws(RememberedTransmittersError) -> Bool {
        let name = device.rawValue
        guard !name.isEmpty, !name.hasPrefix("#"), !name.contains(where: \.isWhitespace) else {
            throw .invalidName(name)
        }
        guard addresses[device] == nil else { return false }
        addresses[device] = address
        return true
    }

    /// Returns true if there was something to forget.
    @discardableResult
    public mutating func forget(_ device: DeviceID) -> Bool { addresses.removeValue(forKey: device) != nil }

    public var serialized: String {
        addresses.keys.sorted().map { device in
            let address = addresses[device]!
            return "\(device.rawValue) \(address.address) \(address.type)\n"
        }.joined()
    }

    public init(parsing text: String) throws(RememberedTransmittersError) {
        var addresses: [DeviceID: DeviceAddress] = [:]
        // Split on any newline Character: in Swift "\r\n" is one Character, so a file edited
        // on Windows neither hides lines nor shifts line numbers.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() {
            let lineNumber = index + 1
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.isEmpty || words[0].hasPrefix("#") { continue }
            guard words.count == 3 else {
                throw .badLine(lineNumber, reason: "expected NAME ADDRESS TYPE, found \(words.count) field(s)")
            }
            guard let address = Address(String(words[1])) else {
                throw .badLine(lineNumber, reason: "invalid address \"\(words[1])\"")
            }
            guard let type = AddressType.allCases.first(where: { $0.description == words[2] }) else {
                throw .badLine(lineNumber, reason: "invalid address type \"\(words[2])\" (public, random, public-id, random-id)")
            }
            let device = DeviceID(String(words[0]))
            guard addresses.updateValue(DeviceAddress(address, type: type), forKey: device) == nil else {
                throw .badLine(lineNumber, reason: "\(device) remembered twice")
            }
        }
        self.init(addresses)
    }
}

public enum RememberedTransmittersError: Error, Hashable, Sendable, CustomStringConvertible {
    case badLine(Int, reason: String)
    case invalidName(String)

    public var description: String {
        switch self {
        case let .badLine(line, reason): "remembered transmitters, line \(line): \(reason)"
        case let .invalidName(name): "cannot remember a transmitter named \"\(name)\": names need at least one character, no whitespace and no leading #"
        }
    }
}

extension AddressType {
    static var allCases: [AddressType] { [.public, .random, .publicIdentity, .randomIdentity] }
}
