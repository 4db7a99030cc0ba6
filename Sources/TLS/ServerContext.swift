import CLibSSL

extension TLS {
    /// The server's certificate chain and private key, checked to belong together: made once
    /// from the files `[web] certificate` and `key` name, shared by every session.
    public final class ServerContext: @unchecked Sendable {
        // Only read after init: libssl's context is safe to share once configured.
        let context: OpaquePointer

        /// The PEM certificate chain (the server's first) and its PEM private key (unencrypted).
        public init(certificatePEM: [UInt8], keyPEM: [UInt8]) throws(Failure) {
            var reason = [CChar](repeating: 0, count: 256)
            let made = certificatePEM.withUnsafeBufferPointer { certificate in
                keyPEM.withUnsafeBufferPointer { key in
                    vigil_tls_context_new(certificate.baseAddress, certificate.count, key.baseAddress, key.count, &reason, reason.count)
                }
            }
            guard let made else { throw Failure(text(reason)) }
            context = made
        }

        deinit { vigil_tls_context_free(context) }

        /// "subject CN = vigil.local, valid until Nov 28 03:00:00 2027 GMT": for the log.
        public var summary: String {
            var buffer = [CChar](repeating: 0, count: 512)
            _ = vigil_tls_context_describe(context, &buffer, buffer.count)
            return text(buffer)
        }
    }
}

/// A NUL-terminated C buffer as text.
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
