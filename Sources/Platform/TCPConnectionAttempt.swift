extension TCPConnection {
    /// `connect` on a thread of its own. A peer that drops SYNs holds a connect for its whole
    /// timeout, and a name can take as long to resolve; an event loop that waited would
    /// evaluate no alarm, feed no watchdog and answer no signal meanwhile, at every reopening.
    ///
    /// The loop polls `descriptor`; once it is readable, `finish()` gives what `connect` would
    /// have returned or thrown. An attempt no longer wanted is `cancel()`led (its deinit does
    /// it too).
    public final class Attempt {
        /// "127.0.0.1:4000": what is being connected to, for the log.
        public let target: String
        private let job: BackgroundJob<Result<ConnectedSocket, PlatformError>>
        private var ended = false

        /// Starts connecting to `host` on `port` (as `connect` would, within `timeout`).
        public init(host: String, port: UInt16, timeout: Duration) throws(PlatformError) {
            target = TCPConnection.target(host: host, port: port)
            job = try BackgroundJob(name: "tcp connect") { stopRequested in
                do throws(PlatformError) {
                    return .success(try TCPConnection.connectSocket(host: host, port: port, timeout: timeout, stopRequested: stopRequested))
                } catch {
                    return .failure(error)
                }
            }
        }

        /// Readable (and stays readable) once the attempt has ended.
        public var descriptor: Int32 { job.descriptor }

        /// Whether the attempt has ended (`finish()` then does not block).
        public var isFinished: Bool { job.isFinished }

        /// The connection, or why there is none; waits for the attempt if it has not ended
        /// (at once after `descriptor` was readable). Only the first call has a result.
        public func finish() throws(PlatformError) -> any ByteTransport {
            ended = true
            guard let result = job.finish() else {
                throw PlatformError(operation: "connect(\(target))", errno: 0, reason: "the attempt's result was already taken")
            }
            return try result.get().adopt()
        }

        /// Ends an attempt whose result is no longer wanted, closing the connection if it was
        /// made. The handshake wait looks at the stop request every `stopCheckInterval`, but
        /// getaddrinfo does not: a resolver that has not answered within a second is left to
        /// end with the process (`BackgroundJob.abandon()`), since only an exiting owner cancels.
        public func cancel() {
            guard !ended else { return }
            ended = true
            job.requestStop()
            guard job.wait(upTo: .seconds(1)) else { return job.abandon() }
            if case .success(let socket)? = job.finish() { closeDescriptor(socket.fileDescriptor) }
        }

        deinit { cancel() }
    }
}
