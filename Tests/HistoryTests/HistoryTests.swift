import Testing
@testable import History

@Suite struct HistoryTargetTests {
    @Test func sqliteIsTheSystemLibrary() {
        #expect(SQLiteVersion.number >= 3_031_000, "WAL and UPSERT need SQLite 3.31 or newer")
    }
}
