import Crypto

extension SMP {
    /// A P-256 key pair for LE Secure Connections (Core v5.4 Vol 3 Part H §2.3.5.6.1, FIPS
    /// 186-4 curve P-256), computed in the host: the controller's LE Read Local P-256 Public
    /// Key / LE Generate DHKey are not dependable (Bumble's virtual controller never answers).
    ///
    /// The private key is kept as its 32 raw bytes (big-endian, as the spec prints the debug
    /// key) so the pair is a plain `Sendable`, `Equatable` value.
    public struct P256KeyPair: Sendable, Equatable {
        /// 32 bytes, big-endian scalar.
        public let privateKey: [UInt8]
        /// Our public key as it goes on the wire (X and Y each LSB-first).
        public let publicKey: PairingPublicKey

        /// The private key of the SMP debug key pair (Vol 3 Part H §2.3.5.6.1). Its use makes
        /// a pairing decryptable by any sniffer; tests only.
        public static let debugPrivateKey: [UInt8] = [
            0x3F, 0x49, 0xF6, 0xD4, 0xA3, 0xC5, 0x5F, 0x38, 0x74, 0xC9, 0xB3, 0xE3, 0xD2, 0x10, 0x3F, 0x50,
            0x4A, 0xFF, 0x60, 0x7B, 0xEB, 0x40, 0xB7, 0x99, 0x58, 0x99, 0xB8, 0xA6, 0xCD, 0x3C, 0x1A, 0xBD,
        ]

        /// A key pair from a given private key (big-endian); nil if the scalar is not in
        /// 1..<n (zero, or not below the curve order).
        public init?(privateKey: [UInt8]) {
            guard privateKey.count == 32,
                let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey)
            else { return nil }
            let raw = Array(key.publicKey.rawRepresentation)  // X ‖ Y, big-endian each
            self.privateKey = privateKey
            self.publicKey = PairingPublicKey(x: raw[0..<32].reversed(), y: raw[32..<64].reversed())
        }

        /// A fresh key pair from `random`. Retries the rare out-of-range scalar; a source that
        /// never yields a valid one (all zeros, say) gives nil instead of looping forever.
        public static func generate(using random: inout some RandomSource) -> P256KeyPair? {
            for _ in 0..<16 {
                if let pair = P256KeyPair(privateKey: random.bytes(32)) { return pair }
            }
            return nil
        }

        /// DHKey (Vol 3 Part H §2.3.5.6.1): the X coordinate of the shared point, 32 bytes in
        /// wire order, ready for f5.
        ///
        /// Throws `.dhKeyCheckFailed` if the peer's key is not a point on P-256 (the invalid-
        /// curve attack, CVE-2018-5383). Android's stack answers "invalid parameters" here and
        /// Zephyr "DHKey check failed"; the spec only requires that pairing fails. A key equal
        /// to ours is refused with "authentication requirements": a reflected key means someone
        /// is replaying our own messages at us.
        public func dhKey(with peer: PairingPublicKey) throws(PairingFailed.Reason) -> [UInt8] {
            guard peer.x.count == 32, peer.y.count == 32 else { throw .invalidParameters }
            if peer == publicKey { throw .authenticationRequirements }
            do {
                let ours = try P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey)
                let theirs = try P256.KeyAgreement.PublicKey(rawRepresentation: peer.x.reversed() + peer.y.reversed())
                let secret = try ours.sharedSecretFromKeyAgreement(with: theirs)
                return secret.withUnsafeBytes { Array($0) }.reversed()
            } catch {
                throw .dhKeyCheckFailed
            }
        }
    }
}
