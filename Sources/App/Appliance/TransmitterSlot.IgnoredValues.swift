import Clocks

extension TransmitterSlot {
    /// Values on attributes outside the database, counted between reports: the first is
    /// reported at once, later ones at most every `interval`, so a flood does not flood the log.
    struct IgnoredValues: Sendable {
        static let interval: Duration = .seconds(60)
        var unreported = 0
        var lastReport: MonotonicInstant?

        /// One more; the count to report now, if a report is due.
        mutating func count(at now: MonotonicInstant) -> Int? {
            unreported += 1
            if let last = lastReport, now - last < Self.interval { return nil }
            defer { unreported = 0 }
            lastReport = now
            return unreported
        }
    }
}
