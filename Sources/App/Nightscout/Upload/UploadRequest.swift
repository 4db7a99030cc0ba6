import Clocks
import Crypto
import Readings
import Web

extension Nightscout {
    /// How Vigil proves to a Nightscout site that it may write (docs/nightscout-upload.md
    /// "Authentication"). Its description never holds the secret or the token.
    public enum UploadCredential: Sendable, CustomStringConvertible {
        /// The site's `API_SECRET`, kept only as the lowercase hex of its SHA-1: what the
        /// `api-secret` header carries and what Nightscout compares it with.
        case apiSecret(sha1Hex: String)
        /// An access token (Nightscout's admin tools make one per subject), sent as `token=`
        /// in the query: Nightscout reads `Authorization: Bearer` as a JWT it signed itself,
        /// not as an access token.
        case token(String)

        /// The header form of `secret`.
        public static func apiSecret(_ secret: String) -> UploadCredential {
            .apiSecret(sha1Hex: String(decoding: Credentials.lowercaseHex(Array(Insecure.SHA1.hash(data: Array(secret.utf8)))), as: UTF8.self))
        }

        public var description: String {
            switch self {
            case .apiSecret: "the API secret"
            case .token: "the access token"
            }
        }
    }

    /// One POST the uploader sends, and which queued rows it acknowledges when the site
    /// accepts it.
    public struct UploadRequest: Sendable {
        public enum Collection: String, Sendable {
            case entries, treatments, devicestatus
        }

        public var collection: Collection
        /// Its target may hold the token: never log it (`collection` names the request in a line).
        public var request: HTTP.ClientRequest
        public var acknowledges: [UploadQueue.ItemID]

        /// The POST of `documents` (a JSON array) to `collection` of `site`.
        init(_ collection: Collection, documents: [[(String, JSON)]], acknowledges: [UploadQueue.ItemID],
             site: HTTP.URL, credential: UploadCredential) {
            self.collection = collection
            self.acknowledges = acknowledges
            var url = site.appending("/api/v1/" + collection.rawValue)
            var headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "application/json")]
            switch credential {
            case let .apiSecret(hex): headers.append(("api-secret", hex))
            case let .token(token): url.target += "?token=" + Self.percentEncoded(token)
            }
            // Device status is one record per POST: older Nightscout stores the body as one
            // document (`lib/server/devicestatus.js` inserts it as it came).
            let json: JSON = collection == .devicestatus && documents.count == 1 ? .object(documents[0]) : .array(documents.map(JSON.object))
            request = HTTP.ClientRequest(method: .post, url: url, headers: headers, body: Array(json.rendered.utf8))
        }

        /// `text` with every byte outside RFC 3986's unreserved set percent-encoded.
        static func percentEncoded(_ text: String) -> String {
            let digits = Array("0123456789ABCDEF".utf8)
            var out: [UInt8] = []
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    out.append(byte)
                default:
                    out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// A batch of queued rows as the requests that send it, in order (docs/nightscout-upload.md
    /// "What is sent"): sensor and meter glucose as entries in one POST, calibrations as "BG
    /// Check" treatments in one, the newest battery level of each device as a device status.
    /// What cannot be sent is acknowledged with a reason instead (`skipped`).
    struct UploadPlan {
        var requests: [UploadRequest] = []
        /// Rows acknowledged without sending, each with the log line that says why.
        var skipped: [(id: UploadQueue.ItemID, reason: String)] = []

        init(_ items: [UploadQueue.Item], site: HTTP.URL, credential: UploadCredential, utcOffset: Duration) {
            let offsetMinutes = ISO8601.offsetMinutes(utcOffset)
            func local(_ time: WallClockTime) -> String { ISO8601.string(time, utcOffset: utcOffset, alwaysMilliseconds: true) }
            var entries: [[(String, JSON)]] = [], entryIDs: [UploadQueue.ItemID] = []
            var treatments: [[(String, JSON)]] = [], treatmentIDs: [UploadQueue.ItemID] = []
            var batteries: [DeviceID: (id: UploadQueue.ItemID, reading: RecordedReading)] = [:]
            var batteryOrder: [DeviceID] = []
            for item in items {
                switch item.content {
                case let .reading(reading):
                    if case let .battery(level) = reading.value {
                        _ = level
                        if let older = batteries[reading.device] {
                            skipped.append((older.id, "an older battery level of \(reading.device) is not sent: a newer one is in the same batch"))
                        } else {
                            batteryOrder.append(reading.device)
                        }
                        batteries[reading.device] = (item.id, reading)
                    } else if var fields = NightscoutExporter.fields(of: reading, dateString: local(reading.wallTime), utcOffsetMinutes: offsetMinutes) {
                        // Nightscout keeps one entry per time and type; `identifier` is the
                        // reading's own name, kept with the entry (docs/nightscout-upload.md "Ids").
                        fields.append(("identifier", .string(DocumentID.of(reading, in: "entries"))))
                        entries.append(fields)
                        entryIDs.append(item.id)
                    } else {
                        skipped.append((item.id, "\(reading.kind.rawValue) of \(reading.device) has no Nightscout form and is not sent"))
                    }
                case let .calibration(calibration):
                    var fields = Treatments.document(of: calibration, createdAt: local(calibration.wallTime), utcOffsetMinutes: offsetMinutes)
                    if let id = fields.first(where: { $0.0 == "_id" })?.1 { fields.append(("identifier", id)) }
                    treatments.append(fields)
                    treatmentIDs.append(item.id)
                case let .unreadable(reason):
                    skipped.append((item.id, "queued \(item.id) cannot be read back (\(reason)) and is not sent"))
                }
            }
            if !entries.isEmpty {
                requests.append(UploadRequest(.entries, documents: entries, acknowledges: entryIDs, site: site, credential: credential))
            }
            if !treatments.isEmpty {
                requests.append(UploadRequest(.treatments, documents: treatments, acknowledges: treatmentIDs, site: site, credential: credential))
            }
            for device in batteryOrder {
                guard let (id, reading) = batteries[device], case let .battery(level) = reading.value else { continue }
                let document = DeviceStatuses.fields(device: device, battery: level, createdAt: local(reading.wallTime), utcOffsetMinutes: offsetMinutes)
                requests.append(UploadRequest(.devicestatus, documents: [document], acknowledges: [id], site: site, credential: credential))
            }
        }
    }
}
