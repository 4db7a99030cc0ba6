import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a standard Continuous Glucose Monitoring Service sensor
/// (CGMS 0x181F, the Bluetooth SIG CGM Service
/// specification; profile in `CGMServiceProfile`).
///
/// On `start` (the link is encrypted first): read CGM Feature (which says whether every value
/// carries an E2E-CRC), CGM Status and Session Start Time (which date the records), Session Run
/// Time if present; subscribe to measurement notifications and to SOCP and RACP indications.
/// The host performs these in order, so the feature is known before the first value that may
/// carry a CRC. When the RACP subscription is confirmed, the driver asks for the records missed
/// since the last one it took (`01 03 01 <last time offset + 1>`, filter type 0x01 = time offset),
/// or all records the first time.
///
/// Dating: absolute time = Session Start Time (converted to UTC with its zone and DST) + time
/// offset minutes. A sensor whose start time was never set (year 0) is dated on the monotonic
/// clock instead, anchored by the CGM Status read at start: a record `k` minutes older than the
/// status's time offset was measured `k` minutes before that read.
///
/// A record is discarded with its reason when its glucose is a special SFLOAT, or its
/// annunciation (SIG octet names, see `CGMMeasurement`) says session stopped, wrong sensor type,
/// sensor malfunction or general fault. Records at or before the last time offset taken are
/// duplicates and skipped. A status whose time offset went backwards means a new session:
/// `newSensorDetected`, and the time offset memory starts again.
///
/// `startSession(at:)` and `stopSession(at:)` write SOCP op 26/27; `start-session=true` in the
/// configuration starts one automatically when the status says the session is stopped (never
/// by default: starting a sensor is the user's decision). SOCP and RACP procedures time out
/// (`procedureTimeout`); an RACP that times out is aborted with `03 00`.
public struct CGMServiceDriver: SessionDriver {
    public struct Configuration: Hashable, Sendable {
        public var lastTimeOffsetMinutes: UInt16?
        public var startSessionWhenStopped: Bool
        public var noDataTimeout: Duration
        public var procedureTimeout: Duration

        public init(lastTimeOffsetMinutes: UInt16? = nil, startSessionWhenStopped: Bool = false,
                    noDataTimeout: Duration = .seconds(15 * 60), procedureTimeout: Duration = .seconds(30)) {
            self.lastTimeOffsetMinutes = lastTimeOffsetMinutes
            self.startSessionWhenStopped = startSessionWhenStopped
            self.noDataTimeout = noDataTimeout
            self.procedureTimeout = procedureTimeout
        }
    }

    /// The sensor streams; the control point procedures run beside it (`recordTransfer`,
    /// `pendingSessionCommand`), each timed by its `Timer`.
    public enum Stage: Hashable, Sendable {
        case measuring
    }

    /// What the driver waits for, in the order it acts when several are due.
    public enum Timer: Hashable, Comparable, Sendable {
        /// The SOCP response to `pendingSessionCommand`.
        case sessionCommand
        /// The next record or RACP response of `recordTransfer`.
        case recordTransfer
    }

    /// A Record Access Control Point procedure in progress.
    public enum RecordTransfer: Hashable, Sendable {
        case awaitingRecords(request: RACP.Request)
        case aborting
    }

    public static var profile: TransmitterProfile { CGMServiceProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Timer>
    public private(set) var feature: CGMFeature?
    public private(set) var status: CGMStatus?
    public private(set) var sessionStartTime: CGMSessionStartTime?
    public private(set) var sessionRunTime: CGMSessionRunTime?
    /// The newest time offset taken; survives reconnections, and is what the app persists.
    public private(set) var lastTimeOffsetMinutes: UInt16?

    /// Sets the last stored time offset from the app's saved state (`PersistentDriverState`).
    mutating func restoreLastTimeOffset(_ value: UInt16) { lastTimeOffsetMinutes = value }
    public private(set) var recordTransfer: RecordTransfer?
    /// The SOCP request awaiting its response.
    public private(set) var pendingSessionCommand: CGMSpecificOpsControlPoint.Opcode?
    private var statusReadAt: MonotonicInstant?
    private var hasRACP = false

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.lastTimeOffsetMinutes = configuration.lastTimeOffsetMinutes
        self.session = DriverSession(noDataTimeout: configuration.noDataTimeout)
    }

    private static let measurement = CGMServiceProfile.measurement
    private static let featureUUID = CGMServiceProfile.feature
    private static let statusUUID = CGMServiceProfile.status
    private static let startTime = CGMServiceProfile.sessionStartTime
    private static let runTime = CGMServiceProfile.sessionRunTime
    private static let socp = CGMServiceProfile.specificOpsControlPoint
    private static let racp = CGMServiceProfile.recordAccessControlPoint
    private static let service = SIG.Service.continuousGlucoseMonitoring

    private var crcRequired: Bool { feature?.e2eCRCSupported ?? false }

    public var silence: String { "CGM measurement" }

    private static func has(_ uuid: BluetoothUUID, _ property: CharacteristicProperties, in discovered: DiscoveredServices) -> Bool {
        discovered.characteristic(uuid, in: service)?.properties.contains(property) == true
    }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        func has(_ uuid: BluetoothUUID, _ property: CharacteristicProperties) -> Bool { Self.has(uuid, property, in: discovered) }
        guard has(Self.measurement, .notify), has(Self.featureUUID, .read), has(Self.statusUUID, .read),
              has(Self.startTime, .read), has(Self.socp, .indicate)
        else { return "the CGM Service lacks a notifying CGM Measurement, readable Feature, Status or Session Start Time, or an indicating SOCP" }
        return nil
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        func has(_ uuid: BluetoothUUID, _ property: CharacteristicProperties) -> Bool { Self.has(uuid, property, in: discovered) }
        status = nil
        statusReadAt = nil
        hasRACP = has(Self.racp, .indicate) && has(Self.racp, .write)
        var actions: [DriverAction] = [.read(Self.featureUUID), .read(Self.statusUUID), .read(Self.startTime)]
        if has(Self.runTime, .read) { actions.append(.read(Self.runTime)) }
        actions += [.subscribe(Self.measurement, indications: false), .subscribe(Self.socp, indications: true)]
        if hasRACP { actions.append(.subscribe(Self.racp, indications: true)) }
        return (.measuring, actions)
    }

    public mutating func sessionEnded() {
        recordTransfer = nil
        pendingSessionCommand = nil
    }

    /// Writes SOCP "Start Session" (26).
    public mutating func startSession(at now: MonotonicInstant) -> [DriverAction] { session.track(sessionCommand(.startSession, at: now)) }

    /// Writes SOCP "Stop Session" (27).
    public mutating func stopSession(at now: MonotonicInstant) -> [DriverAction] { session.track(sessionCommand(.stopSession, at: now)) }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .value(uuid, bytes, _):
            return receiveValue(uuid, bytes, at: now)
        case .subscribed(Self.socp):
            if configuration.startSessionWhenStopped, status?.status.contains(.sessionStopped) == true {
                return sessionCommand(.startSession, at: now)
            }
            return []
        case .subscribed(Self.racp):
            let request: RACP.Request = if let last = lastTimeOffsetMinutes, last < .max { .reportRecords(atLeast: last + 1) } else { .reportAllRecords }
            transfer(.awaitingRecords(request: request), at: now)
            return [.write(Self.racp, request.encoded, withResponse: true)]
        default:
            return []
        }
    }

    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        operation == .subscribe(Self.measurement) ? "cannot subscribe to CGM measurements: \(failure)" : nil
    }

    /// A refused control point write ends its procedure; the measurements go on.
    public mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction] {
        switch operation {
        case .write(Self.racp): transfer(nil, at: now)
        case .write(Self.socp): command(nil, at: now)
        default: break
        }
        return []
    }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        let seconds = Int(configuration.procedureTimeout.seconds)
        switch (timer, recordTransfer) {
        case (.sessionCommand, _):
            guard let opcode = pendingSessionCommand else { return [] }
            command(nil, at: now)
            return [.emit(.operationFailed(.write(Self.socp), .other("SOCP \(opcode): no response in \(seconds) s")))]
        case let (.recordTransfer, .awaitingRecords(request)?):
            transfer(.aborting, at: now)
            return [
                .emit(.operationFailed(.write(Self.racp), .other("RACP \(request.opcode): nothing for \(seconds) s; aborting"))),
                .write(Self.racp, RACP.Request.abort.encoded, withResponse: true),
            ]
        case (.recordTransfer, .aborting?):
            transfer(nil, at: now)
            return [.emit(.operationFailed(.write(Self.racp), .other("RACP abort: no response")))]
        case (.recordTransfer, nil):
            return []
        }
    }

    /// Sets the record transfer under way, and times it from `now`.
    private mutating func transfer(_ state: RecordTransfer?, at now: MonotonicInstant) {
        recordTransfer = state
        if state == nil { session.cancel(.recordTransfer) } else { session.schedule(.recordTransfer, at: now + configuration.procedureTimeout) }
    }

    /// Sets the session command under way, and times it from `now`.
    private mutating func command(_ opcode: CGMSpecificOpsControlPoint.Opcode?, at now: MonotonicInstant) {
        pendingSessionCommand = opcode
        if opcode == nil { session.cancel(.sessionCommand) } else { session.schedule(.sessionCommand, at: now + configuration.procedureTimeout) }
    }

    // MARK: - Values

    private mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        do throws(WireError) {
            switch uuid {
            case Self.measurement:
                let records = try CGMMeasurement.split(bytes)
                if case .awaitingRecords? = recordTransfer { session.schedule(.recordTransfer, at: now + configuration.procedureTimeout) }
                return records.flatMap { record -> [DriverAction] in
                    do throws(WireError) {
                        return accept(try CGMMeasurement(record: record, crcRequired: crcRequired), at: now)
                    } catch {
                        return [.emit(.malformedValue(uuid, reason: "\(error) in \(record.hexString)"))]
                    }
                }
            case Self.featureUUID:
                feature = try CGMFeature(decoding: bytes)
                return []
            case Self.statusUUID:
                return receiveStatus(try CGMStatus(decoding: bytes, crcRequired: crcRequired), at: now)
            case Self.startTime:
                sessionStartTime = try CGMSessionStartTime(decoding: bytes, crcRequired: crcRequired)
                return []
            case Self.runTime:
                sessionRunTime = try CGMSessionRunTime(decoding: bytes, crcRequired: crcRequired)
                return []
            case Self.socp:
                return receiveSessionResponse(try CGMSpecificOpsControlPoint.Response(decoding: bytes, crcRequired: crcRequired), at: now)
            case Self.racp:
                return receiveRecordResponse(try RACP.Response(decoding: bytes), at: now)
            default:
                return []
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString)"))]
        }
    }

    private mutating func receiveStatus(_ newStatus: CGMStatus, at now: MonotonicInstant) -> [DriverAction] {
        var actions: [DriverAction] = []
        if let last = lastTimeOffsetMinutes, newStatus.timeOffsetMinutes < last {
            // Time offsets only grow within a session: going backwards means a new one.
            lastTimeOffsetMinutes = nil
            actions.append(.emit(.newSensorDetected))
        }
        status = newStatus
        statusReadAt = now
        actions.append(.emit(.info(TransmitterInfo(sensorState: "\(newStatus.status)",
                                                   sensorAge: .seconds(Int64(newStatus.timeOffsetMinutes) * 60)))))
        return actions
    }

    private mutating func accept(_ record: CGMMeasurement, at now: MonotonicInstant) -> [DriverAction] {
        let offset = record.timeOffsetMinutes
        if let last = lastTimeOffsetMinutes, offset <= last { return [] }  // already taken
        lastTimeOffsetMinutes = offset
        if let reason = Self.rejection(of: record) {
            return [.emit(.malformedValue(Self.measurement, reason: "record at +\(offset) min discarded: \(reason)"))]
        }
        let time: Reading.Time
        if let start = sessionStartTime?.utc {
            time = .wallClock(start + .seconds(Int64(offset) * 60))
        } else if let status, let statusReadAt {
            time = .monotonic(statusReadAt - .seconds((Int64(status.timeOffsetMinutes) - Int64(offset)) * 60))
        } else {
            return [.emit(.malformedValue(Self.measurement, reason: "record at +\(offset) min discarded: neither a session start time nor a status to date it by"))]
        }
        guard let glucose = record.glucose.doubleValue else { return [] }  // rejection(of:) rules this out
        session.feedWatchdog(at: now)
        let trend = record.trend.map { CGMMeasurement.direction(milligramsPerDeciliterPerMinute: $0) }
        // The record's identity: its time offset within the session that started then. Without
        // a start time a restarted session's offsets could not be told from the old one's.
        let stamp = sessionStartTime?.utc.map { SensorStamp(run: $0.iso8601, count: Int64(offset)) }
        return [.emit(.reading(Reading(device: device, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: glucose), trend: trend),
                                       time: time, sensorStamp: stamp)))]
    }

    /// Why a record must not become a reading, or nil.
    static func rejection(of record: CGMMeasurement) -> String? {
        guard let value = record.glucose.doubleValue, value.isFinite else { return "glucose is \(record.glucose)" }
        guard value > 0 else { return "glucose \(record.glucose) is not positive" }
        let bad = record.annunciation.intersection(.invalidatesResult)
        guard bad.isEmpty else { return "sensor reports \(bad)" }
        return nil
    }

    private mutating func receiveSessionResponse(_ response: CGMSpecificOpsControlPoint.Response, at now: MonotonicInstant) -> [DriverAction] {
        guard let opcode = pendingSessionCommand, opcode.rawValue == response.requestOpcode else {
            return [.emit(.malformedValue(Self.socp, reason: "SOCP response to op \(response.requestOpcode) that was not asked for"))]
        }
        command(nil, at: now)
        guard response.code == .success else {
            return [.emit(.operationFailed(.write(Self.socp), .other("SOCP \(opcode) refused: \(response.code)")))]
        }
        let state = opcode == .startSession ? "session started" : "session stopped"
        // A new session restarts the time offsets and may move the start time: re-anchor.
        if opcode == .startSession { lastTimeOffsetMinutes = nil }
        return [.emit(.info(TransmitterInfo(sensorState: state))), .read(Self.statusUUID), .read(Self.startTime)]
    }

    private mutating func receiveRecordResponse(_ response: RACP.Response, at now: MonotonicInstant) -> [DriverAction] {
        guard case let .responseCode(request, code) = response, recordTransfer != nil else { return [] }
        let aborted = recordTransfer == .aborting
        transfer(nil, at: now)
        switch code {
        case .success, .noRecordsFound:
            let last = lastTimeOffsetMinutes.map { "last time offset \($0) min" } ?? "no records"
            return [.emit(.info(TransmitterInfo(sensorState: aborted ? "record transfer aborted, \(last)" : "records up to date, \(last)")))]
        default:
            return [.emit(.operationFailed(.write(Self.racp), .other("RACP op \(request) refused: \(code)")))]
        }
    }

    // MARK: - Steps

    private mutating func sessionCommand(_ opcode: CGMSpecificOpsControlPoint.Opcode, at now: MonotonicInstant) -> [DriverAction] {
        guard session.isActive else { return [] }
        guard pendingSessionCommand == nil else {
            return [.emit(.operationFailed(.write(Self.socp), .other("SOCP \(opcode) not sent: another session command is in progress")))]
        }
        command(opcode, at: now)
        return [.write(Self.socp, CGMSpecificOpsControlPoint.request(opcode, withCRC: crcRequired), withResponse: true)]
    }
}

extension CGMServiceDriver {
    /// The registry entry: `cgm-service [NAME] [last-time-offset=MIN] [start-session=true]
    /// [no-data-timeout=15m] [racp-timeout=30s]`.
    public static let transmitterType = TransmitterType(
        name: "cgm-service",
        summary: "any Bluetooth Continuous Glucose Monitoring Service sensor (service 0x181F)",
        declaration: TransmitterDeclaration(category: .continuousGlucose, fuzzTarget: "cgm-service"),
        driver: CGMServiceDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> CGMServiceDriver in
        try configuration.rejectUnknownOptions(known: ["last-time-offset", "start-session", "no-data-timeout", "racp-timeout"])
        var last: UInt16?
        if let text = configuration.options["last-time-offset"] {
            guard let value = UInt16(text) else { throw .invalidOption("last-time-offset", value: text, expected: "minutes 0…65535") }
            last = value
        }
        var start = false
        if let text = configuration.options["start-session"] {
            guard text == "true" || text == "false" else { throw .invalidOption("start-session", value: text, expected: "true or false") }
            start = text == "true"
        }
        return CGMServiceDriver(device: configuration.device, configuration: Configuration(
            lastTimeOffsetMinutes: last, startSessionWhenStopped: start,
            noDataTimeout: try configuration.duration("no-data-timeout", default: .seconds(15 * 60)),
            procedureTimeout: try configuration.duration("racp-timeout", default: .seconds(30))))
    }
}
