import Bluetooth
import Clocks
import Readings
import Wire

// The steps of a session: authentication, bonding, the Control exchange and the backfill.
extension DexcomDriver {
    /// A gap longer than one 5-minute cycle plus margin means readings were missed.
    static let gapThreshold: Dexcom.DexTime = 330

    /// One thing a session does after subscribing to Control, in order.
    enum SessionStep: Hashable, Sendable {
        case ask(Dexcom.ControlRequest)
        case backfillIfNeeded
        case calibrateIfPending
    }
    /// Dexcom transmitters send glucose values below 39 mg/dL only as special codes;
    /// CGMBLEKit drops them (Glucose.swift), and so does Vigil.
    static let lowestGlucose: UInt16 = 39

    mutating func writeCompleted(_ uuid: BluetoothUUID, at now: MonotonicInstant) -> [DriverAction] {
        switch (session.stage, uuid) {
        case (.awaitingAuthChallenge, DexcomProfile.authentication), (.awaitingAuthStatus, DexcomProfile.authentication):
            // CGMBLEKit, xDrip+ and xdripswift all read the reply after the write.
            return [.read(DexcomProfile.authentication)]
        default:
            return []  // Control requests are answered by indications; keep-alive/bond need nothing
        }
    }

    mutating func subscribed(_ uuid: BluetoothUUID, at now: MonotonicInstant) -> [DriverAction] {
        switch (session.stage, uuid) {
        case (.awaitingControlSubscription, DexcomProfile.control):
            // What the session is for first; what is good to know last, where a transmitter
            // that leaves it unanswered costs nothing else (`Dexcom.ControlRequest.isNeededForGlucose`).
            steps = [.ask(.transmitterTime), .ask(id.generation == .g5 ? .glucoseG5 : .glucoseG6), .backfillIfNeeded,
                     .calibrateIfPending, .ask(.sensor), .ask(.calibrationData), .ask(.battery)]
            if !firmwareKnown { steps.append(.ask(.firmwareVersion)) }
            return nextStep(at: now)
        case (.awaitingBackfillSubscription, DexcomProfile.backfill):
            guard let window = backfillWindow else { return nextStep(at: now) }
            wait(in: .awaitingBackfill, for: configuration.backfillTimeout, at: now)
            return [.write(DexcomProfile.control, Dexcom.BackfillTx(startTime: window.start, endTime: window.end).bytes, withResponse: true)]
        default:
            return []
        }
    }

    /// After the framework reported the refusal: an optional step's is only reported and the
    /// session goes on; a needed one's ends it. Never a reason to pair: bonding is a step of
    /// its own (`pairsOnRefusal` is off).
    public mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction] {
        if configuration.listenOnly, operation == .subscribe(DexcomProfile.backfill) {
            return []  // glucose still arrives on Control
        }
        switch session.stage {
        case .awaitingBackfillSubscription, .awaitingBackfill:
            // The live reading is already out: keep the gap for next time and go on.
            unfilledGapStart = backfillWindow?.start
            return nextStep(at: now)
        case let .awaitingReply(request) where !request.isNeededForGlucose:
            return nextStep(at: now)
        case .awaitingCalibrationResult:
            return calibrationUnanswered(after: nil, at: now)
        default:
            return stop(reason: "\(operation) failed: \(failure)", at: now)
        }
    }

    mutating func encrypted(at now: MonotonicInstant) -> [DriverAction] {
        var actions: [DriverAction] = []
        switch session.stage {
        case .awaitingBond:
            hasBonded = true
            actions.append(.emit(.paired))
        case .awaitingEncryption:
            hasBonded = true
        default:
            return []
        }
        wait(in: .awaitingControlSubscription, for: configuration.stepTimeout, at: now)
        return actions + [.subscribe(DexcomProfile.control, indications: true)]
    }

    /// In any phase (the framework's default would ignore one after the session): while bonding,
    /// a failure after an earlier bond is the bond lost, and ends the session.
    public mutating func pairingFailed(reason: String, abandoned: [GATTOperation], at now: MonotonicInstant) -> [DriverAction] {
        switch session.stage {
        case .awaitingBond, .awaitingEncryption:
            let text = hasBonded ? "bond lost: \(reason)" : reason
            return [.emit(.pairingFailed(reason: text))] + stop(reason: "pairing failed: \(text)", at: now)
        default:
            return [.emit(.pairingFailed(reason: reason))]
        }
    }

    // MARK: - Values

    mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        switch uuid {
        case DexcomProfile.authentication: return receiveAuthentication(bytes, at: now)
        case DexcomProfile.control: return receiveControl(bytes, at: now)
        case DexcomProfile.backfill: return receiveBackfillFrame(bytes)
        default: return []
        }
    }

    mutating func receiveAuthentication(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomProfile.authentication
        do throws(WireError) {
            switch (session.stage, bytes.first) {
            case (.awaitingAuthChallenge, Dexcom.AuthChallengeRx.opcode):
                let challenge = try Dexcom.AuthChallengeRx(decoding: bytes)
                guard challenge.tokenHash == id.hash(token) else {
                    // The peer does not hold our ID's key: someone else's Dexcom, or a typo in
                    // the configuration. CGMBLEKit aborts here too (xDrip only logs).
                    let reason = "transmitter ID mismatch: the transmitter did not answer our token with the hash for ID \(id)"
                    return [.emit(.incompatible(reason: reason))] + stop(reason: "transmitter ID mismatch", at: now)
                }
                wait(in: .awaitingAuthStatus, for: configuration.stepTimeout, at: now)
                return [.write(uuid, Dexcom.AuthChallengeTx(challengeHash: id.hash(challenge.challenge)).bytes, withResponse: true)]
            case (.awaitingAuthStatus, Dexcom.AuthStatusRx.opcode):
                let status = try Dexcom.AuthStatusRx(decoding: bytes)
                guard status.authenticated else {
                    let reason = "authentication refused: the transmitter rejected our answer to its challenge (AuthStatusRx authenticated = 0)"
                    return [.emit(.incompatible(reason: reason))] + stop(reason: "authentication refused", at: now)
                }
                if status.bonded {
                    wait(in: .awaitingEncryption, for: configuration.bondTimeout, at: now)
                    return [.requestPairing]
                }
                var actions: [DriverAction] = []
                if hasBonded {
                    actions.append(.emit(.pairingFailed(reason: "bond lost: the transmitter no longer knows our bond; bonding again")))
                }
                wait(in: .awaitingBond, for: configuration.bondTimeout, at: now)
                return actions + [
                    .emit(.needsPairing),
                    .write(uuid, Dexcom.KeepAliveTx(seconds: configuration.keepAliveSeconds).bytes, withResponse: true),
                    .write(uuid, Dexcom.BondRequestTx().bytes, withResponse: true),
                    .requestPairing,
                ]
            case (.listening, Dexcom.AuthStatusRx.opcode):
                let status = try Dexcom.AuthStatusRx(decoding: bytes)
                guard !status.authenticated else { return [] }
                return [.emit(.info(TransmitterInfo(sensorState: "another app's session was not authenticated")))]
            case (.awaitingAuthChallenge, _), (.awaitingAuthStatus, _):
                // The wrong reply for this step (or a stale read): say so and fail the step.
                let opcode = bytes.first.map { "0x" + String($0, radix: 16, uppercase: true) } ?? "nothing"
                return [.emit(.malformedValue(uuid, reason: "unexpected authentication reply \(opcode) in \(bytes.hexString)"))]
                    + stop(reason: "unexpected authentication reply", at: now)
            default:
                return []  // late duplicates (a read after an indication), BondRequestRx, the listen-only chatter
            }
        } catch {
            let reason = "\(error) in \(bytes.hexString)"
            var actions: [DriverAction] = [.emit(.malformedValue(uuid, reason: reason))]
            if case .listening = session.stage { return actions }
            actions += stop(reason: "unreadable authentication reply", at: now)
            return actions
        }
    }

    mutating func receiveControl(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomProfile.control
        guard let opcode = bytes.first else { return [.emit(.malformedValue(uuid, reason: "empty Control value"))] }
        switch session.stage {
        case let .awaitingReply(request) where opcode == request.replyOpcode
            || (request == .glucoseG6 && opcode == Dexcom.GlucoseRx.opcodeG5)
            || (request == .glucoseG5 && opcode == Dexcom.GlucoseRx.opcodeG6):
            // A reply that fails its CRC or length is discarded with its reason, and the
            // session moves on: one bad value must not cost the whole cycle.
            return decodeReply(bytes, at: now) + nextStep(at: now)
        case .awaitingReply where askedThisSession.contains(where: { $0.replyOpcode == opcode }):
            // The late answer to a request that timed out earlier: still worth decoding.
            return decodeReply(bytes, at: now)
        case .awaitingCalibrationResult where opcode == Dexcom.CalibrateGlucoseRx.opcode:
            return calibrationAnswered(bytes, at: now) + nextStep(at: now)
        case .awaitingBackfill where opcode == Dexcom.BackfillRx.opcode:
            return completeBackfill(bytes, at: now) + nextStep(at: now)
        case .listening:
            return decodeReply(bytes, at: now)
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
                wait(in: .awaitingReply(to: request), for: configuration.stepTimeout, at: now)
                return [.write(DexcomProfile.control, request.bytes, withResponse: true)]
            case .backfillIfNeeded:
                if let actions = startBackfillIfNeeded(at: now) { return actions }
            case .calibrateIfPending:
                if let actions = startCalibrationIfPending(at: now) { return actions }
            }
        }
        return finish(at: now)
    }

    /// Decodes any Control reply and turns it into events (readings, info, or a logged reason).
    mutating func decodeReply(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomProfile.control
        do throws(WireError) {
            switch bytes.first {
            case Dexcom.TransmitterTimeRx.opcode:
                let time = try Dexcom.TransmitterTimeRx(decoding: bytes)
                clock = DexClock(currentTime: time.currentTime, receivedAt: now)
                guard let start = time.sessionStartTime else {
                    return [.emit(.info(TransmitterInfo(sensorState: "no sensor session")))]
                }
                sessionStartTime = start
                guard start <= time.currentTime else {
                    return [.emit(.malformedValue(uuid, reason: "impossible sensor age: session start \(start) after transmitter time \(time.currentTime)"))]
                }
                return [.emit(.info(TransmitterInfo(sensorAge: .seconds(Int64(time.currentTime - start)))))]
            case Dexcom.GlucoseRx.opcodeG5, Dexcom.GlucoseRx.opcodeG6:
                return glucose(try Dexcom.GlucoseRx(decoding: bytes), at: now)
            case Dexcom.SensorRx.opcode:
                lastSensor = try Dexcom.SensorRx(decoding: bytes)
                return []
            case Dexcom.CalibrationDataRx.opcode:
                lastCalibration = try Dexcom.CalibrationDataRx(decoding: bytes)
                return []
            case Dexcom.BatteryStatusRx.opcode:
                // TransmitterInfo has no battery-voltage field; the text goes in `hardware`.
                let battery = try Dexcom.BatteryStatusRx(decoding: bytes)
                return [.emit(.info(TransmitterInfo(hardware: "battery \(battery.summary)")))]
            case Dexcom.VersionRx.opcode:
                let version = try Dexcom.VersionRx(decoding: bytes)
                firmwareKnown = true
                return [.emit(.info(TransmitterInfo(
                    model: "Dexcom \(id.generation.rawValue)",
                    firmware: "\(version.firmwareText) (Bluetooth \(Dexcom.dotted(version.bluetoothFirmware)), hardware \(version.hardwareRevision))")))]
            case Dexcom.TransmitterVersionRx.opcode:
                let version = try Dexcom.TransmitterVersionRx(decoding: bytes)
                firmwareKnown = true
                return [.emit(.info(TransmitterInfo(model: "Dexcom \(id.generation.rawValue)", firmware: version.firmwareText)))]
            case Dexcom.BackfillRx.opcode:
                return completeBackfill(bytes, at: now)
            default:
                return [.emit(.malformedValue(uuid, reason: "unknown Control message \(bytes.hexString)"))]
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString); discarded"))]
        }
    }

    mutating func glucose(_ message: Dexcom.GlucoseRx, at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomProfile.control
        var actions: [DriverAction] = [.emit(.info(TransmitterInfo(sensorState: message.calibrationState.description)))]
        // Int64: hostile times near 0xFFFFFFFF must not overflow.
        if let clock, Int64(message.timestamp) > Int64(clock.currentTime) + 60 {
            return actions + [.emit(.malformedValue(uuid, reason: "glucose time \(message.timestamp) is after the transmitter time \(clock.currentTime); discarded"))]
        }
        if case .listening = session.stage { wait(in: .listening, for: configuration.listenTimeout, at: now) }
        // No TransmitterTimeRx this session (listen-only when the other app did not ask, or a
        // discarded reply): the transmitter measures just before it wakes, so the live
        // reading's dex time is taken as now.
        if clock == nil { clock = DexClock(currentTime: message.timestamp, receivedAt: now) }
        // Gap detection uses every glucose reply, usable or not: a gap is missed messages.
        let previous = lastGlucoseTime
        if let previous, message.timestamp < previous {
            // Dex time went backwards: a new transmitter or a reset. Nothing to backfill across.
            unfilledGapStart = nil
            previousSessionLastTime = nil
        }
        if previous.map({ message.timestamp != $0 }) ?? true {
            newGlucoseThisSession = true
            staleRetry = nil
        }
        let gapStart = unfilledGapStart ?? previous.flatMap { message.timestamp >= $0 ? $0 : nil }
        lastGlucoseTime = message.timestamp
        if !configuration.listenOnly, configuration.backfillHours > 0 {
            let cap = message.timestamp > UInt32(configuration.backfillHours * 3600)
                ? message.timestamp - UInt32(configuration.backfillHours * 3600) : 0
            let start = max(gapStart ?? cap, cap, sessionStartTime ?? 0)
            if start <= message.timestamp, message.timestamp - start > Self.gapThreshold {
                backfillWindow = (start: start, end: message.timestamp)
            }
        }
        if let reading = glucoseReading(milligramsPerDeciliter: message.glucoseMilligramsPerDeciliter, state: message.calibrationState,
                                        trend: message.trend, time: message.timestamp, at: now) {
            actions.append(.emit(.reading(reading)))
        }
        return actions
    }

    /// A reading for a usable value, or nil (unusable states are reported as sensor state). A
    /// dex time already delivered — this session, or by an earlier one — is not delivered again:
    /// a transmitter that stays connectable serves its current reading at every connection.
    mutating func glucoseReading(milligramsPerDeciliter: UInt16, state: Dexcom.CalibrationState, trend: Int8,
                                 time: Dexcom.DexTime, at now: MonotonicInstant) -> Reading? {
        guard state.hasUsableGlucose, milligramsPerDeciliter >= Self.lowestGlucose,
              previousSessionLastTime.map({ time > $0 }) ?? true,
              emittedTimes.insert(time).inserted else { return nil }
        // No clock at all only for a backfill seen before any glucose in listen-only mode.
        let instant = clock?.instant(of: time) ?? now
        return Reading(device: device,
                       value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(milligramsPerDeciliter)),
                                       trend: Dexcom.Trend.direction(trendByte: trend)),
                       time: .monotonic(instant),
                       sensorStamp: SensorStamp(run: id.rawValue, count: Int64(time)))
    }

    /// When the next session can bring something. After a new reading: a tenth of the reading
    /// interval before the next one is due (30 s of the G6's 5 minutes; a real G6 advertises for
    /// a few seconds only, right after it measured, so Vigil is looking by then). A transmitter
    /// that stays connectable and had nothing new yet: just after the reading is due. One that
    /// had nothing new although its reading was due is late or stuck: asked again after a tenth
    /// of the interval, doubling up to the whole interval while nothing comes. Nil without a
    /// glucose reply this session (that is a failure, and the app backs off).
    mutating func nextSessionTime(at now: MonotonicInstant) -> MonotonicInstant? {
        guard !configuration.listenOnly, let clock, let last = lastGlucoseTime else { return nil }
        let interval = configuration.readingInterval
        let due = clock.instant(of: last) + interval
        if newGlucoseThisSession { return max(due - interval / 10, now) }
        if now < due { return due + interval / 20 }
        let retry = staleRetry ?? interval / 10
        staleRetry = min(retry * 2, interval)
        return now + retry
    }

    // MARK: - Backfill

    /// Subscribes to the Backfill characteristic if readings were missed; nil if none were.
    mutating func startBackfillIfNeeded(at now: MonotonicInstant) -> [DriverAction]? {
        guard backfillWindow != nil, clock != nil else { return nil }
        backfillBuffer = Dexcom.BackfillBuffer()
        backfillBufferError = nil
        wait(in: .awaitingBackfillSubscription, for: configuration.stepTimeout, at: now)
        return [.subscribe(DexcomProfile.backfill, indications: false)]
    }

    mutating func receiveBackfillFrame(_ bytes: [UInt8]) -> [DriverAction] {
        switch session.stage {
        case .awaitingBackfill, .listening: break
        default: return [.emit(.malformedValue(DexcomProfile.backfill, reason: "backfill frame outside a backfill: \(bytes.hexString)"))]
        }
        if case .listening = session.stage, bytes.first == 1 {
            backfillBuffer = Dexcom.BackfillBuffer()  // another app's backfill starts
            backfillBufferError = nil
        }
        guard backfillBufferError == nil else { return [] }
        do throws(WireError) {
            try backfillBuffer.append(bytes)
            return []
        } catch {
            backfillBufferError = "\(error)"
            return [.emit(.malformedValue(DexcomProfile.backfill, reason: "\(error) in \(bytes.hexString)"))]
        }
    }

    /// Validates the frames against the 0x51 completion and emits the new, usable records in
    /// time order. A failed validation discards the whole backfill and keeps the gap open.
    mutating func completeBackfill(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomProfile.backfill
        defer {
            backfillBuffer = Dexcom.BackfillBuffer()
            backfillBufferError = nil
        }
        let records: [Dexcom.BackfillRecord]
        do throws(WireError) {
            let completion = try Dexcom.BackfillRx(decoding: bytes)
            if let error = backfillBufferError { throw .malformed(error) }
            records = try backfillBuffer.validate(against: completion)
        } catch {
            if !configuration.listenOnly { unfilledGapStart = backfillWindow?.start }
            return [.emit(.malformedValue(uuid, reason: "backfill discarded: \(error)"))]
        }
        unfilledGapStart = nil
        var actions: [DriverAction] = []
        for record in records {
            if let earlier = previousSessionLastTime, record.timestamp <= earlier { continue }
            if let reading = glucoseReading(milligramsPerDeciliter: record.glucoseMilligramsPerDeciliter, state: record.calibrationState,
                                            trend: record.trend, time: record.timestamp, at: now) {
                actions.append(.emit(.reading(reading)))
            }
        }
        return actions
    }
}
