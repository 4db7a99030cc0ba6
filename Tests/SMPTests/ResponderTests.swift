import Bluetooth
import Clocks
import Testing
import Wire
@testable import SMP

/// The peripheral side (Core v5.4 Vol 3 Part H §3.5–3.6), fed PDUs by hand.
struct ResponderTests {
    static let identity = SMP.LocalIdentity(
        irk: [UInt8](0x40...0x4F), address: DeviceAddress(Address("00:1B:DC:AA:BB:CC")!, type: .public))

    static func responder(_ configuration: SMP.Configuration = .init(identity: identity), bond: SMP.Bond? = nil) -> SMP.Responder {
        SMP.Responder(
            local: peripheralAddress, peer: centralAddress, configuration: configuration, random: SeededRandom(seed: 11),
            bond: bond)
    }

    @Test func answersAnSCBondingRequestWithTheAgreedKeys() {
        var responder = Self.responder()
        // Central: NoInputNoOutput, bonding + SC, 16; gives IdKey; asks EncKey|IdKey|SignKey.
        let actions = responder.receive([0x01, 0x03, 0x00, 0x09, 0x10, 0x02, 0x07], at: .zero)
        // We take IdKey and give EncKey|IdKey (no CSRK configured).
        #expect(actions == [.send([0x02, 0x03, 0x00, 0x09, 0x10, 0x02, 0x03])])
        #expect(responder.state == .awaitingPublicKey(deadline: .zero + .seconds(30)))
    }

    @Test func withoutBondingNoKeysAreDistributed() {
        var responder = Self.responder()
        let actions = responder.receive([0x01, 0x03, 0x00, 0x00, 0x10, 0x00, 0x00], at: .zero)
        #expect(actions == [.send([0x02, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00])])
        #expect(responder.state == .awaitingPairingConfirm(deadline: .zero + .seconds(30)))  // legacy
    }

    @Test func securityRequestCarriesOurAuthReq() {
        var sc = Self.responder()
        #expect(sc.requestSecurity(at: .zero) == [.send([0x0B, 0x09])])
        var legacy = Self.responder(.init(secureConnections: false))
        #expect(legacy.requestSecurity(at: .zero) == [.send([0x0B, 0x01])])
        #expect(legacy.nextDeadline == nil)  // the central may just encrypt with its bond
    }

    @Test func refusesWhatItCannotDo() {
        var small = Self.responder(.init(minimumKeySize: 16))
        #expect(small.receive([0x01, 0x03, 0x00, 0x09, 0x0C, 0x00, 0x00], at: .zero)
            == [.send([0x05, 0x06]), .failed(.local(.encryptionKeySize))])
        var oob = Self.responder()
        #expect(oob.receive([0x01, 0x03, 0x01, 0x09, 0x10, 0x00, 0x00], at: .zero)
            == [.send([0x05, 0x02]), .failed(.local(.oobNotAvailable))])
        var scOnly = Self.responder(.init(requireSecureConnections: true))
        #expect(scOnly.receive([0x01, 0x03, 0x00, 0x01, 0x10, 0x00, 0x00], at: .zero)
            == [.send([0x05, 0x03]), .failed(.local(.authenticationRequirements))])
        var idle = Self.responder()
        #expect(idle.receive([0x02, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00], at: .zero) == [.send([0x05, 0x07])])
        #expect(idle.state == .idle)
    }

    @Test func answersLongTermKeyRequestsOnlyForAKeyItHolds() {
        let bond = SMP.Bond(
            peer: centralAddress, longTermKey: [UInt8](1...16), ediv: 0xBEEF, rand: 0x0102_0304_0506_0708,
            secureConnections: false)
        var responder = Self.responder(bond: bond)
        #expect(responder.longTermKeyRequested(ediv: 0xBEEF, rand: 0x0102_0304_0506_0708, at: .zero)
            == [.provideLongTermKey([UInt8](1...16))])
        #expect(responder.longTermKeyRequested(ediv: 0, rand: 0, at: .zero) == [.provideLongTermKey(nil)])
        var stranger = Self.responder()
        #expect(stranger.longTermKeyRequested(ediv: 0, rand: 0, at: .zero) == [.provideLongTermKey(nil)])
    }

    @Test func timesOutWhenTheCentralGoesQuiet() {
        var responder = Self.responder()
        let start = MonotonicInstant(nanoseconds: 1_000)
        _ = responder.receive([0x01, 0x03, 0x00, 0x09, 0x10, 0x02, 0x07], at: start)
        let deadline = start + .seconds(30)
        #expect(responder.nextDeadline == deadline)
        #expect(responder.handleDeadline(at: deadline - .milliseconds(1)).isEmpty)
        #expect(responder.handleDeadline(at: deadline) == [.failed(.timeout)])
        #expect(responder.receive([0x01, 0x03, 0x00, 0x09, 0x10, 0x02, 0x07], at: deadline).isEmpty)
    }

    @Test func garbageNeverTraps() {
        var random = SeededRandom(seed: 0x5EED)
        var responder = Self.responder()
        for _ in 0..<2000 {
            var pdu = random.bytes(Int(random.next() % 70))
            if !pdu.isEmpty { pdu[0] %= 0x10 }
            for action in responder.receive(pdu, at: .zero) {
                if case let .send(reply) = action { #expect(reply.first == 0x05 || reply.first == 0x02) }
            }
        }
    }
}
