import Bluetooth
import Clocks
import Wire
@testable import SMP

/// An in-memory link between an `SMP.Initiator` and an `SMP.Responder`: PDUs are delivered
/// in order, and "encryption" works the way Bumble's virtual controller simulates it — the
/// link compares the LTK the central starts with against the one the peripheral provides
/// (docs/bumble-peer.md §Controller quirks). `tamper` may rewrite or drop (return nil) any PDU in
/// flight.
struct PairingHarness {
    enum Side: Equatable { case initiator, responder }

    var initiator: SMP.Initiator
    var responder: SMP.Responder
    var now: MonotonicInstant = .zero
    /// Every PDU put on the link, by sender, after tampering.
    var transcript: [(from: Side, pdu: [UInt8])] = []
    var initiatorEvents: [SMP.Action] = []
    var responderEvents: [SMP.Responder.Action] = []
    var encryptionKey: [UInt8]?
    var tamper: (Side, [UInt8]) -> [UInt8]? = { _, pdu in pdu }
    /// Makes the controller fail encryption (as a key mismatch would: Bumble disconnects 0x3D).
    var refuseEncryption = false
    /// Makes the controller never report Encryption Change at all.
    var controllerSilent = false
    private var queue: [(to: Side, pdu: [UInt8])] = []

    init(
        initiator configuration: SMP.Configuration = .init(), responder responderConfiguration: SMP.Configuration = .init(),
        seed: UInt64 = 1
    ) {
        initiator = SMP.Initiator(
            local: centralAddress, peer: peripheralAddress, configuration: configuration, random: SeededRandom(seed: seed))
        responder = SMP.Responder(
            local: peripheralAddress, peer: centralAddress, configuration: responderConfiguration,
            random: SeededRandom(seed: seed &+ 1000))
    }

    /// PDUs a side sent, decoded.
    func sent(by side: Side) -> [SMP.Command] {
        transcript.filter { $0.from == side }.compactMap { try? SMP.Command(decoding: $0.pdu) }
    }

    mutating func startPairing() { handle(initiator.startPairing(at: now)) }
    mutating func requestSecurity() { handle(responder.requestSecurity(at: now)) }

    mutating func handle(_ actions: [SMP.Action]) {
        for action in actions {
            switch action {
            case let .send(pdu): post(pdu, from: .initiator)
            case let .startEncryption(ltk, ediv, rand):
                initiatorEvents.append(action)
                if !controllerSilent { encrypt(ltk: ltk, ediv: ediv, rand: rand) }
            case .paired, .failed: initiatorEvents.append(action)
            }
        }
        pump()
    }

    mutating func handle(_ actions: [SMP.Responder.Action]) {
        for action in actions {
            switch action {
            case let .send(pdu): post(pdu, from: .responder)
            default: responderEvents.append(action)
            }
        }
        pump()
    }

    private mutating func post(_ pdu: [UInt8], from side: Side) {
        guard let pdu = tamper(side, pdu) else { return }
        transcript.append((side, pdu))
        queue.append((side == .initiator ? .responder : .initiator, pdu))
    }

    private mutating func pump() {
        while !queue.isEmpty {
            let (to, pdu) = queue.removeFirst()
            now += .milliseconds(10)
            switch to {
            case .initiator: handle(initiator.receive(pdu, at: now))
            case .responder: handle(responder.receive(pdu, at: now))
            }
        }
    }

    /// LE Enable Encryption: the peripheral's host is asked for the key; a match encrypts
    /// the link (the central hears Encryption Change first, as on a real link, since the
    /// peripheral's next PDUs travel encrypted).
    private mutating func encrypt(ltk: [UInt8], ediv: UInt16, rand: UInt64) {
        let answer = responder.longTermKeyRequested(ediv: ediv, rand: rand, at: now)
        responderEvents += answer
        guard !refuseEncryption, case let .provideLongTermKey(key)? = answer.first, key == ltk else {
            handle(initiator.encryptionChanged(enabled: false, at: now))
            return
        }
        encryptionKey = ltk
        // Both ends learn of the encryption before either sends an encrypted PDU.
        let initiatorActions = initiator.encryptionChanged(enabled: true, at: now)
        let responderActions = responder.encryptionChanged(enabled: true, at: now)
        handle(initiatorActions)
        handle(responderActions)
    }

    var initiatorBond: SMP.Bond? {
        initiatorEvents.lazy.compactMap { if case let .paired(bond) = $0 { bond } else { nil } }.first
    }
    var responderBond: SMP.Bond? {
        responderEvents.lazy.compactMap { if case let .paired(bond) = $0 { bond } else { nil } }.first
    }
    var initiatorFailure: SMP.PairingFailure? {
        initiatorEvents.lazy.compactMap { if case let .failed(f) = $0 { f } else { nil } }.first
    }
    var responderFailure: SMP.PairingFailure? {
        responderEvents.lazy.compactMap { if case let .failed(f) = $0 { f } else { nil } }.first
    }
}
