import Bluetooth
import Clocks
import Testing
import Wire
@testable import SMP

/// The central's pairing machine against `SMP.Responder` on an in-memory link, on a virtual
/// clock (procedures from Core v5.4 Vol 3 Part H §2.3.5.5–2.3.5.6 and §3.4–3.6).
struct InitiatorTests {
    static let peripheralIdentity = SMP.LocalIdentity(
        irk: [UInt8](0x40...0x4F), address: DeviceAddress(Address("00:1B:DC:AA:BB:CC")!, type: .public))
    static let centralIdentity = SMP.LocalIdentity(
        irk: [UInt8](0x60...0x6F), address: DeviceAddress(Address("C0:12:34:56:78:9A")!, type: .random))

    static func flipFirstValueBit(of code: SMP.Code, from side: PairingHarness.Side) -> (PairingHarness.Side, [UInt8]) -> [UInt8]? {
        { sender, pdu in
            guard sender == side, pdu.first == code.rawValue, pdu.count > 1 else { return pdu }
            var bad = pdu
            bad[1] ^= 0x01
            return bad
        }
    }

    @Test func secureConnectionsJustWorksGivesBothSidesTheSameLTK() throws {
        var link = PairingHarness(
            initiator: .init(identity: Self.centralIdentity),
            responder: .init(identity: Self.peripheralIdentity, signatureKey: [UInt8](0x70...0x7F)))
        link.startPairing()
        let central = try #require(link.initiatorBond)
        let peripheral = try #require(link.responderBond)
        #expect(central.longTermKey == peripheral.longTermKey)
        #expect(link.encryptionKey == central.longTermKey)
        #expect(central.longTermKey.count == 16)
        #expect(central.secureConnections && peripheral.secureConnections)
        #expect(!central.authenticated)
        #expect(central.ediv == 0 && central.rand == 0 && central.keySize == 16)
        #expect(central.peer == peripheralAddress)
        #expect(central.identityAddress == Self.peripheralIdentity.address)
        #expect(central.identityResolvingKey == Self.peripheralIdentity.irk)
        #expect(central.signatureKey == [UInt8](0x70...0x7F))
        #expect(peripheral.identityAddress == Self.centralIdentity.address)
        #expect(peripheral.identityResolvingKey == Self.centralIdentity.irk)
        #expect(link.initiator.state == .paired(central))
        #expect(link.initiator.nextDeadline == nil)
        #expect(link.responder.state == .paired(peripheral))
        // The exchange of Vol 3 Part H Figure 2.2 / C.2, then key distribution: the responder
        // first (IdKey, SignKey), then the central (IdKey). No EncKey in SC.
        let sequence = link.transcript.map { ($0.from == .initiator ? "I" : "R") + Hex.encode([$0.pdu[0]]) }
        #expect(sequence == ["I01", "R02", "I0c", "R0c", "R03", "I04", "R04", "I0d", "R0d", "R08", "R09", "R0a", "I08", "I09"])
        // Our request: NoInputNoOutput, no OOB, bonding + SC, 16, we give IdKey, we ask Enc|Id|Sign.
        #expect(link.transcript[0].pdu == [0x01, 0x03, 0x00, 0x09, 0x10, 0x02, 0x07])
        #expect(link.initiatorFailure == nil && link.responderFailure == nil)
    }

    @Test func legacyJustWorksUsesTheSTKThenBondsWithTheDistributedLTK() throws {
        var link = PairingHarness(responder: .init(secureConnections: false, identity: Self.peripheralIdentity))
        link.startPairing()
        let central = try #require(link.initiatorBond)
        let peripheral = try #require(link.responderBond)
        #expect(!central.secureConnections)
        #expect(central.longTermKey == peripheral.longTermKey)
        #expect(central.ediv == peripheral.ediv && central.rand == peripheral.rand)
        #expect(central.identityAddress == Self.peripheralIdentity.address)
        // The link was encrypted with the STK = s1(0, Srand, Mrand), not with the later LTK.
        let mrand = try #require(link.sent(by: .initiator).compactMap { if case let .pairingRandom(r) = $0 { r.value } else { nil } }.first)
        let srand = try #require(link.sent(by: .responder).compactMap { if case let .pairingRandom(r) = $0 { r.value } else { nil } }.first)
        let stk = SMP.Crypto.s1(k: [UInt8](repeating: 0, count: 16), r1: srand, r2: mrand)
        #expect(link.encryptionKey == stk)
        #expect(central.longTermKey != stk)
        let sequence = link.transcript.map { ($0.from == .initiator ? "I" : "R") + Hex.encode([$0.pdu[0]]) }
        #expect(sequence == ["I01", "R02", "I03", "R03", "I04", "R04", "R06", "R07", "R08", "R09"])
        // Later connections: the peripheral answers LE Long Term Key Request with the bond.
        #expect(link.responder.longTermKeyRequested(ediv: central.ediv, rand: central.rand, at: link.now)
            == [.provideLongTermKey(central.longTermKey)])
        #expect(link.responder.longTermKeyRequested(ediv: central.ediv &+ 1, rand: central.rand, at: link.now)
            == [.provideLongTermKey(nil)])
    }

    @Test func legacyWithoutDistributedLTKReportsTheSTK() throws {
        var link = PairingHarness(
            initiator: .init(requestedKeys: [.identityKey]), responder: .init(secureConnections: false, identity: Self.peripheralIdentity))
        link.startPairing()
        let central = try #require(link.initiatorBond)
        #expect(central.longTermKey == link.encryptionKey)
        #expect(central.ediv == 0 && central.rand == 0)
    }

    @Test(arguments: [true, false])
    func aWrongPeerConfirmFailsWith0x04(secureConnections: Bool) {
        var link = PairingHarness(responder: .init(secureConnections: secureConnections))
        link.tamper = Self.flipFirstValueBit(of: .pairingConfirm, from: .responder)
        link.startPairing()
        #expect(link.transcript.last?.from == .initiator)
        #expect(link.transcript.last?.pdu == [0x05, 0x04])
        #expect(link.initiator.state == .failed(.local(.confirmValueFailed)))
        #expect(link.initiatorFailure == .local(.confirmValueFailed))
        #expect(link.responderFailure == .peer(.confirmValueFailed))
        #expect(link.encryptionKey == nil)
        #expect(link.initiator.nextDeadline == nil)
    }

    @Test func aWrongPeerDHKeyCheckFailsWith0x0B() {
        var link = PairingHarness()
        link.tamper = Self.flipFirstValueBit(of: .pairingDHKeyCheck, from: .responder)
        link.startPairing()
        #expect(link.transcript.last?.pdu == [0x05, 0x0B])
        #expect(link.initiator.state == .failed(.local(.dhKeyCheckFailed)))
        #expect(link.responderFailure == .peer(.dhKeyCheckFailed))
        #expect(link.encryptionKey == nil)
    }

    @Test func theResponderCatchesAWrongInitiatorDHKeyCheck() {
        var link = PairingHarness()
        link.tamper = Self.flipFirstValueBit(of: .pairingDHKeyCheck, from: .initiator)
        link.startPairing()
        #expect(link.transcript.last?.from == .responder)
        #expect(link.transcript.last?.pdu == [0x05, 0x0B])
        #expect(link.initiator.state == .failed(.peer(.dhKeyCheckFailed)))
    }

    @Test func aPublicKeyOffTheCurveFailsThePairing() {
        var link = PairingHarness()
        link.tamper = { side, pdu in
            guard side == .responder, pdu.first == 0x0C else { return pdu }
            var bad = pdu
            bad[40] ^= 0x01  // a bit of Y
            return bad
        }
        link.startPairing()
        #expect(link.initiator.state == .failed(.local(.dhKeyCheckFailed)))
        #expect(link.transcript.contains { $0.from == .initiator && $0.pdu == [0x05, 0x0B] })
    }

    @Test func theSMPTimerFailsAPairingAfter30SecondsWithoutProgress() {
        var initiator = SMP.Initiator(
            local: centralAddress, peer: peripheralAddress, configuration: .init(), random: SeededRandom(seed: 3))
        let start = MonotonicInstant(nanoseconds: 5_000_000_000)
        #expect(initiator.startPairing(at: start).count == 1)
        #expect(initiator.nextDeadline == start + .seconds(30))
        // A Pairing Response 20 s in: we queue our public key, so the timer restarts.
        let response = SMP.PairingResponse(
            .init(authenticationRequirements: [.bonding, .secureConnections], initiatorKeyDistribution: [], responderKeyDistribution: []))
        let later = start + .seconds(20)
        #expect(initiator.receive(response.encoded, at: later).count == 1)
        #expect(initiator.state == .awaitingPublicKey(deadline: later + .seconds(30)))
        let deadline = later + .seconds(30)
        #expect(initiator.handleDeadline(at: deadline - .nanoseconds(1)).isEmpty)
        #expect(initiator.handleDeadline(at: deadline) == [.failed(.timeout)])
        #expect(initiator.state == .failed(.timeout))
        #expect(initiator.nextDeadline == nil)
        // No SMP command may follow a timeout on this link (Vol 3 Part H §3.4), not even a
        // Pairing Failed; restarting is reported as impossible rather than silently ignored.
        #expect(initiator.receive([0x0C] + [UInt8](repeating: 1, count: 64), at: deadline).isEmpty)
        #expect(initiator.startPairing(at: deadline) == [.failed(.timeout)])
    }

    @Test func aSilentPeerTimesOutInEveryWaitingState() {
        // The responder sends 7 PDUs here (02 0C 03 04 0D 08 09); drop all after the n-th, so
        // the central waits for a response, key, confirm, random, check and each key in turn.
        for allowed in 0..<7 {
            var link = PairingHarness(responder: .init(identity: Self.peripheralIdentity))
            var seen = 0
            link.tamper = { side, pdu in
                guard side == .responder else { return pdu }
                seen += 1
                return seen <= allowed ? pdu : nil
            }
            link.startPairing()
            guard let deadline = link.initiator.nextDeadline else {
                Issue.record("no deadline while waiting (allowed \(allowed)): \(link.initiator.state)")
                continue
            }
            #expect(link.initiator.handleDeadline(at: deadline) == [.failed(.timeout)])
        }
    }

    @Test(arguments: [true, false])
    func anEncryptionChangeThatNeverComesTimesOut(secureConnections: Bool) {
        var link = PairingHarness(responder: .init(secureConnections: secureConnections))
        link.controllerSilent = true
        link.startPairing()
        guard case let .awaitingEncryption(deadline) = link.initiator.state else {
            Issue.record("expected to await encryption, in \(link.initiator.state)")
            return
        }
        #expect(link.initiator.nextDeadline == deadline)
        #expect(link.initiator.handleDeadline(at: deadline) == [.failed(.timeout)])
    }

    @Test func aSecurityRequestFromThePeripheralStartsPairing() throws {
        var link = PairingHarness()
        link.requestSecurity()
        #expect(link.transcript.first?.from == .responder)
        #expect(link.transcript.first?.pdu == [0x0B, 0x09])  // bonding + SC
        #expect(link.transcript[1].pdu.first == 0x01)
        let central = try #require(link.initiatorBond)
        #expect(central.longTermKey == link.responderBond?.longTermKey)
    }

    @Test func aSecurityRequestDuringPairingIsIgnored() {
        var initiator = SMP.Initiator(local: centralAddress, peer: peripheralAddress, configuration: .init(), random: SeededRandom(seed: 4))
        _ = initiator.startPairing(at: .zero)
        let state = initiator.state
        #expect(initiator.receive([0x0B, 0x01], at: .zero + .seconds(1)).isEmpty)
        #expect(initiator.startPairing(at: .zero + .seconds(2)).isEmpty)
        #expect(initiator.state == state)
    }

    @Test func aFailedPairingCanBeRestarted() throws {
        var link = PairingHarness()
        link.tamper = Self.flipFirstValueBit(of: .pairingConfirm, from: .responder)
        link.startPairing()
        #expect(link.initiator.state == .failed(.local(.confirmValueFailed)))
        link.tamper = { _, pdu in pdu }
        link.startPairing()
        let central = try #require(link.initiatorBond)
        #expect(link.initiator.state == .paired(central))
        #expect(central.longTermKey == link.responderBond?.longTermKey)
    }

    @Test func aKeySizeBelowOurMinimumFailsWith0x06() {
        var link = PairingHarness(initiator: .init(minimumKeySize: 16), responder: .init(maximumKeySize: 7))
        link.startPairing()
        #expect(link.transcript.last?.pdu == [0x05, 0x06])
        #expect(link.initiator.state == .failed(.local(.encryptionKeySize)))
    }

    @Test func aShorterAgreedKeyIsMaskedOnBothSides() throws {
        var link = PairingHarness(responder: .init(maximumKeySize: 10))
        link.startPairing()
        let central = try #require(link.initiatorBond)
        #expect(central.keySize == 10)
        #expect(central.longTermKey[10...].allSatisfy { $0 == 0 })
        #expect(central.longTermKey == link.responderBond?.longTermKey)
    }

    @Test func aPeerThatRefusesLegacyIsReportedAsThePeersFailure() {
        var link = PairingHarness(initiator: .init(secureConnections: false), responder: .init(requireSecureConnections: true))
        link.startPairing()
        #expect(link.transcript.last?.pdu == [0x05, 0x03])
        #expect(link.initiator.state == .failed(.peer(.authenticationRequirements)))
    }

    @Test func failedEncryptionFailsThePairing() {
        var link = PairingHarness()
        link.refuseEncryption = true
        link.startPairing()
        #expect(link.initiator.state == .failed(.encryptionFailed))
        #expect(link.initiatorFailure == .encryptionFailed)
    }

    @Test func anUnknownCodeMidPairingIsCommandNotSupported() {
        var initiator = SMP.Initiator(local: centralAddress, peer: peripheralAddress, configuration: .init(), random: SeededRandom(seed: 5))
        _ = initiator.startPairing(at: .zero)
        #expect(initiator.receive([0x42, 0x00], at: .zero) == [.send([0x05, 0x07]), .failed(.local(.commandNotSupported))])
        #expect(initiator.state == .failed(.local(.commandNotSupported)))
    }

    @Test func aMalformedOrOutOfOrderPDUMidPairingFailsCleanly() {
        var initiator = SMP.Initiator(local: centralAddress, peer: peripheralAddress, configuration: .init(), random: SeededRandom(seed: 6))
        _ = initiator.startPairing(at: .zero)
        #expect(initiator.receive([0x02, 0x03, 0x00, 0x09, 0x06, 0x00, 0x00], at: .zero)
            == [.send([0x05, 0x0A]), .failed(.local(.invalidParameters))])
        _ = initiator.startPairing(at: .zero)
        #expect(initiator.receive([0x04] + [UInt8](repeating: 0, count: 16), at: .zero)
            == [.send([0x05, 0x08]), .failed(.local(.unspecifiedReason))])
    }

    @Test func strayPDUsWhileIdleAreAnsweredWithoutInventingAFailure() {
        var initiator = SMP.Initiator(local: centralAddress, peer: peripheralAddress, configuration: .init(), random: SeededRandom(seed: 7))
        #expect(initiator.receive([0x03] + [UInt8](repeating: 0, count: 16), at: .zero) == [.send([0x05, 0x08])])
        #expect(initiator.receive([0x01, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01], at: .zero) == [.send([0x05, 0x07])])
        #expect(initiator.receive([0x05, 0x08], at: .zero).isEmpty)
        #expect(initiator.encryptionChanged(enabled: true, at: .zero).isEmpty)
        #expect(initiator.state == .idle)
    }

    /// Random PDUs injected at every step of a pairing: the machine must answer each without
    /// trapping and end paired, failed, or still waiting with a deadline — never stuck.
    @Test func garbageAtAnyPointNeverCrashesOrStrands() {
        var random = SeededRandom(seed: 99)
        for step in 0..<14 {
            for trial in 0..<25 {
                var link = PairingHarness(responder: .init(identity: Self.peripheralIdentity), seed: UInt64(trial))
                var count = 0
                var garbage = random.bytes(Int(random.next() % 70))
                if !garbage.isEmpty && trial % 2 == 0 { garbage[0] %= 0x10 }
                link.tamper = { _, pdu in
                    count += 1
                    return count == step ? garbage : pdu
                }
                link.startPairing()
                switch link.initiator.state {
                case .paired, .failed: break
                default: #expect(link.initiator.nextDeadline != nil, "stranded in \(link.initiator.state)")
                }
            }
        }
    }
}

/// Guards against Initiator and Responder agreeing on the same mistake: the transcript of an
/// in-memory pairing is checked against the spec's formulas written out here by hand
/// (Vol 3 Part H §2.3.5.5 legacy, §2.3.5.6.2 and §2.3.5.6.5 Secure Connections).
struct PairingTranscriptTests {
    static func values(_ link: PairingHarness, _ side: PairingHarness.Side, _ code: SMP.Code) -> [[UInt8]] {
        link.transcript.filter { $0.from == side && $0.pdu.first == code.rawValue }.map { Array($0.pdu.dropFirst()) }
    }

    @Test func legacyConfirmsAreC1OverTheExchangedPDUsAndAddresses() throws {
        var link = PairingHarness(responder: .init(secureConnections: false))
        link.startPairing()
        let preq = try #require(link.transcript.first { $0.pdu.first == 0x01 }?.pdu)
        let pres = try #require(link.transcript.first { $0.pdu.first == 0x02 }?.pdu)
        let mconfirm = try #require(Self.values(link, .initiator, .pairingConfirm).first)
        let sconfirm = try #require(Self.values(link, .responder, .pairingConfirm).first)
        let mrand = try #require(Self.values(link, .initiator, .pairingRandom).first)
        let srand = try #require(Self.values(link, .responder, .pairingRandom).first)
        let tk = [UInt8](repeating: 0, count: 16)
        // p1 = pres ‖ preq ‖ rat′ ‖ iat′ and p2 = 0 ‖ ia ‖ ra, spelled out in wire order.
        let p1 = [UInt8(1), 0] + preq + pres  // iat′ = 1 (central random), rat′ = 0 (peripheral public)
        let p2 = peripheralAddress.address.wireBytes + centralAddress.address.wireBytes + [0, 0, 0, 0]
        func c1(_ r: [UInt8]) -> [UInt8] {
            SMP.Crypto.e(key: tk, zip(SMP.Crypto.e(key: tk, zip(r, p1).map { $0 ^ $1 }), p2).map { $0 ^ $1 })
        }
        #expect(mconfirm == c1(mrand))
        #expect(sconfirm == c1(srand))
        #expect(link.encryptionKey == SMP.Crypto.e(key: tk, Array(mrand[0..<8]) + Array(srand[0..<8])))
    }

    @Test func secureConnectionsValuesFollowF4F5F6() throws {
        var link = PairingHarness()
        link.startPairing()
        // The initiator's first 32 random bytes became its private key (seed 1, see the harness).
        var replay = SeededRandom(seed: 1)
        let pairA = try #require(SMP.P256KeyPair.generate(using: &replay))
        let pka = try SMP.PairingPublicKey(decoding: [0x0C] + (Self.values(link, .initiator, .pairingPublicKey).first ?? []))
        let pkb = try SMP.PairingPublicKey(decoding: [0x0C] + (Self.values(link, .responder, .pairingPublicKey).first ?? []))
        #expect(pka == pairA.publicKey)
        let dhKey = try pairA.dhKey(with: pkb)
        let na = try #require(Self.values(link, .initiator, .pairingRandom).first)
        let nb = try #require(Self.values(link, .responder, .pairingRandom).first)
        #expect(Self.values(link, .responder, .pairingConfirm).first == SMP.Crypto.f4(u: pkb.x, v: pka.x, x: nb, z: 0))
        let (macKey, ltk) = SMP.Crypto.f5(w: dhKey, n1: na, n2: nb, a1: centralAddress, a2: peripheralAddress)
        #expect(link.encryptionKey == ltk)
        let ioCapA = SMP.IOCapabilityTriple(authenticationRequirements: [.bonding, .secureConnections], oobDataPresent: false, ioCapability: .noInputNoOutput)
        let zero = [UInt8](repeating: 0, count: 16)
        #expect(Self.values(link, .initiator, .pairingDHKeyCheck).first
            == SMP.Crypto.f6(w: macKey, n1: na, n2: nb, r: zero, ioCap: ioCapA, a1: centralAddress, a2: peripheralAddress))
        #expect(Self.values(link, .responder, .pairingDHKeyCheck).first
            == SMP.Crypto.f6(w: macKey, n1: nb, n2: na, r: zero, ioCap: ioCapA, a1: peripheralAddress, a2: centralAddress))
    }
}
