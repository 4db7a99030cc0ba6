import Clocks
import Foundation
import History
import Readings

/// A temporary history filled through `HistoryStore`, as `vigil run` fills it: glucose every
/// 5 minutes from `start` (value 80 + i mod 100 mg/dL, trend flat, sensor time 300·i s) on
/// `dexcom-811234`, and heart rate every minute (60 + i mod 40 bpm) on `polar-h10`. More
/// readings than one export page (1000), so paging is exercised end to end.
final class HistoryFixture {
    /// 2026-11-01T00:00:00Z.
    static let start = WallClockTime(microsecondsSinceEpoch: 1_793_491_200_000_000)
    let directory: URL
    let glucoseCount: Int
    let heartRateCount: Int
    var database: String { directory.appendingPathComponent("history.sqlite").path }
    var stateDirectory: String { directory.path }

    init(glucose: Int = 2_500, heartRate: Int = 300) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        glucoseCount = glucose
        heartRateCount = heartRate
        let store = try HistoryStore.open(path: directory.appendingPathComponent("history.sqlite").path, bootID: "fixture")
        // In transactions of 20,000 rows: the store keeps at most `pendingLimit` (50,000) in memory.
        let rows = (0..<glucose).lazy.map(Self.glucose(_:)) + (0..<heartRate).lazy.map(Self.heartRate(_:))
        var committed = 0
        for start in stride(from: 0, to: glucose + heartRate, by: 20_000) {
            store.append(Array(rows[start..<min(start + 20_000, glucose + heartRate)]))
            guard case let .committed(written, _) = store.commit() else { break }
            committed += written
        }
        guard committed == glucose + heartRate else {
            throw HarnessError.malformedOutput("the fixture history committed \(committed) of \(glucose + heartRate) rows")
        }
        try store.checkpoint()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static func glucose(_ i: Int) -> RecordedReading {
        RecordedReading(device: "dexcom-811234",
                        value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(80 + i % 100)), trend: .flat),
                        wallTime: start + .seconds(Int64(i) * 300), sensorStamp: SensorStamp(run: "", count: Int64(i) * 300))
    }

    static func heartRate(_ i: Int) -> RecordedReading {
        RecordedReading(device: "polar-h10", value: .heartRate(BeatsPerMinute(UInt16(60 + i % 40)), contact: .detected),
                        wallTime: start + .seconds(Int64(i) * 60 + 30))
    }

    /// A path in the fixture's directory.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A configuration for `vigil run` on this history with the serial export on `serialPort`
    /// and no face hardware; returns its path.
    func writeSerialExportConfig(serialPort: String) throws -> String {
        let config = path("vigil.conf")
        try """
            [storage]
            state-dir = "\(stateDirectory)"

            [export]
            serial = "\(serialPort)"

            [face]
            backend = "none"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }
}
