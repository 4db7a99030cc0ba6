import Clocks
import Readings
import Web

/// The Nightscout upload (docs/nightscout-upload.md): the uploader decides, the history's queue
/// is read and acknowledged by the runner in place, and the exchanges go through the shared
/// HTTP client.
extension Supervisor {
    /// An upload's exchange ended (docs/nightscout-upload.md).
    mutating func uploadExchangeEnded(_ result: Result<HTTP.ClientResponse, HTTP.ClientFailure>, at now: ClockReadings) {
        uploader?.exchangeEnded(Nightscout.Uploader.Outcome(result), at: now)
        takeUploadActions(at: now)
    }

    /// Where the upload stands; nil without `[nightscout]`.
    public var uploadStatus: Nightscout.UploadStatus? { uploader?.status }

    /// The history opened: what earlier runs left queued is sent.
    mutating func startUpload(at now: ClockReadings) {
        guard uploader != nil, !uploadStarted else { return }
        uploadStarted = true
        uploader?.start(at: now.monotonic)
        takeUploadActions(at: now)
    }

    /// Rows the queue takes are being recorded: the commit that writes them grows the queue.
    mutating func noteQueued(_ record: HistoryRecord) {
        guard uploader != nil else { return }
        switch record {
        case let .readings(readings, _):
            // Followed readings are never queued (docs/nightscout-upload.md "What is sent").
            if readings.contains(where: { $0.origin != .followed && [.glucose, .meterGlucose, .battery].contains($0.kind) }) {
                uploadQueueGrowing = true
            }
        case .calibration:
            uploadQueueGrowing = true
        case .alarms:
            break
        }
    }

    /// A commit worked: if it stored queued rows, the uploader hears the queue grew.
    mutating func uploadCommitted(at now: ClockReadings) {
        guard uploadQueueGrowing, uploadStarted else { return }
        uploadQueueGrowing = false
        uploader?.queueGrew(at: now.monotonic)
        takeUploadActions(at: now)
    }

    /// A back-off's end.
    mutating func advanceUpload(at now: ClockReadings) {
        guard let deadline = uploader?.nextDeadline, now.monotonic >= deadline else { return }
        uploader?.advance(to: now.monotonic)
        takeUploadActions(at: now)
    }

    mutating func uploadBatchLoaded(_ result: Result<UploadQueue.Batch, Nightscout.HistoryReadFailure>, at now: ClockReadings) {
        uploader?.batchLoaded(result, at: now)
        takeUploadActions(at: now)
    }

    mutating func uploadsAcknowledged(_ failure: String?, at now: ClockReadings) {
        uploader?.acknowledged(failure.map { .failure(Nightscout.HistoryReadFailure($0)) } ?? .success(()), at: now)
        takeUploadActions(at: now)
    }

    private mutating func takeUploadActions(at now: ClockReadings) {
        guard var uploader else { return }
        let taken = uploader.takeActions()
        self.uploader = uploader
        for action in taken {
            switch action {
            case let .loadBatch(limit):
                actions.append(.loadUploadBatch(target: Nightscout.Uploader.Configuration.target, limit: limit))
            case let .send(request):
                fetch(request.request, for: .upload, at: now.monotonic)
            case let .acknowledge(ids, success):
                actions.append(.acknowledgeUploads(target: Nightscout.Uploader.Configuration.target, ids, success: success))
            case let .log(level, line):
                log(level, line)
            }
        }
    }
}
