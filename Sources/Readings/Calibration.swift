import Clocks

/// A meter glucose value that was used to calibrate a transmitter: what the history's
/// `calibrations` table keeps and the Nightscout API serves as a "BG Check" treatment
/// (docs/nightscout-api.md "Treatments").
public struct Calibration: Hashable, Sendable {
    /// The transmitter that took it.
    public var device: DeviceID
    public var glucose: GlucoseConcentration
    /// When the blood was taken.
    public var wallTime: WallClockTime

    public init(device: DeviceID, glucose: GlucoseConcentration, wallTime: WallClockTime) {
        self.device = device
        self.glucose = glucose
        self.wallTime = wallTime
    }
}
