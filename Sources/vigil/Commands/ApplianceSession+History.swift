import App
import Clocks
import History
import Platform
import Readings

/// The rolling history as the session performs the supervisor's history actions: SQLite calls
/// through `HistoryStore`, the attempts to open it again on a thread of their own, and the
/// answers for the supervisor.
struct HistorySide {
    var path = ""
    var rowLimit = HistoryStore.defaultPendingLimit
    /// For tests: each attempt to open it again waits this long first, as on a slow card.
    var openDelay: Duration?
    var store: HistoryStore?
    /// The upload targets configured (`nightscout` with `[nightscout]`), registered each time
    /// the history opens: only these collect (docs/nightscout-upload.md "The queue").
    var uploadTargets: Set<String> = []
    /// The attempt running on its own thread; nil between attempts.
    var opening: BackgroundJob<HistoryOpening.Opened>?

    /// The standard retention (365 days of glucose, 30 of heart rate) with a 1 GiB cap: an SD
    /// card shared with the system must never fill up with heart beats. Rows dated before the
    /// clock was believable are not aged (their re-date may have been missed).
    static let retention = RetentionPolicy(keep: RetentionPolicy.standard.keep, otherRows: RetentionPolicy.standard.otherRows,
                                           maximumBytes: 1 << 30, unsetClockBefore: ApplianceAlarms.earliestBelievableTime)

    /// Performs a history action; the answer, when it has one now.
    mutating func perform(_ action: Supervisor.Action) -> Supervisor.Input? {
        switch action {
        case let .record(record):
            if let store { Self.append(record, to: store) }
        case .commitHistory:
            guard let store else { return nil }
            switch store.commit() {
            case .nothingPending, .committed: return .historyCommitted(droppedTotal: store.droppedTotal)
            case let .failed(error, pending, _): return .historyCommitFailed("\(error)", pending: pending, droppedTotal: store.droppedTotal)
            }
        case let .pruneHistory(retentionTime):
            guard let store else { return nil }
            do {
                let outcome = try store.prune(now: retentionTime, policy: Self.retention)
                return .historyPruned(finished: outcome.finished, summary: "\(outcome)")
            } catch {
                return .historyPruneFailed("\(error)")
            }
        case let .redateHistory(setting):
            guard let store else { return nil }
            do {
                return .historyRedated(rows: try store.redate(setting))
            } catch {
                return .historyRedateFailed("\(error)")
            }
        case .openHistory(attempt: 1):
            // At start, in place: before the loop and before READY=1, so before systemd's watchdog.
            do {
                return adopt(.success(try HistoryStore.open(path: path, pendingLimit: rowLimit)))
            } catch {
                return adopt(.failure(error))
            }
        case .openHistory:
            // A state directory that could not be made at start may be makeable now (the open
            // says why when it still is not).
            if let slash = path.lastIndex(of: "/"), slash > path.startIndex {
                let directory = String(path[..<slash])
                if !FileSystem.exists(path: directory) { try? FileSystem.createDirectories(path: directory, mode: 0o700) }
            }
            do {
                opening = try HistoryOpening.start(path: path, pendingLimit: rowLimit, delay: openDelay)
            } catch {
                return .historyOpenFailed("\(error)")
            }
        case let .loadUploadBatch(target, limit):
            guard let store else { return .uploadBatchLoaded(.failure(.init("the history is not open"))) }
            do {
                return .uploadBatchLoaded(.success(try store.uploadBatch(for: target, limit: limit)))
            } catch {
                return .uploadBatchLoaded(.failure(.init("\(error)")))
            }
        case let .acknowledgeUploads(target, ids, success):
            guard let store else { return .uploadsAcknowledged(failure: "the history is not open") }
            do {
                try store.acknowledgeUploads(ids, for: target, at: success)
                return .uploadsAcknowledged(failure: nil)
            } catch {
                return .uploadsAcknowledged(failure: "\(error)")
            }
        case let .finishHistoryOpening(limit):
            guard let job = opening else { return nil }
            opening = nil
            guard job.wait(upTo: limit) else {
                job.abandon()
                return .historyOpenDidNotEnd
            }
            return job.finish().map { adopt($0.result) } ?? .historyOpenFailed("the attempt ended without an answer")
        default:
            break
        }
        return nil
    }

    /// An attempt's end, as the supervisor hears it.
    mutating func adopt(_ result: Result<HistoryStore, HistoryError>) -> Supervisor.Input {
        switch result {
        case let .failure(error):
            return .historyOpenFailed("\(error)")
        case let .success(opened):
            store = opened
            // Before any row is written: the rows of this run are queued for these targets.
            opened.registerUploadTargets(uploadTargets)
            return switch opened.outcome {
            case let .opened(version): .historyOpened(.opened(fromVersion: version))
            case .created: .historyOpened(.created)
            case let .recreatedAfterCorruption(movedTo, reason): .historyOpened(.recreatedAfterCorruption(movedTo: movedTo, reason: reason))
            }
        }
    }

    static func append(_ record: HistoryRecord, to store: HistoryStore) {
        switch record {
        case let .readings(readings, receivedAt): store.append(readings, receivedAt: receivedAt)
        case let .alarms(events, monotonicNow, wallNow): store.append(events, monotonicNow: monotonicNow, wallNow: wallNow)
        case let .calibration(device, glucose, wallTime, receivedAt):
            store.append(Calibration(device: device, glucose: glucose, wallTime: wallTime), receivedAt: receivedAt)
        }
    }
}
