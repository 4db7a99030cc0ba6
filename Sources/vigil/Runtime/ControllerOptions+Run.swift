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

    /// Opens the state (`state`, the session's own, or the resolved directory), builds the
    /// host and runs `session` on it until it finishes.
    func runSession<S: HostSession>(_ session: inout S, logger: Logger, seconds: Double?, reopen: Bool,
                                    state: StateDirectory? = nil, retryInterval: Duration? = nil) throws -> Int32 {
        let transport = try Self.parseTransport(hci)
        let state = state ?? StateDirectory(path: resolvedStateDirectory, logger: logger)
        let isReplay: Bool = if case .btsnoop = transport { true } else { false }
        var configuration = Host.Configuration(staticAddress: state.staticAddress())
        configuration.preferredMTU = 247
        configuration.replay = isReplay
        let host = Host(configuration: configuration, bonds: state.loadBonds())
        let start = SystemClock.monotonicNow()
        var options = HostRunner.Options(
            // A capture plays once: reopened after a failure it would play again from the
            // start, and again, and `run` on it would never end.
            reopenOnFailure: reopen && !isReplay,
            stopAt: seconds.map { start + .milliseconds(Int64($0 * 1000)) },
            snoopPath: btsnoopLog,
            stopAtEndOfInput: isReplay)
        if let retryInterval { options.bondsRetryInterval = retryInterval }
        let runner = HostRunner(host: host, logger: logger, options: options, bondsChanged: { state.saveBonds($0) }) { () throws(PlatformError) -> LinkOpening in
            try HCILinks.open(transport)
        }
        return runner.run(&session)
    }
}

/// Opens an HCI link for a transport.
enum HCILinks {
    /// How long a TCP controller has to accept the connection.
    static let tcpConnectTimeout = Duration.seconds(5)

    static func open(_ transport: VigilConfiguration.Transport) throws(PlatformError) -> LinkOpening {
        switch transport {
        case .userChannel(let index):
            return .opened(TransportLink(try HCIUserChannel.open(index: Int(index)), name: "hci\(index)"))
        case let .tcp(host, port):
            // The one open that can take seconds (a peer that drops SYNs, a slow resolver).
            let attempt = try TCPConnection.Attempt(host: host, port: port, timeout: tcpConnectTimeout)
            return .connecting(attempt, name: "tcp:\(host):\(port)")
        case let .serial(path, baud, flowControl):
            return .opened(TransportLink(try SerialPort.open(path: path, baud: baud, flowControl: flowControl), name: "serial:\(path)@\(baud)"))
        case .btsnoop(let path):
            return .opened(try ReplayLink(path: path))
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
