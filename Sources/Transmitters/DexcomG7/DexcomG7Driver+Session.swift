import Bluetooth
import Clocks
import Readings
import Wire

extension DexcomG7 {
    /// What a session asks on Control, one at a time.
    public enum Request: Hashable, Sendable, CustomStringConvertible {
        case glucose
        case transmitterVersion
        case extendedVersion

        public var bytes: [UInt8] {
            switch self {
            case .glucose: [GlucoseRx.opcode]
            case .transmitterVersion: [TransmitterVersionRx.opcode]
            case .extendedVersion: [ExtendedVersionRx.opcode]
            }
        }

        public var replyOpcode: UInt8 { bytes[0] }

        public var description: String {
            switch self {
            case .glucose: "the glucose request (0x4E)"
            case .transmitterVersion: "the version request (0x4A)"
            case .extendedVersion: "the session request (0x52)"
            }
        }
    }
}

// Steps 5 and 6 of a session: glucose, backfill, calibration and versions on Control, then the
// pacing of the next session (docs/protocols/dexcom-g7.md §Control messages, docs/dexcom-g7.md).
extension DexcomG7Driver {
    /// A gap longer than one 5-minute cycle plus margin means readings were missed.
    static let gapThreshold: DexcomG7.SensorTime = 330
    /// The sensor's range (G7SensorKit `GlucoseLimits`: 40–400 mg/dL); a value below is "below
    /// range" and still delivered, zero never is.
    static let lowestPlausibleGlucose: UInt16 = 1

    enum SessionStep: Hashable, Sendable {
        case ask(DexcomG7.Request)
        case backfillIfNeeded
        case calibrateIfPending
    }

    /// After the framework reported a refusal: an optional step's is only reported and the
    /// session goes on; a needed one's ends it.
    public mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction] {
        switch session.stage {
        case .awaitingBackfill:
            unfilledGapStart = backfillWindow?.start
            return nextStep(at: now)
        case let .awaitingReply(request) where request != .glucose:
            return nextStep(at: now)
        case .awaitingCalibrationResult:
            return nextStep(at: now)
        case .subscribingForSession where operation == .subscribe(DexcomG7Profile.backfill):
            // Glucose still comes on Control; only the backfill is lost.
            awaitingSubscriptions.remove(DexcomG7Profile.backfill)
            return subscribed(DexcomG7Profile.backfill, at: now)
        default:
            return stop(reason: "\(operation) failed: \(failure)", at: now)
        }
    }

    mutating func receiveControl(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomG7Profile.control
        guard let opcode = bytes.first else { return [.emit(.malformedValue(uuid, reason: "empty Control value"))] }
        switch session.stage {
        case let .awaitingReply(request) where opcode == request.replyOpcode:
            return decodeReply(bytes, at: now) + nextStep(at: now)
        case .awaitingReply where askedThisSession.contains(where: { $0.replyOpcode == opcode }):
            return decodeReply(bytes, at: now)  // the late answer to a request that timed out
        case .awaitingBackfill where opcode == DexcomG7.BackfillTx.opcode:
            return completeBackfill(at: now) + nextStep(at: now)
        case .awaitingCalibrationResult where opcode == DexcomG7.CalibrateRx.opcode:
            return calibrationAnswered(bytes) + nextStep(at: now)
        default:
            return [unexpected("Control message", on: uuid, bytes)]
        }
    }

    /// Starts the session's next step, skipping those with nothing to do; finishes after the last.
    mutating func nextStep(at now: MonotonicInstant) -> [DriverAction] {
        while !steps.isEmpty {
            switch steps.removeFirst() {
            case let .ask(request):
                askedThisSession.insert(request)
                wait(in: .awaitingReply(to: request), at: now)
                return [.write(DexcomG7Profile.control, request.bytes, withResponse: true)]
            case .backfillIfNeeded:
                if let window = backfillWindow {
                    backfillRecords = []
                    backfillError = nil
                    wait(in: .awaitingBackfill, for: configuration.backfillTimeout, at: now)
                    return [.write(DexcomG7Profile.control, DexcomG7.BackfillTx(start: window.start, end: window.end).bytes, withResponse: true)]
                }
            case .calibrateIfPending:
                if let actions = startCalibrationIfPending(at: now) { return actions }
            }
        }
        return finish(at: now)
    }

    /// The session did its work. The sensor drops an idle link itself within seconds
    /// (docs/protocols/dexcom-g7.md §Family and names); the host is asked only if it has not.
    /// The app hears when the next reading is due.
    mutating func finish(at now: MonotonicInstant) -> [DriverAction] {
        session.leave(reason: "session complete", askingHostAt: now + .seconds(6))
        return nextSessionTime(at: now).map { [DriverAction.nextSession(notBefore: $0)] } ?? []
    }

    mutating func decodeReply(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomG7Profile.control
        do throws(WireError) {
            switch bytes.first {
            case DexcomG7.GlucoseRx.opcode:
                return glucose(try DexcomG7.GlucoseRx(decoding: bytes), at: now)
            case DexcomG7.TransmitterVersionRx.opcode:
                let version = try DexcomG7.TransmitterVersionRx(decoding: bytes)
                serialNumber = version.serialNumber
                return [.emit(.info(TransmitterInfo(model: "Dexcom G7", serialNumber: String(version.serialNumber),
                                                    firmware: version.firmwareText, software: String(version.softwareNumber))))]
            case DexcomG7.ExtendedVersionRx.opcode:
                let version = try DexcomG7.ExtendedVersionRx(decoding: bytes)
                extendedVersionKnown = true
                let days = Double(version.sessionLength.seconds) / 86_400
                return [.emit(.info(TransmitterInfo(
                    hardware: "hardware \(version.hardwareVersion), session \(days.formattedDays) days, warm-up \(Int(version.warmUp.seconds / 60)) min")))]
            default:
                return [.emit(.malformedValue(uuid, reason: "unknown Control message \(bytes.hexString)"))]
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString); discarded"))]
        }
    }

    mutating func glucose(_ message: DexcomG7.GlucoseRx, at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomG7Profile.control
        var actions: [DriverAction] = [.emit(.info(TransmitterInfo(sensorState: message.state.description,
                                                                   sensorAge: .seconds(Int64(message.messageTime)))))]
        guard message.status == 0 else {
            return actions + [.emit(.malformedValue(uuid, reason: "glucose message with status 0x\(String(message.status, radix: 16)); discarded"))]
        }
        clock = SensorClock(currentTime: message.messageTime, receivedAt: now)
        let measuredAt = message.measuredAt
        let previous = lastMeasurementTime
        if let previous, measuredAt < previous {
            // Sensor time went backwards: another sensor. Nothing to backfill across.
            unfilledGapStart = nil
            previousSessionLastTime = nil
        }
        if previous.map({ measuredAt != $0 }) ?? true {
            newGlucoseThisSession = true
            staleRetry = nil
        }
        let gapStart = unfilledGapStart ?? previous.flatMap { measuredAt >= $0 ? $0 : nil }
        lastMeasurementTime = measuredAt
        if configuration.backfillHours > 0 {
            let reach = UInt32(configuration.backfillHours * 3600)
            let cap = measuredAt > reach ? measuredAt - reach : 0
            let start = max(gapStart ?? cap, cap)
            if start <= measuredAt, measuredAt - start > Self.gapThreshold {
                backfillWindow = (start: start, end: measuredAt)
            }
        }
        if let reading = reading(milligramsPerDeciliter: message.milligramsPerDeciliter, state: message.state, rate: message.rate,
                                 measuredAt: measuredAt, at: now) {
            actions.append(.emit(.reading(reading)))
        }
        return actions
    }

    /// A reading for a usable value, or nil (unusable states are reported as sensor state). A
    /// sensor time already delivered, this session or an earlier one, is not delivered again.
    mutating func reading(milligramsPerDeciliter: UInt16?, state: Dexcom.CalibrationState, rate: Double?,
                          measuredAt time: DexcomG7.SensorTime, at now: MonotonicInstant) -> Reading? {
        // Only the OK state is reliable on a G7 (G7SensorKit `hasReliableGlucose`).
        guard state == .ok, let milligramsPerDeciliter, milligramsPerDeciliter >= Self.lowestPlausibleGlucose,
              previousSessionLastTime.map({ time > $0 }) ?? true,
              emittedTimes.insert(time).inserted else { return nil }
        let instant = clock?.instant(of: time) ?? now
        return Reading(device: device,
                       value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(milligramsPerDeciliter)),
                                       trend: rate.map { TrendDirection(milligramsPerDeciliterPerMinute: $0) }),
                       time: .monotonic(instant),
                       sensorStamp: SensorStamp(run: stampRun, count: Int64(time)))
    }

    /// The run of a reading's stamp: the sensor's serial, which a session asks for before the
    /// glucose (docs/reading-identity.md). Should the serial not come, the pairing code stands
    /// in: it, too, belongs to one sensor.
    var stampRun: String { serialNumber.map { "G7-\($0)" } ?? "G7-code-\(configuration.pairingCode)" }

    /// When the next session can bring something (as the G6's: docs/dexcom.md "Pacing").
    mutating func nextSessionTime(at now: MonotonicInstant) -> MonotonicInstant? {
        guard let clock, let last = lastMeasurementTime else { return nil }
        let interval = configuration.readingInterval
        let due = clock.instant(of: last) + interval
        if newGlucoseThisSession { return max(due - interval / 10, now) }
        if now < due { return due + interval / 20 }
        let retry = staleRetry ?? interval / 10
        staleRetry = min(retry * 2, interval)
        return now + retry
    }

    // MARK: - Backfill

    mutating func receiveBackfill(_ bytes: [UInt8]) -> [DriverAction] {
        guard case .awaitingBackfill = session.stage else {
            return [.emit(.malformedValue(DexcomG7Profile.backfill, reason: "backfill record outside a backfill: \(bytes.hexString)"))]
        }
        guard backfillError == nil else { return [] }
        do throws(WireError) {
            backfillRecords += try DexcomG7.BackfillRecord.records(in: bytes)
            return []
        } catch {
            backfillError = "\(error)"
            return [.emit(.malformedValue(DexcomG7Profile.backfill, reason: "\(error) in \(bytes.hexString)"))]
        }
    }

    /// The sensor's 0x59 ends the stream: the records within the window, new and usable, become
    /// readings in time order. One malformed record discards the backfill and keeps the gap open.
    mutating func completeBackfill(at now: MonotonicInstant) -> [DriverAction] {
        defer {
            backfillRecords = []
            backfillError = nil
        }
        if let backfillError {
            unfilledGapStart = backfillWindow?.start
            return [.emit(.malformedValue(DexcomG7Profile.backfill, reason: "backfill discarded: \(backfillError); asked again next session"))]
        }
        unfilledGapStart = nil
        guard let window = backfillWindow else { return [] }
        var actions: [DriverAction] = []
        let inWindow = backfillRecords.filter { $0.measuredAt >= window.start && $0.measuredAt <= window.end }
        if inWindow.count < backfillRecords.count {
            actions.append(.emit(.malformedValue(DexcomG7Profile.backfill,
                                                 reason: "\(backfillRecords.count - inWindow.count) backfill record(s) outside the window \(window.start)–\(window.end) discarded")))
        }
        for record in inWindow.sorted(by: { $0.measuredAt < $1.measuredAt }) {
            if let reading = reading(milligramsPerDeciliter: record.milligramsPerDeciliter, state: record.state, rate: record.rate,
                                     measuredAt: record.measuredAt, at: now) {
                actions.append(.emit(.reading(reading)))
            }
        }
        return actions
    }
}

extension Double {
    /// 10.5 for ten and a half days, 10 for ten.
    fileprivate var formattedDays: String {
        let tenths = Int((self * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
