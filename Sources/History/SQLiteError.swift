import CSQLite

/// A failed SQLite call: the primary result code, the extended code and SQLite's own message
/// (https://www.sqlite.org/rescode.html), plus what we were doing.
///
/// The primary code is what callers branch on: SQLITE_FULL, SQLITE_READONLY and SQLITE_IOERR
/// mean "storage is failing, keep the rows and retry"; SQLITE_CORRUPT and SQLITE_NOTADB mean
/// "move the file aside and start again".
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The primary result code (the low byte of `extendedCode`), e.g. 13 for SQLITE_FULL.
    public var code: Int32
    /// The extended result code, e.g. 778 (SQLITE_IOERR_WRITE).
    public var extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure, or `sqlite3_errstr` when there was no connection.
    public var message: String
    /// What we were doing: the SQL text or the API name.
    public var operation: String

    public init(code: Int32, extendedCode: Int32, message: String, operation: String) {
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
        self.operation = operation
    }

    /// The error the connection `db` reports right now, for a call that returned `result`.
    static func from(_ db: OpaquePointer?, result: Int32, operation: String) -> SQLiteError {
        guard let db else {
            return SQLiteError(code: result & 0xFF, extendedCode: result, message: String(cString: sqlite3_errstr(result)), operation: operation)
        }
        let extended = sqlite3_extended_errcode(db)
        // sqlite3_extended_errcode is only meaningful when the last call failed; when it did not
        // set one (0), the code we were handed is the truth.
        let code = extended == SQLITE_OK ? result : extended
        return SQLiteError(code: code & 0xFF, extendedCode: code, message: String(cString: sqlite3_errmsg(db)), operation: operation)
    }

    /// The database file is damaged or is not a database: it must be moved aside.
    public var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// The disk is full, read-only or failing: keep the rows in memory and retry later.
    public var isStorageFailure: Bool {
        code == SQLITE_FULL || code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_CANTOPEN
            || code == SQLITE_PERM || code == SQLITE_BUSY || code == SQLITE_LOCKED
    }

    /// `SQLITE_FULL`, spelled out for callers that do not import CSQLite.
    public var isFull: Bool { code == SQLITE_FULL }

    public var description: String {
        "\(operation): \(message) (SQLite code \(code), extended \(extendedCode))"
    }
}
