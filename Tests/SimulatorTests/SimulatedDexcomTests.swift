import Bluetooth
import Clocks
import Testing
import Transmitters
import Wire
@testable import Simulator

struct SimulatedDexcomTests {
    static let id = try! Dexcom.TransmitterID("8112AB")

    @Test func clockAndCurve() {
        let dexcom = SimulatedDexcom(id: Self.id, transmitterAge: 1_000_000, sessionAge: 7_200)
        #expect(dexcom.sessionStart == 992_800)
        #expect(dexcom.dexTime(at: .zero) == 1_000_000)
        #expect(dexcom.dexTime(at: .zero + .seconds(450)) == 1_000_450)
        #expect(dexcom.latestReadingTime(at: .zero + .seconds(450)) == 1_000_300)
        let times = dexcom.readingTimes(from: 0, through: .max, at: .zero)
        #expect(times.count == 25)  // 2 h of 5-minute readings, both ends included
        #expect(times.first == 992_800)
        #expect(times.last == 1_000_000)
        for t in times {
            let (mgdl, trend) = dexcom.glucose(at: t)
            #expect((60...200).contains(mgdl))
            #expect((-40...40).contains(trend))
        }
    }

    @Test func authenticationResponder() throws {
        let responder = SimulatedDexcom.AuthenticationResponder(id: Self.id)
        let token: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(responder.write(Dexcom.AuthRequestTx(token: token).bytes) == nil)
        let challenge = try Dexcom.AuthChallengeRx(decoding: responder.value)
        #expect(challenge.tokenHash == Self.id.hash(token))
        #expect(responder.write(Dexcom.AuthChallengeTx(challengeHash: [0, 0, 0, 0, 0, 0, 0, 0]).bytes) == nil)
        #expect(try Dexcom.AuthStatusRx(decoding: responder.value) == Dexcom.AuthStatusRx(authenticated: false, bonded: false))
        #expect(!responder.isAuthenticated)
        _ = responder.write(Dexcom.AuthRequestTx(token: token).bytes)
        let second = try Dexcom.AuthChallengeRx(decoding: responder.value)
        #expect(second.challenge != challenge.challenge)
        responder.bonded = true
        _ = responder.write(Dexcom.AuthChallengeTx(challengeHash: Self.id.hash(second.challenge)).bytes)
        #expect(try Dexcom.AuthStatusRx(decoding: responder.value) == Dexcom.AuthStatusRx(authenticated: true, bonded: true))
        #expect(responder.isAuthenticated)
        #expect(responder.write([0x42]) == 0x80)
    }

    @Test func controlRepliesCheckTheRequestCRC() {
        let dexcom = SimulatedDexcom(id: Self.id)
        #expect(dexcom.controlReplies(to: [0x24, 0x00, 0x00], at: .zero).isEmpty)
        #expect(dexcom.controlReplies(to: Dexcom.ControlRequest.transmitterTime.bytes, at: .zero).count == 1)
    }

    /// The driver against the model with no radio in between: every action the driver asks
    /// for is performed on the model, every answer is handed back, until the session ends.
    @Test func driverAgainstTheModel() throws {
        let dexcom = SimulatedDexcom(id: Self.id)
        var driver = DexcomDriver(device: "cgm", configuration: .init(transmitterID: Self.id, backfillHours: 1))
        let services = DiscoveredServices([DexcomProfile.cgmService: [
            DiscoveredCharacteristic(DexcomProfile.control, properties: [.write, .indicate]),
            DiscoveredCharacteristic(DexcomProfile.authentication, properties: [.read, .write, .indicate]),
            DiscoveredCharacteristic(DexcomProfile.backfill, properties: [.read, .write, .notify]),
        ]])
        let now = MonotonicInstant.zero + .seconds(40)
        var pending = driver.start(services, at: now)
        var events: [TransmitterEvent] = []
        var steps = 0
        var disconnected = false
        while !pending.isEmpty, steps < 200 {
            steps += 1
            let action = pending.removeFirst()
            switch action {
            case let .emit(event): events.append(event)
            case let .write(uuid, bytes, _):
                if uuid == DexcomProfile.authentication {
                    #expect(dexcom.responder.write(bytes) == nil)
                    pending += driver.receive(.writeCompleted(uuid), at: now)
                } else {
                    pending += driver.receive(.writeCompleted(uuid), at: now)
                    for (replyUUID, value) in dexcom.controlReplies(to: bytes, at: now) {
                        let origin: ValueOrigin = replyUUID == DexcomProfile.backfill ? .notification : .indication
                        pending += driver.receive(.value(replyUUID, value, origin: origin), at: now)
                    }
                }
            case let .read(uuid):
                pending += driver.receive(.value(uuid, dexcom.responder.value, origin: .read), at: now)
            case let .subscribe(uuid, _):
                pending += driver.receive(.subscribed(uuid), at: now)
            case .requestPairing:
                dexcom.responder.bonded = true
                pending += driver.receive(.encrypted, at: now)
            case .disconnect:
                disconnected = true
            case .nextSession:
                break
            }
        }
        #expect(!disconnected)  // the session ends with 0x09, and the transmitter drops the link
        #expect(driver.phase == .disconnecting(reason: "session complete") && driver.nextDeadline == now + .seconds(2))
        let readings = events.compactMap { if case .reading(let r) = $0 { r } else { nil } }
        // Live reading at 1000000 plus the hour before it (12 backfilled records).
        #expect(readings.count == 13)
        let live = dexcom.glucose(at: 1_000_000)
        // SimulatorTests does not import Readings; the value is checked through its members.
        guard case let .glucose(concentration, trend)? = readings.first?.value else {
            Issue.record("first reading is not glucose: \(readings)")
            return
        }
        #expect(concentration.milligramsPerDeciliter == Double(live.milligramsPerDeciliter))
        #expect(trend == Dexcom.Trend.direction(trendByte: live.trend))
        #expect(readings.first?.time == .monotonic(now - .seconds(40)))
        #expect(readings.last?.time == .monotonic(now - .seconds(340)))
        #expect(events.contains(.paired))
        #expect(!events.contains { if case .malformedValue = $0 { true } else { false } })
    }

    @Test func peripheralLayout() {
        let dexcom = SimulatedDexcom(id: Self.id)
        let peripheral = dexcom.makePeripheral()
        #expect(peripheral.valueHandle(of: DexcomProfile.control) != nil)
        #expect(peripheral.cccdHandle(of: DexcomProfile.control) != nil)
        #expect(peripheral.valueHandle(of: DexcomProfile.authentication) != nil)
        #expect(peripheral.cccdHandle(of: DexcomProfile.backfill) != nil)
        #expect(dexcom.advertisedName == "DexcomAB")
    }

    /// On the simulated radio, spoken to by hand over ATT: authentication answered from the
    /// write handler, Control refused until encrypted, and (in the unencrypted test variant)
    /// Control requests answered by `service` as indications; 0x09 silences it for a cycle.
    @Test func onTheRadio() throws {
        var dexcom = SimulatedDexcom(id: Self.id)
        for needsEncryption in [true, false] {
            let peripheral = dexcom.makePeripheral(securityFactory: nil, controlNeedsEncryption: needsEncryption)
            let auth = try #require(peripheral.valueHandle(of: DexcomProfile.authentication))
            let control = try #require(peripheral.valueHandle(of: DexcomProfile.control))
            let controlCCCD = try #require(peripheral.cccdHandle(of: DexcomProfile.control))
            var host = TestHost(peripherals: [peripheral])
            try host.bringUp()
            let link = try host.connect(peripheral.address)
            dexcom.service(&host.controller.radio, at: host.now)
            let token: [UInt8] = [8, 7, 6, 5, 4, 3, 2, 1]
            #expect(try host.att(link, [0x12] + le16(auth) + Dexcom.AuthRequestTx(token: token).bytes) == [[0x13]])
            let challengeRead = try host.att(link, [0x0A] + le16(auth))
            let challenge = try Dexcom.AuthChallengeRx(decoding: Array(try #require(challengeRead.first).dropFirst()))
            #expect(challenge.tokenHash == Self.id.hash(token))
            let answer = Dexcom.AuthChallengeTx(challengeHash: Self.id.hash(challenge.challenge)).bytes
            #expect(try host.att(link, [0x12] + le16(auth) + answer) == [[0x13]])
            #expect(try host.att(link, [0x0A] + le16(auth)) == [[0x0B, 0x05, 0x01, 0x00]])  // authenticated, not bonded
            let subscribe = try host.att(link, [0x12] + le16(controlCCCD) + [0x02, 0x00])
            if needsEncryption {
                #expect(subscribe == [[0x01, 0x12] + le16(controlCCCD) + [0x05]])  // Insufficient Authentication
                continue
            }
            #expect(subscribe == [[0x13]])
            #expect(try host.att(link, [0x12] + le16(control) + Dexcom.ControlRequest.transmitterTime.bytes) == [[0x13]])
            dexcom.service(&host.controller.radio, at: host.now)
            let frames = try host.l2capFrames().filter { $0.cid == 4 }.map(\.payload)
            let expected = Dexcom.TransmitterTimeRx(currentTime: dexcom.dexTime(at: host.now), sessionStartTime: dexcom.sessionStart).bytes
            #expect(frames == [[0x1D] + le16(control) + expected])
            host.sendL2CAP(handle: link, cid: 4, [0x1E])
            #expect(try host.att(link, [0x52] + le16(control) + [0x09]).isEmpty)  // Write Command: no response
            dexcom.service(&host.controller.radio, at: host.now)
            #expect(dexcom.nextDeadline == host.now + .seconds(300))
            #expect(host.controller.radio[peripheral.address.address]?.isAdvertising == false)
        }
    }
}
