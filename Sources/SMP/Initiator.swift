import Bluetooth
import Clocks

extension SMP {
    /// The central's pairing state machine for one connection (Core v5.4 Vol 3 Part H §2.3 and
    /// §3.4–3.6), Just Works only: LE Secure Connections when both sides set the SC bit, else
    /// LE legacy pairing with TK = 0.
    ///
    /// Sans-IO: feed it PDUs from CID 0x0006, the controller's Encryption Change and `now`;
    /// carry out the returned actions; call `handleDeadline(at:)` at `nextDeadline`.
    ///
    /// A Security Request from the peer starts pairing. A host that already holds a bond for
    /// the peer should re-encrypt with it instead and not pass the Security Request here.
    public struct Initiator: Sendable {
        public enum State: Sendable, Equatable {
            case idle
            case awaitingPairingResponse(deadline: MonotonicInstant)
            /// Secure Connections: our public key is sent; the peer's is due.
            case awaitingPublicKey(deadline: MonotonicInstant)
            case awaitingPairingConfirm(deadline: MonotonicInstant)
            case awaitingPairingRandom(deadline: MonotonicInstant)
            /// Secure Connections: our Ea is sent; the peer's Eb is due.
            case awaitingDHKeyCheck(deadline: MonotonicInstant)
            /// The owner was asked to start encryption; Encryption Change is due.
            case awaitingEncryption(deadline: MonotonicInstant)
            /// The link is encrypted; the responder's keys are due.
            case awaitingKeys(deadline: MonotonicInstant)
            case paired(Bond)
            case failed(PairingFailure)

            public var deadline: MonotonicInstant? {
                switch self {
                case let .awaitingPairingResponse(d), let .awaitingPublicKey(d), let .awaitingPairingConfirm(d),
                    let .awaitingPairingRandom(d), let .awaitingDHKeyCheck(d), let .awaitingEncryption(d),
                    let .awaitingKeys(d):
                    d
                case .idle, .paired, .failed: nil
                }
            }

            /// True while a pairing is under way (the SMP timer runs).
            public var isPairing: Bool { deadline != nil }
        }

        public let local: DeviceAddress
        public let peer: DeviceAddress
        public let configuration: Configuration
        public private(set) var state: State = .idle
        private var random: any RandomSource
        private var session: PairingSession?

        public init(local: DeviceAddress, peer: DeviceAddress, configuration: Configuration, random: some RandomSource) {
            self.local = local
            self.peer = peer
            self.configuration = configuration
            self.random = random
        }

        public var nextDeadline: MonotonicInstant? { state.deadline }

        /// Sends a Pairing Request. Ignored while a pairing is under way; after a timeout the
        /// link may not pair again (Vol 3 Part H §3.4), which is reported rather than ignored.
        public mutating func startPairing(at now: MonotonicInstant) -> [Action] {
            if case .failed(.timeout) = state { return [.failed(.timeout)] }
            guard !state.isPairing else { return [] }
            let bonding = configuration.bonding
            let request = PairingRequest(
                PairingParameters(
                    authenticationRequirements: configuration.authenticationRequirements,
                    maximumKeySize: configuration.maximumKeySize,
                    // Without bonding both distribution fields are zero (Vol 3 Part H §3.5.1).
                    initiatorKeyDistribution: bonding ? configuration.offeredKeys(asInitiator: true) : [],
                    responderKeyDistribution: bonding ? configuration.requestedKeys : []))
            session = PairingSession(request: request)
            state = .awaitingPairingResponse(deadline: now + configuration.timeout)
            return [.send(request.encoded)]
        }

        /// A PDU from L2CAP CID 0x0006 (the raw payload, code octet first).
        public mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [Action] {
            // After a timeout no SMP command may be sent on this link (Vol 3 Part H §3.4).
            if case .failed(.timeout) = state { return [] }
            let command: Command
            do {
                command = try Command(decoding: pdu)
            } catch {
                return refuse(reason: Self.reason(for: error), at: now)
            }
            switch (command, state) {
            case let (.pairingFailed(failed), current) where current.isPairing:
                session = nil
                state = .failed(.peer(failed.reason))
                return [.failed(.peer(failed.reason))]
            case (.pairingFailed, _):
                return []  // Nothing to abort; answering a failure with a failure would loop.
            case (.securityRequest, let current) where current.isPairing:
                return []  // Already pairing: the request is satisfied (Vol 3 Part H §2.4.6).
            case (.securityRequest, _):
                return startPairing(at: now)
            case let (.pairingResponse(response), .awaitingPairingResponse):
                return receivePairingResponse(response, at: now)
            case let (.pairingPublicKey(key), .awaitingPublicKey):
                return receivePublicKey(key, at: now)
            case let (.pairingConfirm(confirm), .awaitingPairingConfirm):
                return receiveConfirm(confirm, at: now)
            case let (.pairingRandom(value), .awaitingPairingRandom):
                return receiveRandom(value, at: now)
            case let (.pairingDHKeyCheck(check), .awaitingDHKeyCheck):
                return receiveDHKeyCheck(check, at: now)
            case (.encryptionInformation, .awaitingKeys), (.centralIdentification, .awaitingKeys),
                (.identityInformation, .awaitingKeys), (.identityAddressInformation, .awaitingKeys),
                (.signingInformation, .awaitingKeys):
                return receiveKey(command, at: now)
            case (.pairingRequest, _), (.keypressNotification, _):
                // A central is never asked to respond, and Just Works has no passkey entry.
                return refuse(reason: .commandNotSupported, at: now)
            default:
                return refuse(reason: .unspecifiedReason, at: now)
            }
        }

        /// HCI Encryption Change (Vol 4 Part E §7.7.8) for this link.
        public mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [Action] {
            guard case .awaitingEncryption = state, var session else { return [] }
            guard enabled else {
                self.session = nil
                state = .failed(.encryptionFailed)
                return [.failed(.encryptionFailed)]
            }
            session.expectedKeys = session.keysExpected(fromResponder: true)
            self.session = session
            if session.expectedKeys.isEmpty { return finish(at: now) }
            state = .awaitingKeys(deadline: state.deadline ?? now + configuration.timeout)
            return []
        }

        /// The SMP timer (Vol 3 Part H §3.4): 30 s after the last command we queued.
        public mutating func handleDeadline(at now: MonotonicInstant) -> [Action] {
            guard let deadline = state.deadline, now >= deadline else { return [] }
            session = nil
            state = .failed(.timeout)
            return [.failed(.timeout)]
        }
    }
}

extension SMP.Initiator {
    private typealias Reason = SMP.PairingFailed.Reason

    static func reason(for error: SMP.PDUError) -> SMP.PairingFailed.Reason {
        if case .unknownCode = error { return .commandNotSupported }
        return .invalidParameters
    }

    /// Answers an unexpected or malformed PDU with Pairing Failed. A pairing under way ends in
    /// `.failed`; with none under way only the PDU is sent, as there is nothing to fail.
    private mutating func refuse(reason: Reason, at now: MonotonicInstant) -> [SMP.Action] {
        let pdu = SMP.Action.send(SMP.PairingFailed(reason).encoded)
        guard state.isPairing else { return [pdu] }
        session = nil
        state = .failed(.local(reason))
        return [pdu, .failed(.local(reason))]
    }

    private mutating func sendAndAwait(_ pdus: [[UInt8]], next: (MonotonicInstant) -> State, at now: MonotonicInstant) -> [SMP.Action] {
        // The SMP timer restarts whenever a command is queued (Vol 3 Part H §3.4).
        state = next(now + configuration.timeout)
        return pdus.map { .send($0) }
    }

    private mutating func receivePairingResponse(_ response: SMP.PairingResponse, at now: MonotonicInstant) -> [SMP.Action] {
        guard var session else { return refuse(reason: .unspecifiedReason, at: now) }
        switch session.negotiate(response: response, configuration: configuration) {
        case let .failure(reason): return refuse(reason: reason, at: now)
        case .success: break
        }
        if session.secureConnections {
            guard let pair = SMP.P256KeyPair.generate(using: &random) else {
                return refuse(reason: .unspecifiedReason, at: now)
            }
            session.localKeyPair = pair
            self.session = session
            return sendAndAwait([pair.publicKey.encoded], next: State.awaitingPublicKey, at: now)
        }
        let mrand = random.bytes(16).fixed(16)
        session.localRandom = mrand
        let mconfirm = SMP.Crypto.c1(
            k: SMP.legacyJustWorksTK, r: mrand, preq: session.request.encoded, pres: session.responseBytes,
            initiator: local, responder: peer)
        self.session = session
        return sendAndAwait([SMP.PairingConfirm(mconfirm).encoded], next: State.awaitingPairingConfirm, at: now)
    }

    private mutating func receivePublicKey(_ key: SMP.PairingPublicKey, at now: MonotonicInstant) -> [SMP.Action] {
        guard var session, let pair = session.localKeyPair else { return refuse(reason: .unspecifiedReason, at: now) }
        do {
            session.dhKey = try pair.dhKey(with: key)
        } catch {
            return refuse(reason: error, at: now)
        }
        session.peerPublicKey = key
        self.session = session
        // Just Works: the responder computes and sends Cb next (Vol 3 Part H §2.3.5.6.2).
        state = .awaitingPairingConfirm(deadline: state.deadline ?? now + configuration.timeout)
        return []
    }

    private mutating func receiveConfirm(_ confirm: SMP.PairingConfirm, at now: MonotonicInstant) -> [SMP.Action] {
        guard var session else { return refuse(reason: .unspecifiedReason, at: now) }
        session.peerConfirm = confirm.value
        if session.secureConnections { session.localRandom = random.bytes(16).fixed(16) }
        self.session = session
        // Legacy: Mrand after Sconfirm; SC: Na after Cb. Either way our random goes now.
        return sendAndAwait([SMP.PairingRandom(session.localRandom).encoded], next: State.awaitingPairingRandom, at: now)
    }

    private mutating func receiveRandom(_ value: SMP.PairingRandom, at now: MonotonicInstant) -> [SMP.Action] {
        guard var session else { return refuse(reason: .unspecifiedReason, at: now) }
        session.peerRandom = value.value
        if !session.secureConnections {
            let expected = SMP.Crypto.c1(
                k: SMP.legacyJustWorksTK, r: value.value, preq: session.request.encoded,
                pres: session.responseBytes, initiator: local, responder: peer)
            guard expected == session.peerConfirm else { return refuse(reason: .confirmValueFailed, at: now) }
            // STK = s1(TK, Srand, Mrand), masked to the negotiated size (Vol 3 Part H §2.4.4).
            let stk = SMP.Crypto.s1(k: SMP.legacyJustWorksTK, r1: value.value, r2: session.localRandom)
            session.longTermKey = SMP.masked(stk, toKeySize: session.keySize)
            self.session = session
            state = .awaitingEncryption(deadline: state.deadline ?? now + configuration.timeout)
            return [.startEncryption(ltk: session.longTermKey, ediv: 0, rand: 0)]
        }
        guard let pair = session.localKeyPair, let peerKey = session.peerPublicKey else {
            return refuse(reason: .unspecifiedReason, at: now)
        }
        // Cb = f4(PKbx, PKax, Nb, 0) (Vol 3 Part H §2.3.5.6.2).
        let expected = SMP.Crypto.f4(u: peerKey.x, v: pair.publicKey.x, x: value.value, z: 0)
        guard expected == session.peerConfirm else { return refuse(reason: .confirmValueFailed, at: now) }
        let (macKey, ltk) = SMP.Crypto.f5(w: session.dhKey, n1: session.localRandom, n2: value.value, a1: local, a2: peer)
        session.macKey = macKey
        session.longTermKey = SMP.masked(ltk, toKeySize: session.keySize)
        let ea = SMP.Crypto.f6(
            w: macKey, n1: session.localRandom, n2: value.value, r: SMP.zeroR,
            ioCap: SMP.IOCapabilityTriple(session.request.parameters), a1: local, a2: peer)
        self.session = session
        return sendAndAwait([SMP.PairingDHKeyCheck(ea).encoded], next: State.awaitingDHKeyCheck, at: now)
    }

    private mutating func receiveDHKeyCheck(_ check: SMP.PairingDHKeyCheck, at now: MonotonicInstant) -> [SMP.Action] {
        guard let session, let response = session.response else { return refuse(reason: .unspecifiedReason, at: now) }
        // Eb = f6(MacKey, Nb, Na, 0, IOcapB, B, A) (Vol 3 Part H §2.3.5.6.5).
        let expected = SMP.Crypto.f6(
            w: session.macKey, n1: session.peerRandom, n2: session.localRandom, r: SMP.zeroR,
            ioCap: SMP.IOCapabilityTriple(response.parameters), a1: peer, a2: local)
        guard expected == check.value else { return refuse(reason: .dhKeyCheckFailed, at: now) }
        state = .awaitingEncryption(deadline: state.deadline ?? now + configuration.timeout)
        return [.startEncryption(ltk: session.longTermKey, ediv: 0, rand: 0)]
    }

    private mutating func receiveKey(_ command: SMP.Command, at now: MonotonicInstant) -> [SMP.Action] {
        guard var session else { return refuse(reason: .unspecifiedReason, at: now) }
        // Only keys that were agreed may arrive, each once; order is not enforced, because
        // being strict about it buys nothing and costs interoperability.
        guard session.expectedKeys.remove(command.code) != nil else {
            return refuse(reason: .unspecifiedReason, at: now)
        }
        session.collect(command)
        self.session = session
        return session.expectedKeys.isEmpty ? finish(at: now) : []
    }

    /// Responder keys are in: send ours, if agreed, and report the bond.
    private mutating func finish(at now: MonotonicInstant) -> [SMP.Action] {
        guard var session else { return refuse(reason: .unspecifiedReason, at: now) }
        var actions = session.ourKeyPDUs(configuration: configuration, asInitiator: true, random: &random).map {
            SMP.Action.send($0)
        }
        let bond = session.bond(peer: peer, asInitiator: true)
        self.session = nil
        state = .paired(bond)
        actions.append(.paired(bond))
        return actions
    }
}
