import CLibSSL

extension TLS {
    /// The certificate authorities a server's certificate must chain to, and the client's
    /// settings (docs/crypto.md "TLS", client side): TLS 1.2 or later, the peer verified
    /// always (there is no switch to turn it off). Made once from `[network] ca-file` or the
    /// system's bundle; shared by every `ClientSession`.
    public final class ClientContext: @unchecked Sendable {
        // Only read after init: libssl's context is safe to share once configured.
        let context: OpaquePointer
        /// How many certificates the bundle held: for the log ("142 certificate authorities").
        public let authorityCount: Int

        /// Debian's bundle of the system's trusted authorities (package ca-certificates): what
        /// `[network] ca-file = ""` means. The owner reads it; this target reads no file.
        public static let systemAuthoritiesPath = "/etc/ssl/certs/ca-certificates.crt"

        /// A PEM bundle: one or more `-----BEGIN CERTIFICATE-----` blocks (other PEM blocks
        /// between them are skipped). Refused when it holds none or a damaged one.
        public init(authoritiesPEM: [UInt8]) throws(Failure) {
            var reason = [CChar](repeating: 0, count: 256)
            var loaded = 0
            let made = authoritiesPEM.withUnsafeBufferPointer {
                vigil_tls_client_context_new($0.baseAddress, $0.count, &loaded, &reason, reason.count)
            }
            guard let made else { throw Failure(text(reason)) }
            context = made
            authorityCount = loaded
        }

        deinit { vigil_tls_context_free(context) }
    }
}
