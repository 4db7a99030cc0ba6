import App
import Bluetooth
import Clocks
import Readings
import Simulator
import Testing
import Transmitters

/// A meter stand-in: on start it reports one fingerstick, dated by the meter's own clock.
struct FingerstickMeter: TransmitterDriver {
    static let profile = TransmitterProfile(advertisedService: BluetoothUUID(0x180D), service: BluetoothUUID(0x180D),
                                            receiveCharacteristic: BluetoothUUID(0x2A37))
    let device: DeviceID = "meter"
    let takenAt: WallClockTime
    var nextDeadline: MonotonicInstant? { nil }
    mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] {
        [.emit(.connected), .emit(.reading(Reading(device: device, value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: nil), time: .wallClock(takenAt))))]
    }
    mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] { [] }
    mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] { [] }
}

/// A raw-value transmitter stand-in that reports every calibration it is handed.
struct CalibrationRecorder: TransmitterDriver {
    static let profile = TransmitterProfile(service: NordicUART.service, receiveCharacteristic: NordicUART.receive)
    let device: DeviceID = "bridge"
    var nextDeadline: MonotonicInstant? { nil }
    mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] { [.emit(.connected)] }
    mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        guard case let .calibration(reference, takenAt) = input else { return [] }
        return [.emit(.info(TransmitterInfo(sensorState: "calibrated \(Int(reference.milligramsPerDeciliter)) at \(takenAt.nanoseconds)")))]
    }
    mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] { [] }
}

@Suite("Fingersticks reach the transmitters that calibrate")
struct ApplianceCalibrationTests {
    @Test("a meter reading is handed to the bridge as a calibration, dated on the monotonic clock")
    func meterCalibratesBridge() throws {
        var world = ApplianceWorld(
            devices: [Appliance.Device(driver: CalibrationRecorder()), Appliance.Device(driver: FingerstickMeter(takenAt: WallClockTime(secondsSinceEpoch: 1_700_000_000)))],
            peripherals: [SimulatedMiaoMiao.peripheral(), SimulatedDevices.heartRateMonitor()])
        // The host's wall clock says 10 minutes after the fingerstick.
        world.host.wallClock = WallClockTime(secondsSinceEpoch: 1_700_000_600)
        world.start()
        world.advance(by: .seconds(10))
        let calibrations = world.events.compactMap { event -> String? in
            if case .transmitter("bridge", _, .info(let info)) = event { info.sensorState } else { nil }
        }
        #expect(calibrations.count == 1, "events: \(world.events)")
        // Dated 600 s before the moment the meter's record arrived on the monotonic clock.
        let parts = try #require(calibrations.first?.split(separator: " "))
        #expect(parts[1] == "104")
        let takenAt = try #require(Int64(parts[3]))
        #expect(takenAt < world.now.nanoseconds - 590_000_000_000)
    }
}
