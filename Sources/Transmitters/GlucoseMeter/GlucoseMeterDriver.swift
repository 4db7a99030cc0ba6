import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a standard Bluetooth glucose meter (Glucose Service 0x1808,
/// protocols.md §5.6; profile in `GlucoseMeterProfile`).
///
/// A meter is not a stream: it connects when the user has measured, and hands over its stored
/// records through the Record Access Control Point. On `start` (the link is already encrypted,
/// see the profile): subscribe to Glucose Measurement (and Context) notifications and RACP
/// indications, read Glucose Feature and Battery Level if present, and once the RACP
/// subscription is confirmed ask for records:
///
/// - `01 01` (all records) when no sequence number is known yet, i.e. at first pairing;
/// - `01 03 01 <last + 1>` afterwards. The spec's operator is "≥", so asking for ≥ last would
///   resend the record already stored; records ≤ last are dropped anyway, for meters that
///   ignore the filter. (At 0xFFFF the counter has nowhere to go and all records are asked for.)
///
/// Records become `.meterGlucose` readings dated by the meter's clock (base time + time offset −
/// the configured UTC offset of the meter's clock). A record is discarded with its reason when
/// it has no concentration, a special SFLOAT, control solution, a status bit other than "battery
/// low", or no known date: a fingerstick also calibrates the G4 and Libre paths, so a wrong one
/// does double harm.
///
/// The procedure ends with an RACP response: success or "no records found" leave the session
/// idle (the meter drops the link when it is done), an error is reported. If neither a record
/// nor a response arrives for `procedureTimeout`, the driver writes Abort (`03 00`); if the abort
/// is not answered within the same time, it disconnects.
///
/// `lastSequenceNumber` is what the app persists between runs (pass it back in the
/// configuration as `last-sequence`); it is also reported as info at the end of each transfer.
public struct GlucoseMeterDriver: TransmitterDriver {
    public struct Configuration: Hashable, Sendable {
        public var lastSequenceNumber: UInt16?
        public var procedureTimeout: Duration
        /// The meter clock's offset from UTC (meters keep local time and GLS sends no zone).
        public var meterUTCOffset: Duration

        public init(lastSequenceNumber: UInt16? = nil, procedureTimeout: Duration = .seconds(30), meterUTCOffset: Duration = .zero) {
            self.lastSequenceNumber = lastSequenceNumber
            self.procedureTimeout = procedureTimeout
            self.meterUTCOffset = meterUTCOffset
        }
    }

    public enum Phase: Hashable, Sendable {
        case notStarted
        /// Subscriptions sent; the request goes out when the RACP indications are on.
        case subscribing
        case awaitingRecords(request: RACP.Request, deadline: MonotonicInstant)
        case abortingTransfer(deadline: MonotonicInstant)
        /// The transfer is over; new records the meter notifies are still taken.
        case idle
        case disconnecting(reason: String)
        case disconnected(reason: String)
    }

    public static var profile: TransmitterProfile { GlucoseMeterProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public private(set) var phase: Phase = .notStarted
    /// The highest sequence number taken so far; survives reconnections.
    public private(set) var lastSequenceNumber: UInt16?

    /// Sets the last stored sequence number from the app's saved state (`PersistentDriverState`).
    mutating func restoreLastSequenceNumber(_ value: UInt16) { lastSequenceNumber = value }
    public private(set) var feature: GlucoseFeature?
    /// The newest Measurement Context received, for the status page.
    public private(set) var lastContext: GlucoseMeasurementContext?
    /// Records accepted in the current transfer.
    public private(set) var recordsThisTransfer = 0

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.lastSequenceNumber = configuration.lastSequenceNumber
    }

    public var nextDeadline: MonotonicInstant? {
        switch phase {
        case let .awaitingRecords(_, deadline), let .abortingTransfer(deadline): deadline
        default: nil
        }
    }

    private static let measurement = GlucoseMeterProfile.measurement
    private static let context = GlucoseMeterProfile.measurementContext
    private static let feature = GlucoseMeterProfile.feature
    private static let racp = GlucoseMeterProfile.recordAccessControlPoint
    private static let battery = SIG.Characteristic.batteryLevel

    /// The request this session will send: all records at first, then only newer ones.
    public var nextRequest: RACP.Request {
        guard let last = lastSequenceNumber, last < .max else { return .reportAllRecords }
        return .reportRecords(atLeast: last + 1)
    }

    public mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] {
        recordsThisTransfer = 0
        let measurement = discovered.characteristic(Self.measurement, in: SIG.Service.glucose)
        let racp = discovered.characteristic(Self.racp, in: SIG.Service.glucose)
        guard measurement?.properties.contains(.notify) == true,
              racp?.properties.contains(.indicate) == true, racp?.properties.contains(.write) == true
        else {
            let reason = "the Glucose Service lacks a notifying Glucose Measurement (0x2A18) or an indicating, writable RACP (0x2A52)"
            phase = .disconnecting(reason: reason)
            return [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)]
        }
        phase = .subscribing
        var actions: [DriverAction] = [.emit(.connected), .subscribe(Self.measurement, indications: false)]
        if discovered.characteristic(Self.context, in: SIG.Service.glucose)?.properties.contains(.notify) == true {
            actions.append(.subscribe(Self.context, indications: false))
        }
        if discovered.characteristic(Self.feature, in: SIG.Service.glucose)?.properties.contains(.read) == true {
            actions.append(.read(Self.feature))
        }
        if discovered.characteristic(Self.battery, in: SIG.Service.battery)?.properties.contains(.read) == true {
            actions.append(.read(Self.battery))
        }
        // RACP last: the records it triggers need the measurement subscription in place first,
        // and the host performs actions in order.
        actions.append(.subscribe(Self.racp, indications: true))
        return actions
    }

    public mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        if case let .disconnected(reason) = input {
            guard phase != .notStarted else { return [] }
            if case .disconnected = phase { return [] }
            phase = .disconnected(reason: reason)
            return [.emit(.disconnected(reason: reason))]
        }
        guard isActive else { return [] }
        switch input {
        case let .subscribed(uuid) where uuid == Self.racp && phase == .subscribing:
            return request(nextRequest, at: now)
        case let .value(uuid, bytes, _):
            return receiveValue(uuid, bytes, at: now)
        case let .operationFailed(operation, failure):
            var actions: [DriverAction] = [.emit(.operationFailed(operation, failure))]
            switch operation {
            case .subscribe(Self.measurement), .subscribe(Self.racp), .write(Self.racp):
                actions += stop(reason: "cannot transfer records: \(operation) failed: \(failure)")
            default:
                break  // feature, context, battery: the records still arrive without them
            }
            return actions
        case .pairingFailed(let reason):
            return [.emit(.pairingFailed(reason: reason))]
        default:
            return []  // completions, `encrypted`, calibrations (a meter is the reference itself)
        }
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] {
        switch phase {
        case let .awaitingRecords(request, deadline) where now >= deadline:
            phase = .abortingTransfer(deadline: now + configuration.procedureTimeout)
            return [
                .emit(.operationFailed(.write(Self.racp), .other("RACP \(request.opcode): nothing for \(Int(configuration.procedureTimeout.seconds)) s; aborting"))),
                .write(Self.racp, RACP.Request.abort.encoded, withResponse: true),
            ]
        case let .abortingTransfer(deadline) where now >= deadline:
            return stop(reason: "the meter answered neither the record transfer nor its abort")
        default:
            return []
        }
    }

    // MARK: - Values

    private var isActive: Bool {
        switch phase {
        case .subscribing, .awaitingRecords, .abortingTransfer, .idle: true
        case .notStarted, .disconnecting, .disconnected: false
        }
    }

    private mutating func request(_ request: RACP.Request, at now: MonotonicInstant) -> [DriverAction] {
        recordsThisTransfer = 0
        phase = .awaitingRecords(request: request, deadline: now + configuration.procedureTimeout)
        return [.write(Self.racp, request.encoded, withResponse: true)]
    }

    private mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        do throws(WireError) {
            switch uuid {
            case Self.measurement:
                let measurement = try GlucoseMeasurement(decoding: bytes)
                // Every record proves the procedure is alive: the deadline is for silence.
                if case let .awaitingRecords(request, _) = phase {
                    phase = .awaitingRecords(request: request, deadline: now + configuration.procedureTimeout)
                }
                return accept(measurement)
            case Self.context:
                lastContext = try GlucoseMeasurementContext(decoding: bytes)
                if case let .awaitingRecords(request, _) = phase {
                    phase = .awaitingRecords(request: request, deadline: now + configuration.procedureTimeout)
                }
                return []
            case Self.racp:
                return receiveResponse(try RACP.Response(decoding: bytes))
            case Self.feature:
                feature = try GlucoseFeature(decoding: bytes)
                return []
            case Self.battery:
                return [.emit(.info(TransmitterInfo(battery: try BatteryLevel.decode(bytes))))]
            default:
                return []
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString)"))]
        }
    }

    private mutating func accept(_ measurement: GlucoseMeasurement) -> [DriverAction] {
        let sequence = measurement.sequenceNumber
        if let last = lastSequenceNumber, sequence <= last, last < .max { return [] }  // already stored
        lastSequenceNumber = max(lastSequenceNumber ?? 0, sequence)
        if let reason = Self.rejection(of: measurement) {
            return [.emit(.malformedValue(Self.measurement, reason: "record #\(sequence) discarded: \(reason)"))]
        }
        guard let glucose = measurement.concentration?.glucose,
              let local = measurement.baseTime.wallClockTimeAsIfUTC
        else { return [] }  // rejection(of:) has ruled both out
        recordsThisTransfer += 1
        let time = local + (measurement.timeOffset ?? .zero) - configuration.meterUTCOffset
        var actions: [DriverAction] = [.emit(.reading(Reading(device: device, value: .meterGlucose(glucose), time: .wallClock(time))))]
        if measurement.sensorStatus?.contains(.batteryLow) == true {
            actions.append(.emit(.info(TransmitterInfo(sensorState: "meter battery low"))))
        }
        return actions
    }

    /// Why a record must not become a reading, or nil.
    static func rejection(of measurement: GlucoseMeasurement) -> String? {
        guard let concentration = measurement.concentration else { return "no concentration" }
        guard let glucose = concentration.glucose else { return "concentration is \(concentration.value)" }
        guard glucose.milligramsPerDeciliter > 0 else { return "concentration \(concentration.value) is not positive" }
        if measurement.sampleType == .controlSolution || measurement.sampleLocation == .controlSolution {
            return "control solution test"
        }
        if let status = measurement.sensorStatus, !status.intersection(.invalidatesResult).isEmpty {
            return "meter reports \(status.intersection(.invalidatesResult))"
        }
        guard measurement.baseTime.isKnown else { return "the meter's clock is not set (\(measurement.baseTime))" }
        return nil
    }

    private mutating func receiveResponse(_ response: RACP.Response) -> [DriverAction] {
        guard case let .responseCode(request, code) = response else { return [] }  // a count nobody asked for
        switch phase {
        case .awaitingRecords, .abortingTransfer:
            break
        default:
            return []  // a stale response after a timeout
        }
        let wasAbort = phase.isAborting
        phase = .idle
        switch code {
        case .success where wasAbort || request == RACP.Opcode.abortOperation.rawValue:
            return [.emit(.info(TransmitterInfo(sensorState: "record transfer aborted after \(recordsThisTransfer) record(s)\(lastSequenceText)")))]
        case .success, .noRecordsFound:
            return [.emit(.info(TransmitterInfo(sensorState: "\(recordsThisTransfer) new record(s)\(lastSequenceText)")))]
        default:
            return [.emit(.operationFailed(.write(Self.racp), .other("RACP op \(request) refused: \(code)")))]
        }
    }

    private var lastSequenceText: String { lastSequenceNumber.map { ", last sequence number \($0)" } ?? "" }

    private mutating func stop(reason: String) -> [DriverAction] {
        phase = .disconnecting(reason: reason)
        return [.disconnect(reason: reason)]
    }
}

extension GlucoseMeterDriver.Phase {
    var isAborting: Bool {
        if case .abortingTransfer = self { return true }
        return false
    }
}

extension GlucoseMeterDriver {
    /// The registry entry: `glucose-meter [NAME] [last-sequence=N] [racp-timeout=30s] [utc-offset=+01:00]`.
    public static let transmitterType = TransmitterType(
        name: "glucose-meter",
        summary: "any Bluetooth Glucose Service meter (service 0x1808); fingersticks via RACP",
        driver: GlucoseMeterDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> GlucoseMeterDriver in
        try configuration.rejectUnknownOptions(known: ["last-sequence", "racp-timeout", "utc-offset"])
        var last: UInt16?
        if let text = configuration.options["last-sequence"] {
            guard let value = UInt16(text) else { throw .invalidOption("last-sequence", value: text, expected: "a sequence number 0…65535") }
            last = value
        }
        let timeout = try configuration.duration("racp-timeout", default: .seconds(30))
        let offset = try utcOffset(configuration.options["utc-offset"])
        return GlucoseMeterDriver(device: configuration.device,
                                  configuration: Configuration(lastSequenceNumber: last, procedureTimeout: timeout, meterUTCOffset: offset))
    }

    /// `+HH:MM`, `-HH:MM` or `0`: how far the device's clock is ahead of UTC.
    static func utcOffset(_ text: String?) throws(TransmitterConfigurationError) -> Duration {
        guard let text, text != "0" else { return .zero }
        let error = TransmitterConfigurationError.invalidOption("utc-offset", value: text, expected: "+HH:MM or -HH:MM (the meter clock's offset from UTC)")
        guard let sign = text.first, sign == "+" || sign == "-" else { throw error }
        let parts = text.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              let hours = Int64(parts[0]), let minutes = Int64(parts[1]), hours <= 14, minutes < 60
        else { throw error }
        let seconds = (hours * 60 + minutes) * 60
        return .seconds(sign == "-" ? -seconds : seconds)
    }
}
