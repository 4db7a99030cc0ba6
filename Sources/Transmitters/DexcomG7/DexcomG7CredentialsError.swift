extension DexcomG7 {
    /// What is wrong with a credentials file (docs/protocols/dexcom-g7.md §Certificates, signature
    /// and bond): one clear sentence each. No case carries key material.
    public enum CredentialsError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The file holds no PEM block at all.
        case notPEM
        /// PEM blocks, but none labelled CERTIFICATE.
        case noCertificate
        /// One certificate: the sensor takes two.
        case onlyOneCertificate
        /// More than two certificates (their count).
        case tooManyCertificates(Int)
        /// No EC PRIVATE KEY or PRIVATE KEY block.
        case noPrivateKey
        /// More than one private key block (their count).
        case tooManyPrivateKeys(Int)
        /// The private key is not an elliptic-curve key on P-256.
        case keyNotP256
        /// Neither certificate holds the private key's public key.
        case noCertificateMatchesKey
        /// The leaf's signature does not verify with the other certificate's public key.
        case leafNotSignedByIntermediate
        /// A block OpenSSL cannot read: its label and OpenSSL's reason.
        case unreadableBlock(label: String, reason: String)

        public var description: String {
            switch self {
            case .notPEM:
                "the credentials file is not PEM: it holds no \"-----BEGIN\" block"
            case .noCertificate:
                "the credentials file holds no CERTIFICATE block: it needs the intermediate and the display certificate"
            case .onlyOneCertificate:
                "the credentials file holds one certificate: the sensor needs two (the intermediate and the display certificate)"
            case let .tooManyCertificates(count):
                "the credentials file holds \(count) certificates: it must hold exactly two (the intermediate and the display certificate)"
            case .noPrivateKey:
                "the credentials file holds no private key (an EC PRIVATE KEY or PRIVATE KEY block)"
            case let .tooManyPrivateKeys(count):
                "the credentials file holds \(count) private keys: it must hold exactly one"
            case .keyNotP256:
                "the credentials file's private key is not an elliptic-curve key on P-256"
            case .noCertificateMatchesKey:
                "neither certificate in the credentials file belongs to its private key"
            case .leafNotSignedByIntermediate:
                "the display certificate in the credentials file is not signed by the other certificate"
            case let .unreadableBlock(label, reason):
                "the credentials file's \(label) block is unreadable: \(reason)"
            }
        }
    }
}
