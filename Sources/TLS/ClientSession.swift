import CLibSSL

extension TLS {
    /// One connection's client side of TLS. The ClientHello is ready in `takeCiphertext` as
    /// soon as the session is made; `writePlaintext` takes nothing until the handshake is
    /// complete, which it is only once the server's chain verified against the context's
    /// authorities and its certificate names `serverName`. Otherwise `failure` says why
    /// ("certificate verify failed: hostname mismatch").
    public final class ClientSession: Session {
        /// The name the certificate must carry: a DNS name (also sent as SNI) or an IP address.
        public let serverName: String

        /// Refused for an empty name or one that cannot be checked (a NUL inside it).
        public init(context: ClientContext, serverName: String) throws(Failure) {
            guard !serverName.utf8.contains(0) else { throw Failure("the server name holds a NUL byte") }
            var reason = [CChar](repeating: 0, count: 256)
            guard let made = vigil_tls_client_session_new(context.context, serverName, &reason, reason.count) else {
                throw Failure(text(reason))
            }
            self.serverName = serverName
            super.init(context: context, session: made)
            advanceHandshake()  // the ClientHello
        }
    }
}
