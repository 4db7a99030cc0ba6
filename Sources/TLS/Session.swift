import CLibSSL

extension TLS {
    /// One connection's TLS, either side (`ServerSession`, `ClientSession`). Feed it the
    /// socket's bytes with `receiveCiphertext`, send what `takeCiphertext` gives; in between,
    /// `readPlaintext` and `writePlaintext` are the HTTP side's. A failure (a bad handshake, a
    /// certificate that does not verify, a corrupt record) is kept in `failure`: the owner
    /// closes the socket.
    public class Session {
        /// The context the session was made from: libssl's session refers to it.
        private let context: AnyObject
        private let session: OpaquePointer
        public private(set) var isHandshakeComplete = false
        /// Why the session cannot go on; nil while it can.
        public private(set) var failure: Failure?
        /// The peer said close_notify: no more plaintext will come.
        public private(set) var peerClosed = false

        init(context: AnyObject, session: OpaquePointer) {
            self.context = context
            self.session = session
        }

        deinit { vigil_tls_session_free(session) }

        /// Ciphertext received and not processed yet: the owner reads the socket only while this
        /// is small, so a client cannot make the session hold more than a record or two.
        public var bufferedCiphertext: Int { vigil_tls_session_buffered_input(session) }

        /// Ciphertext waiting for the socket.
        public var pendingCiphertext: Int { vigil_tls_session_pending_output(session) }

        /// Bytes read from the socket. Runs the handshake as far as they allow.
        public func receiveCiphertext(_ bytes: ArraySlice<UInt8>) {
            guard failure == nil, !bytes.isEmpty else { return }
            let status = bytes.withUnsafeBufferPointer { vigil_tls_session_receive(session, $0.baseAddress, $0.count) }
            if status != 0 { failure = Failure("out of memory for received TLS records") }
            advanceHandshake()
        }

        /// Up to `maximum` bytes of ciphertext for the socket (handshake messages, records, alerts).
        public func takeCiphertext(maximum: Int = 64 * 1024) -> [UInt8] {
            let count = min(maximum, pendingCiphertext)
            guard count > 0 else { return [] }
            var bytes = [UInt8](repeating: 0, count: count)
            let taken = bytes.withUnsafeMutableBufferPointer { vigil_tls_session_take(session, $0.baseAddress, $0.count) }
            bytes.removeLast(count - taken)
            return bytes
        }

        /// Up to `maximum` bytes of plaintext decrypted from what was received; empty when no
        /// whole record is buffered (or on failure, or after the peer's close_notify).
        public func readPlaintext(maximum: Int) -> [UInt8] {
            guard failure == nil, !peerClosed, maximum > 0 else { return [] }
            advanceHandshake()
            guard isHandshakeComplete else { return [] }
            var bytes = [UInt8](repeating: 0, count: maximum)
            var reason = [CChar](repeating: 0, count: 256)
            let result = bytes.withUnsafeMutableBufferPointer {
                vigil_tls_session_read(session, $0.baseAddress, $0.count, &reason, reason.count)
            }
            switch result {
            case let count where count > 0:
                bytes.removeLast(maximum - Int(count))
                return bytes
            case VIGIL_TLS_CLOSED:
                peerClosed = true
            case VIGIL_TLS_FAILED:
                failure = Failure(text(reason))
            default:
                break
            }
            return []
        }

        /// Encrypts plaintext for the peer: how many bytes were taken (0 before the handshake
        /// is complete, or on failure). The records are then in `takeCiphertext`.
        public func writePlaintext(_ bytes: ArraySlice<UInt8>) -> Int {
            guard failure == nil, isHandshakeComplete, !bytes.isEmpty else { return 0 }
            var reason = [CChar](repeating: 0, count: 256)
            let result = bytes.withUnsafeBufferPointer { vigil_tls_session_write(session, $0.baseAddress, $0.count, &reason, reason.count) }
            if result > 0 { return Int(result) }
            if result == VIGIL_TLS_FAILED { failure = Failure(text(reason)) }
            return 0
        }

        /// Queues the close_notify alert, for the owner to send before it closes the socket.
        public func close() { vigil_tls_session_close(session) }

        func advanceHandshake() {
            guard !isHandshakeComplete, failure == nil else { return }
            var reason = [CChar](repeating: 0, count: 256)
            switch vigil_tls_session_handshake(session, &reason, reason.count) {
            case 1: isHandshakeComplete = true
            case VIGIL_TLS_FAILED: failure = Failure(text(reason))
            default: break
            }
        }
    }
}
