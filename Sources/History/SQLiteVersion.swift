import CSQLite

/// The SQLite library this binary runs with (the system's, or the static archive in a release).
public enum SQLiteVersion {
    public static var number: Int { Int(sqlite3_libversion_number()) }
    public static var text: String { String(cString: sqlite3_libversion()) }
}
