import CSQLite

/// `SQLITE_TRANSIENT`: SQLite copies bound text before `bind` returns (the Swift string's
/// buffer is gone by then). The C macro is a cast of -1, which Swift does not import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension SQLite {
    /// A prepared statement (https://www.sqlite.org/c3ref/stmt.html). Parameters are 1-based
    /// like SQLite's; columns are 0-based like SQLite's.
    public final class Statement {
        let handle: OpaquePointer
        unowned let connection: Connection
        public let sql: String

        init(connection: Connection, sql: String) throws(SQLiteError) {
            var statement: OpaquePointer?
            let result = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            guard result == SQLITE_OK, let statement else {
                throw SQLiteError.from(connection.handle, result: result, operation: sql)
            }
            self.handle = statement
            self.connection = connection
            self.sql = sql
        }

        deinit { sqlite3_finalize(handle) }

        /// Ready to run again from the start, with every parameter NULL.
        public func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        public func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
            try check(value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index), "bind")
        }

        public func bind(_ index: Int32, _ value: Int?) throws(SQLiteError) {
            try bind(index, value.map(Int64.init))
        }

        public func bind(_ index: Int32, _ value: Double?) throws(SQLiteError) {
            try check(value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index), "bind")
        }

        public func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
            try check(value.map { sqlite3_bind_text(handle, index, $0, -1, transient) } ?? sqlite3_bind_null(handle, index), "bind")
        }

        /// Runs to the next row: true when a row is ready to read, false when done.
        public func step() throws(SQLiteError) -> Bool {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            case let result:
                let error = SQLiteError.from(connection.handle, result: result, operation: sql)
                sqlite3_reset(handle)
                throw error
            }
        }

        /// Runs a statement that returns no rows, then resets it for the next use.
        public func run() throws(SQLiteError) {
            defer { sqlite3_reset(handle) }
            while try step() {}
        }

        public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

        public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        public func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

        public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

        public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

        public func text(_ column: Int32) -> String? {
            guard let pointer = sqlite3_column_text(handle, column) else { return nil }
            let count = Int(sqlite3_column_bytes(handle, column))
            return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
        }

        private func check(_ result: Int32, _ what: String) throws(SQLiteError) {
            guard result == SQLITE_OK else { throw SQLiteError.from(connection.handle, result: result, operation: "\(what) in \(sql)") }
        }
    }
}
