import App
import Clocks
import Platform
import TLS

/// The page's sockets (docs/web.md): a TCP listener and its clients, on the one poll loop.
/// It decides nothing: it moves bytes between each socket and the supervisor's HTTP server as
/// docs/http.md "Driving it from the poll loop" says, and performs `webShutdownWrite` and
/// `webClose`. With `[web] certificate` a `TLS.ServerSession` sits between socket and server.
///
/// Nothing here may hold the loop: every socket is non-blocking, at most `acceptsPerTurn`
/// connections are taken a turn, a read is bounded by what the server can take, and a client
/// that starts TLS and stops is dropped after `TLS.handshakeTimeout`.
final class WebServer {
    let listen: VigilConfiguration.Web.ListenAddress
    let tls: TLS.ServerContext?
    private let logger: Logger
    private var listener: TCPListener?
    /// Why listening failed, for `vigil status`.
    private var listenFailure: String?
    private var clients: [Supervisor.WebConnection: Client] = [:]
    private var connectionOfDescriptor: [Int32: Supervisor.WebConnection] = [:]
    private var acceptPause = AcceptPause(what: "web")
    /// A few a turn: a flood of connections cannot hold the loop (the server refuses what it
    /// has no room for, so more would only be more refusals).
    static let acceptsPerTurn = 8
    /// Ciphertext kept for one TLS client, either way: more than the largest record (16 KiB of
    /// plaintext plus 2 KiB of expansion and the header), so a whole one always fits.
    static let ciphertextBound = 20 * 1024

    private final class Client {
        let id: Supervisor.WebConnection
        let transport: any ByteTransport
        let session: TLS.ServerSession?
        /// When a TLS client must have finished its handshake.
        var handshakeDeadline: MonotonicInstant?
        /// TLS records waiting for room in the socket.
        var ciphertextOut: [UInt8] = []
        /// The peer ended (or the socket failed): not read again, the server was told.
        var ended = false
        /// `webShutdownWrite` came while TLS records were still queued: shut down once sent.
        var shutdownWhenSent = false
        var writeShut = false

        init(id: Supervisor.WebConnection, transport: any ByteTransport, session: TLS.ServerSession?, handshakeDeadline: MonotonicInstant?) {
            self.id = id
            self.transport = transport
            self.session = session
            self.handshakeDeadline = handshakeDeadline
        }

        var fileDescriptor: Int32 { transport.fileDescriptor }
    }

    init(listen: VigilConfiguration.Web.ListenAddress, tls: TLS.ServerContext?, logger: Logger) {
        self.listen = listen
        self.tls = tls
        self.logger = logger
    }

    var scheme: String { tls == nil ? "http" : "https" }

    /// Listens. Never fatal: the alarms matter more than the page, so a port already taken is
    /// an error line and the appliance runs on without it.
    func open() {
        do {
            listener = try TCPListener.listen(host: listen.host, port: listen.port, backlog: 64)
            logger.log(.notice, "web: serving \(scheme)://\(listen)/" + (tls.map { " (certificate: \($0.summary))" } ?? ""))
        } catch {
            listenFailure = "\(error)"
            logger.log(.error, "web: \(error); running without the page")
        }
    }

    /// Whether `open` got the listener.
    var isListening: Bool { listener != nil }

    /// What `vigil status` says about the page.
    var status: ApplianceStatus.Web {
        listener != nil ? .serving(url: "\(scheme)://\(listen)/") : .notServed(reason: listenFailure ?? "not listening")
    }

    /// The listener (unless resting after a failed accept) and the clients the server can take
    /// bytes from now.
    func descriptors(_ supervisor: Supervisor) -> [Int32] {
        (acceptPause.isResting ? [] : listener.map { [$0.fileDescriptor] } ?? [])
            + clients.values.filter { wantsToRead($0, supervisor) }.map(\.fileDescriptor)
    }

    /// The clients with bytes for the socket.
    func writeDescriptors(_ supervisor: Supervisor) -> [Int32] {
        clients.values.filter { hasOutput($0, supervisor) }.map(\.fileDescriptor)
    }

    var nextDeadline: MonotonicInstant? {
        ([acceptPause.until] + clients.values.map(\.handshakeDeadline)).compactMap { $0 }.min()
    }

    func owns(_ descriptor: Int32) -> Bool {
        listener?.fileDescriptor == descriptor || connectionOfDescriptor[descriptor] != nil
    }

    private func wantsToRead(_ client: Client, _ supervisor: Supervisor) -> Bool {
        guard !client.ended else { return false }
        guard let session = client.session else { return supervisor.webReadCapacity(of: client.id) > 0 }
        return session.failure == nil && session.bufferedCiphertext < Self.ciphertextBound
            && (!session.isHandshakeComplete || supervisor.webReadCapacity(of: client.id) > 0)
    }

    private func hasOutput(_ client: Client, _ supervisor: Supervisor) -> Bool {
        guard !client.writeShut else { return false }
        guard let session = client.session else { return !supervisor.webOutput(of: client.id).isEmpty }
        return !client.ciphertextOut.isEmpty || session.pendingCiphertext > 0
            || (session.isHandshakeComplete && !supervisor.webOutput(of: client.id).isEmpty)
    }

    // MARK: The loop's calls

    /// A new client on the listener, or bytes (or the end) from one.
    func readable(_ descriptor: Int32, supervisor: inout Supervisor, at now: ClockReadings) {
        if let listener, listener.fileDescriptor == descriptor {
            accept(from: listener, supervisor: &supervisor, at: now)
        } else if let id = connectionOfDescriptor[descriptor], let client = clients[id], wantsToRead(client, supervisor) {
            read(client, supervisor: &supervisor, at: now)
            send(client, supervisor: &supervisor, at: now)
        }
    }

    func writable(_ descriptor: Int32, supervisor: inout Supervisor, at now: ClockReadings) {
        guard let id = connectionOfDescriptor[descriptor], let client = clients[id] else { return }
        send(client, supervisor: &supervisor, at: now)
    }

    /// Before the supervisor's turn: TLS plaintext that waited for room goes to the server, and
    /// handshakes past their deadline end.
    func beforeTurn(supervisor: inout Supervisor, at now: ClockReadings) {
        acceptPause.wake(at: now.monotonic)
        for client in clients.values where client.session != nil && !client.ended {
            if let deadline = client.handshakeDeadline, now.monotonic >= deadline {
                logger.log(.info, "web: connection \(client.id) did not finish its TLS handshake within \(TLS.handshakeTimeout); closed")
                end(client, supervisor: &supervisor, at: now)
                continue
            }
            decrypt(client, supervisor: &supervisor, at: now)
        }
    }

    /// After the supervisor's turn: answers go out at once, not a poll later (most fit the
    /// socket's buffer).
    func afterTurn(supervisor: inout Supervisor, at now: ClockReadings) {
        for client in clients.values where hasOutput(client, supervisor) { send(client, supervisor: &supervisor, at: now) }
    }

    func perform(_ action: Supervisor.Action) {
        switch action {
        case let .webShutdownWrite(id):
            guard let client = clients[id] else { return }
            if let session = client.session {
                session.close()
                client.ciphertextOut += session.takeCiphertext()
                client.shutdownWhenSent = true
                flushCiphertext(client)
            } else {
                shutdownWrite(client)
            }
        case let .webClose(id):
            guard let client = clients.removeValue(forKey: id) else { return }
            connectionOfDescriptor[client.fileDescriptor] = nil
            client.transport.close()
        default:
            break
        }
    }

    /// Closes every client and the listener.
    func close() {
        for client in clients.values { client.transport.close() }
        clients.removeAll()
        connectionOfDescriptor.removeAll()
        listener?.close()
        listener = nil
    }

    // MARK: Accepting

    private func accept(from listener: TCPListener, supervisor: inout Supervisor, at now: ClockReadings) {
        for _ in 0..<Self.acceptsPerTurn {
            let transport: (any ByteTransport)?
            do {
                transport = try listener.accept()
            } catch {
                acceptPause.failed(error, at: now.monotonic, logger: logger)
                return
            }
            guard let transport else { return }
            acceptPause.succeeded(logger: logger)
            var session: TLS.ServerSession?
            if let tls {
                session = TLS.ServerSession(context: tls)
                if session == nil {
                    logger.log(.warning, "web: no memory for a TLS session; a connection refused")
                    transport.close()
                    continue
                }
            }
            let id = supervisor.webConnectionOpened(at: now)
            let client = Client(id: id, transport: transport, session: session,
                                handshakeDeadline: session == nil ? nil : now.monotonic + TLS.handshakeTimeout)
            clients[id] = client
            connectionOfDescriptor[transport.fileDescriptor] = id
            // A refusal (503) is already queued: out now, in this turn.
            send(client, supervisor: &supervisor, at: now)
        }
    }

    // MARK: Reading

    private func read(_ client: Client, supervisor: inout Supervisor, at now: ClockReadings) {
        let limit = client.session.map { Self.ciphertextBound - $0.bufferedCiphertext } ?? supervisor.webReadCapacity(of: client.id)
        guard limit > 0 else { return }
        var buffer: [UInt8] = []
        let count: Int
        do {
            count = try client.transport.read(into: &buffer, maxCount: limit)
        } catch {
            if !error.isWouldBlock { end(client, supervisor: &supervisor, at: now) }
            return
        }
        guard count > 0 else {
            end(client, supervisor: &supervisor, at: now)
            return
        }
        if let session = client.session {
            session.receiveCiphertext(buffer[...])
            if session.isHandshakeComplete { client.handshakeDeadline = nil }
            decrypt(client, supervisor: &supervisor, at: now)
        } else {
            supervisor.webReceived(buffer[...], from: client.id, at: now)
        }
    }

    /// Plaintext the TLS session holds, as much as the server can take now.
    private func decrypt(_ client: Client, supervisor: inout Supervisor, at now: ClockReadings) {
        guard let session = client.session else { return }
        while !client.ended {
            let capacity = supervisor.webReadCapacity(of: client.id)
            guard capacity > 0 else { break }
            let plaintext = session.readPlaintext(maximum: capacity)
            if plaintext.isEmpty { break }
            supervisor.webReceived(plaintext[...], from: client.id, at: now)
        }
        if session.isHandshakeComplete { client.handshakeDeadline = nil }
        if let failure = session.failure, !client.ended {
            logger.log(.info, "web: connection \(client.id): TLS: \(failure); closed")
            client.ciphertextOut += session.takeCiphertext()  // the alert, if it fits
            flushCiphertext(client)
            end(client, supervisor: &supervisor, at: now)
        } else if session.peerClosed, !client.ended {
            end(client, supervisor: &supervisor, at: now)
        }
    }

    /// The peer is gone or the socket failed: the server is told once and closes it.
    private func end(_ client: Client, supervisor: inout Supervisor, at now: ClockReadings) {
        guard !client.ended else { return }
        client.ended = true
        client.handshakeDeadline = nil
        supervisor.webPeerClosed(client.id, at: now)
    }

    // MARK: Writing

    private func send(_ client: Client, supervisor: inout Supervisor, at now: ClockReadings) {
        guard !client.writeShut, clients[client.id] != nil else { return }
        guard let session = client.session else {
            let output = supervisor.webOutput(of: client.id)
            guard !output.isEmpty else { return }
            do {
                let written = try StreamSocket.send(client.fileDescriptor, output)
                if written > 0 { supervisor.webSent(written, to: client.id, at: now) }
            } catch {
                end(client, supervisor: &supervisor, at: now)
            }
            return
        }
        client.ciphertextOut += session.takeCiphertext()
        while session.isHandshakeComplete, client.ciphertextOut.count < Self.ciphertextBound {
            let output = supervisor.webOutput(of: client.id)
            guard !output.isEmpty else { break }
            let taken = session.writePlaintext(output.prefix(16 * 1024))
            guard taken > 0 else { break }
            supervisor.webSent(taken, to: client.id, at: now)
            client.ciphertextOut += session.takeCiphertext()
        }
        if !flushCiphertext(client) { end(client, supervisor: &supervisor, at: now) }
    }

    /// Sends queued TLS records; false when the socket failed.
    @discardableResult
    private func flushCiphertext(_ client: Client) -> Bool {
        if !client.ciphertextOut.isEmpty {
            do {
                let written = try StreamSocket.send(client.fileDescriptor, client.ciphertextOut[...])
                client.ciphertextOut.removeFirst(written)
            } catch {
                client.ciphertextOut.removeAll()
                return false
            }
        }
        if client.shutdownWhenSent, client.ciphertextOut.isEmpty { shutdownWrite(client) }
        return true
    }

    private func shutdownWrite(_ client: Client) {
        guard !client.writeShut else { return }
        client.writeShut = true
        do { try StreamSocket.shutdownWrite(client.fileDescriptor) } catch { logger.log(.debug, "web: connection \(client.id): \(error)") }
    }
}
