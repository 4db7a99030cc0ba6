import Crypto
import Readings

extension Nightscout {
    /// The `_id` of a served document: 24 lowercase hex digits, the shape of the MongoDB
    /// ObjectId Nightscout gives each document (its routes tell an id from a type by
    /// `^[a-f\d]{24}$`), derived from what the document *is* so the same reading has the same
    /// `_id` in every answer, after a restart too: followers de-duplicate on it.
    ///
    /// The id is the first 12 bytes of SHA-256 over the identity's parts, each ended by a NUL
    /// (so `("ab", "c")` and `("a", "bc")` differ). For a reading the parts are its device, its
    /// kind and its `SensorStamp` (run and count: docs/reading-identity.md), or its wall time in
    /// microseconds when it has no stamp (docs/nightscout-api.md "Ids").
    enum DocumentID {
        static func make(_ parts: [String]) -> String {
            var bytes: [UInt8] = []
            for part in parts {
                bytes += part.utf8
                bytes.append(0)
            }
            return String(decoding: Credentials.lowercaseHex(Array(SHA256.hash(data: bytes).prefix(12))), as: UTF8.self)
        }

        /// An entry's or a meter treatment's id: `collection`, then the reading's identity.
        static func of(_ reading: RecordedReading, in collection: String) -> String {
            var parts = [collection, reading.device.rawValue, reading.kind.rawValue]
            if let stamp = reading.sensorStamp {
                parts += ["stamp", stamp.run, String(stamp.count)]
            } else {
                parts += ["time", String(reading.wallTime.microsecondsSinceEpoch)]
            }
            return make(parts)
        }
    }
}
