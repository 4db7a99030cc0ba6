import Clocks
import Readings

/// The upload queue (schema version 6, docs/nightscout-upload.md "The queue"): triggers queue
/// every new glucose, meter, battery and calibration row for each active target in the
/// transaction that stores it; the uploader reads the oldest in batches and acknowledges what
/// the target accepted.
extension HistoryStore {
    /// Names the targets that collect from now on (the configured ones; `nightscout` today).
    /// Every other target stops collecting, and keeps what it had queued for when it is
    /// configured again. Written at once, or, when that fails (a full disk at start), with the
    /// next commit that works: until then nothing is stored, so nothing misses its queue.
    public func registerUploadTargets(_ names: Set<String>) {
        pendingUploadTargets = names
        do throws(SQLiteError) {
            try connection.execute("BEGIN IMMEDIATE")
            try writeUploadTargets()
            try connection.execute("COMMIT")
        } catch {
            rollBack()
            pendingUploadTargets = names
        }
    }

    /// Applies `pendingUploadTargets` inside the caller's transaction.
    func writeUploadTargets() throws(SQLiteError) {
        guard let names = pendingUploadTargets else { return }
        try connection.execute("UPDATE upload_targets SET active = 0")
        let upsert = try connection.cached("INSERT INTO upload_targets (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET active = 1")
        for name in names.sorted() {
            try upsert.bind(1, name)
            try upsert.run()
        }
        pendingUploadTargets = nil
    }

    /// The oldest `limit` rows queued for `target`, oldest measured first, and the queue's
    /// state. A queue row whose reading is gone without the delete trigger (re-dating's
    /// `UPDATE OR REPLACE` folding a reading into the same one) is removed here: the reading
    /// it repeats is still queued or was sent.
    public func uploadBatch(for target: String, limit: Int) throws(HistoryError) -> UploadQueue.Batch {
        var items: [UploadQueue.Item] = []
        var vanished: [UploadQueue.ItemID] = []
        do throws(SQLiteError) {
            let select = try connection.cached("""
                SELECT q.source, q.row, d.name, r.kind, r.value, r.trend, r.detail, r.wall_time, r.sensor_time, r.sensor_run, r.origin,
                       c.glucose, c.wall_time, cd.name
                FROM upload_queue q
                    LEFT JOIN readings r ON q.source = 1 AND r.id = q.row LEFT JOIN devices d ON d.id = r.device
                    LEFT JOIN calibrations c ON q.source = 2 AND c.id = q.row LEFT JOIN devices cd ON cd.id = c.device
                WHERE q.target = (SELECT id FROM upload_targets WHERE name = ?1)
                ORDER BY q.wall_time, q.source, q.row LIMIT ?2
                """)
            try select.bind(1, target)
            try select.bind(2, Int64(max(0, limit)))
            defer { select.reset() }
            while try select.step() {
                guard let source = UploadQueue.ItemID.Source(rawValue: select.int64(0)) else { continue }
                let id = UploadQueue.ItemID(source: source, row: select.int64(1))
                switch source {
                case .reading:
                    guard !select.isNull(3) else {
                        vanished.append(id)
                        continue
                    }
                    items.append(UploadQueue.Item(id: id, content: Self.queuedReading(select)))
                case .calibration:
                    guard !select.isNull(11) else {
                        vanished.append(id)
                        continue
                    }
                    let calibration = Calibration(device: DeviceID(select.text(13) ?? ""),
                                                  glucose: GlucoseConcentration(milligramsPerDeciliter: select.double(11)),
                                                  wallTime: WallClockTime(microsecondsSinceEpoch: select.int64(12)))
                    items.append(UploadQueue.Item(id: id, content: .calibration(calibration)))
                }
            }
        } catch { throw .sqlite(error) }
        if !vanished.isEmpty { try acknowledgeUploads(vanished, for: target, at: nil) }
        return UploadQueue.Batch(items: items, status: try uploadQueueStatus(for: target))
    }

    /// A reading row of the batch's select (columns 2...10).
    private static func queuedReading(_ row: SQLite.Statement) -> UploadQueue.Item.Content {
        let columns = ReadingColumns(kindCode: row.int64(3), value: row.double(4), trend: row.text(5), detail: row.text(6))
        switch columns.readingValue() {
        case let .success(value):
            // Never origin 2 (followed): the trigger does not queue those.
            return .reading(RecordedReading(device: DeviceID(row.text(2) ?? ""), value: value,
                                            wallTime: WallClockTime(microsecondsSinceEpoch: row.int64(7)),
                                            sensorStamp: row.optionalInt64(8).map { SensorStamp(run: row.text(9) ?? "", count: $0) },
                                            origin: RecordedReading.Origin(storedCode: row.int64(10))))
        case let .failure(reason):
            return .unreadable(reason.description)
        }
    }

    /// Removes `ids` from `target`'s queue: the target has them, or they cannot be sent.
    /// `at` (the wall clock) becomes the target's last success; nil leaves it.
    public func acknowledgeUploads(_ ids: [UploadQueue.ItemID], for target: String, at wallTime: WallClockTime?) throws(HistoryError) {
        do throws(SQLiteError) {
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                let delete = try connection.cached("""
                    DELETE FROM upload_queue WHERE source = ?1 AND row = ?2 AND target = (SELECT id FROM upload_targets WHERE name = ?3)
                    """)
                for id in ids {
                    try delete.bind(1, id.source.rawValue)
                    try delete.bind(2, id.row)
                    try delete.bind(3, target)
                    try delete.run()
                }
                if let wallTime {
                    let success = try connection.cached("UPDATE upload_targets SET last_success = ?1 WHERE name = ?2")
                    try success.bind(1, wallTime.microsecondsSinceEpoch)
                    try success.bind(2, target)
                    try success.run()
                }
                try connection.execute("COMMIT")
            } catch {
                rollBack()
                throw error
            }
        } catch { throw .sqlite(error) }
    }

    /// How long `target`'s queue is, its oldest row, its last success and what retention
    /// dropped unsent. An unknown target has an empty queue.
    public func uploadQueueStatus(for target: String) throws(HistoryError) -> UploadQueue.Status {
        do throws(SQLiteError) {
            let select = try connection.cached("""
                SELECT (SELECT count(*) FROM upload_queue WHERE target = t.id), (SELECT min(wall_time) FROM upload_queue WHERE target = t.id),
                       t.last_success, t.dropped
                FROM upload_targets t WHERE t.name = ?1
                """)
            try select.bind(1, target)
            defer { select.reset() }
            guard try select.step() else { return UploadQueue.Status() }
            return UploadQueue.Status(queued: Int(select.int64(0)),
                                      oldest: select.optionalInt64(1).map(WallClockTime.init(microsecondsSinceEpoch:)),
                                      lastSuccess: select.optionalInt64(2).map(WallClockTime.init(microsecondsSinceEpoch:)),
                                      droppedUnsent: Int(select.int64(3)))
        } catch { throw .sqlite(error) }
    }
}
