import Crypto

extension Nightscout {
    /// What a client may present to read, as Nightscout takes it (`lib/authorization/index.js`,
    /// docs/nightscout-api.md "Authentication"):
    /// - the API secret's SHA-1 as hex, in the `api-secret` header or the `secret` query
    ///   parameter (Nightscout compares it with the SHA-1 of `API_SECRET`; Vigil accepts the hex
    ///   in either case);
    /// - the token, as `token=` in the query or `Authorization: Bearer <token>`.
    ///
    /// Only digests are kept: SHA-256 of the expected values, so a comparison costs the same
    /// whatever was presented and however much of it matches (`constantTimeEqual`). Neither the
    /// secret nor the token is kept as text, and no description here or in a refusal holds them.
    public struct Credentials: Sendable {
        /// Nightscout refuses to start with an `API_SECRET` shorter than 12 characters
        /// (`lib/server/env.js`); a token gets the same floor.
        public static let minimumLength = 12

        /// Why a configured credential cannot be used. Says what is wrong, never the value.
        public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
            case secretTooShort
            case tokenTooShort
            /// A character a header or a URL cannot carry unchanged (a space, a control character).
            case unusableCharacter(String)

            public var description: String {
                switch self {
                case .secretTooShort: "the API secret must be at least \(Credentials.minimumLength) characters"
                case .tokenTooShort: "the token must be at least \(Credentials.minimumLength) characters"
                case let .unusableCharacter(what): "the \(what) must be printable ASCII without spaces"
                }
            }
        }

        /// SHA-256 of the lowercase hex SHA-1 of the secret.
        let secretHexDigest: [UInt8]?
        /// SHA-256 of the token.
        let tokenDigest: [UInt8]?

        /// Either may be nil (that way of reading is then off); with both nil only an API open
        /// to everyone (`Nightscout.API.Configuration.readableWithoutAuthentication`) serves data.
        public init(apiSecret: String?, token: String?) throws(Problem) {
            if let apiSecret {
                guard apiSecret.count >= Self.minimumLength else { throw .secretTooShort }
                let sha1 = Array(Insecure.SHA1.hash(data: Array(apiSecret.utf8)))
                secretHexDigest = Self.digest(Self.lowercaseHex(sha1))
            } else {
                secretHexDigest = nil
            }
            if let token {
                guard token.utf8.count >= Self.minimumLength else { throw .tokenTooShort }
                guard token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { throw .unusableCharacter("token") }
                tokenDigest = Self.digest(Array(token.utf8))
            } else {
                tokenDigest = nil
            }
        }

        /// Nothing configured: nobody authenticates.
        public static let none = Credentials(secretHexDigest: nil, tokenDigest: nil)

        private init(secretHexDigest: [UInt8]?, tokenDigest: [UInt8]?) {
            self.secretHexDigest = secretHexDigest
            self.tokenDigest = tokenDigest
        }

        /// How `request` authenticated, if it did.
        func authentication(of request: Request) -> Authentication? {
            // Nightscout looks at `secret` in the query before the header.
            if let expected = secretHexDigest, let presented = request.parameter("secret") ?? request.header("api-secret"),
               Self.constantTimeEqual(Self.digest(Self.lowercased(Array(presented.utf8))), expected) {
                return .apiSecret
            }
            if let expected = tokenDigest, let presented = Self.bearer(request.header("Authorization")) ?? request.parameter("token"),
               Self.constantTimeEqual(Self.digest(Array(presented.utf8)), expected) {
                return .token
            }
            return nil
        }

        /// `Bearer <token>`, split on one space as Nightscout splits it.
        static func bearer(_ field: String?) -> String? {
            guard let field else { return nil }
            let parts = field.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "Bearer" else { return nil }
            return String(parts[1])
        }

        static func digest(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

        /// True when `a` and `b` hold the same bytes, in a time that depends only on their
        /// lengths (both are SHA-256 digests here: always 32 bytes).
        static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            guard a.count == b.count else { return false }
            var difference: UInt8 = 0
            for i in a.indices { difference |= a[i] ^ b[i] }
            return difference == 0
        }

        static func lowercaseHex(_ bytes: [UInt8]) -> [UInt8] {
            let digits = Array("0123456789abcdef".utf8)
            return bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
        }

        private static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
            bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        }
    }

    /// How a request proved it may read.
    enum Authentication: Equatable, Sendable {
        case apiSecret
        case token
    }
}
