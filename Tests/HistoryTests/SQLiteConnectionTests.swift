import Testing
@testable import History

@Suite struct SQLiteConnectionTests {
    @Test func typedBindsAndColumnsRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLite.Connection(path: directory.database)
        try connection.execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT)")
        let insert = try connection.cached("INSERT INTO t VALUES (?, ?, ?)")
        let rows: [(Int64?, Double?, String?)] = [
            (.min, -0.5, "glucose ✓ mg/dL"),
            (.max, 1e300, ""),
            (nil, nil, nil),
        ]
        for row in rows {
            try insert.bind(1, row.0)
            try insert.bind(2, row.1)
            try insert.bind(3, row.2)
            try insert.run()
            #expect(connection.changes == 1)
        }
        let select = try connection.prepare("SELECT i, d, s FROM t ORDER BY rowid")
        var read: [(Int64?, Double?, String?)] = []
        while try select.step() { read.append((select.optionalInt64(0), select.optionalDouble(1), select.text(2))) }
        #expect(read.map(\.0) == rows.map(\.0))
        #expect(read.map(\.1) == rows.map(\.1))
        #expect(read.map(\.2) == rows.map(\.2))
    }

    @Test func preparedStatementsAreCachedBySQL() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLite.Connection(path: directory.database)
        let first = try connection.cached("SELECT 1")
        #expect(try connection.cached("SELECT 1") === first)
        #expect(try connection.cached("SELECT 2") !== first)
        #expect(try connection.scalarInt("SELECT 40 + 2") == 42)
        #expect(try connection.scalarText("SELECT 'wal'") == "wal")
    }

    /// Errors carry SQLite's primary and extended codes and its message.
    @Test(arguments: [
        ("SELEC 1", Int32(1), Int32(1), "syntax error"),
        ("INSERT INTO u VALUES (1)", 19, 2067, "UNIQUE constraint failed: u.k"),
        ("SELECT * FROM missing", 1, 1, "no such table: missing"),
    ])
    func errorsNameTheCodesAndTheMessage(sql: String, code: Int32, extended: Int32, message: String) throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLite.Connection(path: directory.database)
        try connection.execute("CREATE TABLE u (k INTEGER UNIQUE); INSERT INTO u VALUES (1)")
        do {
            try connection.execute(sql)
            Issue.record("\(sql) succeeded")
        } catch {
            #expect(error.code == code)
            #expect(error.extendedCode == extended)
            #expect(error.message.contains(message))
            #expect(error.operation == sql)
        }
    }

    @Test func openingInAMissingDirectoryFailsWithCantOpen() {
        #expect(throws: SQLiteError.self) { _ = try SQLite.Connection(path: "/nonexistent-vigil-dir/x.sqlite") }
        do {
            _ = try SQLite.Connection(path: "/nonexistent-vigil-dir/x.sqlite")
        } catch {
            #expect(error.code == 14, "SQLITE_CANTOPEN")
            #expect(error.isStorageFailure)
        }
    }
}
