import Foundation
import HCI

#if canImport(Glibc)
import Glibc
#endif

/// A controller that misbehaves on cue: a TCP H4 proxy between `vigil --hci tcp:127.0.0.1:PORT`
/// and a rig's virtual controller, which forwards whole H4 packets both ways until its fault
/// is due, then does what a failing controller does. Only the first connection misbehaves;
/// every later one is forwarded faithfully, so the test sees the recovery too.
///
/// Packets are framed with the product's `HCI.H4Framer`; the proxy never changes a byte it
/// forwards. Closing the upstream connection makes the rig drop its links (reason 0x13,
/// Tests/Rigs/README.md), as a controller that went away would, so the peripheral advertises
/// again for the reconnection.
final class H4FaultProxy: @unchecked Sendable {
    enum Fault: Sendable {
        /// Once `notifications` ATT Handle Value Notifications reached vigil (a transmitter is
        /// connected and sending), both sides are closed (vigil reads end of stream) and nothing
        /// listens on the port for `outage`; then the same port serves again.
        case vanishAfterNotifications(Int, outage: Duration)
        /// The first connection is accepted and read but never answered: a controller that
        /// ignores HCI Reset.
        case ignoreFirstConnection
        /// When vigil sends the command with this opcode, that command is not delivered and
        /// nothing more reaches vigil on the connection: a controller that answered bring-up,
        /// then hung.
        case fallSilentAtCommand(UInt16)
    }

    /// The port vigil connects to.
    private(set) var port = 0
    private let upstreamPort: Int
    private let fault: Fault
    private let lock = NSLock()
    private var happenings: [String] = []
    private var stopRequested = false
    private let finished = DispatchSemaphore(value: 0)
    private var listener: Int32 = -1

    init(upstreamPort: Int, fault: Fault) throws {
        self.upstreamPort = upstreamPort
        self.fault = fault
        listener = try Self.listen(port: 0)
        port = Self.localPort(of: listener)
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.start()
    }

    deinit { stop() }

    /// Ends the proxy thread and closes every socket; idempotent.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopRequested = true }
            return !stopRequested
        }
        if first { _ = finished.wait(timeout: .now() + 5) }
    }

    /// What the proxy did, in order ("connection 1 accepted", "vanished", ...), for assertions
    /// and failure messages.
    var events: [String] { lock.withLock { happenings } }

    private func record(_ text: String) { lock.withLock { happenings.append(text) } }
    private var shouldStop: Bool { lock.withLock { stopRequested } }

    // MARK: - The proxy thread

    private func run() {
        var index = 0
        while !shouldStop {
            guard listener >= 0 else { return }
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) == 1 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            index += 1
            record("connection \(index) accepted")
            serve(client, index: index)
        }
        if listener >= 0 { close(listener) }
    }

    private func serve(_ client: Int32, index: Int) {
        let misbehaves = index == 1
        var upstream: Int32 = -1
        if !(misbehaves && isIgnoring) {
            upstream = Self.connect(port: upstreamPort)
            if upstream < 0 {
                record("connection \(index): cannot reach the rig (errno \(errno))")
                close(client)
                return
            }
        }
        defer {
            close(client)
            if upstream >= 0 { close(upstream) }
        }
        var fromHost = HCI.H4Framer()
        var fromController = HCI.H4Framer()
        var silent = false
        var notifications = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !shouldStop {
            var entries = [pollfd(fd: client, events: Int16(POLLIN), revents: 0)]
            if upstream >= 0 { entries.append(pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)) }
            guard poll(&entries, nfds_t(entries.count), 100) > 0 else { continue }
            if entries[0].revents != 0 {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 {
                    record("connection \(index) closed by vigil")
                    return
                }
                guard upstream >= 0 else { continue }  // ignored: read and dropped
                fromHost.append(buffer[0..<n])
                while let packet = try? fromHost.nextPacket() {
                    if misbehaves, case .fallSilentAtCommand(let opcode) = fault, !silent, Self.opcode(of: packet) == opcode {
                        silent = true
                        record("connection \(index) fell silent at command 0x\(String(opcode, radix: 16))")
                        continue
                    }
                    if silent { continue }
                    guard Self.send(packet, to: upstream) else { return }
                }
            }
            if upstream >= 0, entries[1].revents != 0 {
                let n = read(upstream, &buffer, buffer.count)
                if n <= 0 {
                    record("connection \(index): the rig closed")
                    return
                }
                fromController.append(buffer[0..<n])
                while let packet = try? fromController.nextPacket() {
                    if silent { continue }
                    guard Self.send(packet, to: client) else { return }
                    if Self.isNotification(packet) { notifications += 1 }
                    if misbehaves, case let .vanishAfterNotifications(count, outage) = fault, notifications >= count {
                        vanish(client: client, index: index, outage: outage)
                        return
                    }
                }
            }
        }
    }

    private var isIgnoring: Bool {
        if case .ignoreFirstConnection = fault { return true }
        return false
    }

    /// Closes vigil's connection with a FIN (not a reset: whatever vigil sent is read first,
    /// so vigil sees end of stream), stops listening for `outage`, then listens again.
    private func vanish(client: Int32, index: Int, outage: Duration) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while recv(client, &scratch, scratch.count, Int32(MSG_DONTWAIT)) > 0 {}
        shutdown(client, Int32(SHUT_WR))
        close(listener)
        listener = -1
        record("connection \(index) vanished")
        // Keep reading until vigil closes its end, so no unread byte turns our close into a reset.
        let end = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < end {
            var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 50) == 1, recv(client, &scratch, scratch.count, Int32(MSG_DONTWAIT)) <= 0 { break }
        }
        let back = ContinuousClock.now + outage
        while ContinuousClock.now < back, !shouldStop { Thread.sleep(forTimeInterval: 0.02) }
        do {
            listener = try Self.listen(port: port)
            record("listening again on \(port)")
        } catch {
            record("cannot listen again on \(port): \(error)")
        }
    }

    // MARK: - Packets

    /// The opcode of an H4 command packet, nil for anything else.
    static func opcode(of packet: [UInt8]) -> UInt16? {
        guard packet.count >= 3, packet[0] == HCI.PacketType.command.rawValue else { return nil }
        return UInt16(packet[1]) | UInt16(packet[2]) << 8
    }

    /// An ACL packet carrying an ATT Handle Value Notification (opcode 0x1B) on the ATT
    /// channel (CID 0x0004): H4 type, handle (2), length (2), L2CAP length (2), CID (2), opcode.
    static func isNotification(_ packet: [UInt8]) -> Bool {
        packet.count >= 10 && packet[0] == HCI.PacketType.aclData.rawValue
            && packet[7] == 0x04 && packet[8] == 0x00 && packet[9] == 0x1B
    }

    // MARK: - Sockets

    private static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func listen(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.launchFailed("proxy socket() failed: errno \(errno)") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 4) == 0 else {
            let code = errno
            close(fd)
            throw HarnessError.launchFailed("proxy cannot listen on 127.0.0.1:\(port): errno \(code)")
        }
        return fd
    }

    private static func localPort(of fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func connect(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
}
