import Bluetooth
import Clocks
import Synchronization
import Transmitters
import Wire

/// The transmitter side of a Dexcom G5/G6 (docs/protocols/dexcom-g5-g6.md), for `vigil demo` and
/// app tests.
///
/// `makePeripheral()` builds the `SimulatedPeripheral`: advertised 0xFEBC as "Dexcom" + the
/// ID's last two characters, the CGM service with Authentication (answered synchronously by a
/// shared responder: AES hash of the token under the ID's key, a challenge, the status),
/// Control (its CCCD needs an encrypted link, so a central must bond first, through the
/// peripheral's Security Manager) and Backfill.
///
/// Control requests are answered by `service(_:at:)`, which whoever runs the radio calls after
/// each step: `SimulatedPeripheral` has no hook for an application that answers a write with
/// indications, so the model looks at the writes the GATT server recorded and pushes its
/// replies with `setValue`. After Disconnect (0x09) it goes quiet until the next 5-minute
/// cycle, as the real transmitter does.
///
/// Dex time runs with virtual time from `transmitterAge` at t = 0; a reading exists every
/// 300 s from the session start, following `curve` (by default a slow sine between about 70
/// and 190 mg/dL).
public struct SimulatedDexcom: Sendable {
    public let id: Dexcom.TransmitterID
    public let address: DeviceAddress
    /// Dex time at virtual time zero.
    public let transmitterAge: UInt32
    public let sessionStart: UInt32
    /// How long the transmitter stays silent after a session (its wake-up cycle).
    public let cycle: Duration
    /// What the readings say.
    public let curve: GlucoseCurve
    let responder: AuthenticationResponder
    var seenWrites = 0
    var seenConnections = 0
    public private(set) var sleepingUntil: MonotonicInstant?

    public static let readingInterval: UInt32 = 300

    public init(id: Dexcom.TransmitterID, address: DeviceAddress = DeviceAddress(Address(value: 0xC4_DE_C0_00_00_01), type: .random),
                transmitterAge: UInt32 = 1_000_000, sessionAge: UInt32 = 7_200, cycle: Duration = .seconds(300),
                curve: GlucoseCurve = .gentle) {
        self.id = id
        self.curve = curve
        self.address = address
        self.transmitterAge = transmitterAge
        self.sessionStart = transmitterAge - min(sessionAge, transmitterAge)
        self.cycle = cycle
        self.responder = AuthenticationResponder(id: id)
    }

    public var advertisedName: String { id.advertisedName }

    /// `controlNeedsEncryption: false` is for tests that speak ATT by hand without pairing.
    public func makePeripheral(securityFactory: SecurityFactory? = SMPPeripheralSecurity.factory(),
                               advertisingInterval: Duration = .milliseconds(100),
                               controlNeedsEncryption: Bool = true) -> SimulatedPeripheral {
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)
        ad.uuids16([0xFEBC])
        ad.completeName(id.advertisedName)
        let responder = self.responder
        let services = [SimulatedService(DexcomProfile.cgmService, characteristics: [
            SimulatedCharacteristic(DexcomProfile.communication, properties: [.read, .notify]),
            SimulatedCharacteristic(DexcomProfile.control, properties: [.write, .indicate],
                                    cccdAccess: controlNeedsEncryption ? .encryptionRequired : .open),
            SimulatedCharacteristic(DexcomProfile.authentication, properties: [.read, .write, .indicate],
                                    value: .computed { _ in responder.value }, writeHandler: { responder.write($0) }),
            SimulatedCharacteristic(DexcomProfile.backfill, properties: [.read, .write, .notify]),
        ])]
        return SimulatedPeripheral(
            address: address,
            advertising: AdvertisingConfiguration(kind: .connectable, interval: advertisingInterval, data: ad.bytes),
            services: services, securityFactory: securityFactory)
    }

    // MARK: - The model

    public func dexTime(at now: MonotonicInstant) -> UInt32 {
        let seconds = max(0, now.nanoseconds / 1_000_000_000)
        return transmitterAge &+ UInt32(truncatingIfNeeded: seconds)
    }

    /// Reading times in `start…end` that have happened by `now`.
    public func readingTimes(from start: UInt32, through end: UInt32, at now: MonotonicInstant) -> [UInt32] {
        let last = min(end, dexTime(at: now))
        guard last >= sessionStart else { return [] }
        let first = max(start, sessionStart)
        let k0 = (first - sessionStart + Self.readingInterval - 1) / Self.readingInterval
        var times: [UInt32] = []
        var t = sessionStart + k0 * Self.readingInterval
        while t <= last {
            times.append(t)
            t += Self.readingInterval
        }
        return times
    }

    /// mg/dL and the trend byte (0.1 mg/dL/min) of the reading at dex time `t`.
    public func glucose(at t: UInt32) -> (milligramsPerDeciliter: UInt16, trend: Int8) {
        func value(_ x: UInt32) -> Double {
            curve.milligramsPerDeciliter(atReading: Double(Int64(x) - Int64(sessionStart)) / Double(Self.readingInterval))
        }
        let now = value(t)
        let rate = (now - value(t &- Self.readingInterval)) / 5  // mg/dL per minute
        return (UInt16(now), Int8(max(-127, min(126, (rate * 10).rounded()))))
    }

    public func latestReadingTime(at now: MonotonicInstant) -> UInt32 {
        let dex = dexTime(at: now)
        return readingTimes(from: dex > Self.readingInterval ? dex - Self.readingInterval : 0, through: dex, at: now).last ?? sessionStart
    }

    /// The transmitter's answers to one Control write, in order: (characteristic, value).
    /// Backfill frames go out as Backfill notifications before the 0x51 completion.
    public func controlReplies(to request: [UInt8], at now: MonotonicInstant) -> [(BluetoothUUID, [UInt8])] {
        let control = DexcomProfile.control
        guard request.count >= 3, CRC16.xmodem(request.dropLast(2)) == UInt16(request[request.count - 2]) | UInt16(request[request.count - 1]) << 8
        else { return [] }
        let latest = latestReadingTime(at: now)
        switch request[0] {
        case Dexcom.ControlRequest.transmitterTime.rawValue:
            return [(control, Dexcom.TransmitterTimeRx(currentTime: dexTime(at: now), sessionStartTime: sessionStart).bytes)]
        case Dexcom.ControlRequest.glucoseG5.rawValue, Dexcom.ControlRequest.glucoseG6.rawValue:
            let (mgdl, trend) = glucose(at: latest)
            return [(control, Dexcom.GlucoseRx(opcode: request[0] + 1, sequence: (latest - sessionStart) / Self.readingInterval,
                                               timestamp: latest, glucoseField: mgdl, calibrationState: .ok, trend: trend).bytes)]
        case Dexcom.ControlRequest.sensor.rawValue:
            return [(control, Dexcom.SensorRx(timestamp: latest, raw: .counts(unfiltered: 180_000, filtered: 176_000)).bytes)]
        case Dexcom.ControlRequest.calibrationData.rawValue:
            var body: [UInt8] = [0x33, 0x00] + [UInt8](repeating: 0, count: 9) + [0x80, 0x00]
            var w = ByteWriter()
            w.write(sessionStart + 7_200)
            body += w.bytes
            return [(control, body + crc(body))]
        case Dexcom.ControlRequest.battery.rawValue:
            return [(control, Dexcom.BatteryStatusRx(voltageA: 316, voltageB: 303, resistance: 717, runtimeDays: 31, temperatureCelsius: 36).bytes)]
        case Dexcom.ControlRequest.firmwareVersion.rawValue:
            return [(control, Dexcom.VersionRx(firmware: [1, 6, 5, 25], bluetoothFirmware: [4, 0, 0, 1], hardwareRevision: 2,
                                               otherFirmware: [0, 0, 0], asic: 0x4321).bytes)]
        case Dexcom.BackfillTx.opcode:
            guard let tx = try? Dexcom.BackfillTx(decoding: request) else { return [] }
            let records = readingTimes(from: tx.startTime, through: tx.endTime, at: now).map { t in
                let (mgdl, trend) = glucose(at: t)
                return Dexcom.BackfillRecord(timestamp: t, glucoseMilligramsPerDeciliter: mgdl, calibrationState: .ok, trend: trend)
            }
            let frames = Dexcom.BackfillBuffer.frames(records: records)
            let buffer = frames.flatMap { $0 }
            let done = Dexcom.BackfillRx(startTime: tx.startTime, endTime: tx.endTime, bufferLength: UInt32(buffer.count),
                                         bufferCRC: CRC16.xmodem(buffer))
            return frames.map { (DexcomProfile.backfill, $0) } + [(control, done.bytes)]
        default:
            return []
        }
    }

    private func crc(_ body: [UInt8]) -> [UInt8] {
        let value = CRC16.xmodem(body)
        return [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    // MARK: - Running on a radio

    public var nextDeadline: MonotonicInstant? { sleepingUntil }

    /// Answers what the central wrote since the last call and wakes the transmitter for its
    /// next cycle. Call after every step of the radio.
    public mutating func service(_ radio: inout SimulatedRadio, at now: MonotonicInstant) {
        guard let index = radio.peripherals.firstIndex(where: { $0.address == address }) else { return }
        var peripheral = radio.peripherals[index]
        defer { radio.peripherals[index] = peripheral }
        if let until = sleepingUntil, now >= until {
            sleepingUntil = nil
            peripheral.reappear(at: now)
        }
        let connections = peripheral.events.filter { if case .connected = $0 { true } else { false } }.count
        if connections != seenConnections {
            seenConnections = connections
            seenWrites = 0
            responder.newConnection()
        }
        if peripheral.events.contains(where: { if case .paired = $0 { true } else { false } }) { responder.bonded = true }
        let writes = peripheral.attWrites
        if writes.count < seenWrites { seenWrites = 0 }
        guard let control = peripheral.valueHandle(of: DexcomProfile.control) else { return }
        for write in writes[seenWrites...] where write.handle == control {
            if write.value == Dexcom.DisconnectTx().bytes {
                // The link drops when the supervision timeout passes; the next cycle brings it back.
                peripheral.vanish()
                sleepingUntil = now + cycle
                continue
            }
            guard responder.isAuthenticated else { continue }  // a real transmitter ignores it too
            for (uuid, value) in controlReplies(to: write.value, at: now) {
                peripheral.setValue(value, for: uuid, at: now)
            }
        }
        seenWrites = writes.count
    }
}

extension SimulatedDexcom {
    /// Answers the Authentication characteristic synchronously from inside the GATT server's
    /// write handler, so a central's read right after its write sees the reply.
    final class AuthenticationResponder: Sendable {
        struct State {
            var value: [UInt8] = []
            var challenge: [UInt8] = []
            var counter: UInt64 = 0
            var authenticated = false
            var bonded = false
        }

        let id: Dexcom.TransmitterID
        private let state = Mutex(State())

        init(id: Dexcom.TransmitterID) { self.id = id }

        var value: [UInt8] { state.withLock { $0.value } }
        var isAuthenticated: Bool { state.withLock { $0.authenticated } }
        var bonded: Bool {
            get { state.withLock { $0.bonded } }
            set { state.withLock { $0.bonded = newValue } }
        }

        func newConnection() { state.withLock { $0.authenticated = false; $0.value = [] } }

        /// nil accepts the write; 0x80 (an application error) refuses what is not an auth message.
        func write(_ bytes: [UInt8]) -> UInt8? {
            state.withLock { s in
                switch bytes.first {
                case Dexcom.AuthRequestTx.opcode:
                    guard let request = try? Dexcom.AuthRequestTx(decoding: bytes) else { return 0x80 }
                    // A different challenge each time, deterministic so runs repeat.
                    s.counter &+= 1
                    s.challenge = (0..<8).map { UInt8(truncatingIfNeeded: s.counter &* 0x9E37_79B9_7F4A_7C15 >> (8 * UInt64($0))) }
                    s.value = Dexcom.AuthChallengeRx(tokenHash: id.hash(request.token), challenge: s.challenge).bytes
                case Dexcom.AuthChallengeTx.opcode:
                    guard let answer = try? Dexcom.AuthChallengeTx(decoding: bytes) else { return 0x80 }
                    s.authenticated = !s.challenge.isEmpty && answer.challengeHash == id.hash(s.challenge)
                    s.value = Dexcom.AuthStatusRx(authenticated: s.authenticated, bonded: s.bonded).bytes
                case Dexcom.KeepAliveTx.opcode, Dexcom.BondRequestTx.opcode:
                    break
                default:
                    return 0x80
                }
                return nil
            }
        }
    }
}
