import Glibc
import Platform
import Testing

/// SystemdNotifier against a real AF_UNIX datagram socket the test binds and reads, standing in
/// for systemd's notification socket (sd_notify(3): one datagram, newline-separated fields).
struct SystemdNotifierTests {
    @Test func readyAndStatusArriveAsOneDatagram() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/notify"
            let receiver = try DatagramReceiver(name: path, abstract: false)
            let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": path]))
            #expect(notifier.socketName == path)
            #expect(!notifier.isAbstract)
            try notifier.send(["READY=1", "STATUS=no alarms"])
            #expect(try receiver.receive() == "READY=1\nSTATUS=no alarms")
            try notifier.send(["WATCHDOG=1"])
            #expect(try receiver.receive() == "WATCHDOG=1")
            try notifier.send(["STOPPING=1"])
            #expect(try receiver.receive() == "STOPPING=1")
        }
    }

    @Test func abstractNamespaceSocket() throws {
        let name = "vigil-notify-test-\(getpid())"
        let receiver = try DatagramReceiver(name: name, abstract: true)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name]))
        #expect(notifier.socketName == name)
        #expect(notifier.isAbstract)
        try notifier.send(["STATUS=2 alarms: urgent-low SOUNDING"])
        #expect(try receiver.receive() == "STATUS=2 alarms: urgent-low SOUNDING")
    }

    @Test(arguments: [
        [:],
        ["NOTIFY_SOCKET": ""],
        ["NOTIFY_SOCKET": "@"],
        ["NOTIFY_SOCKET": "relative/path"],
        ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 120)],
        ["WATCHDOG_USEC": "30000000"],
    ] as [[String: String]])
    func notUnderSystemdGivesNil(environment: [String: String]) {
        #expect(SystemdNotifier(environment: environment) == nil)
    }

    @Test func watchdogIntervalIsHalfOfWatchdogUsec() throws {
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000"]))
        #expect(notifier.watchdogInterval == .seconds(15))
        let ours = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "200000",
                                                              "WATCHDOG_PID": "\(getpid())"]))
        #expect(ours.watchdogInterval == .milliseconds(100))
    }

    @Test(arguments: [
        ["NOTIFY_SOCKET": "/run/x"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "0"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "soon"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"],
        ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid() + 1)"],
    ] as [[String: String]])
    func noWatchdogUnlessMeantForThisProcess(environment: [String: String]) throws {
        let notifier = try #require(SystemdNotifier(environment: environment))
        #expect(notifier.watchdogInterval == nil)
    }

    @Test func vanishedSocketIsAClearError() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/notify"
            let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": path]))
            do {
                try notifier.send(["READY=1"])
                Issue.record("sending to a socket that does not exist succeeded")
            } catch let error as PlatformError {
                #expect(error.errno == ENOENT)
                #expect(error.operation.contains(path))
                #expect(error.hint != nil)
            }
            // A socket that existed and then went away (systemd restarted): still an error.
            do {
                let receiver = try DatagramReceiver(name: path, abstract: false)
                try notifier.send(["WATCHDOG=1"])
                #expect(try receiver.receive() == "WATCHDOG=1")
            }
            unlink(path)
            #expect(throws: PlatformError.self) { try notifier.send(["WATCHDOG=1"]) }
        }
    }
}

/// A bound AF_UNIX datagram socket with a receive timeout, so a missing datagram fails the test
/// instead of hanging it.
private final class DatagramReceiver {
    let fd: Int32

    init(name: String, abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestTimeout(description: "socket failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        let lead = abstract ? 1 : 0
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[lead + i] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + lead + bytes.count + (abstract ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard result == 0 else {
            close(fd)
            throw TestTimeout(description: "bind(\(name)) failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n >= 0 else { throw TestTimeout(description: "no datagram within 2 s: errno \(errno)") }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }
}
