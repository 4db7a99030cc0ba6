/// What a `SerialExportSession` reads: pages of readings, and the lines of its `STATUS` answer.
public protocol SerialExportSource: ReadingPageSource {
    /// The body of the `STATUS` answer, one line each (e.g. `readings 105120`,
    /// `newest 2026-11-22T07:05:00+01:00`). A line starting with `.` is dot-stuffed like any
    /// body line, so nothing here can end the answer early.
    mutating func statusLines() throws -> [String]
}
