import Clocks

/// When the direct (Bluetooth) glucose sources measured lately, so that a followed reading of
/// the same moment is not counted twice (docs/reading-identity.md "Followed readings"): a
/// person whose Dexcom Vigil hears and whose phone uploads to Share gives each reading twice.
///
/// A followed reading is the same as a direct one measured within `window` of it, whatever the
/// values: the phone's app and the transmitter dated and perhaps smoothed it apart, and a
/// CGM measures at most once a minute, so two readings that close are one moment. Vigil's
/// glucose alarms watch one person, so every direct glucose source counts. Bounded: the
/// newest `capacity` moments.
struct DirectGlucoseMoments: Sendable {
    static let window = Duration.seconds(150)
    static let capacity = 1024

    private var moments: [WallClockTime] = []

    mutating func note(_ time: WallClockTime) {
        let index = moments.firstIndex { $0 > time } ?? moments.endIndex
        moments.insert(time, at: index)
        if moments.count > Self.capacity { moments.removeFirst(moments.count - Self.capacity) }
    }

    /// Whether a direct reading was measured within the window of `time`.
    func covers(_ time: WallClockTime) -> Bool {
        let index = moments.firstIndex { $0 >= time } ?? moments.endIndex
        let after = index < moments.endIndex ? moments[index] - time : nil
        let before = index > 0 ? time - moments[index - 1] : nil
        return [after, before].contains { $0.map { $0 <= Self.window } ?? false }
    }
}
