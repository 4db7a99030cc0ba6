import App
import ArgumentParser
import Bluetooth
import Clocks
import Host
import Platform
import SMP

extension ControllerOptions {
    static func parseTransport(_ text: String) throws -> VigilConfiguration.Transport {
        do {
            return try VigilConfiguration.Transport(parsing: text)
        } catch {
            throw ValidationError("--hci \(text): \(error)")
        }
    }

    /// The state directory: --state-dir, then systemd's $STATE_DIRECTORY, then ~/.local/state/vigil.
    var resolvedStateDirectory: String {
        if let stateDirectory { return stateDirectory }
        if let systemd = Environment.value("STATE_DIRECTORY"), !systemd.isEmpty { return systemd }
        return (Environment.value("HOME") ?? "/tmp") + "/.local/state/vigil"
    }

    /// Opens the state, builds the host and runs `session` on it until it finishes.
    func runSession<S: HostSession>(_ session: inout S, logger: Logger, seconds: Double?, reopen: Bool) throws -> Int32 {
        let transport = try Self.parseTransport(hci)
        let state = StateDirectory(path: resolvedStateDirectory, logger: logger)
        var configuration = Host.Configuration(staticAddress: state.staticAddress())
        configuration.preferredMTU = 247
        let host = Host(configuration: configuration, bonds: state.loadBonds())
        let start = SystemClock.monotonicNow()
        let isReplay: Bool = if case .btsnoop = transport { true } else { false }
        let options = HostRunner.Options(
            reopenOnFailure: reopen,
            stopAt: seconds.map { start + .milliseconds(Int64($0 * 1000)) },
            snoopPath: btsnoopLog,
            stopAtEndOfInput: isReplay)
        let runner = HostRunner(host: host, logger: logger, options: options, bondsChanged: { state.saveBonds($0) }) { () throws(PlatformError) -> any HCILink in
            try HCILinks.open(transport)
        }
        return runner.run(&session)
    }
}

/// Opens an HCI link for a transport.
enum HCILinks {
    static func open(_ transport: VigilConfiguration.Transport) throws(PlatformError) -> any HCILink {
        switch transport {
        case .userChannel(let index):
            return TransportLink(try HCIUserChannel.open(index: Int(index)), name: "hci\(index)")
        case let .tcp(host, port):
            return TransportLink(try TCPConnection.connect(host: host, port: port, timeout: .seconds(5)), name: "tcp:\(host):\(port)")
        case let .serial(path, baud, flowControl):
            return TransportLink(try SerialPort.open(path: path, baud: baud, flowControl: flowControl), name: "serial:\(path)@\(baud)")
        case .btsnoop(let path):
            return try ReplayLink(path: path)
        }
    }
}

/// Files Vigil keeps between runs: our static address, bonds (mode 0600, written atomically).
struct StateDirectory {
    let path: String
    let logger: Logger

    /// Made if missing. One that cannot be made is logged, not fatal: `vigil run` goes on
    /// without its files, its history cannot open, and the storage fault sounds (an exit
    /// here would only have systemd restart it every few seconds, silently).
    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
        do {
            try FileSystem.createDirectories(path: path, mode: 0o700)
        } catch {
            logger.log(.error, "cannot use the state directory \(path): \(error); nothing can be saved until it can")
        }
    }

    /// A random static address, generated once and kept: peers remember bonds by it. A file
    /// that is there but cannot be read, or does not hold an address, is left as it is for a
    /// person to look at (it may be the address every bond was made with): this run uses a
    /// new address it does not save.
    func staticAddress() -> Address {
        let file = path + "/static-address"
        if FileSystem.exists(path: file) {
            do {
                let text = String(decoding: try FileSystem.readFile(path: file), as: UTF8.self).trimmingWhitespace()
                if let address = Address(text) { return address }
                logger.log(.error, "\(file) holds no address (\"\(text.prefix(40))\"); bonded devices will not know this run's address")
            } catch {
                logger.log(.error, "cannot read \(file): \(error); bonded devices will not know this run's address")
            }
            return Self.randomStaticAddress()
        }
        let address = Self.randomStaticAddress()
        do {
            try AtomicFile.write(path: file, bytes: Array("\(address)\n".utf8), mode: 0o600)
        } catch {
            logger.log(.warning, "could not save the static address: \(error); bonds will not survive a restart")
        }
        return address
    }

    private static func randomStaticAddress() -> Address {
        var random = SMP.SystemRandom()
        let bytes = random.bytes(6)
        var value: UInt64 = 0
        for b in bytes { value = value << 8 | UInt64(b) }
        return Address(value: value | 0xC000_0000_0000)  // two top bits set: static (Vol 6 Part B §1.3.2.1)
    }

    func loadBonds() -> SMP.BondStore {
        let file = path + "/bonds"
        guard FileSystem.exists(path: file) else { return SMP.BondStore() }
        do {
            let text = String(decoding: try FileSystem.readFile(path: file), as: UTF8.self)
            let (store, errors) = SMP.BondStore.parse(text)
            for error in errors { logger.log(.warning, "\(file): \(error)") }
            return store
        } catch {
            logger.log(.error, "cannot read bonds from \(file): \(error); devices will need to pair again")
            return SMP.BondStore()
        }
    }

    func saveBonds(_ store: SMP.BondStore) -> Bool {
        do {
            try AtomicFile.write(path: path + "/bonds", bytes: Array(store.serialized().utf8), mode: 0o600)
            return true
        } catch {
            logger.log(.error, "cannot save bonds: \(error); tried again in \(HostRunner.bondsRetryInterval)")
            return false
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
