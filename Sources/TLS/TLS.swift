/// HTTPS, sans-IO (docs/crypto.md "TLS"): OpenSSL 3's libssl over memory buffers, the page's
/// server side (`ServerSession`) and the uploads' and followers' client side (`ClientSession`).
/// The socket owner moves ciphertext between the socket and a session; the session hands
/// plaintext to and from the HTTP side. No socket, file or clock is touched here.
public enum TLS {
    /// How long a client may take from its first byte to a finished handshake: one that starts
    /// TLS and stops must not hold one of the server's few connections (docs/web.md "HTTPS").
    public static let handshakeTimeout = Duration.seconds(10)

    /// Why a context or a session failed: OpenSSL's reason or ours, never key material.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
