import Alarms
import Clocks
import Readings
import Transmitters

/// The alarm engine fed from the appliance's event stream: glucose readings become samples,
/// heart-rate and temperature readings feed their device's range alarms, transmitter info
/// feeds sensor life and battery, a reading from a watched device resets its signal-loss
/// timer, and a lost controller is an appliance fault. Sans-IO like the engine; the runner
/// persists `engine.state`.
public struct ApplianceAlarms: Sendable {
    public private(set) var engine: AlarmEngine

    public init(configuration: AlarmConfiguration, at now: MonotonicInstant, restoring state: AlarmEngine.State = AlarmEngine.State()) {
        engine = AlarmEngine(configuration: configuration, now: now, restoring: state)
    }

    /// The engine for these configured devices: each device's alarm options (see
    /// `DeviceAlarmOptions`) become its settings, and those with `watch` are watched for
    /// signal loss, on top of whatever `configuration` already says.
    public init(configuration: AlarmConfiguration, devices: [TransmitterConfiguration], at now: MonotonicInstant,
                restoring state: AlarmEngine.State = AlarmEngine.State()) throws(TransmitterConfigurationError) {
        var configuration = configuration
        for device in devices {
            let options = try DeviceAlarmOptions(type: device.typeName, options: device.options)
            configuration.devices[device.device] = options.settings
            if options.watch, !configuration.watchedDevices.contains(device.device) {
                configuration.watchedDevices.append(device.device)
            }
        }
        self.init(configuration: configuration, at: now, restoring: state)
    }

    /// Transmitter types whose silence is a signal-loss alarm: the glucose sources.
    public static let glucoseTypes: Set<String> = DeviceAlarmOptions.glucoseTypes

    public var nextDeadline: MonotonicInstant? { engine.nextDeadline }

    /// Whether the controller has been ready since start.
    public private(set) var controllerEverReady = false

    /// The earliest wall-clock time Vigil believes: 2025-01-01T00:00:00Z, before this code was
    /// written. A Raspberry Pi has no real-time clock and boots in 1970 (or at the last
    /// fake-hwclock save) until network time arrives; readings dated then would be misfiled.
    public static let earliestBelievableTime = WallClockTime(secondsSinceEpoch: 1_735_689_600)

    /// The wall clock as the shell reads it: before `earliestBelievableTime` it is not set.
    public mutating func checkClock(wallNow: WallClockTime, at now: MonotonicInstant) {
        let notSet = wallNow < Self.earliestBelievableTime
        engine.receive(notSet ? .faultRaised(.clockNotSet) : .faultCleared(.clockNotSet), at: now)
    }

    /// The result of writing to the state directory or the history: a failure raises the
    /// storage fault, and the next success clears it (the disk had room again, the card was
    /// remounted read-write).
    public mutating func storage(succeeded: Bool, at now: MonotonicInstant) {
        engine.receive(succeeded ? .faultCleared(.storageFailing) : .faultRaised(.storageFailing), at: now)
    }

    /// Whether the face's lines work, as the shell finds them on each use: a buzzer or LED
    /// that cannot be written, a button that cannot be read, or no lines at all at start
    /// raise the face fault; every line working again clears it.
    public mutating func face(working: Bool, at now: MonotonicInstant) {
        engine.receive(working ? .faultCleared(.faceFailing) : .faultRaised(.faceFailing), at: now)
    }

    public mutating func observe(_ event: ApplianceEvent, monotonicNow: MonotonicInstant, wallNow: WallClockTime) {
        switch event {
        case let .readings(device, _, readings):
            // Only watched devices: a heart-rate strap taken off in the morning, or a fridge
            // thermometer out of range of the radio, is not a reason to sound unless asked.
            if engine.configuration.watchedDevices.contains(device),
               let newest = readings.map({ Self.measuredAt($0, monotonicNow: monotonicNow, wallNow: wallNow) }).max() {
                engine.receive(.readingReceived(device, measuredAt: newest), at: monotonicNow)
            }
            for reading in readings { observe(reading, monotonicNow: monotonicNow, wallNow: wallNow) }
        case let .transmitter(device, _, .info(info)):
            let lifecycle = info.sensorState.flatMap(SensorLifecycle.init(sensorState:))
            if lifecycle != nil || info.sensorAge != nil {
                engine.receive(.sensor(device, phase: lifecycle?.phase, age: info.sensorAge), at: monotonicNow)
            }
            for level in info.batteryReports { engine.receive(.battery(device, level), at: monotonicNow) }
        case .bluetooth(.unavailable):
            // Never up since start: there is no controller (unplugged, wrong --hci, held by
            // bluetoothd). Up before: it was lost. Each has its own pattern and log words.
            engine.receive(.faultRaised(controllerEverReady ? .controllerLost : .noController), at: monotonicNow)
        case .bluetooth(.poweredOn):
            controllerEverReady = true
            engine.receive(.faultCleared(.controllerLost), at: monotonicNow)
            engine.receive(.faultCleared(.noController), at: monotonicNow)
        default:
            break
        }
    }

    private mutating func observe(_ reading: Reading, monotonicNow: MonotonicInstant, wallNow: WallClockTime) {
        if let sample = AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: wallNow) {
            engine.receive(.glucose(sample), at: monotonicNow)
            return
        }
        let measuredAt = Self.measuredAt(reading, monotonicNow: monotonicNow, wallNow: wallNow)
        switch reading.value {
        case let .heartRate(rate, contact):
            engine.receive(.heartRate(reading.device, rate, contact: contact, measuredAt: measuredAt), at: monotonicNow)
        case let .temperature(temperature):
            engine.receive(.temperature(reading.device, temperature, measuredAt: measuredAt), at: monotonicNow)
        case let .battery(level):
            engine.receive(.battery(reading.device, .percent(level)), at: monotonicNow)
        default:
            break
        }
    }

    /// When a reading was measured, on the monotonic clock.
    static func measuredAt(_ reading: Reading, monotonicNow: MonotonicInstant, wallNow: WallClockTime) -> MonotonicInstant {
        switch reading.time {
        case let .monotonic(instant): instant
        case let .wallClock(time): monotonicNow - (wallNow - time)
        }
    }

    /// A person's action from the button or the command line.
    public mutating func receive(_ input: AlarmEngine.Input, at now: MonotonicInstant) {
        engine.receive(input, at: now)
    }

    public mutating func handleDeadline(at now: MonotonicInstant) { engine.handleDeadline(at: now) }

    public mutating func takeEvents() -> [AlarmEvent] { engine.takeEvents() }
}
