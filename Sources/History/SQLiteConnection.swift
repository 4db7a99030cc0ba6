import CSQLite

/// A thin wrapper over the SQLite C API (https://www.sqlite.org/c3ref/intro.html): only what the
/// history needs, with typed binds and columns and typed errors.
public enum SQLite {}

extension SQLite {
    /// One open database connection, used from one thread (the event loop, or a test).
    ///
    /// Prepared statements are cached by SQL text: the history runs the same few INSERTs every
    /// turn of the event loop, and preparing costs more than executing on small rows.
    public final class Connection {
        let handle: OpaquePointer
        public let path: String
        private var cache: [String: Statement] = [:]

        /// Opens (creating if needed) the database at `path`.
        ///
        /// `busyTimeoutMilliseconds` bounds how long a write waits for another process's lock
        /// (an exporter reading in WAL mode never blocks us; a second writer would).
        public init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 1000) throws(SQLiteError) {
            var db: OpaquePointer?
            // NOMUTEX: one connection per thread; EXRESCODE: extended codes from every call.
            let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
            let result = sqlite3_open_v2(path, &db, flags, nil)
            guard result == SQLITE_OK, let db else {
                let error = SQLiteError.from(db, result: result, operation: "open \(path)")
                sqlite3_close_v2(db)
                throw error
            }
            self.handle = db
            self.path = path
            sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        }

        deinit {
            cache.removeAll()
            sqlite3_close_v2(handle)
        }

        /// Runs one or more statements that return no rows we need (DDL, PRAGMAs, BEGIN/COMMIT).
        public func execute(_ sql: String) throws(SQLiteError) {
            let result = sqlite3_exec(handle, sql, nil, nil, nil)
            guard result == SQLITE_OK else { throw SQLiteError.from(handle, result: result, operation: sql) }
        }

        /// A cached prepared statement for `sql`, reset and with its bindings cleared.
        public func cached(_ sql: String) throws(SQLiteError) -> Statement {
            if let statement = cache[sql] {
                statement.reset()
                return statement
            }
            let statement = try Statement(connection: self, sql: sql)
            cache[sql] = statement
            return statement
        }

        /// A fresh statement the caller owns (for cursors that stay open while others run).
        public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
            try Statement(connection: self, sql: sql)
        }

        /// The first column of the first row of `sql`, as text (for PRAGMAs).
        public func scalarText(_ sql: String) throws(SQLiteError) -> String? {
            let statement = try cached(sql)
            defer { statement.reset() }
            return try statement.step() ? statement.text(0) : nil
        }

        /// The first column of the first row of `sql`, as an integer (for PRAGMAs and counts).
        public func scalarInt(_ sql: String) throws(SQLiteError) -> Int64? {
            let statement = try cached(sql)
            defer { statement.reset() }
            return try statement.step() ? statement.int64(0) : nil
        }

        /// Rows changed by the last INSERT/UPDATE/DELETE (0 when ON CONFLICT DO NOTHING skipped it).
        public var changes: Int { Int(sqlite3_changes(handle)) }

        /// False inside an explicit transaction (BEGIN without a COMMIT or ROLLBACK yet).
        public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

        /// Drops every cached statement (before closing, or after the schema changed under them).
        public func clearCache() { cache.removeAll() }
    }
}
