#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import App
import Clocks
import History
import Platform
import Readings

/// `vigil-bench history`: a year of 5-minute glucose (105,120 rows)
/// and 7 days of 1 Hz heart rate (604,800 rows) through `HistoryStore`'s batched API, then
/// everything exported as CSV to a file; target: the export in under 1 s. Also prints the
/// database size, the bytes a year of glucose takes, and how long the integrity checks take on
/// that file (quick_check runs at every open).
///
/// The export is the one `vigil export --format csv` runs: the streaming cursor read back
/// through App's `CSVExporter` (ISO 8601 times with their offset, RFC 4180 quoting), written
/// to the file in 64 KiB chunks.
enum HistoryBenchmark {
    struct Options {
        var glucoseRows = 105_120
        var heartRateRows = 604_800
        /// Rows per commit: a backfill or a busy event-loop turn.
        var batch = 1_000
    }

    static let exportTarget: Duration = .seconds(1)
    /// REPORT and STATUS run on the loop that sounds the alarms: a Pi is ~10 times slower
    /// than the dev machine, and a turn should stay well under a second there.
    static let queryTarget: Duration = .milliseconds(20)

    static func run(_ options: Options) -> [Figure] {
        print("== history: \(Format.grouped(options.glucoseRows)) glucose rows (5 min) + \(Format.grouped(options.heartRateRows)) "
              + "heart-rate rows (1 Hz) in batches of \(Format.grouped(options.batch)), then a CSV export of all of them")
        let directory: String
        do { directory = try FileSystem.makeTemporaryDirectory(prefix: "vigil-bench-history") } catch {
            return [.checked("history: CSV export", "cannot make a temporary directory: \(error)", target: "< 1 s", passes: false)]
        }
        defer { try? FileSystem.removeTree(path: directory) }
        do {
            return try measure(options, directory: directory)
        } catch {
            return [.checked("history: CSV export", "failed: \(error)", target: "< 1 s", passes: false)]
        }
    }

    static func measure(_ options: Options, directory: String) throws -> [Figure] {
        let path = directory + "/history.sqlite"
        let store = try HistoryStore.open(path: path, bootID: "bench", now: WallClockTime(secondsSinceEpoch: 1_795_341_600))
        // The year ends at 2026-11-22T10:00Z; the heart rate is its last week.
        let end = WallClockTime(secondsSinceEpoch: 1_795_341_600)
        let glucoseStart = end - .seconds(300 * options.glucoseRows)
        let heartStart = end - .seconds(options.heartRateRows)

        func insert(_ count: Int, _ make: (Int) -> RecordedReading) throws -> Duration {
            let start = SystemClock.monotonicNow()
            var index = 0
            while index < count {
                let upper = min(count, index + options.batch)
                store.append((index..<upper).map(make), receivedAt: MonotonicInstant(nanoseconds: Int64(index)))
                if case let .failed(error, _, _) = store.commit() { throw error }
                index = upper
            }
            return SystemClock.monotonicNow() - start
        }
        let glucoseTime = try insert(options.glucoseRows) { i in
            // A slow daily wave between ~70 and ~190 mg/dL with a wobble, rounded like a CGM.
            let phase = Double(i % 288) / 288 * 2 * Double.pi
            let mgdl = (130 + 60 * sin(phase) + Double(i % 7) - 3).rounded()
            return RecordedReading(device: "dexcom-811234", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: .flat),
                                   wallTime: glucoseStart + .seconds(300 * i), sensorStamp: SensorStamp(run: "", count: Int64(300 * i)))
        }
        try store.checkpoint()
        let glucoseBytes = try FileSystem.fileSize(path: path)
        let heartTime = try insert(options.heartRateRows) { i in
            RecordedReading(device: "polar-h10", value: .heartRate(BeatsPerMinute(UInt16(55 + i % 40)), contact: .detected),
                            wallTime: heartStart + .seconds(i))
        }
        try store.checkpoint()
        let totalBytes = try FileSystem.fileSize(path: path)
        let rows = options.glucoseRows + options.heartRateRows
        print("  insert: glucose \(Format.grouped(Int(Double(options.glucoseRows) / glucoseTime.seconds))) rows/s (\(Format.seconds(glucoseTime))), "
              + "heart rate \(Format.grouped(Int(Double(options.heartRateRows) / heartTime.seconds))) rows/s (\(Format.seconds(heartTime)))")

        let csvPath = directory + "/export.csv"
        let exportStart = SystemClock.monotonicNow()
        let (exported, csvBytes) = try exportCSV(store: store, to: csvPath)
        let exportTime = SystemClock.monotonicNow() - exportStart
        print("  export: \(Format.grouped(exported)) rows, \(Format.megabytes(csvBytes)) of CSV in \(Format.seconds(exportTime))")

        // What REPORT and STATUS ask on the appliance's loop: the last 14 days of glucose, which
        // the week of 1 Hz heart rate shares its times with (60 times as many rows), and the
        // row counts per kind.
        let reportStart = SystemClock.monotonicNow()
        let reportCursor = store.readings(HistoryQuery(since: end - .seconds(14 * 86_400), until: end + .seconds(1), kind: .glucose))
        var reportRows = 0
        for _ in reportCursor { reportRows += 1 }
        if let error = reportCursor.error { throw error }
        let reportTime = SystemClock.monotonicNow() - reportStart
        let expectedReportRows = min(options.glucoseRows, 14 * 288)
        let countsStart = SystemClock.monotonicNow()
        let counts = try store.counts()
        let countsTime = SystemClock.monotonicNow() - countsStart
        let counted = counts.totalReadings
        print("  queries: 14 days of glucose (\(Format.grouped(reportRows)) rows) in \(Format.seconds(reportTime)), "
              + "counts per kind (\(Format.grouped(counted)) rows) in \(Format.seconds(countsTime))")

        let quickStart = SystemClock.monotonicNow()
        let quick = try store.check(full: false)
        let quickTime = SystemClock.monotonicNow() - quickStart
        let fullStart = SystemClock.monotonicNow()
        let full = try store.check(full: true)
        let fullTime = SystemClock.monotonicNow() - fullStart
        print("  checks: quick_check \(quick) in \(Format.seconds(quickTime)), integrity_check \(full) in \(Format.seconds(fullTime))")

        // A year of glucose alone, minus what an empty history takes (tables and indexes).
        let emptyPath = directory + "/empty.sqlite"
        let empty = try HistoryStore.open(path: emptyPath, bootID: "bench", now: end)
        try empty.checkpoint()
        let emptyBytes = try FileSystem.fileSize(path: emptyPath)
        let glucosePerYear = (glucoseBytes - emptyBytes) * 105_120 / max(1, options.glucoseRows)
        let heartPerDay = (totalBytes - glucoseBytes) * 86_400 / max(1, options.heartRateRows)
        print("  size: \(Format.megabytes(totalBytes)) in all; a year of 5-minute glucose \(Format.megabytes(glucosePerYear)), "
              + "a day of 1 Hz heart rate \(Format.megabytes(heartPerDay)) (so 30 days: \(Format.megabytes(heartPerDay * 30)))")

        return [
            .info("history: insert rate (batched)", "\(Format.grouped(Int(Double(rows) / (glucoseTime + heartTime).seconds))) rows/s"),
            .checked("history: CSV export of \(Format.grouped(rows)) rows", Format.seconds(exportTime),
                     target: "< 1 s", passes: exported == rows && exportTime < exportTarget),
            .checked("history: 14 days of glucose beside 1 Hz heart rate", Format.seconds(reportTime),
                     target: "< 20 ms", passes: reportRows == expectedReportRows && reportTime < queryTarget),
            .checked("history: counts per kind (STATUS)", Format.seconds(countsTime),
                     target: "< 20 ms", passes: counted == rows && countsTime < queryTarget),
            .info("history: database size", Format.megabytes(totalBytes)),
            .info("history: bytes per year of glucose", "\(Format.grouped(glucosePerYear)) B"),
            .info("history: bytes per 30 days of 1 Hz heart rate", Format.megabytes(heartPerDay * 30)),
            .info("history: quick_check at open", Format.seconds(quickTime)),
            .info("history: integrity_check", Format.seconds(fullTime)),
        ]
    }

    /// Every reading, oldest first, through `CSVExporter` into `path`.
    static func exportCSV(store: HistoryStore, to path: String) throws -> (rows: Int, bytes: Int) {
        let writer = try FileWriter(path: path, truncate: true)
        var exporter = CSVExporter(utcOffset: .zero)
        var chunk = exporter.header()
        chunk.reserveCapacity(70_000)
        var rows = 0
        let cursor = store.readings()
        for reading in cursor {
            chunk += exporter.encode(reading)
            rows += 1
            if chunk.count >= 65_536 {
                try writer.write(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if let error = cursor.error { throw error }
        chunk += exporter.footer()
        try writer.write(chunk)
        try writer.close()
        return (rows, writer.size)
    }
}
