import Bluetooth
import Clocks

extension SMP {
    /// The peripheral's side of Just Works pairing (Core v5.4 Vol 3 Part H §2.3, §3.5–3.6):
    /// LE Secure Connections when both sides set SC, else LE legacy with TK = 0. It can ask the
    /// central to pair with a Security Request, distributes LTK/EDIV/Rand (legacy) and its
    /// IRK + identity address, and answers the controller's LE Long Term Key Request.
    ///
    /// Written from the spec independently of `Initiator` (they share only `PairingSession`'s
    /// bookkeeping), so the simulated peripheral checks the initiator rather than mirroring it.
    public struct Responder: Sendable {
        public enum State: Sendable, Equatable {
            case idle
            /// Legacy: our Pairing Response is sent; Mconfirm is due.
            /// (Secure Connections waits in `awaitingPublicKey` first.)
            case awaitingPairingConfirm(deadline: MonotonicInstant)
            case awaitingPublicKey(deadline: MonotonicInstant)
            case awaitingPairingRandom(deadline: MonotonicInstant)
            case awaitingDHKeyCheck(deadline: MonotonicInstant)
            /// The central is due to start encryption with the key we both derived.
            case awaitingEncryption(deadline: MonotonicInstant)
            /// Our keys are sent; the initiator's are due.
            case awaitingKeys(deadline: MonotonicInstant)
            case paired(Bond)
            case failed(PairingFailure)

            public var deadline: MonotonicInstant? {
                switch self {
                case let .awaitingPairingConfirm(d), let .awaitingPublicKey(d), let .awaitingPairingRandom(d),
                    let .awaitingDHKeyCheck(d), let .awaitingEncryption(d), let .awaitingKeys(d):
                    d
                case .idle, .paired, .failed: nil
                }
            }

            public var isPairing: Bool { deadline != nil }
        }

        /// What the responder asks its owner to do.
        public enum Action: Sendable, Equatable {
            case send([UInt8])
            /// Answer the controller's LE Long Term Key Request: with this key (16 wire
            /// bytes), or with a negative reply when nil.
            case provideLongTermKey([UInt8]?)
            case paired(Bond)
            case failed(PairingFailure)
        }

        public let local: DeviceAddress
        public let peer: DeviceAddress
        public let configuration: Configuration
        public private(set) var state: State = .idle
        /// The bond used to answer LE Long Term Key Requests on later encryptions.
        public private(set) var bond: Bond?
        private var random: any RandomSource
        private var session: PairingSession?

        public init(
            local: DeviceAddress, peer: DeviceAddress, configuration: Configuration, random: some RandomSource,
            bond: Bond? = nil
        ) {
            self.local = local
            self.peer = peer
            self.configuration = configuration
            self.random = random
            self.bond = bond
        }

        public var nextDeadline: MonotonicInstant? { state.deadline }

        /// Sends a Security Request (Vol 3 Part H §3.6.7). It does not start the SMP timer: the
        /// central may answer by encrypting with an existing bond instead of pairing.
        public mutating func requestSecurity(at now: MonotonicInstant) -> [Action] {
            if case .failed(.timeout) = state { return [.failed(.timeout)] }
            guard !state.isPairing else { return [] }
            return [.send(SecurityRequest(configuration.authenticationRequirements).encoded)]
        }

        public mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [Action] {
            if case .failed(.timeout) = state { return [] }
            let command: Command
            do {
                command = try Command(decoding: pdu)
            } catch {
                return refuse(reason: Initiator.reason(for: error))
            }
            switch (command, state) {
            case let (.pairingFailed(failed), current) where current.isPairing:
                session = nil
                state = .failed(.peer(failed.reason))
                return [.failed(.peer(failed.reason))]
            case (.pairingFailed, _):
                return []
            case let (.pairingRequest(request), current) where !current.isPairing:
                return receivePairingRequest(request, at: now)
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
            case (.pairingResponse, _), (.securityRequest, _), (.keypressNotification, _):
                return refuse(reason: .commandNotSupported)
            default:
                return refuse(reason: .unspecifiedReason)
            }
        }

        /// HCI LE Long Term Key Request (Vol 4 Part E §7.7.65.5) for this link.
        public mutating func longTermKeyRequested(ediv: UInt16, rand: UInt64, at now: MonotonicInstant) -> [Action] {
            if case .awaitingEncryption = state, let session, ediv == 0, rand == 0 {
                // Both the STK and an SC LTK are requested with EDIV = 0 and Rand = 0.
                return [.provideLongTermKey(session.longTermKey)]
            }
            if !state.isPairing, let bond, bond.ediv == ediv, bond.rand == rand {
                return [.provideLongTermKey(bond.longTermKey)]
            }
            return [.provideLongTermKey(nil)]
        }

        public mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [Action] {
            guard case .awaitingEncryption = state, var session else { return [] }
            guard enabled else {
                self.session = nil
                state = .failed(.encryptionFailed)
                return [.failed(.encryptionFailed)]
            }
            // The responder distributes first, then the initiator (Vol 3 Part H §3.6.1).
            let actions = session.ourKeyPDUs(configuration: configuration, asInitiator: false, random: &random)
                .map { Action.send($0) }
            session.expectedKeys = session.keysExpected(fromResponder: false)
            self.session = session
            if session.expectedKeys.isEmpty { return actions + finish() }
            // Sending restarts the SMP timer; with nothing sent the old deadline stands.
            let deadline = actions.isEmpty ? (state.deadline ?? now + configuration.timeout) : now + configuration.timeout
            state = .awaitingKeys(deadline: deadline)
            return actions
        }

        public mutating func handleDeadline(at now: MonotonicInstant) -> [Action] {
            guard let deadline = state.deadline, now >= deadline else { return [] }
            session = nil
            state = .failed(.timeout)
            return [.failed(.timeout)]
        }
    }
}

extension SMP.Responder {
    private mutating func refuse(reason: SMP.PairingFailed.Reason) -> [Action] {
        let pdu = Action.send(SMP.PairingFailed(reason).encoded)
        guard state.isPairing else { return [pdu] }
        session = nil
        state = .failed(.local(reason))
        return [pdu, .failed(.local(reason))]
    }

    private mutating func send(_ pdus: [[UInt8]], then next: (MonotonicInstant) -> State, at now: MonotonicInstant) -> [Action] {
        state = next(now + configuration.timeout)  // SMP timer restarts on every queued command.
        return pdus.map { .send($0) }
    }

    private mutating func receivePairingRequest(_ request: SMP.PairingRequest, at now: MonotonicInstant) -> [Action] {
        let req = request.parameters
        var session = SMP.PairingSession(request: request)
        session.keySize = min(req.maximumKeySize, configuration.maximumKeySize)
        session.secureConnections = configuration.secureConnections
            && req.authenticationRequirements.contains(.secureConnections)
        state = .awaitingPairingConfirm(deadline: now + configuration.timeout)  // so refusals end in .failed
        guard session.keySize >= configuration.minimumKeySize else { return refuse(reason: .encryptionKeySize) }
        if !session.secureConnections && configuration.requireSecureConnections {
            return refuse(reason: .authenticationRequirements)
        }
        if session.secureConnections && req.oobDataPresent { return refuse(reason: .oobNotAvailable) }
        let bonding = configuration.bonding && req.authenticationRequirements.requestsBonding
        let response = SMP.PairingResponse(
            SMP.PairingParameters(
                authenticationRequirements: configuration.authenticationRequirements,
                maximumKeySize: configuration.maximumKeySize,
                initiatorKeyDistribution: bonding ? req.initiatorKeyDistribution.intersection(configuration.requestedKeys) : [],
                responderKeyDistribution: bonding
                    ? req.responderKeyDistribution.intersection(configuration.offeredKeys(asInitiator: false)) : []))
        session.response = response
        session.agree(
            initiator: response.parameters.initiatorKeyDistribution,
            responder: response.parameters.responderKeyDistribution)
        self.session = session
        return send([response.encoded], then: session.secureConnections ? State.awaitingPublicKey : State.awaitingPairingConfirm, at: now)
    }

    private mutating func receivePublicKey(_ key: SMP.PairingPublicKey, at now: MonotonicInstant) -> [Action] {
        guard var session else { return refuse(reason: .unspecifiedReason) }
        guard let pair = SMP.P256KeyPair.generate(using: &random) else { return refuse(reason: .unspecifiedReason) }
        do {
            session.dhKey = try pair.dhKey(with: key)
        } catch {
            return refuse(reason: error)
        }
        session.localKeyPair = pair
        session.peerPublicKey = key
        session.localRandom = random.bytes(16).fixed(16)
        // Cb = f4(PKbx, PKax, Nb, 0): Just Works commits to Nb before seeing Na.
        let cb = SMP.Crypto.f4(u: pair.publicKey.x, v: key.x, x: session.localRandom, z: 0)
        self.session = session
        return send([pair.publicKey.encoded, SMP.PairingConfirm(cb).encoded], then: State.awaitingPairingRandom, at: now)
    }

    private mutating func receiveConfirm(_ confirm: SMP.PairingConfirm, at now: MonotonicInstant) -> [Action] {
        guard var session else { return refuse(reason: .unspecifiedReason) }
        session.peerConfirm = confirm.value
        session.localRandom = random.bytes(16).fixed(16)
        let sconfirm = SMP.Crypto.c1(
            k: SMP.legacyJustWorksTK, r: session.localRandom, preq: session.request.encoded,
            pres: session.responseBytes, initiator: peer, responder: local)
        self.session = session
        return send([SMP.PairingConfirm(sconfirm).encoded], then: State.awaitingPairingRandom, at: now)
    }

    private mutating func receiveRandom(_ value: SMP.PairingRandom, at now: MonotonicInstant) -> [Action] {
        guard var session else { return refuse(reason: .unspecifiedReason) }
        session.peerRandom = value.value
        if session.secureConnections {
            // (MacKey, LTK) = f5(DHKey, Na, Nb, A, B), A the initiator.
            let (macKey, ltk) = SMP.Crypto.f5(w: session.dhKey, n1: value.value, n2: session.localRandom, a1: peer, a2: local)
            session.macKey = macKey
            session.longTermKey = SMP.masked(ltk, toKeySize: session.keySize)
            self.session = session
            return send([SMP.PairingRandom(session.localRandom).encoded], then: State.awaitingDHKeyCheck, at: now)
        }
        let expected = SMP.Crypto.c1(
            k: SMP.legacyJustWorksTK, r: value.value, preq: session.request.encoded,
            pres: session.responseBytes, initiator: peer, responder: local)
        guard expected == session.peerConfirm else { return refuse(reason: .confirmValueFailed) }
        let stk = SMP.Crypto.s1(k: SMP.legacyJustWorksTK, r1: session.localRandom, r2: value.value)
        session.longTermKey = SMP.masked(stk, toKeySize: session.keySize)
        self.session = session
        return send([SMP.PairingRandom(session.localRandom).encoded], then: State.awaitingEncryption, at: now)
    }

    private mutating func receiveDHKeyCheck(_ check: SMP.PairingDHKeyCheck, at now: MonotonicInstant) -> [Action] {
        guard let session, let response = session.response else { return refuse(reason: .unspecifiedReason) }
        let ea = SMP.Crypto.f6(
            w: session.macKey, n1: session.peerRandom, n2: session.localRandom, r: SMP.zeroR,
            ioCap: SMP.IOCapabilityTriple(session.request.parameters), a1: peer, a2: local)
        guard ea == check.value else { return refuse(reason: .dhKeyCheckFailed) }
        let eb = SMP.Crypto.f6(
            w: session.macKey, n1: session.localRandom, n2: session.peerRandom, r: SMP.zeroR,
            ioCap: SMP.IOCapabilityTriple(response.parameters), a1: local, a2: peer)
        return send([SMP.PairingDHKeyCheck(eb).encoded], then: State.awaitingEncryption, at: now)
    }

    private mutating func receiveKey(_ command: SMP.Command, at now: MonotonicInstant) -> [Action] {
        guard var session, session.expectedKeys.remove(command.code) != nil else {
            return refuse(reason: .unspecifiedReason)
        }
        session.collect(command)
        self.session = session
        return session.expectedKeys.isEmpty ? finish() : []
    }

    private mutating func finish() -> [Action] {
        guard let session else { return refuse(reason: .unspecifiedReason) }
        let bond = session.bond(peer: peer, asInitiator: false)
        self.bond = bond
        self.session = nil
        state = .paired(bond)
        return [.paired(bond)]
    }
}
