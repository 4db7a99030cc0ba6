import Alarms
import Clocks
import Host
import Readings
import Transmitters
import Web

extension Supervisor {
    /// What the runner does for the supervisor, in order. Each that can fail is answered with
    /// an `Input` (`saved`, `historyCommitted`, ...), at once or when a background job ends.
    public enum Action: Sendable {
        case log(Host.LogLevel, String)
        /// A line on stdout: an event as JSON (`--events-json`) or as text (the demo's console).
        case print(String)
        /// An event for `vigil status` to show.
        case observe(ApplianceEvent)
        /// Answered with `Input.saved`.
        case save(StateFile)
        /// Appended to the open history, written by the next `commitHistory`.
        case record(HistoryRecord)
        /// Answered with `historyCommitted` or `historyCommitFailed`.
        case commitHistory
        /// Rows past their retention, aged on `retentionTime`; answered with `historyPruned`
        /// or `historyPruneFailed`.
        case pruneHistory(retentionTime: WallClockTime)
        /// Answered with `historyRedated` or `historyRedateFailed`.
        case redateHistory(ClockJump)
        /// At start (attempt 1) in place, later on a thread of its own: answered with
        /// `historyOpened` or `historyOpenFailed` when it ends.
        case openHistory(attempt: Int)
        /// At exit, an attempt still running is waited for up to `waitUpTo`, then answered as
        /// it ended, or with `historyOpenDidNotEnd`.
        case finishHistoryOpening(waitUpTo: Duration)
        /// The serial export starts on the history, now open.
        case startSerialExport
        /// Fields for systemd's notification socket; a failure is answered with `notifyFailed`.
        case notify([String])
        /// A line write (or gesture) for the face's hardware.
        case face(FaceOutput, at: MonotonicInstant)
        /// The status line the face hardware shows (the console's, the status LED's text).
        case showStatus(String)
        /// The face hardware closed and opened again; answered with `faceDeviceReopened`.
        case reopenFaceDevice
        /// The double press's bundle, on a thread of its own; answered with `usbExportEnded`.
        case startUSBExport(USBBundle, mountPoint: String)
        /// At exit: the bundle being written stops at its next page.
        case stopUSBExport
        /// Start-up is over: its code pages need not stay mapped.
        case dropStartupCode
        /// The page's socket has sent its last answer: `shutdown(SHUT_WR)`, and keep reading it
        /// until the peer closes or `webClose` comes (docs/http.md "Closing").
        case webShutdownWrite(Supervisor.WebConnection)
        /// Close the page's socket and forget its mapping; the ID is never used again.
        case webClose(Supervisor.WebConnection)
        /// `GET /report`: the clinician's report from the history, made on a thread of its own
        /// (it reads 14 days of rows); answered with `webReportEnded`. One at a time.
        case renderWebReport(WebReportRequest)
        /// The history just opened: its sensor glucose and meter readings since then, for the
        /// page's chart and the Nightscout API after a restart; answered with `recentGlucose`
        /// (a few thousand rows at most: read in place).
        case loadRecentGlucose(since: WallClockTime)
        /// The oldest rows of `target`'s upload queue (docs/nightscout-upload.md), read in
        /// place: answered with `uploadBatchLoaded`.
        case loadUploadBatch(target: String, limit: Int)
        /// Remove `ids` from `target`'s queue; `success` is its last success (nil: dropped
        /// unsent). In place; answered with `uploadsAcknowledged`.
        case acknowledgeUploads(target: String, [UploadQueue.ItemID], success: WallClockTime?)
        /// The HTTP client's connection work (docs/network.md): answered with `Input.http`.
        case http(HTTP.Client.Action)
    }

    /// A state file, with what it is to hold.
    public enum StateFile: Sendable {
        case alarmState(AlarmEngine.State, at: MonotonicInstant)
        case rememberedTransmitters(RememberedTransmitters)
        case driverStates([DeviceID: [String: String]])
        case clockShift(WallClockWatch)

        public var stored: StoredState {
            switch self {
            case .alarmState: .alarmState
            case .rememberedTransmitters: .rememberedTransmitters
            case .driverStates: .driverStates
            case .clockShift: .clockShift
            }
        }
    }
}
