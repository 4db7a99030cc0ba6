import Glibc
import Testing
@testable import Platform

/// A controller that vanishes under the HCI user channel (unplugged, powered off,
/// reset), at the unit level: this kernel has no Bluetooth, so the user channel cannot be
/// opened here. What vigil's runner relies on is that such a read or write *throws* an error
/// that is not "would block" (TransportLink passes would-block off as "no data yet"; anything
/// else closes the link, raises the controller-lost fault and reopens, as
/// FaultControllerInteropTests shows for end of stream), and never returns 0 bytes or traps.
///
/// Linux says "gone" in several words: the HCI user channel sets EPIPE on its sockets when the
/// controller unregisters and answers writes with EBADFD (net/bluetooth/hci_sock.c,
/// hci_sock_dev_event and hci_sock_sendmsg); UART and USB drivers say ENODEV or ENXIO; a
/// packet socket whose interface went away says ENETDOWN, then ENXIO. The first test makes
/// the kernel really do the last: a tap interface (from /dev/net/tun, no Bluetooth needed)
/// is deleted under a packet socket bound to it.
@Suite struct FaultDeviceGoneTests {
    static let canMakeTap = getuid() == 0 && FileSystem.exists(path: "/dev/net/tun")

    @Test(.enabled(if: canMakeTap, "needs root and /dev/net/tun to make an interface to take away"))
    func aDeviceDeletedUnderAPacketSocketThrowsDeviceGoneNotWouldBlock() throws {
        let name = "vgf\(UInt16.random(in: 0...0xFFFF))"
        let tap = try Tap(name: name)
        let index = try tap.bringUp()
        let transport = try FileDescriptorTransport(adopting: try Self.packetSocket(boundTo: index), kind: .packetSocket, name: name)
        tap.remove()
        // The kernel unregisters the interface when the last reference to its /dev/net/tun
        // file goes, which is not always this close: a test running beside this one that
        // spawns a process lends its child a copy of every descriptor until that child execs
        // (CI saw the read answer EAGAIN and the write EINVAL, the device still there).
        #expect(Tap.waitUntilGone(name, within: 5.0), "\(name) still exists 5 s after its tap closed")

        var buffer: [UInt8] = []
        do {
            let count = try transport.read(into: &buffer, maxCount: HCIUserChannel.maximumPacketSize)
            Issue.record("read \(count) bytes from a device that is gone")
        } catch {
            #expect(error.errno == ENETDOWN)
            #expect(!error.isWouldBlock)
            #expect(error.hint == "the device went away (unplugged, powered off or reset)")
            #expect(error.description.hasPrefix("read(\(name)) failed: Network is down (ENETDOWN)"), "\(error)")
        }
        do {
            try transport.write([0x01, 0x03, 0x0C, 0x00])  // HCI Reset, Core v5.4 Vol 4 Part E §7.3.2
            Issue.record("wrote to a device that is gone")
        } catch {
            #expect(error.errno == ENXIO)
            #expect(!error.isWouldBlock)
            #expect(error.operation == "write(\(name))")
        }
    }

    /// Every errno a vanished controller produces is an error of its own, never "would block"
    /// (which the runner would take for "no data yet" and wait on for ever), and says its name.
    @Test(arguments: [ENODEV, ENXIO, ENETDOWN, EPIPE, EBADFD, EIO, ECONNRESET, ESHUTDOWN])
    func theErrnosOfAVanishedControllerAreNeverWouldBlock(code: Int32) {
        let error = PlatformError.system("read(hci0)", errno: code)
        #expect(!error.isWouldBlock)
        #expect(error.errnoName != nil, "errno \(code) has no name in messages")
    }

    // MARK: - A tap interface, made with ioctls (no `ip` needed)

    /// A non-persistent tap: it exists while its /dev/net/tun descriptor is open.
    final class Tap {
        let name: String
        private var fd: Int32

        init(name: String) throws {
            self.name = name
            fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { throw PlatformError.system("open(/dev/net/tun)", errno: errno) }
            var request = Self.interfaceRequest(name)
            // struct ifreq: the name, then ifr_flags (short) at offset 16. IFF_TAP | IFF_NO_PI.
            Self.store(UInt16(0x0002 | 0x1000), at: 16, in: &request)
            // TUNSETIFF = _IOW('T', 202, int) (linux/if_tun.h).
            guard request.withUnsafeMutableBytes({ ioctl(fd, UInt(0x4004_54CA), $0.baseAddress!) }) == 0 else {
                let code = errno
                close(fd)
                throw PlatformError.system("ioctl(TUNSETIFF \(name))", errno: code)
            }
        }

        deinit { remove() }

        /// Sets IFF_UP (a packet socket bound to a down interface fails at once) and returns the index.
        func bringUp() throws -> Int32 {
            let control = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard control >= 0 else { throw PlatformError.system("socket(AF_INET)", errno: errno) }
            defer { close(control) }
            var request = Self.interfaceRequest(name)
            guard request.withUnsafeMutableBytes({ ioctl(control, UInt(0x8913), $0.baseAddress!) }) == 0 else {
                throw PlatformError.system("ioctl(SIOCGIFFLAGS \(name))", errno: errno)
            }
            let flags = UInt16(request[16]) | UInt16(request[17]) << 8
            Self.store(flags | 0x0001, at: 16, in: &request)  // IFF_UP
            guard request.withUnsafeMutableBytes({ ioctl(control, UInt(0x8914), $0.baseAddress!) }) == 0 else {
                throw PlatformError.system("ioctl(SIOCSIFFLAGS \(name))", errno: errno)
            }
            // SIOCGIFFLAGS 0x8913, SIOCSIFFLAGS 0x8914, SIOCGIFINDEX 0x8933 (linux/sockios.h).
            request = Self.interfaceRequest(name)
            guard request.withUnsafeMutableBytes({ ioctl(control, UInt(0x8933), $0.baseAddress!) }) == 0 else {
                throw PlatformError.system("ioctl(SIOCGIFINDEX \(name))", errno: errno)
            }
            return Int32(bitPattern: UInt32(request[16]) | UInt32(request[17]) << 8 | UInt32(request[18]) << 16 | UInt32(request[19]) << 24)
        }

        /// Polls the interface table until `name` is no longer in it; false after `seconds`.
        static func waitUntilGone(_ name: String, within seconds: Double) -> Bool {
            for _ in 0..<Int(seconds * 100) {
                if if_nametoindex(name) == 0 { return true }
                usleep(10_000)
            }
            return if_nametoindex(name) == 0
        }

        func remove() {
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }

        /// A zeroed 40-byte struct ifreq holding `name`.
        static func interfaceRequest(_ name: String) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 40)
            for (i, byte) in name.utf8.prefix(15).enumerated() { bytes[i] = byte }
            return bytes
        }

        static func store(_ value: UInt16, at offset: Int, in bytes: inout [UInt8]) {
            bytes[offset] = UInt8(value & 0xFF)
            bytes[offset + 1] = UInt8(value >> 8)
        }
    }

    /// An AF_PACKET socket for every protocol, bound to interface `index` (struct sockaddr_ll).
    static func packetSocket(boundTo index: Int32) throws -> Int32 {
        let allProtocols = UInt16(0x0003).bigEndian  // ETH_P_ALL, network order
        let fd = socket(AF_PACKET, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(allProtocols))
        guard fd >= 0 else { throw PlatformError.system("socket(AF_PACKET)", errno: errno) }
        var address = [UInt8](repeating: 0, count: 20)
        address[0] = UInt8(AF_PACKET & 0xFF)
        address[1] = UInt8(AF_PACKET >> 8)
        address[2] = UInt8(allProtocols & 0xFF)
        address[3] = UInt8(allProtocols >> 8)
        let raw = UInt32(bitPattern: index)
        for i in 0..<4 { address[4 + i] = UInt8((raw >> (8 * UInt32(i))) & 0xFF) }
        let bound = address.withUnsafeBytes { bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw PlatformError.system("bind(AF_PACKET, \(index))", errno: code)
        }
        return fd
    }
}
