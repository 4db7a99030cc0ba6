import App
import Clocks
import Platform

/// The daemon's end of `vigil status`: a unix stream socket where a client writes one
/// request line (`StatusRequest`) and gets the appliance's status back, then the connection is
/// closed. It also keeps the `StatusBoard` the answers are built from.
///
/// The owner's poll loop drives it, as it drives `SerialExportServer`:
/// - register `descriptors` for reading (the listener and clients still sending their request);
/// - call `readable(_:at:answer:)` for any event on one of them;
/// - register `writeDescriptors` for room to write and call `writable(at:)` when one has it:
///   answers go out with non-blocking sends, `bytesPerTurn` at most, and a client that does
///   not read is dropped at its deadline;
/// - call `handleDeadline(at:)` at `nextDeadline`; `close()` at the end.
///
/// Nothing here may hold the loop: a client that connects and says nothing is dropped after
/// `requestTimeout`, at most `maximumClients` are served at once (more are told ERR and
/// closed), and no call blocks.
final class StatusServer {
    let path: String
    let requestTimeout: Duration
    let answerTimeout: Duration
    let maximumClients: Int
    let bytesPerTurn: Int
    private let logger: Logger
    private var listener: UnixStreamSocket.Listener?
    private var clients: [Client] = []
    /// Rests the listener after a failed accept (EMFILE, ENFILE, ENOMEM).
    private var acceptPause = AcceptPause(what: "status")
    /// What the answers are built from, fed by the session's events.
    var board: StatusBoard

    private final class Client {
        let transport: any ByteTransport
        var reader = StatusRequest.Reader()
        var deadline: MonotonicInstant
        var outgoing: [UInt8] = []
        var sent = 0
        var isAnswering = false

        init(transport: any ByteTransport, deadline: MonotonicInstant) {
            self.transport = transport
            self.deadline = deadline
        }
    }

    init(path: String, board: StatusBoard, logger: Logger, requestTimeout: Duration = .seconds(2), answerTimeout: Duration = .seconds(5),
         maximumClients: Int = 4, bytesPerTurn: Int = 16 * 1024) {
        self.path = path
        self.board = board
        self.logger = logger
        self.requestTimeout = requestTimeout
        self.answerTimeout = answerTimeout
        self.maximumClients = max(1, maximumClients)
        self.bytesPerTurn = max(1, bytesPerTurn)
    }

    /// Creates the socket. Never fatal: the alarms matter more than the status socket. Another
    /// live daemon on the path is an error line (two appliances fighting over one radio is
    /// worth a look); anything else (no /run/vigil outside systemd) a warning.
    func open() {
        do {
            listener = try UnixStreamSocket.Listener.listen(path: path, mode: 0o660)
            logger.log(.info, "status: answering on \(path)")
        } catch where error.isAddressInUse {
            logger.log(.error, "status: \(error); running without the status socket")
        } catch {
            logger.log(.warning, "status: \(error); running without the status socket")
        }
    }

    var isListening: Bool { listener != nil }

    var descriptors: [Int32] {
        (!acceptPause.isResting ? listener.map { [$0.fileDescriptor] } ?? [] : [])
            + clients.filter { !$0.isAnswering }.map(\.transport.fileDescriptor)
    }

    /// The clients with an answer still to send: watched for room to write.
    var writeDescriptors: [Int32] { clients.filter(\.isAnswering).map(\.transport.fileDescriptor) }

    var nextDeadline: MonotonicInstant? { (clients.map(\.deadline) + [acceptPause.until].compactMap { $0 }).min() }

    /// A new client on the listener, or bytes (or the end) from one. `answer` builds the reply
    /// to a well-formed request at the moment it completes.
    func readable(_ fileDescriptor: Int32, at now: MonotonicInstant, answer: (StatusRequest) -> String) {
        if let listener, listener.fileDescriptor == fileDescriptor {
            accept(from: listener, at: now)
            return
        }
        guard let client = clients.first(where: { $0.transport.fileDescriptor == fileDescriptor }), !client.isAnswering else { return }
        var buffer: [UInt8] = []
        let outcome: Result<StatusRequest, StatusRequest.Rejection>?
        do {
            let count = try client.transport.read(into: &buffer, maxCount: StatusRequest.maximumLineLength)
            outcome = count == 0 ? client.reader.endOfStream() : client.reader.receive(buffer)
        } catch where error.isWouldBlock {
            return
        } catch {
            drop(client, because: "\(error)")
            return
        }
        guard let outcome else { return }
        let reply: String
        switch outcome {
        case .success(let request):
            reply = answer(request)
        case .failure(let rejection):
            logger.log(.info, "status: refused a request: \(rejection)")
            reply = StatusRequest.errorLine(rejection)
        }
        client.outgoing = Array(reply.utf8)
        client.isAnswering = true
        client.deadline = now + answerTimeout
        send(client)
    }

    /// The loop's once-a-turn call: drops clients whose time is up and sends what can go.
    func endOfTurn(at now: MonotonicInstant) {
        if let due = nextDeadline, now >= due { handleDeadline(at: now) }
        writable(at: now)
    }

    /// Writes what the clients' sockets take now; a finished answer closes its connection.
    func writable(at now: MonotonicInstant) {
        for client in clients where client.isAnswering { send(client) }
    }

    /// Drops clients whose time is up: silent ones, and ones that stopped reading their
    /// answer; watches the listener again after a pause.
    func handleDeadline(at now: MonotonicInstant) {
        acceptPause.wake(at: now)
        for client in clients where now >= client.deadline {
            drop(client, because: client.isAnswering ? "did not read its answer within \(answerTimeout)" : "sent no request within \(requestTimeout)")
        }
    }

    /// Closes every connection and the listener, removing the socket file.
    func close() {
        for client in clients { client.transport.close() }
        clients.removeAll()
        listener?.close()
        listener = nil
    }

    private func accept(from listener: UnixStreamSocket.Listener, at now: MonotonicInstant) {
        // A few per turn: a flood of connections cannot hold the loop.
        for _ in 0..<maximumClients {
            let transport: (any ByteTransport)?
            do {
                transport = try listener.accept()
            } catch {
                acceptPause.failed(error, at: now, logger: logger)
                return
            }
            guard let transport else { return }
            acceptPause.succeeded(logger: logger)
            guard clients.count < maximumClients else {
                // Best effort: a refusal that does not fit at once is not waited for.
                _ = try? UnixStreamSocket.send(transport.fileDescriptor, ArraySlice(StatusRequest.busyLine.utf8))
                Self.closeQuietly(transport)
                logger.log(.info, "status: \(maximumClients) clients already connected; one more refused")
                continue
            }
            clients.append(Client(transport: transport, deadline: now + requestTimeout))
        }
    }

    private func send(_ client: Client) {
        var budget = bytesPerTurn
        while client.sent < client.outgoing.count, budget > 0 {
            let written: Int
            do {
                written = try UnixStreamSocket.send(client.transport.fileDescriptor,
                                                    client.outgoing[client.sent..<min(client.outgoing.count, client.sent + budget)])
            } catch {
                drop(client, because: "\(error)")
                return
            }
            if written == 0 { return }  // the socket is full: the next turn tries again
            client.sent += written
            budget -= written
        }
        if client.sent == client.outgoing.count { remove(client) }
    }

    private func drop(_ client: Client, because reason: String) {
        logger.log(.info, "status: client dropped: \(reason)")
        remove(client)
    }

    private func remove(_ client: Client) {
        Self.closeQuietly(client.transport)
        clients.removeAll { $0 === client }
    }

    /// Reads and drops what the client sent beyond its request before closing: Linux resets a
    /// unix socket closed with bytes unread, and the client would see ECONNRESET instead of
    /// the end of its answer. Bounded: a client cannot keep the loop reading.
    private static func closeQuietly(_ transport: any ByteTransport) {
        var scratch: [UInt8] = []
        for _ in 0..<4 {
            guard let count = try? transport.read(into: &scratch, maxCount: 4096), count > 0 else { break }
        }
        transport.close()
    }
}

extension StatusRequest {
    /// Said to a client beyond `StatusServer.maximumClients`.
    static let busyLine = "ERR busy: too many status clients at once, try again\n"
}

extension ApplianceSession {
    /// The reply to a status request, from the appliance, the alarm engine and the history as
    /// they are at `now`.
    func statusAnswer(_ request: StatusRequest, board: StatusBoard, at now: ClockReadings) -> String {
        var status = board.snapshot(
            links: supervisor.links(at: now.monotonic), alarms: supervisor.face?.alarms.engine.activeAlarms ?? [],
            history: history.store.map { ApplianceStatus.History(path: $0.path, pendingRows: $0.pendingCount) },
            at: now.monotonic, wallNow: now.wall)
        status.web = webServer?.status
        status.upload = supervisor.uploadStatus.map { ApplianceStatus.Upload(status: $0, fault: $0.fault(at: now.monotonic)) }
        switch request {
        case .text: return status.text
        case .json: return status.json.rendered + "\n"
        }
    }
}
