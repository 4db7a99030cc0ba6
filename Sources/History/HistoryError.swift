/// Why the history could not do what was asked. Each case names what was wrong, so the storage
/// fault the runner raises says something a person can act on.
public enum HistoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite failed (disk full, read-only, I/O error, a corrupt page met while reading...).
    case sqlite(SQLiteError)
    /// The file was written by a newer Vigil: its `user_version` is above what we know.
    case newerSchema(found: Int, newestKnown: Int)
    /// Opened only to read (`HistoryStore.openForReading`), the file has an older schema than
    /// this Vigil reads: only the appliance that writes it migrates it.
    case olderSchema(found: Int, current: Int)
    /// Moving a corrupt database aside failed (errno from rename(2)).
    case cannotMoveAside(path: String, errno: Int32)
    /// A stored row could not be read back as a reading (unknown kind code, bad RR text...).
    case malformedRow(id: Int64, reason: String)

    public var description: String {
        switch self {
        case let .sqlite(error): "history: \(error)"
        case let .newerSchema(found, known): "history: the database has schema version \(found), newer than this Vigil's \(known)"
        case let .olderSchema(found, current): "history: the database has schema version \(found), older than this Vigil's \(current); `vigil run` migrates it as it starts"
        case let .cannotMoveAside(path, errno): "history: cannot move the corrupt database \(path) aside (errno \(errno))"
        case let .malformedRow(id, reason): "history: row \(id) is malformed: \(reason)"
        }
    }
}
