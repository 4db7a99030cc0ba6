import Bluetooth
import Clocks

extension SMP {
    /// What a completed pairing leaves behind: the keys to re-encrypt later connections with
    /// LE Start Encryption (Core v5.4 Vol 4 Part E §7.8.24), and the peer's identity.
    ///
    /// All keys are 16 bytes in wire order (LSB-first), as HCI takes them.
    public struct Bond: Sendable, Equatable {
        /// The address the peer used on the link we paired on.
        public var peer: DeviceAddress
        /// The peer's identity address, when it distributed one (IdKey).
        public var identityAddress: DeviceAddress?
        /// The peer's Identity Resolving Key, when distributed (IdKey).
        public var identityResolvingKey: [UInt8]?
        /// The LTK: derived by f5 (Secure Connections) or distributed by the responder (legacy).
        /// If a legacy responder distributed no LTK, this is the session's STK with EDIV = 0 and
        /// Rand = 0, which the peer will not recognise on a later connection: re-pair then.
        public var longTermKey: [UInt8]
        public var ediv: UInt16
        public var rand: UInt64
        /// The negotiated encryption key size in octets (7...16); the LTK is masked to it.
        public var keySize: UInt8
        public var secureConnections: Bool
        /// True only with MITM protection; Just Works never gives it.
        public var authenticated: Bool
        /// The peer's Connection Signature Resolving Key, when distributed (SignKey).
        public var signatureKey: [UInt8]?
        /// When the bond was made. The state machines cannot read a clock, so they leave it
        /// nil; the owner stamps it (`BondStore.insert(_:created:)` does).
        public var created: WallClockTime?

        public init(
            peer: DeviceAddress, identityAddress: DeviceAddress? = nil, identityResolvingKey: [UInt8]? = nil,
            longTermKey: [UInt8], ediv: UInt16 = 0, rand: UInt64 = 0, keySize: UInt8 = 16,
            secureConnections: Bool, authenticated: Bool = false, signatureKey: [UInt8]? = nil,
            created: WallClockTime? = nil
        ) {
            self.peer = peer
            self.identityAddress = identityAddress
            self.identityResolvingKey = identityResolvingKey
            self.longTermKey = longTermKey
            self.ediv = ediv
            self.rand = rand
            self.keySize = keySize
            self.secureConnections = secureConnections
            self.authenticated = authenticated
            self.signatureKey = signatureKey
            self.created = created
        }

        /// The address a bond is filed under: the identity address when known, because a
        /// peer with a resolvable private address shows a new address on every connection.
        public var identity: DeviceAddress { identityAddress ?? peer }
    }

    /// Why a pairing ended without a bond, and who ended it.
    public enum PairingFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// We aborted and sent Pairing Failed with this reason.
        case local(PairingFailed.Reason)
        /// The peer sent Pairing Failed with this reason.
        case peer(PairingFailed.Reason)
        /// The 30 s Security Manager Timer expired (Vol 3 Part H §3.4). No Pairing Failed is
        /// sent, and no further SMP command may be sent on this link: reconnect to retry.
        case timeout
        /// The controller reported that encryption could not be started with the new key.
        case encryptionFailed

        /// The Pairing Failed reason involved, if any.
        public var reason: PairingFailed.Reason? {
            switch self {
            case let .local(reason), let .peer(reason): reason
            case .timeout, .encryptionFailed: nil
            }
        }

        public var description: String {
            switch self {
            case let .local(reason): "pairing aborted by us: \(reason)"
            case let .peer(reason): "pairing refused by the peer: \(reason)"
            case .timeout: "SMP timeout (30 s without progress)"
            case .encryptionFailed: "encryption with the new key failed"
            }
        }
    }

    /// What the initiator asks its owner (the host) to do.
    public enum Action: Sendable, Equatable {
        /// Put this SMP PDU on L2CAP CID 0x0006.
        case send([UInt8])
        /// Issue HCI LE Enable Encryption (Vol 4 Part E §7.8.24); LTK as 16 wire bytes.
        case startEncryption(ltk: [UInt8], ediv: UInt16, rand: UInt64)
        /// Pairing and key distribution are complete.
        case paired(Bond)
        /// Pairing failed; the machine is in `.failed` and may be restarted (except after a
        /// timeout, which needs a new link).
        case failed(PairingFailure)
    }
}
