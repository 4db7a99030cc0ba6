import Bluetooth

extension SMP {
    /// TK for LE legacy Just Works: 128 zero bits (Core v5.4 Vol 3 Part H §2.3.5.2).
    static let legacyJustWorksTK = [UInt8](repeating: 0, count: 16)
    /// r of f6 in Just Works: zero (Vol 3 Part H §2.3.5.6.5).
    static let zeroR = [UInt8](repeating: 0, count: 16)

    /// A key shortened to the negotiated encryption key size: the most significant octets
    /// (the last ones in wire order) are zeroed (Vol 3 Part H §2.3.4).
    static func masked(_ key: [UInt8], toKeySize size: UInt8) -> [UInt8] {
        key.enumerated().map { $0.offset < Int(size) ? $0.element : 0 }
    }

    /// What one pairing has exchanged and derived so far; shared by `Initiator` and
    /// `Responder`, which differ in who sends what, not in what is kept.
    struct PairingSession: Sendable {
        var request: PairingRequest
        var response: PairingResponse?
        var responseBytes: [UInt8] { response?.encoded ?? [] }
        var secureConnections = false
        var keySize: UInt8 = 16
        /// Agreed distribution: what the initiator and the responder hand out.
        var initiatorKeys: KeyDistribution = []
        var responderKeys: KeyDistribution = []

        var localKeyPair: P256KeyPair?
        var peerPublicKey: PairingPublicKey?
        var dhKey: [UInt8] = []
        var localRandom: [UInt8] = []
        var peerRandom: [UInt8] = []
        var peerConfirm: [UInt8] = []
        var macKey: [UInt8] = []
        /// SC: the f5 LTK; legacy: the STK. Masked to `keySize`.
        var longTermKey: [UInt8] = []

        /// Key distribution PDUs still due from the peer.
        var expectedKeys: Set<Code> = []
        var receivedLTK: [UInt8]?
        var receivedEDIV: UInt16 = 0
        var receivedRand: UInt64 = 0
        var receivedIRK: [UInt8]?
        var receivedIdentity: DeviceAddress?
        var receivedCSRK: [UInt8]?
        /// Legacy responder: the LTK/EDIV/Rand we distributed and will be asked for.
        var distributedLTK: [UInt8]?
        var distributedEDIV: UInt16 = 0
        var distributedRand: UInt64 = 0

        init(request: PairingRequest) { self.request = request }

        /// Applies the responder's answer to our request. Fails with the reason to send.
        mutating func negotiate(response: PairingResponse, configuration: Configuration) -> Result<Void, PairingFailed.Reason> {
            let req = request.parameters
            let res = response.parameters
            self.response = response
            keySize = min(req.maximumKeySize, res.maximumKeySize)
            guard keySize >= configuration.minimumKeySize else { return .failure(.encryptionKeySize) }
            secureConnections = req.authenticationRequirements.contains(.secureConnections)
                && res.authenticationRequirements.contains(.secureConnections)
            if !secureConnections && configuration.requireSecureConnections { return .failure(.authenticationRequirements) }
            // We never have OOB data. In SC one side's flag is enough to select OOB (Vol 3
            // Part H §2.3.5.1), which we cannot do; in legacy both flags are needed.
            if secureConnections && res.oobDataPresent { return .failure(.oobNotAvailable) }
            agree(initiator: res.initiatorKeyDistribution.intersection(req.initiatorKeyDistribution),
                  responder: res.responderKeyDistribution.intersection(req.responderKeyDistribution))
            return .success(())
        }

        /// Records the agreed distribution. In Secure Connections the LTK is derived, so the
        /// EncKey bit is ignored (Vol 3 Part H §3.6.1); LinkKey (BR/EDR) is never honoured.
        mutating func agree(initiator: KeyDistribution, responder: KeyDistribution) {
            let ignored: KeyDistribution = secureConnections ? [.encryptionKey, .linkKey] : [.linkKey]
            initiatorKeys = initiator.subtracting(ignored)
            responderKeys = responder.subtracting(ignored)
        }

        /// The key PDUs the other side will send (Vol 3 Part H §3.6.1).
        func keysExpected(fromResponder: Bool) -> Set<Code> {
            let keys = fromResponder ? responderKeys : initiatorKeys
            var codes: Set<Code> = []
            if keys.contains(.encryptionKey) { codes.formUnion([.encryptionInformation, .centralIdentification]) }
            if keys.contains(.identityKey) { codes.formUnion([.identityInformation, .identityAddressInformation]) }
            if keys.contains(.signingKey) { codes.insert(.signingInformation) }
            return codes
        }

        mutating func collect(_ command: Command) {
            switch command {
            case let .encryptionInformation(info): receivedLTK = info.longTermKey
            case let .centralIdentification(id):
                receivedEDIV = id.ediv
                receivedRand = id.rand
            case let .identityInformation(info): receivedIRK = info.identityResolvingKey
            case let .identityAddressInformation(info): receivedIdentity = info.identityAddress
            case let .signingInformation(info): receivedCSRK = info.signatureKey
            default: break
            }
        }

        /// Our key distribution PDUs, in the order of Vol 3 Part H §3.6.1 (Figure 3.11).
        mutating func ourKeyPDUs(configuration: Configuration, asInitiator: Bool, random: inout any RandomSource) -> [[UInt8]] {
            let keys = asInitiator ? initiatorKeys : responderKeys
            var pdus: [[UInt8]] = []
            if keys.contains(.encryptionKey) && !secureConnections {
                let ltk = masked(random.bytes(16).fixed(16), toKeySize: keySize)
                let idBytes = random.bytes(10).fixed(10)
                let ediv = UInt16(idBytes[0]) | UInt16(idBytes[1]) << 8
                let rand = idBytes[2...].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
                distributedLTK = ltk
                distributedEDIV = ediv
                distributedRand = rand
                pdus.append(EncryptionInformation(longTermKey: ltk).encoded)
                pdus.append(CentralIdentification(ediv: ediv, rand: rand).encoded)
            }
            if keys.contains(.identityKey), let identity = configuration.identity {
                pdus.append(IdentityInformation(identityResolvingKey: identity.irk).encoded)
                pdus.append(IdentityAddressInformation(identityAddress: identity.address).encoded)
            }
            if keys.contains(.signingKey), let csrk = configuration.signatureKey {
                pdus.append(SigningInformation(signatureKey: csrk).encoded)
            }
            return pdus
        }

        private func masked(_ key: [UInt8], toKeySize size: UInt8) -> [UInt8] { SMP.masked(key, toKeySize: size) }

        /// The bond as the given side sees it: the LTK the initiator will use to encrypt.
        func bond(peer: DeviceAddress, asInitiator: Bool) -> Bond {
            var ltk = longTermKey
            var ediv: UInt16 = 0
            var rand: UInt64 = 0
            if !secureConnections {
                // Legacy: the responder's distributed LTK is the one later links use.
                if asInitiator, let received = receivedLTK {
                    (ltk, ediv, rand) = (received, receivedEDIV, receivedRand)
                } else if !asInitiator, let distributed = distributedLTK {
                    (ltk, ediv, rand) = (distributed, distributedEDIV, distributedRand)
                }
            }
            return Bond(
                peer: peer, identityAddress: receivedIdentity, identityResolvingKey: receivedIRK,
                longTermKey: ltk, ediv: ediv, rand: rand, keySize: keySize,
                secureConnections: secureConnections, authenticated: false, signatureKey: receivedCSRK)
        }
    }
}
