extension DexcomG7 {
    /// Why a step of pairing's cryptography failed (docs/protocols/dexcom-g7.md §Pairing). No case
    /// carries key material or the pairing code.
    public enum CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The pairing code is not 4 ASCII digits (the code printed on the applicator).
        case invalidPairingCode
        /// The sensor's packet for J-PAKE round `round` (1, 2 or 3) is not 160 bytes.
        case wrongPacketLength(round: Int, count: Int)
        /// The sensor's packet for round `round` holds a public key that is not a point on P-256.
        case pointNotOnCurve(round: Int)
        /// The sensor's packets lead to the point at infinity, which no honest sensor produces.
        case degenerateExchange
        /// OpenSSL failed where it should not (memory, an internal error); its reason.
        case library(String)

        public var description: String {
            switch self {
            case .invalidPairingCode:
                "the pairing code must be the 4 digits printed on the sensor's applicator"
            case let .wrongPacketLength(round, count):
                "the sensor's J-PAKE round \(round) packet has \(count) bytes, not 160"
            case let .pointNotOnCurve(round):
                "the sensor's J-PAKE round \(round) packet holds a public key that is not a point on P-256"
            case .degenerateExchange:
                "the sensor's J-PAKE packets lead to the point at infinity"
            case let .library(reason):
                "OpenSSL failed: \(reason)"
            }
        }
    }
}
