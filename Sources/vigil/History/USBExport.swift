import App
import Clocks
import History
import Platform

/// Writes a `USBBundle` to a mounted USB stick (issue 5: the button's double press, or
/// `vigil export --usb MOUNTPOINT`): every file into `<mount>/<temporaryFolder>`, each fsynced,
/// the folder fsynced, then renamed to its final name and the mount point fsynced. A stick
/// pulled mid-write holds no bundle or a whole one.
///
/// Refuses at once, before writing, when the mount point is missing, not a mount (an empty
/// mount directory on the SD card: writing there would fill the card) or read-only; a full
/// stick (ENOSPC) removes the partial folder. Returns a `Result` the caller shows on the LED.
/// Synchronous: a bundle of a year takes a few seconds on a stick, during which the caller's
/// loop does not turn (the lead's session decides whether to run it between turns).
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

        var succeeded: Bool { if case .written = self { true } else { false } }

        var description: String {
            switch self {
            case let .written(folder, bytes): "wrote \(folder) (\(bytes) bytes)"
            case let .refused(problem): "\(problem)"
            case let .full(mountPoint): "the stick at \(mountPoint) is full: nothing was written"
            case let .failed(reason): "the export failed: \(reason)"
            }
        }
    }

    /// Writes `bundle` under `mountPoint` from `history`. `requireMountPoint: false` accepts any
    /// directory (a folder on a stick; tests).
    static func write(_ bundle: USBBundle, to mountPoint: String, history: HistoryStore,
                      requireMountPoint: Bool = true) -> Result {
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
                try bundle.write(file, from: &source) { piece in try writer.write(piece) }
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
            if let platform = error as? PlatformError {
                if platform.isNoSpace { return .full(mountPoint: root) }
                if platform.isReadOnlyFileSystem { return .refused(.readOnly(path: root)) }
            }
            return .failed(reason: "\(error)")
        }
    }
}
