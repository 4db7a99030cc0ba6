import App
import ArgumentParser
import Platform
import Web

/// `vigil fetch URL`: one GET through the client `vigil run` uses — the same `HTTP.Client`,
/// `HTTPRunner`, TLS settings and certificate authorities — printing the status and the body
/// (docs/http-client.md "vigil fetch"). For checking a Nightscout URL and a CA file from the
/// box, and for the interop tests, which drive the network stack through it.
///
/// Exit codes: 0 a response came (whatever its status, as curl without --fail); 1 the exchange
/// failed (the line on stderr); 64 a bad argument; 78 a bad configuration.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "GET a URL the way vigil run's uploads and followers would, and print the status and the body.",
        discussion: "Exit codes: 0 a response came (any status), 1 the exchange failed, 78 the configuration is bad.")

    @Argument(help: "The http or https URL.")
    var url: String

    @Option(name: .customLong("connect-to"), parsing: .singleValue,
            help: "HOST:PORT:ADDRESS:PORT: connect to ADDRESS:PORT for HOST:PORT (as curl's option); TLS still checks HOST. Repeatable.")
    var connectTo: [String] = []

    @Option(help: "A configuration file whose [network] ca-file to trust (default: the system's certificate authorities).")
    var config: String?

    @Option(name: .customLong("header"), parsing: .singleValue, help: "A request header, 'Name: value'. Repeatable.")
    var headers: [String] = []

    /// For tests: every phase's time-out in seconds, so a silent server ends soon.
    @Option(name: .customLong("time-out-for-tests"), help: .hidden)
    var timeOutForTests: Double?

    func validate() throws {
        _ = try Self.connectToRules(connectTo)
        _ = try parsedURL()
        _ = try parsedHeaders()
        if let timeOutForTests, !(timeOutForTests > 0) { throw ValidationError("--time-out-for-tests must be positive") }
    }

    /// `--connect-to` values as rules; a bad one is a usage error naming it.
    static func connectToRules(_ values: [String]) throws -> [HTTP.ConnectTo] {
        try values.map { value in
            do throws(HTTP.ConnectToError) {
                return try HTTP.ConnectTo(parsing: value)
            } catch {
                throw ValidationError("--connect-to: \(error)")
            }
        }
    }

    private func parsedURL() throws -> HTTP.URL {
        do throws(HTTP.URLError) {
            return try HTTP.URL(parsing: url)
        } catch {
            throw ValidationError("\(url): \(error)")
        }
    }

    private func parsedHeaders() throws -> [(name: String, value: String)] {
        try headers.map { header in
            guard let colon = header.firstIndex(of: ":"), colon > header.startIndex else {
                throw ValidationError("--header \"\(header)\" is not 'Name: value'")
            }
            let name = String(header[..<colon])
            let value = String(header[header.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
                  value.utf8.allSatisfy({ $0 >= 0x20 || $0 == 0x09 }) else {
                throw ValidationError("--header \"\(name)\" holds a character a header cannot")
            }
            return (name, value)
        }
    }

    func run() throws {
        var authorities = CertificateAuthorities(path: nil)
        if let config {
            authorities = try NetworkSetup.load(RunCommand.loadConfiguration(config), file: config)
        }
        var settings = HTTP.Client.Configuration()
        settings.userAgent = "Vigil/" + VigilVersion.string
        if let timeOutForTests {
            let limit = Duration.milliseconds(Int64(timeOutForTests * 1000))
            for phase in HTTP.ClientPhase.allCases { settings.timeOuts[phase] = limit }
        }
        var client = HTTP.Client(configuration: settings)
        let runner = HTTPRunner(authorities: authorities, connectTo: try Self.connectToRules(connectTo), logger: nil)
        defer { runner.close() }
        _ = client.start(HTTP.ClientRequest(method: .get, url: try parsedURL(), headers: try parsedHeaders()), at: SystemClock.monotonicNow())
        let result: Result<HTTP.ClientResponse, HTTP.ClientFailure>
        do {
            result = try Self.exchange(&client, runner)
        } catch {
            StandardError.write("vigil fetch: \(error)")
            throw ExitCode.failure
        }
        switch result {
        case let .success(response):
            do {
                try StandardOutputBytes.write(Array("HTTP \(response.status)\n".utf8) + response.body)
            } catch {
                StandardError.write("vigil fetch: \(error)")
                throw ExitCode.failure
            }
        case let .failure(failure):
            StandardError.write("vigil fetch: \(url): \(failure)")
            throw ExitCode.failure
        }
    }

    /// The poll loop of one exchange: the client's actions to the runner, the runner's events
    /// to the client, time-outs on the monotonic clock, until it ends.
    static func exchange(_ client: inout HTTP.Client, _ runner: HTTPRunner) throws(PlatformError) -> Result<HTTP.ClientResponse, HTTP.ClientFailure> {
        var now = SystemClock.monotonicNow()
        while true {
            var progressed = true
            while progressed {
                let actions = client.takeActions()
                for action in actions { runner.perform(action) }
                let events = runner.takeEvents()
                for event in events { client.handle(event, at: now) }
                client.advance(to: now)
                progressed = !actions.isEmpty || !events.isEmpty
            }
            if let (_, result) = client.takeFinished().first {
                for action in client.takeActions() { runner.perform(action) }
                return result
            }
            var poll = PollLoop()
            let writing = runner.writeDescriptors
            for descriptor in runner.descriptors { poll.register(descriptor, readable: true, writable: writing.contains(descriptor)) }
            for descriptor in writing where !runner.descriptors.contains(descriptor) { poll.register(descriptor, readable: false, writable: true) }
            let ready = try poll.wait(until: client.nextDeadline)
            now = SystemClock.monotonicNow()
            for event in ready {
                let trouble = event.isHangUp || event.isError || event.isInvalid
                if event.isReadable || (trouble && !writing.contains(event.fileDescriptor)) { runner.readable(event.fileDescriptor) }
                if event.isWritable || (trouble && writing.contains(event.fileDescriptor)) { runner.writable(event.fileDescriptor) }
            }
        }
    }
}
