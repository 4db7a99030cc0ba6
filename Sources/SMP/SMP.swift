import Bluetooth
import Clocks

/// The LE Security Manager Protocol (Core v5.4 Vol 3 Part H): pairing, key generation and key
/// distribution over the fixed L2CAP channel 0x0006.
///
/// Everything here is sans-IO: the state machines (`Initiator`, `Responder`) take PDUs, link
/// events and `now`, and return `Action`s; randomness comes through an injectable
/// `RandomSource`, so a pairing can be replayed byte for byte in a test.
///
/// Byte order: every multi-octet value in this module (keys, random numbers, confirm values,
/// public-key coordinates, DHKey) is held in **wire order, least-significant octet first**,
/// exactly as it travels in the PDUs. The spec writes its functions MSB-first; the one place
/// that converts is `SMP.Crypto` (see `Crypto.aes` and `Crypto.cmac`).
public enum SMP {
    /// The fixed L2CAP channel of the LE Security Manager (Core v5.4 Vol 3 Part A §2.1).
    public static let channel: UInt16 = 0x0006

    /// The Security Manager Timer (Core v5.4 Vol 3 Part H §3.4): a pairing that sees no SMP
    /// command queued for 30 s has failed, and no further SMP command may be sent on the link.
    public static let timeout: Duration = .seconds(30)
}

extension SMP {
    /// What the local device asks for and offers when pairing.
    ///
    /// Vigil pairs Just Works only: it has no display and no keyboard, so the IO capability on
    /// the wire is always `NoInputNoOutput` and the resulting keys are unauthenticated.
    public struct Configuration: Sendable, Equatable {
        /// Offer LE Secure Connections (AuthReq SC bit). Used when both sides set it.
        public var secureConnections: Bool
        /// Refuse LE legacy pairing (Pairing Failed "authentication requirements").
        public var requireSecureConnections: Bool
        /// Ask for bonding (AuthReq bonding flags 01): keys are distributed and kept.
        public var bonding: Bool
        /// The largest encryption key size offered, 7...16 octets.
        public var maximumKeySize: UInt8
        /// The smallest negotiated key size accepted, 7...16 octets (else "encryption key size").
        public var minimumKeySize: UInt8
        /// The keys we ask the peer to distribute to us.
        public var requestedKeys: KeyDistribution
        /// Our identity (IRK and identity address), distributed when the peer asks for IdKey.
        public var identity: LocalIdentity?
        /// Our CSRK (16 wire bytes), distributed when the peer asks for SignKey.
        public var signatureKey: [UInt8]?
        /// The Security Manager Timer; 30 s in the spec, shorter only in tests that say why.
        public var timeout: Duration

        public init(
            secureConnections: Bool = true,
            requireSecureConnections: Bool = false,
            bonding: Bool = true,
            maximumKeySize: UInt8 = 16,
            minimumKeySize: UInt8 = 7,
            requestedKeys: KeyDistribution = [.encryptionKey, .identityKey, .signingKey],
            identity: LocalIdentity? = nil,
            signatureKey: [UInt8]? = nil,
            timeout: Duration = SMP.timeout
        ) {
            self.secureConnections = secureConnections
            self.requireSecureConnections = requireSecureConnections
            self.bonding = bonding
            self.maximumKeySize = min(16, max(7, maximumKeySize))
            self.minimumKeySize = min(self.maximumKeySize, max(7, minimumKeySize))
            self.requestedKeys = requestedKeys.subtracting(.linkKey)
            self.identity = identity
            self.signatureKey = signatureKey
            self.timeout = timeout
        }

        /// The AuthReq we send: bonding flags, SC if offered; never MITM (Just Works only).
        var authenticationRequirements: AuthenticationRequirements {
            var auth: AuthenticationRequirements = bonding ? [.bonding] : []
            if secureConnections { auth.insert(.secureConnections) }
            return auth
        }

        /// The keys we are able to hand out in the given role. A central never offers EncKey:
        /// its LTK would only matter if the roles were reversed, which Vigil never does.
        func offeredKeys(asInitiator: Bool) -> KeyDistribution {
            var keys: KeyDistribution = asInitiator ? [] : [.encryptionKey]
            if identity != nil { keys.insert(.identityKey) }
            if signatureKey?.count == 16 { keys.insert(.signingKey) }
            return keys
        }
    }

    /// An identity we distribute: our Identity Resolving Key and identity address.
    public struct LocalIdentity: Sendable, Equatable {
        /// 16 wire (LSB-first) bytes.
        public var irk: [UInt8]
        public var address: DeviceAddress

        public init(irk: [UInt8], address: DeviceAddress) {
            self.irk = irk
            self.address = address
        }
    }
}
