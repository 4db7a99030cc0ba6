import Platform
import TLS
import Web

/// `HTTP.Client`'s actions performed on the one poll loop (docs/network.md "The executable's
/// side", docs/http-client.md). It decides nothing: `.open` resolves the name on a thread of
/// its own (`NameResolution`), connects without blocking (`TCPConnector`), and over TLS runs a
/// `TLS.ClientSession` with the URL's host as the server name; `.send` writes; bytes read
/// become `.received`, the end `.peerClosed`; every step's end is reported as an event for
/// the owner to hand to the client (`takeEvents()`). No time-out here: every one is the
/// client's, and its `.close` ends whatever is under way (a resolution is abandoned).
///
/// Nothing here may hold the loop: sockets are non-blocking, a readable socket is read for at
/// most `readBudget` bytes a turn, and no bytes are logged (a request carries secrets).
final class HTTPRunner {
    /// Where connections go instead (`--connect-to`); the names checked stay the URL's.
    let connectTo: [HTTP.ConnectTo]
    private let authorities: CertificateAuthorities
    private let logger: Logger?
    private var connections: [HTTP.ExchangeID: Connection] = [:]
    private var events: [HTTP.Client.Event] = []

    /// Ciphertext or plaintext read from one socket in one call: a fast server cannot keep
    /// the loop from its other work.
    static let readBudget = 64 * 1024

    init(authorities: CertificateAuthorities, connectTo: [HTTP.ConnectTo] = [], logger: Logger?) {
        self.authorities = authorities
        self.connectTo = connectTo
        self.logger = logger
    }

    private final class Connection {
        enum Stage {
            case resolving(NameResolution)
            case connecting(TCPConnector)
            case open(any ByteTransport)
            /// Reported failed or closed: waiting for the client's `.close`.
            case ended
        }

        let id: HTTP.ExchangeID
        /// The URL's host: TLS's server name and the certificate's check.
        let host: String
        /// What is resolved: the URL's host, or the address `--connect-to` gives for it.
        let connectHost: String
        /// "127.0.0.1:8443": where it connects, for the errors.
        let target: String
        let tls: Bool
        var stage: Stage
        var session: TLS.ClientSession?
        /// Request bytes waiting for the handshake (TLS) or for room in the socket (plain).
        var plaintextOut: [UInt8] = []
        var ciphertextOut: [UInt8] = []
        /// A `.send` came and `.sent` is still to be reported once it is all out.
        var sendPending = false

        init(id: HTTP.ExchangeID, host: String, connectHost: String, target: String, tls: Bool, stage: Stage) {
            self.id = id
            self.host = host
            self.connectHost = connectHost
            self.target = target
            self.tls = tls
            self.stage = stage
        }

        var transport: (any ByteTransport)? {
            if case let .open(transport) = stage { transport } else { nil }
        }
    }

    // MARK: The owner's calls

    /// The events since the last call, in order, for `HTTP.Client.handle`.
    func takeEvents() -> [HTTP.Client.Event] {
        defer { events.removeAll() }
        return events
    }

    var hasEvents: Bool { !events.isEmpty }

    /// Resolutions under way and open sockets: poll for reading.
    var descriptors: [Int32] {
        connections.values.compactMap { connection in
            switch connection.stage {
            case let .resolving(resolution): resolution.descriptor
            case let .open(transport): transport.fileDescriptor
            case .connecting, .ended: nil
            }
        }
    }

    /// Connects under way, and sockets with bytes queued: poll for writing.
    var writeDescriptors: [Int32] {
        connections.values.compactMap { connection in
            switch connection.stage {
            case let .connecting(connector): connector.fileDescriptor >= 0 ? connector.fileDescriptor : nil
            case let .open(transport): hasOutput(connection) ? transport.fileDescriptor : nil
            case .resolving, .ended: nil
            }
        }
    }

    func owns(_ descriptor: Int32) -> Bool { connection(of: descriptor) != nil }

    func perform(_ action: HTTP.Client.Action) {
        switch action {
        case let .open(id, host, port, tls):
            open(id, host: host, port: port, tls: tls)
        case let .send(id, bytes):
            guard let connection = connections[id], case .open = connection.stage else { return }
            connection.plaintextOut += bytes
            connection.sendPending = true
            flush(connection)
        case let .close(id):
            guard let connection = connections.removeValue(forKey: id) else { return }
            end(connection, politely: true)
        }
    }

    func readable(_ descriptor: Int32) {
        guard let connection = connection(of: descriptor) else { return }
        switch connection.stage {
        case let .resolving(resolution):
            resolved(connection, resolution.finish())
        case let .open(transport):
            read(connection, from: transport)
        case .connecting, .ended:
            break
        }
    }

    func writable(_ descriptor: Int32) {
        guard let connection = connection(of: descriptor) else { return }
        switch connection.stage {
        case let .connecting(connector):
            switch connector.writable() {
            case .connecting: break
            case let .connected(transport, address): connected(connection, transport, address)
            case let .failed(error): fail(connection, .connectFailed(Self.reason(error, at: connection.target)))
            }
        case .open:
            flush(connection)
        case .resolving, .ended:
            break
        }
    }

    /// Every connection closed, every resolution abandoned: the run is ending.
    func close() {
        for connection in connections.values { end(connection, politely: false) }
        connections.removeAll()
    }

    // MARK: Steps

    private func connection(of descriptor: Int32) -> Connection? {
        connections.values.first { connection in
            switch connection.stage {
            case let .resolving(resolution): resolution.descriptor == descriptor
            case let .connecting(connector): connector.fileDescriptor == descriptor
            case let .open(transport): transport.fileDescriptor == descriptor
            case .ended: false
            }
        }
    }

    private func open(_ id: HTTP.ExchangeID, host: String, port: UInt16, tls: Bool) {
        let (address, addressPort) = HTTP.ConnectTo.target(host: host, port: port, rules: connectTo)
        let target = address.contains(":") ? "[\(address)]:\(addressPort)" : "\(address):\(addressPort)"
        if let numeric = SocketAddress.numeric(address, port: addressPort) {
            let connection = Connection(id: id, host: host, connectHost: address, target: target, tls: tls, stage: .ended)
            connections[id] = connection
            events.append(.resolved(id))
            startConnecting(connection, to: [numeric])
            return
        }
        do {
            let resolution = try NameResolution(host: address, port: addressPort)
            connections[id] = Connection(id: id, host: host, connectHost: address, target: target, tls: tls, stage: .resolving(resolution))
        } catch {
            connections[id] = Connection(id: id, host: host, connectHost: address, target: target, tls: tls, stage: .ended)
            events.append(.failed(id, .resolveFailed("\(address): \(error.reason)")))
        }
    }

    private func resolved(_ connection: Connection, _ result: Result<[SocketAddress], PlatformError>) {
        switch result {
        case let .success(addresses):
            events.append(.resolved(connection.id))
            startConnecting(connection, to: addresses)
        case let .failure(error):
            connection.stage = .ended
            events.append(.failed(connection.id, .resolveFailed("\(connection.connectHost): \(error.reason)")))
        }
    }

    private func startConnecting(_ connection: Connection, to addresses: [SocketAddress]) {
        let connector = TCPConnector(target: connection.target, addresses: addresses)
        if let failure = connector.failure {
            connection.stage = .ended
            events.append(.failed(connection.id, .connectFailed(Self.reason(failure, at: connection.target))))
        } else {
            connection.stage = .connecting(connector)
        }
    }

    private func connected(_ connection: Connection, _ transport: any ByteTransport, _ address: SocketAddress) {
        connection.stage = .open(transport)
        logger?.log(.debug, "http \(connection.id): connected to \(address)")
        events.append(.connected(connection.id))
        guard connection.tls else { return }
        switch authorities.context() {
        case let .success(context):
            do throws(TLS.Failure) {
                connection.session = try TLS.ClientSession(context: context, serverName: connection.host)
                flush(connection)  // the ClientHello
            } catch {
                fail(connection, .tlsFailed(error.description))
            }
        case let .failure(unavailable):
            fail(connection, .tlsFailed(unavailable.description))
        }
    }

    private func read(_ connection: Connection, from transport: any ByteTransport) {
        var budget = Self.readBudget
        var buffer: [UInt8] = []
        while budget > 0 {
            let count: Int
            do {
                count = try transport.read(into: &buffer, maxCount: min(budget, 16 * 1024))
            } catch {
                if error.isWouldBlock { break }
                return fail(connection, connection.session?.isHandshakeComplete == false
                    ? .tlsFailed("the connection failed during the handshake: \(error.reason)") : .closedBeforeResponse)
            }
            guard count > 0 else {
                if let session = connection.session, !session.isHandshakeComplete {
                    return fail(connection, .tlsFailed("the server closed the connection during the handshake"))
                }
                connection.stage = .ended
                events.append(.peerClosed(connection.id))
                return
            }
            budget -= count
            guard let session = connection.session else {
                events.append(.received(connection.id, Array(buffer.prefix(count))))
                continue
            }
            let wasSecured = session.isHandshakeComplete
            session.receiveCiphertext(buffer.prefix(count))
            if !decrypt(connection, session, wasSecured: wasSecured) { return }
        }
    }

    /// The session's progress after ciphertext came: the handshake's end, plaintext, the
    /// server's close_notify, or its failure. False once the connection has ended.
    private func decrypt(_ connection: Connection, _ session: TLS.ClientSession, wasSecured: Bool) -> Bool {
        if !wasSecured, session.isHandshakeComplete {
            events.append(.secured(connection.id))
            flush(connection)
        }
        while case let plaintext = session.readPlaintext(maximum: 16 * 1024), !plaintext.isEmpty {
            events.append(.received(connection.id, plaintext))
        }
        if let failure = session.failure {
            fail(connection, .tlsFailed(failure.description))
            return false
        }
        if session.peerClosed {
            connection.stage = .ended
            events.append(.peerClosed(connection.id))
            return false
        }
        flush(connection)  // a TLS 1.3 key update or an alert the session wants sent
        return true
    }

    private func hasOutput(_ connection: Connection) -> Bool {
        guard let session = connection.session else { return !connection.plaintextOut.isEmpty }
        return !connection.ciphertextOut.isEmpty || session.pendingCiphertext > 0
            || (session.isHandshakeComplete && !connection.plaintextOut.isEmpty)
    }

    /// Sends what is queued, as far as the socket takes it; `.sent` once the request is out.
    private func flush(_ connection: Connection) {
        guard let transport = connection.transport else { return }
        var pending: ArraySlice<UInt8>
        if let session = connection.session {
            while session.isHandshakeComplete, !connection.plaintextOut.isEmpty {
                let taken = session.writePlaintext(connection.plaintextOut[...])
                guard taken > 0 else { break }
                connection.plaintextOut.removeFirst(taken)
            }
            connection.ciphertextOut += session.takeCiphertext()
            if let failure = session.failure { return fail(connection, .tlsFailed(failure.description)) }
            pending = connection.ciphertextOut[...]
        } else {
            pending = connection.plaintextOut[...]
        }
        do {
            let written = try StreamSocket.send(transport.fileDescriptor, pending)
            if connection.session != nil { connection.ciphertextOut.removeFirst(written) } else { connection.plaintextOut.removeFirst(written) }
        } catch {
            return fail(connection, connection.session?.isHandshakeComplete == false
                ? .tlsFailed("the connection failed during the handshake: \(error.reason)") : .closedBeforeResponse)
        }
        if connection.sendPending, connection.plaintextOut.isEmpty, connection.ciphertextOut.isEmpty {
            connection.sendPending = false
            events.append(.sent(connection.id))
        }
    }

    private func fail(_ connection: Connection, _ failure: HTTP.ClientFailure) {
        guard connections[connection.id] != nil else { return }
        end(connection, politely: false)
        events.append(.failed(connection.id, failure))
    }

    /// Stops the connection's work: a resolution abandoned, a connect or a socket closed (over
    /// TLS after a close_notify when `politely` and the socket takes it now).
    private func end(_ connection: Connection, politely: Bool) {
        switch connection.stage {
        case let .resolving(resolution): resolution.abandon()
        case let .connecting(connector): connector.close()
        case let .open(transport):
            if politely, let session = connection.session, session.isHandshakeComplete, session.failure == nil {
                session.close()
                _ = try? StreamSocket.send(transport.fileDescriptor, session.takeCiphertext()[...])
            }
            transport.close()
        case .ended: break
        }
        connection.stage = .ended
    }

    /// A platform error as the user's line: the reason and where ("Connection refused
    /// (127.0.0.1:8443)").
    static func reason(_ error: PlatformError, at target: String) -> String {
        "\(error.reason) (\(target))"
    }
}
