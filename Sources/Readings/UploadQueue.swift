import Clocks

/// The history's upload queue as the uploader sees it: batches of what waits to be sent to a
/// target, and the ids that acknowledge them (docs/nightscout-upload.md "The queue"). The
/// history writes the queue, the uploader in App decides what to send, and neither depends
/// on the other: these types are the whole of what crosses between them.
public enum UploadQueue {
    /// One queued row: which table it stands for and the row's id there. Acknowledging it
    /// removes it from the queue for one target.
    public struct ItemID: Hashable, Sendable, CustomStringConvertible {
        public enum Source: Int64, Hashable, Sendable {
            case reading = 1
            case calibration = 2
        }

        public var source: Source
        public var row: Int64

        public init(source: Source, row: Int64) {
            self.source = source
            self.row = row
        }

        public var description: String { "\(source == .reading ? "reading" : "calibration") \(row)" }
    }

    /// A queued row as read back.
    public struct Item: Hashable, Sendable {
        public enum Content: Hashable, Sendable {
            case reading(RecordedReading)
            case calibration(Calibration)
            /// The row could not be read back as a reading (a file edited by hand, a kind this
            /// Vigil does not know): the reason, for the log line that drops it.
            case unreadable(String)
        }

        public var id: ItemID
        public var content: Content

        public init(id: ItemID, content: Content) {
            self.id = id
            self.content = content
        }
    }

    /// Where one target's queue stands.
    public struct Status: Hashable, Sendable {
        /// Rows waiting to be acknowledged.
        public var queued: Int
        /// When the oldest of them was measured; nil when none waits.
        public var oldest: WallClockTime?
        /// When the target last acknowledged a batch (kept across restarts); nil: never.
        public var lastSuccess: WallClockTime?
        /// Rows retention deleted while still queued, since the target was first configured:
        /// the history keeps glucose a year, so this stays 0 unless a site refused for months.
        public var droppedUnsent: Int

        public init(queued: Int = 0, oldest: WallClockTime? = nil, lastSuccess: WallClockTime? = nil, droppedUnsent: Int = 0) {
            self.queued = queued
            self.oldest = oldest
            self.lastSuccess = lastSuccess
            self.droppedUnsent = droppedUnsent
        }
    }

    /// The oldest queued rows, oldest measured first, and the queue as it stood when they were read.
    public struct Batch: Hashable, Sendable {
        public var items: [Item]
        public var status: Status

        public init(items: [Item], status: Status) {
            self.items = items
            self.status = status
        }
    }
}
