import Alarms
import Clocks
import Readings
import Web

extension Supervisor {
    /// What the runner tells the supervisor besides the host's events: the results of the
    /// actions it performed, and what it found.
    public enum Input: Sendable {
        /// The button changed, at the instant the kernel stamped.
        case button(ButtonEdge, at: MonotonicInstant)
        /// The face hardware's failure now (nil: every line works), told when it changes.
        case faceDeviceFailure(String?)
        /// `reopenFaceDevice` done: the device's name, or nil when it could not be opened.
        case faceDeviceReopened(name: String?)
        case saved(StoredState, succeeded: Bool)
        /// The runner saved the host's changed bonds, or could not (and tries again itself).
        case bondsSaved(succeeded: Bool)
        /// State files found unreadable at start and set aside.
        case stateFilesUnreadable([String])
        case historyOpened(HistoryOpenOutcome)
        case historyOpenFailed(String)
        /// At exit, the attempt still running did not end in time and was left behind.
        case historyOpenDidNotEnd
        /// `droppedTotal`: rows the history dropped from memory in this run, all told.
        case historyCommitted(droppedTotal: Int)
        case historyCommitFailed(String, pending: Int, droppedTotal: Int)
        case historyPruned(finished: Bool, summary: String)
        case historyPruneFailed(String)
        case historyRedated(rows: Int)
        case historyRedateFailed(String)
        case usbExportEnded(succeeded: Bool, summary: String)
        case notifyFailed(String)
        /// `renderWebReport` done: the page, or why there is none.
        case webReportEnded(WebReportResult)
        /// `loadRecentGlucose` done: the rows found (none when the history could not be read).
        case recentGlucose([RecordedReading])
        /// How an HTTP exchange's connection went (docs/network.md).
        case http(HTTP.Client.Event)
        /// `loadUploadBatch` done: the batch, or why the history could not give one.
        case uploadBatchLoaded(Result<UploadQueue.Batch, Nightscout.HistoryReadFailure>)
        /// `acknowledgeUploads` done: nil, or why the history could not take it.
        case uploadsAcknowledged(failure: String?)
        /// The run stops: what waits is written, or said lost.
        case exiting
    }
}
