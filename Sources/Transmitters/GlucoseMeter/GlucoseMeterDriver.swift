import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a standard Bluetooth glucose meter (Glucose Service 0x1808,
/// the Bluetooth SIG Glucose Service specification; profile in `GlucoseMeterProfile`).
///
/// A meter is not a stream: it connects when the user has measured, and hands over its stored
/// records through the Record Access Control Point. On `start` (the link is already encrypted,
/// see the profile): subscribe to Glucose Measurement (and Context) notifications and RACP
/// indications, read Glucose Feature and Battery Level if present, and once the RACP
/// subscription is confirmed:
///
/// 1. Ask for the meter's newest record alone, `01 06` (op 1 "report stored records", operator 6
///    "last record"; RACP, record_access_control_point.xml), and compare it with the newest
///    record taken before (docs/glucose-meter-records.md). That record is looked at, not taken:
///    the transfer that follows brings it.
/// 2. Then ask for records:
///    - `01 01` (all) when no record was ever taken, or when the meter's newest record is
///      *below* the one taken before, or has the same number but another date: its sequence
///      numbers restarted (a new meter under the same label, a battery change, a factory reset)
///      or wrapped past 65535. Records numbered above the meter's newest and up to the one taken
///      before are the old run, already taken, and are skipped.
///    - `01 03 01 <last + 1>` when it is above: only the newer records. The spec's operator is
///      "≥", so asking for ≥ last would resend the record already stored; records below the
///      operand are skipped anyway, for meters that ignore the filter.
///    - nothing when it is the same record: the meter has nothing new.
///    A meter that refuses operator 6 ("operator not supported" or "invalid operator") gets the
///    request without the check: all records at first, then `≥ last + 1`.
///
/// Records become `.meterGlucose` readings dated by the meter's clock (base time + time offset −
/// the configured UTC offset of the meter's clock), each with its `SensorStamp`: count = the
/// sequence number, run = the record's own date on the meter's clock as the meter states it
/// (`2026-11-22T07:30:00`). The same record read twice is one reading, and a reset meter's new
/// #1 is not the old #1.
///
/// A record whose flags say a Measurement Context follows (bit 4, "context information
/// follows"; the context carries the same sequence number) is held until its context arrives,
/// and its reading carries the meal and tester (`MeterReadingContext`). The next record, the
/// RACP response, the procedure deadline (or, outside a procedure, the same time), or the link
/// dropping releases a held record without one: a context that never comes costs the context,
/// never the fingerstick. A record is discarded with its reason when it has no concentration, a
/// special SFLOAT, control solution, a status bit other than "battery low", or no known date: a
/// fingerstick also calibrates the G4 and Libre paths, so a wrong one does double harm.
///
/// The procedure ends with an RACP response: success or "no records found" leave the session
/// idle (the meter drops the link when it is done), an error is reported. If neither a record
/// nor a response arrives for `procedureTimeout`, the driver writes Abort (`03 00`); if the abort
/// is not answered within the same time, it disconnects.
///
/// `lastSequenceNumber` and `lastRecordRun` (the newest record taken) are what the app persists
/// between runs (`PersistentDriverState`); the configuration's `last-sequence` is where a meter
/// never read before starts. Both are reported as info at the end of each transfer.
public struct GlucoseMeterDriver: SessionDriver {
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

    /// Where the record transfer is. The three that wait for the meter have the `.procedure`
    /// timer running.
    public enum Stage: Hashable, Sendable {
        /// Subscriptions sent; the check goes out when the RACP indications are on.
        case subscribing
        /// Asked for the meter's newest record (`01 06`), to see whether its numbers went back.
        case checkingTheNewestRecord
        case awaitingRecords(request: RACP.Request)
        case abortingTransfer
        /// The transfer is over; new records the meter notifies are still taken.
        case idle
    }

    /// What the driver waits for. A held record is released before a procedure times out when
    /// both are due (the order of the cases), so the abort never overtakes a fingerstick.
    public enum Timer: Hashable, Comparable, Sendable {
        /// A record's Measurement Context, announced and not yet come.
        case heldRecord
        /// The meter's next record or RACP response (silence, not the whole transfer).
        case procedure
    }

    public static var profile: TransmitterProfile { GlucoseMeterProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    /// No watchdog: a meter is silent between measurements by nature.
    public var session = DriverSession<Stage, Timer>()
    /// The sequence number of the newest record taken so far; survives reconnections.
    public private(set) var lastSequenceNumber: UInt16?
    /// That record's date on the meter's clock (its stamp's run), when known.
    public private(set) var lastRecordRun: String?

    /// Sets the last stored record from the app's saved state (`PersistentDriverState`).
    mutating func restoreLastRecord(sequence: UInt16, run: String?) {
        lastSequenceNumber = sequence
        lastRecordRun = run
    }
    public private(set) var feature: GlucoseFeature?
    /// The newest Measurement Context received, for the status page.
    public private(set) var lastContext: GlucoseMeasurementContext?
    /// Records accepted in the current transfer.
    public private(set) var recordsThisTransfer = 0
    /// The meter's newest record as the check found it.
    private var newestOnMeter: SensorStamp?
    /// Sequence numbers the current transfer may bring that were taken before the meter's
    /// numbers went back.
    private var alreadyTaken: ClosedRange<UInt16>?
    /// A record waiting for the Measurement Context its flags announced.
    private var held: HeldRecord?

    /// A record's reading and what goes with it, kept until its context arrives or the
    /// `.heldRecord` timer fires.
    struct HeldRecord: Hashable, Sendable {
        var sequence: UInt16
        var reading: Reading
        var alongside: [DriverAction]
    }

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.lastSequenceNumber = configuration.lastSequenceNumber
    }

    private static let measurement = GlucoseMeterProfile.measurement
    private static let context = GlucoseMeterProfile.measurementContext
    private static let feature = GlucoseMeterProfile.feature
    private static let racp = GlucoseMeterProfile.recordAccessControlPoint
    private static let battery = SIG.Characteristic.batteryLevel

    /// The request without the check (a meter that cannot report its last record): all records
    /// at first, then only newer ones.
    public var nextRequest: RACP.Request {
        guard let last = lastSequenceNumber, last < .max else { return .reportAllRecords }
        return .reportRecords(atLeast: last + 1)
    }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        let measurement = discovered.characteristic(Self.measurement, in: SIG.Service.glucose)
        let racp = discovered.characteristic(Self.racp, in: SIG.Service.glucose)
        guard measurement?.properties.contains(.notify) == true,
              racp?.properties.contains(.indicate) == true, racp?.properties.contains(.write) == true
        else { return "the Glucose Service lacks a notifying Glucose Measurement (0x2A18) or an indicating, writable RACP (0x2A52)" }
        return nil
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        recordsThisTransfer = 0
        newestOnMeter = nil
        alreadyTaken = nil
        held = nil
        var actions: [DriverAction] = [.subscribe(Self.measurement, indications: false)]
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
        return (.subscribing, actions)
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case .subscribed(Self.racp) where session.stage == .subscribing:
            newestOnMeter = nil
            enter(.checkingTheNewestRecord, at: now)
            return [.write(Self.racp, RACP.Request.reportLastRecord.encoded, withResponse: true)]
        case let .value(uuid, bytes, _):
            return receiveValue(uuid, bytes, at: now)
        default:
            return []  // completions, `encrypted` (a meter is the reference itself)
        }
    }

    /// Feature, context and battery are good to have: the records still arrive without them.
    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        switch operation {
        case .subscribe(Self.measurement), .subscribe(Self.racp), .write(Self.racp): "cannot transfer records: \(operation) failed: \(failure)"
        default: nil
        }
    }

    /// The link is gone: a record still waiting for its context will not get one.
    public mutating func linkLost() -> [DriverAction] { release() }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        switch (timer, session.stage) {
        case (.heldRecord, _):
            return release()
        case (.procedure, .checkingTheNewestRecord?):
            return abort(RACP.Request.reportLastRecord, at: now)
        case let (.procedure, .awaitingRecords(request)?):
            return abort(request, at: now)
        case (.procedure, .abortingTransfer?):
            return end(reason: "the meter answered neither the record transfer nor its abort", at: now)
        case (.procedure, _):
            return []
        }
    }

    // MARK: - Values

    /// Moves to a stage that waits for the meter: its silence is timed from `now`.
    private mutating func enter(_ stage: Stage, at now: MonotonicInstant) {
        session.enter(stage)
        session.schedule(.procedure, at: now + configuration.procedureTimeout)
    }

    /// The transfer is over (done, refused or nothing to do): nothing is timed any more.
    private mutating func becomeIdle() {
        session.enter(.idle)
        session.cancel(.procedure)
    }

    private mutating func request(_ request: RACP.Request, at now: MonotonicInstant) -> [DriverAction] {
        recordsThisTransfer = 0
        enter(.awaitingRecords(request: request), at: now)
        return [.write(Self.racp, request.encoded, withResponse: true)]
    }

    private mutating func abort(_ request: RACP.Request, at now: MonotonicInstant) -> [DriverAction] {
        enter(.abortingTransfer, at: now)
        return [
            .emit(.operationFailed(.write(Self.racp), .other("RACP \(request.opcode): nothing for \(Int(configuration.procedureTimeout.seconds)) s; aborting"))),
            .write(Self.racp, RACP.Request.abort.encoded, withResponse: true),
        ]
    }

    /// Every record or context proves the procedure is alive: the deadline is for silence.
    private mutating func keepAlive(at now: MonotonicInstant) {
        switch session.stage {
        case .checkingTheNewestRecord?, .awaitingRecords?: session.schedule(.procedure, at: now + configuration.procedureTimeout)
        default: break
        }
    }

    private mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        do throws(WireError) {
            switch uuid {
            case Self.measurement:
                let measurement = try GlucoseMeasurement(decoding: bytes)
                keepAlive(at: now)
                if session.stage == .checkingTheNewestRecord {
                    // Looked at, not taken: a meter that ignores the operator sends them all,
                    // and the last one it sends is its newest.
                    newestOnMeter = SensorStamp(run: measurement.meterClockText ?? "", count: Int64(measurement.sequenceNumber))
                    return []
                }
                // A record comes after the context of the one before, if any: that one is done.
                return release() + accept(measurement, at: now)
            case Self.context:
                let context = try GlucoseMeasurementContext(decoding: bytes)
                lastContext = context
                keepAlive(at: now)
                // A context for a record not held (looked at in the check, skipped as taken
                // before, or discarded) has no reading to join.
                guard let waiting = held, waiting.sequence == context.sequenceNumber else { return [] }
                return release(with: context.readingContext)
            case Self.racp:
                return receiveResponse(try RACP.Response(decoding: bytes), at: now)
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

    private mutating func accept(_ measurement: GlucoseMeasurement, at now: MonotonicInstant) -> [DriverAction] {
        let sequence = measurement.sequenceNumber
        switch session.stage {
        case let .awaitingRecords(.reportRecords(atLeast: first))?:
            if sequence < first { return [] }  // a meter that ignores the filter: taken before
            if sequence >= lastSequenceNumber ?? 0 { remember(measurement) }
        case .awaitingRecords(.reportAllRecords)?:
            if alreadyTaken?.contains(sequence) == true { return [] }  // the old run, before the numbers went back
            remember(measurement)  // in storage order: the last one sent is the newest
        default:
            // Notified on its own (idle, or an abort under way): new only above the last taken.
            if let last = lastSequenceNumber, sequence <= last, last < .max { return [] }
            remember(measurement)
        }
        if let reason = Self.rejection(of: measurement) {
            return [.emit(.malformedValue(Self.measurement, reason: "record #\(sequence) discarded: \(reason)"))]
        }
        guard let glucose = measurement.concentration?.glucose,
              let local = measurement.meterClockTime, let run = measurement.meterClockText
        else { return [] }  // rejection(of:) has ruled these out
        recordsThisTransfer += 1
        let reading = Reading(device: device, value: .meterGlucose(glucose, context: nil), time: .wallClock(local - configuration.meterUTCOffset),
                              sensorStamp: SensorStamp(run: run, count: Int64(sequence)))
        var alongside: [DriverAction] = []
        if measurement.sensorStatus?.contains(.batteryLow) == true {
            alongside.append(.emit(.info(TransmitterInfo(sensorState: "meter battery low"))))
        }
        guard measurement.contextInformationFollows else { return [.emit(.reading(reading))] + alongside }
        held = HeldRecord(sequence: sequence, reading: reading, alongside: alongside)
        session.schedule(.heldRecord, at: now + configuration.procedureTimeout)
        return []
    }

    /// The held record's reading, with `context` if its context came, and what goes with it.
    private mutating func release(with context: MeterReadingContext? = nil) -> [DriverAction] {
        guard var record = held else { return [] }
        held = nil
        session.cancel(.heldRecord)
        if case let .meterGlucose(glucose, _) = record.reading.value {
            record.reading.value = .meterGlucose(glucose, context: context)
        }
        return [.emit(.reading(record.reading))] + record.alongside
    }

    /// `measurement` is now the newest record taken (a discarded one too: asking for it again
    /// would not make it better).
    private mutating func remember(_ measurement: GlucoseMeasurement) {
        lastSequenceNumber = measurement.sequenceNumber
        lastRecordRun = measurement.meterClockText
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

    // MARK: - Responses

    private mutating func receiveResponse(_ response: RACP.Response, at now: MonotonicInstant) -> [DriverAction] {
        guard case let .responseCode(request, code) = response else { return [] }  // a count nobody asked for
        switch session.stage {
        case .checkingTheNewestRecord?:
            return checked(code, at: now)
        case .awaitingRecords?, .abortingTransfer?:
            break
        default:
            return []  // a stale response after a timeout
        }
        let wasAbort = session.stage == .abortingTransfer
        becomeIdle()
        // The transfer is over: a record still waiting for its context will not get one.
        let released = release()
        switch code {
        case .success where wasAbort || request == RACP.Opcode.abortOperation.rawValue:
            return released + [.emit(.info(TransmitterInfo(sensorState: "record transfer aborted after \(recordsThisTransfer) record(s)\(lastSequenceText)")))]
        case .success, .noRecordsFound:
            if let newest = newestOnMeter, newest.count <= Int64(UInt16.max) {
                // The meter's newest record is the one the next check compares with, whatever
                // order the meter sent this transfer in.
                lastSequenceNumber = UInt16(newest.count)
                lastRecordRun = newest.run.isEmpty ? nil : newest.run
            }
            return released + [.emit(.info(TransmitterInfo(sensorState: "\(recordsThisTransfer) new record(s)\(lastSequenceText)"))),
                               rest(at: now)]
        default:
            return released + [.emit(.operationFailed(.write(Self.racp), .other("RACP op \(request) refused: \(code)")))]
        }
    }

    /// The answer to `01 06`: what to ask for next.
    private mutating func checked(_ code: RACP.ResponseCode, at now: MonotonicInstant) -> [DriverAction] {
        switch code {
        case .success:
            guard let newest = newestOnMeter else { return request(nextRequest, at: now) }
            return compare(newest, at: now)
        case .noRecordsFound:
            becomeIdle()
            recordsThisTransfer = 0
            guard let last = lastSequenceNumber else {
                return [.emit(.info(TransmitterInfo(sensorState: "0 new record(s): the meter holds none"))), rest(at: now)]
            }
            // Cleared or reset: what it numbers next has nothing to do with the record taken before.
            lastSequenceNumber = nil
            lastRecordRun = nil
            return [.emit(.info(TransmitterInfo(sensorState: "the meter holds no records any more (cleared or reset): record #\(last) forgotten, "
                + "its next records will all be read"))), rest(at: now)]
        case .operatorNotSupported, .invalidOperator:
            newestOnMeter = nil
            return request(nextRequest, at: now)
        default:
            newestOnMeter = nil
            return [.emit(.operationFailed(.write(Self.racp), .other("RACP last record refused: \(code); asking without the check")))]
                + request(nextRequest, at: now)
        }
    }

    /// The meter's newest record against the newest taken before.
    private mutating func compare(_ newest: SensorStamp, at now: MonotonicInstant) -> [DriverAction] {
        guard let last = lastSequenceNumber else { return request(.reportAllRecords, at: now) }
        let number = UInt16(truncatingIfNeeded: newest.count)
        if number > last { return request(.reportRecords(atLeast: last + 1), at: now) }
        let sameDate = lastRecordRun == nil || newest.run.isEmpty || lastRecordRun == newest.run
        if number == last && sameDate {
            becomeIdle()
            recordsThisTransfer = 0
            if lastRecordRun == nil && !newest.run.isEmpty { lastRecordRun = newest.run }
            return [.emit(.info(TransmitterInfo(sensorState: "0 new record(s)\(lastSequenceText)"))), rest(at: now)]
        }
        alreadyTaken = number < last ? (number + 1)...last : nil
        let why = number < last
            ? "the meter's newest record is #\(number), below #\(last) taken before"
            : "the meter's record #\(number) is dated \(newest.run), not \(lastRecordRun ?? "?") as taken before"
        return [.emit(.info(TransmitterInfo(sensorState: "\(why): its numbers restarted (a reset or another meter) or wrapped; reading all its records")))]
            + request(.reportAllRecords, at: now)
    }

    /// A meter has new records only when someone measures, and it wakes and advertises then. One
    /// that stays connectable after its transfer is asked again after `restAfterTransfer`, not
    /// every second (docs/reading-identity.md "Connection pacing").
    static let restAfterTransfer: Duration = .seconds(30)

    private func rest(at now: MonotonicInstant) -> DriverAction { .nextSession(notBefore: now + Self.restAfterTransfer) }

    private var lastSequenceText: String { lastSequenceNumber.map { ", last sequence number \($0)" } ?? "" }
}

extension GlucoseMeterDriver {
    /// The registry entry: `glucose-meter [NAME] [last-sequence=N] [racp-timeout=30s] [utc-offset=+01:00]`.
    public static let transmitterType = TransmitterType(
        name: "glucose-meter",
        summary: "any Bluetooth Glucose Service meter (service 0x1808); fingersticks via RACP",
        declaration: TransmitterDeclaration(category: .glucoseMeter, fuzzTarget: "glucose-meter"),
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
