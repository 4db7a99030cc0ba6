import App
import Clocks
import History
import Platform

/// Writes a `USBBundle` to a mounted USB stick (the button's double press, or
/// `vigil export --usb MOUNTPOINT`): every file into `<mount>/<temporaryFolder>`, each fsynced,
/// the folder fsynced, then renamed to its final name and the mount point fsynced. A stick
/// pulled mid-write holds no bundle or a whole one.
///
/// Refuses at once, before writing, when the mount point is missing, not a mount (an empty
/// mount directory on the SD card: writing there would fill the card) or read-only; a full
/// stick (ENOSPC) removes the partial folder. Returns a `Result` the caller shows on the LED.
/// Synchronous: a bundle of a year and 30 days of 1 Hz heart rate is millions of rows, seconds
/// to minutes on a slow stick, so `vigil run` calls it on a `BackgroundJob` (with its own
/// read-only connection, `write(_:to:historyAt:)`) and its loop keeps sounding alarms.
enum USBExport {
    /// What happened, for the LED and the log.
    enum Result: Equatable, CustomStringConvertible {
        /// The bundle is complete at `folder` (a full path), `bytes` long.
        case written(folder: String, bytes: Int)
        /// Nothing was written: the mount point cannot take it (missing, not mounted, read-only).
        case refused(MountedVolume.Problem)
        /// The stick filled up; the partial folder was removed.
        case full(mountPoint: String)
        /// Writing failed otherwise (I/O error, permission, a history read); the partial folder
        /// was removed where possible.
        case failed(reason: String)
        /// Stopped part way (Vigil is stopping); the partial folder was removed.
        case stopped(mountPoint: String)

        var succeeded: Bool { if case .written = self { true } else { false } }

        var description: String {
            switch self {
            case let .written(folder, bytes): "wrote \(folder) (\(bytes) bytes)"
            case let .refused(problem): "\(problem)"
            case let .full(mountPoint): "the stick at \(mountPoint) is full: nothing was written"
            case let .failed(reason): "the export failed: \(reason)"
            case let .stopped(mountPoint): "the export to \(mountPoint) was stopped part way: nothing was written"
            }
        }
    }

    /// The request to stop, seen between two pieces of a file.
    struct Stopped: Error {}

    /// `write(_:to:history:)` from the history at `path`, opened only to read it: what a
    /// `BackgroundJob` runs beside the appliance that writes the same file.
    static func write(_ bundle: USBBundle, to mountPoint: String, historyAt path: String, requireMountPoint: Bool = true,
                      stopRequested: () -> Bool) -> Result {
        let history: HistoryStore
        do { history = try HistoryStore.openForReading(path: path) } catch {
            return .failed(reason: "cannot read the history: \(error)")
        }
        return write(bundle, to: mountPoint, history: history, requireMountPoint: requireMountPoint, stopRequested: stopRequested)
    }

    /// Writes `bundle` under `mountPoint` from `history`. `requireMountPoint: false` accepts any
    /// directory (a folder on a stick; tests). `stopRequested` is asked before each piece (a
    /// page of readings); when it says stop, the partial folder is removed.
    static func write(_ bundle: USBBundle, to mountPoint: String, history: HistoryStore,
                      requireMountPoint: Bool = true, stopRequested: () -> Bool = { false }) -> Result {
        do throws(MountedVolume.Problem) {
            _ = try MountedVolume.inspect(path: mountPoint, requireMountPoint: requireMountPoint)
        } catch {
            return .refused(error)
        }
        let root = mountPoint.hasSuffix("/") && mountPoint.count > 1 ? String(mountPoint.dropLast()) : mountPoint
        let temporary = root + "/" + bundle.temporaryFolder
        var source = HistoryPageSource(store: history)
        var total = 0
        do {
            // A stale partial folder is an earlier export cut short: it is replaced.
            if FileSystem.exists(path: temporary) { try FileSystem.removeTree(path: temporary) }
            try FileSystem.createDirectories(path: temporary)
            for file in bundle.files {
                let writer = try FileWriter(path: temporary + "/" + file.name, truncate: true)
                try bundle.write(file, from: &source) { piece in
                    if stopRequested() { throw Stopped() }
                    try writer.write(piece)
                }
                try writer.close()  // flushes and fsyncs
                total += writer.size
                source.close()
            }
            try FileSystem.syncDirectory(temporary)
            var attempt = 1
            while FileSystem.exists(path: root + "/" + bundle.folder(attempt: attempt)) { attempt += 1 }
            let folder = root + "/" + bundle.folder(attempt: attempt)
            try FileSystem.rename(temporary, to: folder)
            try FileSystem.syncDirectory(root)
            return .written(folder: folder, bytes: total)
        } catch {
            source.close()
            try? FileSystem.removeTree(path: temporary)
            if error is Stopped { return .stopped(mountPoint: root) }
            if let platform = error as? PlatformError {
                if platform.isNoSpace { return .full(mountPoint: root) }
                if platform.isReadOnlyFileSystem { return .refused(.readOnly(path: root)) }
            }
            return .failed(reason: "\(error)")
        }
    }
}
