#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// One address a TCP connection can be made to, copied out of getaddrinfo's list so it can
/// cross threads and outlive the list.
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    /// AF_INET or AF_INET6.
    let family: Int32
    /// The `sockaddr_in` or `sockaddr_in6`, byte for byte.
    let storage: [UInt8]
    /// "127.0.0.1:443" or "[::1]:443".
    public let description: String

    init(family: Int32, address: UnsafePointer<sockaddr>, length: socklen_t, text: String) {
        self.family = family
        storage = Array(UnsafeRawBufferPointer(start: address, count: Int(length)))
        description = text
    }

    /// Every address getaddrinfo gives for `host` and `port`, in its order (RFC 6724's, from
    /// /etc/gai.conf). Blocks for as long as the resolver takes: call it on a thread of its
    /// own (`NameResolution`), unless `host` is numeric.
    static func resolve(host: String, port: UInt16) throws(PlatformError) -> [SocketAddress] {
        let target = TCPConnection.target(host: host, port: port)
        let list = try SocketAddressList(host: host, port: port, passive: false, target: target)
        defer { list.release() }
        return list.entries.map { SocketAddress(family: $0.family, address: $0.address, length: $0.length, text: $0.text) }
    }

    /// `host` as a numeric IPv4 or IPv6 address (no brackets), without asking any resolver;
    /// nil when it is a name.
    public static func numeric(_ host: String, port: UInt16) -> SocketAddress? {
        var list: UnsafeMutablePointer<addrinfo>?
        guard vigil_resolve_numeric_tcp(host, String(port), &list) == 0, let list else { return nil }
        defer { freeaddrinfo(list) }
        guard let address = list.pointee.ai_addr else { return nil }
        var text = [CChar](repeating: 0, count: 128)
        let formatted = vigil_format_address(address, list.pointee.ai_addrlen, &text, text.count) == 0
        return SocketAddress(family: list.pointee.ai_family, address: address, length: list.pointee.ai_addrlen,
                             text: formatted ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : TCPConnection.target(host: host, port: port))
    }
}
