import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for an xDrip/xBridge Wixel relaying a Dexcom G4 (packets in `XBridgePacket`,
/// as xDrip+ reads them).
///
/// On `start`: subscribe to FFE1 notifications and wait. The bridge speaks first: a beacon when
/// it wakes, then a data packet every 5 minutes (the G4's cycle).
///
/// - Binary data packet from the configured transmitter: acknowledged with `02 F0` (so the
///   bridge sleeps until the next cycle), its raw count recorded, and, once calibrated, a
///   glucose reading dated `now − delay`. Bridge battery and G4 battery become info.
/// - Data packet from another transmitter ID: discarded with the reason "transmitter ID
///   mismatch", not acknowledged, and answered with the TXID packet so the bridge filters on
///   ours. A neighbour's G4 must never reach the alarms.
/// - Beacon with another ID (0 = the bridge has none): answered with the TXID packet.
/// - Classic ASCII line: no transmitter ID to check (the classic firmware filters on its own
///   compiled-in ID) and no reply (it defines no commands); otherwise handled like data.
///
/// Calibration: `DriverInput.calibration` fingersticks pair with the sane raw value measured
/// closest to them and feed `XBridgeCalibration` (xDrip+'s guards; docs/xbridge-calibration.md).
/// A fingerstick outside 40–400 mg/dL, one with no raw value within 10 minutes, and a line that
/// fails the sanity check are reported with their reason (`CalibrationReport`), never dropped.
/// Uncalibrated raw values are reported as info text, never as glucose.
///
/// A new sensor: the xBridge shows Vigil no sensor session (xDrip learns of a new G4 sensor
/// only from the user's "start sensor"), only raw counts. A raw count below xDrip's sane
/// minimum (5,000, `XBridgeCalibration.saneRaw`) means the transmitter is reading no working
/// sensor — taken off the old one, or a new one not yet giving a signal — so the calibration is
/// cleared then, and the next sensor starts uncalibrated. A transmitter ID that changes is a
/// new configuration, and so a new driver with no calibration; calibrations also expire after
/// 4 days.
///
/// Watchdog: 11 minutes by default (two missed G4 cycles) without an accepted data packet
/// emits `noData` and disconnects so that the app reconnects.
public struct XBridgeDriver: SessionDriver {
    public struct Configuration: Hashable, Sendable {
        public var transmitterID: XBridgeTransmitterID
        public var noDataTimeout: Duration

        public init(transmitterID: XBridgeTransmitterID, noDataTimeout: Duration = .seconds(11 * 60)) {
            self.transmitterID = transmitterID
            self.noDataTimeout = noDataTimeout
        }
    }

    /// The bridge speaks first, every 5 minutes; the driver waits for it.
    public enum Stage: Hashable, Sendable {
        case awaitingPackets
    }

    public static var profile: TransmitterProfile { XBridge.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Never>
    /// Survives reconnections: a calibration is about the sensor, not the link.
    public private(set) var calibration = XBridgeCalibration()
    /// The newest sane raw counts with the time they were measured, newest last (at most 6).
    public private(set) var recentRaw: [(raw: UInt32, at: MonotonicInstant)] = []
    /// Fingersticks that arrived before a raw value close enough in time to pair with.
    public private(set) var unpairedCalibrations: [(GlucoseConcentration, takenAt: MonotonicInstant)] = []
    private var writeWithResponse = false

    public init(device: DeviceID, configuration: Configuration) {
        self.device = device
        self.configuration = configuration
        self.session = DriverSession(noDataTimeout: configuration.noDataTimeout)
    }

    private static let serial = XBridge.serialCharacteristic

    public var silence: String { "G4 data from the bridge" }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        guard let serial = discovered.characteristic(Self.serial, in: XBridge.service),
              serial.properties.contains(.notify),
              !serial.properties.isDisjoint(with: [.write, .writeWithoutResponse])
        else { return "no HM-10 serial characteristic (FFE1) that notifies and accepts writes in service FFE0" }
        return nil
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        // HM-10 modules declare write-without-response; a response costs a round trip per ACK.
        writeWithResponse = discovered.characteristic(Self.serial, in: XBridge.service)?.properties.contains(.writeWithoutResponse) != true
        return (.awaitingPackets, [.subscribe(Self.serial, indications: false)])
    }

    /// Accepted in any phase: a fingerstick taken while the bridge is out of range is still a
    /// calibration point once a raw value near it is known.
    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        offer(reference, takenAt: takenAt, at: now)
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        guard case let .value(Self.serial, bytes, _) = input else { return [] }  // completions: nothing to do
        return receivePacket(bytes, at: now)
    }

    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        operation == .subscribe(Self.serial) ? "cannot subscribe to the bridge's notifications: \(failure)" : nil
    }

    // MARK: - Packets

    private mutating func receivePacket(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let packet: XBridgePacket
        do throws(WireError) {
            packet = try XBridgePacket(decoding: bytes)
        } catch {
            return [.emit(.malformedValue(Self.serial, reason: "\(error) in \(bytes.hexString)"))]
        }
        switch packet {
        case .null:
            return []
        case let .beacon(beacon):
            guard beacon.transmitterID != configuration.transmitterID.rawValue else { return [] }
            return [write(.setTransmitterID(configuration.transmitterID))]
        case let .data(data):
            guard data.transmitterID == configuration.transmitterID.rawValue else {
                let heard = XBridgeTransmitterID(rawValue: data.transmitterID).map(\.description) ?? "0x\(String(data.transmitterID, radix: 16))"
                return [
                    .emit(.malformedValue(Self.serial, reason: "transmitter ID mismatch: the bridge heard \(heard), configured \(configuration.transmitterID); reading discarded")),
                    write(.setTransmitterID(configuration.transmitterID)),
                ]
            }
            let measuredAt = now - (data.delay ?? .zero)
            var info = TransmitterInfo(battery: Percent(Int(data.bridgeBattery)))
            let actions = accept(raw: data.raw, measuredAt: measuredAt, transmitterBattery: data.transmitterBattery, info: &info, at: now)
            return [write(.acknowledge)] + actions + [.emit(.info(info))]
        case let .ascii(line):
            var info = TransmitterInfo(sensorAge: line.sensorAge)
            let actions = accept(raw: line.raw, measuredAt: now, transmitterBattery: line.transmitterBattery, info: &info, at: now)
            return actions + [.emit(.info(info))]
        }
    }

    private mutating func accept(raw: UInt32, measuredAt: MonotonicInstant, transmitterBattery: UInt8,
                                 info: inout TransmitterInfo, at now: MonotonicInstant) -> [DriverAction] {
        session.feedWatchdog(at: now)
        if raw < XBridgeCalibration.saneRaw.lowerBound {
            // No working sensor under the transmitter (warm-up, a sensor change, a failure): no
            // value, and whatever calibrated the sensor before does not calibrate the next one.
            let cleared = calibration.isCalibrated || !calibration.points.isEmpty
            calibration.reset()
            recentRaw = []
            info.sensorState = "no sensor signal (raw \(raw), below \(XBridgeCalibration.saneRaw.lowerBound))"
                + (cleared ? ": calibration cleared, the next sensor needs a fingerstick" : "") + ", G4 battery \(transmitterBattery)"
            return []
        }
        if raw > XBridgeCalibration.saneRaw.upperBound {
            info.sensorState = "raw \(raw) discarded, G4 battery \(transmitterBattery)"
            return [.emit(.malformedValue(Self.serial, reason: "raw \(raw) is above \(XBridgeCalibration.saneRaw.upperBound), "
                + "xDrip's sane maximum: not a sensor value; discarded"))]
        }
        recentRaw.append((raw, measuredAt))
        if recentRaw.count > Self.recentRawKept { recentRaw.removeFirst() }
        var actions = pairWaitingCalibrations(at: now)
        if let glucose = calibration.glucose(raw: raw) {
            guard glucose.milligramsPerDeciliter > 0 else {
                actions.append(.emit(.malformedValue(Self.serial, reason: "raw \(raw) calibrates to \(glucose.milligramsPerDeciliter) mg/dL, not a glucose; discarded")))
                return actions
            }
            info.sensorState = "calibrated, raw \(raw), G4 battery \(transmitterBattery)"
            actions.append(.emit(.reading(Reading(device: device, value: .glucose(glucose, trend: nil), time: .monotonic(measuredAt)))))
        } else {
            info.sensorState = "needs calibration: raw \(raw), G4 battery \(transmitterBattery)"
        }
        return actions
    }

    // MARK: - Calibration

    /// Raw values kept for pairing with fingersticks (30 minutes of G4 cycles).
    static let recentRawKept = 6

    private mutating func offer(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        if let refusal = FingerstickCalibration.refusal(of: reference) {
            return [report(reference, takenAt: takenAt, .notUsed(reason: refusal))]
        }
        let window = XBridgeCalibration.pairingWindow
        let nearest = recentRaw.min { abs(($0.at - takenAt).seconds) < abs(($1.at - takenAt).seconds) }
        if let nearest, abs((nearest.at - takenAt).seconds) <= window.seconds {
            return add(reference, takenAt: takenAt, raw: nearest.raw, at: now)
        }
        unpairedCalibrations.append((reference, takenAt))
        return []
    }

    /// Pairs waiting fingersticks with the raw value just recorded, and reports those too old to
    /// pair with anything.
    private mutating func pairWaitingCalibrations(at now: MonotonicInstant) -> [DriverAction] {
        guard let newest = recentRaw.last else { return [] }
        var actions: [DriverAction] = []
        var waiting: [(GlucoseConcentration, takenAt: MonotonicInstant)] = []
        for (reference, takenAt) in unpairedCalibrations {
            let gap = abs((newest.at - takenAt).seconds)
            if gap <= XBridgeCalibration.pairingWindow.seconds {
                actions += add(reference, takenAt: takenAt, raw: newest.raw, at: now)
            } else if newest.at > takenAt {
                actions.append(report(reference, takenAt: takenAt,
                                      .notUsed(reason: "taken at \(takenAt), no raw value within \(Int(XBridgeCalibration.pairingWindow.seconds / 60)) min of it")))
            } else {
                waiting.append((reference, takenAt))
            }
        }
        unpairedCalibrations = waiting
        return actions
    }

    private mutating func add(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, raw: UInt32, at now: MonotonicInstant) -> [DriverAction] {
        switch calibration.add(.init(raw: Double(raw), reference: reference, takenAt: takenAt), at: now) {
        case let .calibrated(line):
            return [report(reference, takenAt: takenAt, .accepted(detail: "at raw \(raw): \(line)"))]
        case let .lineRefused(reason):
            let kept = calibration.line.map { "keeping \($0)" } ?? "still uncalibrated"
            return [report(reference, takenAt: takenAt, .notUsed(reason: "\(reason); \(kept)"))]
        }
    }

    /// What became of a fingerstick: every one offered ends in one of these.
    private func report(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, _ outcome: CalibrationReport.Outcome) -> DriverAction {
        .emit(.calibration(CalibrationReport(reference: reference, takenAt: takenAt, outcome: outcome)))
    }

    // MARK: - Steps

    private func write(_ command: XBridgeCommand) -> DriverAction {
        .write(Self.serial, command.encoded, withResponse: writeWithResponse)
    }
}

extension XBridgeDriver {
    /// The registry entry: `xbridge [NAME] transmitter-id=ABCDE [no-data-timeout=11m]`.
    ///
    /// The transmitter ID is required: without it the driver could not tell our G4 from a
    /// neighbour's, and the xBridge would relay whichever it heard.
    ///
    /// Sensor life: a Libre 1 lasts 14 days: only LimiTTer-style xBridges report a sensor age, and they read Libre 1 sensors.
    public static let transmitterType = TransmitterType(
        name: "xbridge",
        summary: "xDrip / xBridge Wixel relaying a Dexcom G4 (HM-10 service FFE0)",
        declaration: TransmitterDeclaration(category: .continuousGlucose, fuzzTarget: "xbridge", fuzzOptions: ["transmitter-id": "6ABCD"],
                                            sensorLife: .seconds(14 * 24 * 3600)),
        driver: XBridgeDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> XBridgeDriver in
        try configuration.rejectUnknownOptions(known: ["transmitter-id", "no-data-timeout"])
        guard let text = configuration.options["transmitter-id"] else {
            throw .invalidOption("transmitter-id", value: "", expected: "the 5-character G4 transmitter ID (e.g. transmitter-id=6ABCD)")
        }
        let id: XBridgeTransmitterID
        do throws(XBridgeError) {
            id = try XBridgeTransmitterID(text)
        } catch {
            throw .invalidOption("transmitter-id", value: text, expected: "5 characters from 0-9 and A-Y without I, O, V")
        }
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(11 * 60))
        return XBridgeDriver(device: configuration.device, configuration: Configuration(transmitterID: id, noDataTimeout: timeout))
    }
}
