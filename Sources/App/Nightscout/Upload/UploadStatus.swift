import Clocks
import Readings

extension Nightscout {
    /// Where the upload stands, for `vigil status` and the page (docs/nightscout-upload.md
    /// "Status"). Holds no URL, secret or token.
    public struct UploadStatus: Hashable, Sendable {
        /// The queue as last read from the history (less what was acknowledged since).
        public var queued = 0
        /// When the oldest queued reading was measured; nil when nothing waits.
        public var oldest: WallClockTime?
        /// When the site last accepted a request (kept across restarts by the history).
        public var lastSuccess: WallClockTime?
        /// The last failure's line, and when it happened; kept after a success, for the record.
        public var lastFailure: String?
        public var lastFailureAt: WallClockTime?
        /// Since when every attempt failed; nil while the last one worked.
        public var failingSince: MonotonicInstant?
        /// The site refused the credential (HTTP 401 or 403) at the last attempt.
        public var refused = false
        /// Rows the site refused alone, dropped with an error line, in this run.
        public var rejected = 0
        /// Rows retention deleted before they were sent (the history's count, all runs).
        public var droppedUnsent = 0

        public init() {}

        /// Failing this long with something waiting is the upload fault: a warning on the page
        /// and in `vigil status`, never an alarm (the bedside alarms do not depend on it).
        public static let faultAfter = Duration.seconds(3600)

        /// The fault's line while it stands, else nil.
        public func fault(at now: MonotonicInstant) -> String? {
            guard let since = failingSince, now - since >= Self.faultAfter, queued > 0 else { return nil }
            let minutes = (now - since).nanosecondsClamped / 60_000_000_000
            let span = minutes >= 120 ? "\(minutes / 60) h" : "\(minutes) min"
            return "Nightscout upload failing for \(span), \(queued) waiting: \(lastFailure ?? "no answer")"
        }
    }
}
