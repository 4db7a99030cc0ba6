import Alarms
import App
import Bluetooth
import Clocks
import HCI
import History
import Host
import Platform
import Readings
import Simulator
import Transmitters

/// The soak's whole appliance in one process on a virtual clock: `Host` and a
/// `SimulatedController` carrying the scripted Dexcom, the heart-rate strap, the fridge
/// thermometer and the `NoisyCrowd`; `Appliance`, `ApplianceAlarms` and `ApplianceFace` as
/// `SoakConfiguration` builds them; a real `HistoryStore` and the alarm state file in a
/// temporary directory. Each `step()` is one turn of `vigil run`'s loop
/// (`Supervisor`, run by `ApplianceSession`): jump to the earliest deadline, serve it, pass packets both ways
/// until quiet, append the turn's readings and alarm events to the history and commit them
/// in one transaction, and write the alarm state if it changed.
///
/// What the simulators put on the air toward the host is counted from the controller's H4
/// packets (`SoakAirCount`), before the host sees them: that is what the history is checked
/// against.
struct SoakRig {
    var host: Host
    var controller: SimulatedController
    var dexcom: SimulatedDexcom
    var dexcomOutage: RangeOutage
    var heartRateOutage: RangeOutage
    var crowd: NoisyCrowd
    var appliance: Appliance
    var face: ApplianceFace<ApplianceAlarms>
    let backend = MemoryFaceBackend()
    let history: HistoryStore
    let alarmStatePath: String
    var air: SoakAirCount
    var now = MonotonicInstant.zero
    /// Alarm events as the face reported them (the history holds them too; both are compared).
    var alarmEvents: [AlarmEvent] = []
    var problems: [String] = []
    var commitFailures = 0
    var alarmStateWrites = 0
    private var savedAlarmState: AlarmEngine.State?
    private var nextClockCheck = MonotonicInstant.zero
    private var nextPrune = MonotonicInstant.zero

    /// The Dexcom's session started two hours before virtual zero (its first connection
    /// backfills them); the transmitter sits at this address.
    static let sessionAge: UInt32 = 7_200
    static let heartRateAddress = Address(value: 0xC0_11_22_33_44_55)

    var wallNow: WallClockTime { SoakSchedule.wallStart + (now - .zero) }

    init(directory: String, crowdSize: Int) throws {
        let built = try SoakConfiguration.build()
        let id = try Dexcom.TransmitterID(SoakConfiguration.transmitterID)
        dexcom = SimulatedDexcom(id: id, sessionAge: Self.sessionAge,
                                 curve: SoakSchedule.glucose.curve(sessionAge: Duration.seconds(Int64(Self.sessionAge))))
        var radio = SimulatedRadio(peripherals: [dexcom.makePeripheral()])
        radio.add(SimulatedDevices.heartRateMonitor(address: DeviceAddress(Self.heartRateAddress, type: .random)))
        radio.add(SimulatedThermometer.bthome(script: SoakSchedule.fridge))
        crowd = NoisyCrowd(count: crowdSize)
        for peripheral in crowd.peripherals() { radio.add(peripheral) }
        controller = SimulatedController(radio: radio)
        func window(_ range: Range<Duration>) -> Range<MonotonicInstant> { (.zero + range.lowerBound)..<(.zero + range.upperBound) }
        dexcomOutage = RangeOutage(address: dexcom.address.address, windows: [window(SoakSchedule.dexcomOutage)])
        heartRateOutage = RangeOutage(address: Self.heartRateAddress, windows: [window(SoakSchedule.heartRateOutage)])
        air = SoakAirCount(heartRate: Self.heartRateAddress, thermometer: SimulatedThermometer.defaultAddress.address,
                           heartRateMeasurementHandle: radio[Self.heartRateAddress]?.valueHandle(of: BluetoothUUID(0x2A37)) ?? 0)

        let configuration = built.configuration
        appliance = Appliance(devices: built.devices, remembered: RememberedTransmitters(),
                              activeScan: configuration.bluetooth.scan != .passive)
        let alarms = try ApplianceAlarms(configuration: configuration.alarms.alarmConfiguration(watchedDevices: []),
                                         devices: built.alarmDevices, at: now)
        let setup = try configuration.face.setup()
        face = ApplianceFace(alarms: alarms, drive: setup.sequencerDrive, actions: setup.buttonActions, at: now)
        var hostConfiguration = Host.Configuration(staticAddress: Address(value: 0xC2_D3_E4_F5_06_17))
        hostConfiguration.connectTimeout = .seconds(5)
        host = Host(configuration: hostConfiguration)
        history = try HistoryStore.open(path: directory + "/history.sqlite", bootID: "soak", now: SoakSchedule.wallStart)
        alarmStatePath = directory + "/alarm-state"
    }

    mutating func start() {
        host.start(at: now)
        turn()
    }

    /// One turn of the loop. False when nothing at all is scheduled (the rig is broken).
    mutating func step() -> Bool {
        let controllerDeadline = controller.nextDeadline
        guard let next = earliest(host.nextDeadline, appliance.nextDeadline, controllerDeadline, dexcom.nextDeadline,
                                  face.nextDeadline, dexcomOutage.nextDeadline, heartRateOutage.nextDeadline,
                                  crowd.nextDeadline, nextClockCheck)
        else { return false }
        if next > now { now = next }
        crowd.rotate(&controller.radio, at: now)
        if let d = controllerDeadline, d <= now { controller.handleDeadline(at: now) }
        pump()
        if let d = host.nextDeadline, d <= now { host.handleDeadline(at: now) }
        if let d = appliance.nextDeadline, d <= now { appliance.handleDeadline(host: &host, at: now) }
        face.handleDeadline(at: now)
        if now >= nextClockCheck {
            // As the session does once a minute: the wall clock is set, so no clock fault.
            let wall = wallNow
            face.update(at: now) { $0.checkClock(wallNow: wall, at: now) }
            nextClockCheck = now + .seconds(60)
        }
        turn()
        return true
    }

    /// Packets both ways until quiet, events observed, then the end of the turn.
    private mutating func turn() {
        pump()
        observeEvents()
        endOfTurn()
    }

    /// The simulated transmitters answer, the controller and host trade packets, until nobody
    /// has anything to say. The outages are applied after the Dexcom's own service, so a
    /// transmitter waking from its 5-minute sleep stays away while it is out of range.
    private mutating func pump() {
        for _ in 0..<100_000 {
            var moved = false
            dexcom.service(&controller.radio, at: now)
            dexcomOutage.apply(to: &controller, at: now)
            heartRateOutage.apply(to: &controller, at: now)
            for packet in controller.takePacketsForHost() {
                moved = true
                air.count(packet, at: now)
                host.receive(packet, at: now)
            }
            for output in host.takeOutputs() {
                moved = true
                switch output {
                case .send(let packet):
                    controller.receive(fromHost: packet, at: now)
                case .event(let event):
                    if case .log(let level, let message) = event, level >= .warning, problems.count < 20 {
                        problems.append("\(now): \(level): \(message)")
                    }
                    appliance.handle(event, host: &host, at: now)
                    if case .controllerReady = event { appliance.controllerReady(host: &host, at: now) }
                }
            }
            if !moved { return }
            observeEvents()
        }
        problems.append("\(now): the rig never went quiet")
    }

    /// `Supervisor.report`: readings to the history, every event to the alarms, the
    /// alarm events to the history, the alarm state saved when it changed, the face flushed.
    private mutating func observeEvents() {
        let wall = wallNow
        let events = appliance.takeEvents()
        for event in events {
            history.append(event.recordedReadings(monotonicNow: now, wallNow: wall), receivedAt: now)
            face.observe(event, monotonicNow: now, wallNow: wall)
            if case let .transmitter(device, _, .malformedValue(_, reason)) = event, problems.count < 20 {
                problems.append("\(now): \(device): malformed value: \(reason)")
            }
        }
        let raised = face.takeAlarmEvents()
        history.append(raised, monotonicNow: now, wallNow: wall)
        alarmEvents += raised
        if face.alarms.engine.state != savedAlarmState {
            savedAlarmState = face.alarms.engine.state
            do {
                try AtomicFile.write(path: alarmStatePath, bytes: Array(face.alarms.engine.state.text(at: now).utf8), mode: 0o600)
                alarmStateWrites += 1
            } catch {
                problems.append("\(now): cannot save the alarm state: \(error)")
            }
        }
        face.flush(to: backend)
        backend.removeAll()
    }

    /// `Supervisor.endOfTurn`: the turn's rows in one transaction, old rows pruned every
    /// 10 minutes with the session's retention.
    private mutating func endOfTurn() {
        if history.pendingCount > 0 {
            switch history.commit() {
            case .nothingPending, .committed:
                face.update(at: now) { $0.storage(succeeded: true, at: now) }
            case let .failed(error, pending, _):
                commitFailures += 1
                if problems.count < 20 { problems.append("\(now): history commit failed: \(error) (\(pending) pending)") }
                face.update(at: now) { $0.storage(succeeded: false, at: now) }
            }
            observeEvents()
        }
        if now >= nextPrune {
            nextPrune = now + .seconds(600)
            let retention = RetentionPolicy(keep: RetentionPolicy.standard.keep, otherRows: RetentionPolicy.standard.otherRows,
                                            maximumBytes: 1 << 30)
            do { _ = try history.prune(now: wallNow, policy: retention) } catch {
                problems.append("\(now): pruning failed: \(error)")
            }
        }
    }
}
