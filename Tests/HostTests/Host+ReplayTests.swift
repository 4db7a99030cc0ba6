import Bluetooth
import Clocks
import HCI
import Testing
@testable import Host

/// A btsnoop replay (`Host.Configuration.replay`): the capture plays the controller, so the
/// host neither brings it up nor waits for answers, and decodes what the capture holds the
/// same whether it begins with a controller's start-up answers or in the middle of a session.
@Suite struct HostReplayTests {
    static let staticAddress = Address(value: 0xC0_12_34_56_78_9A)
    static let beacon = DeviceAddress(Address(value: 0xC1_00_00_00_00_01), type: .random)
    static let strap = DeviceAddress(Address(value: 0x00_1B_DC_00_00_02), type: .public)

    static func host(replay: Bool = true) -> Host {
        var configuration = Host.Configuration(staticAddress: staticAddress)
        configuration.replay = replay
        return Host(configuration: configuration)
    }

    /// HCI_Command_Complete (Core v5.4 Vol 4 Part E §7.7.14) as H4: one credit, the opcode,
    /// then the command's return parameters.
    static func commandComplete(_ opcode: HCI.Opcode, _ returnParameters: [UInt8] = [0x00]) -> [UInt8] {
        [HCI.PacketType.event.rawValue, HCI.Event.Code.commandComplete, UInt8(3 + returnParameters.count), 1,
         UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8)] + returnParameters
    }

    /// HCI_Command_Status (§7.7.15) as H4: status, one credit, the opcode.
    static func commandStatus(_ opcode: HCI.Opcode) -> [UInt8] {
        [HCI.PacketType.event.rawValue, HCI.Event.Code.commandStatus, 4, 0x00, 1,
         UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8)]
    }

    /// One LE Advertising Report (§7.7.65.2) as H4.
    static func report(_ address: DeviceAddress, name: String, kind: HCI.AdvertisingReport.Kind = .connectableUndirected) -> [UInt8] {
        let data: [UInt8] = [0x02, 0x01, 0x06, UInt8(1 + name.utf8.count), 0x09] + Array(name.utf8)
        return [HCI.PacketType.event.rawValue] + HCI.AdvertisingReport(kind: kind, address: address, rssi: -60, data: data[...]).legacyEventBytes
    }

    /// What a controller answered while another host brought it up and started a scan: the
    /// answers a capture taken from power-on begins with (Read Local Version §7.4.1 and LE Read
    /// Buffer Size §7.8.2 with their return parameters).
    static let startUpAnswers: [[UInt8]] = [
        commandComplete(HCI.Reset.opcode),
        commandComplete(HCI.ReadLocalVersionInformation.opcode, [0x00, 0x0D, 0x00, 0x00, 0x0D, 0x5F, 0x00, 0x00, 0x00]),
        commandComplete(HCI.SetEventMask.opcode),
        commandComplete(HCI.LEReadBufferSize.opcode, [0x00, 0xFB, 0x00, 0x0F]),
        commandComplete(HCI.ReadBDADDR.opcode, [0x00, 0x0A, 0x51, 0x07, 0xDC, 0x1B, 0x00]),
        commandComplete(HCI.LESetScanParameters.opcode),
        commandComplete(HCI.LESetScanEnable.opcode),
    ]

    static func events(_ outputs: [Host.Output]) -> [Host.Event] {
        outputs.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    static func sent(_ outputs: [Host.Output]) -> [[UInt8]] {
        outputs.compactMap { if case .send(let p) = $0 { p } else { nil } }
    }

    static func failures(_ events: [Host.Event]) -> [String] {
        events.compactMap { if case .controllerFailed(let reason) = $0 { reason } else { nil } }
    }

    static func advertisements(_ events: [Host.Event]) -> [Advertisement] {
        events.compactMap { if case .advertisement(let a) = $0 { a } else { nil } }
    }

    @Test func startMakesTheControllerReadyWithoutBringUpAnswers() throws {
        var host = Self.host()
        host.start(at: .zero)
        let outputs = host.takeOutputs()
        #expect(Self.sent(outputs).isEmpty)
        let ready = Self.events(outputs).compactMap { if case .controllerReady(let info) = $0 { info } else { nil } }
        #expect(ready.count == 1)
        // The defaults: a capture of a running adapter never says its version or buffers.
        let info = try #require(ready.first)
        #expect(info.staticAddress == Self.staticAddress)
        #expect(info.publicAddress == Address(value: 0))
        #expect(host.isReady)
        #expect(host.nextDeadline == nil)
    }

    @Test func askingToScanScansWithoutCommandAnswers() {
        var host = Self.host()
        host.start(at: .zero)
        host.startScanning(active: true, at: .zero)
        #expect(host.isScanning)
        #expect(Self.sent(host.takeOutputs()).isEmpty)
        #expect(host.nextDeadline == nil)

        host.receive(Self.report(Self.beacon, name: "Ruuvi 1"), at: .zero + .milliseconds(5))
        let heard = Self.advertisements(Self.events(host.takeOutputs()))
        #expect(heard.map(\.address) == [Self.beacon])
        #expect(heard.first?.name == "Ruuvi 1")

        // Stopping is answered at once too: reports after it are not scanning's any more.
        host.stopScanning(at: .zero + .milliseconds(6))
        #expect(!host.isScanning)
        host.receive(Self.report(Self.strap, name: "Polar H10"), at: .zero + .milliseconds(7))
        #expect(Self.advertisements(Self.events(host.takeOutputs())).isEmpty)
    }

    @Test func aCapturesAnswersToCommandsNobodySentAreIgnoredQuietly() {
        var host = Self.host()
        host.start(at: .zero)
        host.startScanning(active: false, at: .zero)
        _ = host.takeOutputs()
        for answer in Self.startUpAnswers + [Self.commandStatus(HCI.LECreateConnection.opcode),
                                             Self.commandComplete(HCI.LESetScanEnable.opcode, [0x0C])] {
            host.receive(answer, at: .zero + .milliseconds(1))
        }
        // Not a log line, not an event, nothing sent: and still scanning (the capture's Scan
        // Enable answer, even a refusal, was another host's).
        #expect(host.takeOutputs().isEmpty)
        #expect(host.isScanning)
        #expect(host.isReady)
    }

    @Test func noDeadlineFailsTheController() {
        // A live host given the same silence fails its controller: the replay must not.
        var live = Self.host(replay: false)
        live.start(at: .zero)
        live.startScanning(active: true, at: .zero)
        var liveEvents: [Host.Event] = []
        while let due = live.nextDeadline, due < .zero + .seconds(3600) {
            live.handleDeadline(at: due)
            liveEvents += Self.events(live.takeOutputs())
            if !Self.failures(liveEvents).isEmpty { break }
        }
        #expect(Self.failures(liveEvents) == ["controller did not answer \(HCI.Reset.opcode) within 3.0 seconds"])

        var host = Self.host()
        host.start(at: .zero)
        host.startScanning(active: true, at: .zero)
        host.connect(Self.strap, at: .zero)
        var events = Self.events(host.takeOutputs())
        var now = MonotonicInstant.zero
        var turns = 0
        // Only the connection attempt has deadlines (connect, then cancel): it gives up as it
        // would with a live controller that never connects, and then nothing is due.
        while let due = host.nextDeadline, turns < 100 {
            now = due
            host.handleDeadline(at: now)
            let outputs = host.takeOutputs()
            #expect(Self.sent(outputs).isEmpty)
            events += Self.events(outputs)
            turns += 1
        }
        #expect(host.nextDeadline == nil)
        #expect(Self.failures(events).isEmpty)
        #expect(events.contains(.connectionFailed(peer: Self.strap, reason: "connection attempt timed out")))
        #expect(host.isReady)
        #expect(host.isScanning)
        host.receive(Self.report(Self.beacon, name: "Ruuvi 1"), at: now + .seconds(3600))
        #expect(Self.advertisements(Self.events(host.takeOutputs())).count == 1)
    }

    @Test func aCaptureWithStartUpAnswersDecodesLikeOneTakenMidSession() {
        let reports = [Self.report(Self.beacon, name: "Ruuvi 1", kind: .nonConnectable),
                       Self.report(Self.strap, name: "Polar H10"),
                       Self.report(Self.beacon, name: "Ruuvi 1", kind: .nonConnectable),
                       Self.report(Self.beacon, name: "Ruuvi 2", kind: .nonConnectable)]
        func play(after prelude: [[UInt8]]) -> [Host.Event] {
            var host = Self.host()
            host.start(at: .zero)
            host.startScanning(active: true, at: .zero)
            let events = Self.events(host.takeOutputs())
            for packet in prelude { host.receive(packet, at: .zero) }
            // The same instants in both plays: first and last seen are compared too.
            for (n, packet) in reports.enumerated() { host.receive(packet, at: .zero + .milliseconds(Int64(n + 1))) }
            return events + Self.events(host.takeOutputs())
        }
        let fromPowerOn = play(after: Self.startUpAnswers)
        let midSession = play(after: [])
        let heard = Self.advertisements(fromPowerOn)
        #expect(heard.map(\.address) == [Self.beacon, Self.strap, Self.beacon])
        #expect(heard.map(\.name) == ["Ruuvi 1", "Polar H10", "Ruuvi 2"])
        #expect(Self.advertisements(midSession) == heard)
        #expect(Self.failures(fromPowerOn + midSession).isEmpty)
    }

    @Test func aRestartedReplayIsReadyAgainAndStillScans() {
        var host = Self.host()
        host.start(at: .zero)
        host.startScanning(active: true, at: .zero)
        host.start(at: .zero + .seconds(1))
        // As after a live controller's restart, the owner's wish to scan is carried out again.
        #expect(host.isScanning)
        #expect(Self.events(host.takeOutputs()).filter { if case .controllerReady = $0 { true } else { false } }.count == 2)
        #expect(host.nextDeadline == nil)
    }
}
