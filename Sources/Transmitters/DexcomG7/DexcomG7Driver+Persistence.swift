import Crypto
import Wire

// What a G7 driver keeps across restarts (`PersistentDriverState`): the session key agreed at
// pairing, so a restart does not pair again (and bond again) with the code, and the serial its
// readings are stamped with.
extension DexcomG7Driver: PersistentDriverState {
    /// `session-key` (hex), `key-for-code` (which code it was agreed with: a fingerprint, not the
    /// code), `bonded`, `serial`.
    public var persistentState: [String: String] {
        var state: [String: String] = [:]
        if let sessionKey {
            state["session-key"] = Hex.encode(sessionKey)
            state["key-for-code"] = Self.fingerprint(of: configuration.pairingCode)
            if hasBonded { state["bonded"] = "true" }
        }
        if let serialNumber { state["serial"] = String(serialNumber) }
        return state
    }

    /// A key agreed with another code belongs to the previous sensor: the user entered a new
    /// sensor's code, so it is dropped and the new sensor paired.
    public mutating func restore(_ state: [String: String]) {
        if let hex = state["session-key"], let key = Hex.decode(hex), key.count == 16,
           state["key-for-code"] == Self.fingerprint(of: configuration.pairingCode) {
            sessionKey = key
            hasBonded = state["bonded"] == "true"
            serialNumber = state["serial"].flatMap(UInt64.init)
        }
    }

    /// The first 8 bytes of SHA-256 of the code, in hex: tells codes apart without storing one.
    static func fingerprint(of code: String) -> String {
        Hex.encode(Array(SHA256.hash(data: Array(code.utf8))).prefix(8))
    }
}
