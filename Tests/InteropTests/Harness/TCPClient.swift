import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking IPv4 loopback TCP client with receive timeouts, for the harness self-tests
/// that speak raw H4 to a rig (the product's own transport lives in `Platform`).
final class TCPClient {
    private let descriptor: Int32

    init(port: Int, receiveTimeout: Duration = .seconds(5)) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError.launchFailed("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw HarnessError.launchFailed("connect to 127.0.0.1:\(port) failed: errno \(error)")
        }
        let seconds = receiveTimeout.components.seconds
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == bytes.count else { throw HarnessError.launchFailed("send failed: errno \(errno)") }
    }

    /// Reads exactly `count` bytes, or throws at the receive timeout / peer close.
    func receive(exactly count: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while out.count < count {
            let wanted = count - out.count
            let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, wanted, 0) }
            guard got > 0 else {
                throw HarnessError.malformedOutput("receive got \(out.count)/\(count) bytes (errno \(errno))")
            }
            out += buffer[0..<got]
        }
        return out
    }
}
