import CLibSSL

extension TLS {
    /// One connection's server side of TLS, for the page's HTTPS.
    public final class ServerSession: Session {
        /// nil only when memory runs out.
        public init?(context: ServerContext) {
            guard let made = vigil_tls_session_new(context.context) else { return nil }
            super.init(context: context, session: made)
        }
    }
}
