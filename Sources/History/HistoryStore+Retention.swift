import Clocks
import Readings

extension HistoryStore {
    /// Deletes at most `budget` rows past their retention (oldest first), then past the size
    /// cap, then gives free pages back with `incremental_vacuum`. Call it every few minutes
    /// from the runner: a bounded budget keeps each call short on an SD card.
    public func prune(now: WallClockTime, policy: RetentionPolicy = .standard, budget: Int = 5_000) throws(HistoryError) -> PruneOutcome {
        var remaining = max(0, budget)
        var finished = true
        do throws(SQLiteError) {
            let pagesBefore = try connection.scalarInt("PRAGMA page_count") ?? 0
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                // Age: each kind against its own limit.
                for kind in Reading.Kind.allCases {
                    let cutoff = now - (policy.keep[kind] ?? policy.otherRows)
                    let deleted = try deleteOldest(table: "readings", kinds: [kind], since: policy.unsetClockBefore, before: cutoff, limit: remaining)
                    remaining -= deleted
                    if remaining == 0 { break }
                }
                let cutoff = now - policy.otherRows
                for table in ["alarm_events", "calibrations"] where remaining > 0 {
                    remaining -= try deleteOldest(table: table, kinds: nil, since: policy.unsetClockBefore, before: cutoff, limit: remaining)
                }
                if remaining == 0 { finished = false }
                // Size: the oldest rows of the first group that has any, until under the cap.
                // Deleting rows frees bytes only once whole pages empty, so re-measure after
                // each step; every step deletes at least one row, so the budget bounds the loop.
                if let cap = policy.maximumBytes {
                    for group in RetentionPolicy.sizeCapOrder {
                        while remaining > 0, try usedBytes() > cap {
                            let used = try usedBytes()
                            let rows = try connection.scalarInt("SELECT sum(count) FROM reading_counts") ?? 0
                            guard rows > 0 else { break }
                            let perRow = max(1, used / Int(rows))
                            let deleted = try deleteOldest(table: "readings", kinds: group, before: nil, limit: min(remaining, (used - cap) / perRow + 1))
                            if deleted == 0 { break }
                            remaining -= deleted
                        }
                    }
                    if try usedBytes() > cap { finished = false }
                }
                try connection.execute("COMMIT")
            } catch {
                rollBack()
                throw error
            }
            // Outside the transaction: each incremental_vacuum is its own short write.
            try connection.execute("PRAGMA incremental_vacuum")
            let pagesAfter = try connection.scalarInt("PRAGMA page_count") ?? 0
            return PruneOutcome(deleted: max(0, budget) - remaining, finished: finished, pagesFreed: Int(pagesBefore - pagesAfter))
        } catch { throw .sqlite(error) }
    }

    /// Deletes up to `limit` of the oldest rows of `table` (of `kinds`, for readings) dated
    /// in `[since, before)` (either end open when nil); returns how many went.
    private func deleteOldest(table: String, kinds: [Reading.Kind]?, since: WallClockTime? = nil, before: WallClockTime?,
                              limit: Int) throws(SQLiteError) -> Int {
        guard limit > 0 else { return 0 }
        let kindFilter = kinds.map { "AND kind IN (\($0.map { String(ReadingColumns.code(of: $0)) }.joined(separator: ",")))" } ?? ""
        let statement = try connection.cached("""
            DELETE FROM \(table) WHERE id IN (
                SELECT id FROM \(table) WHERE wall_time >= ? AND wall_time < ? \(kindFilter) ORDER BY wall_time LIMIT ?)
            """)
        try statement.bind(1, since?.microsecondsSinceEpoch ?? .min)
        try statement.bind(2, before?.microsecondsSinceEpoch ?? .max)
        try statement.bind(3, Int64(limit))
        try statement.run()
        return connection.changes
    }
}
