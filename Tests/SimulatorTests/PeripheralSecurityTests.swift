import Bluetooth
import Clocks
import HCI
import Testing
@testable import Simulator

/// A stand-in for `SMP.Responder`: answers a Pairing Request with a fixed Pairing Response,
/// knows one key, reports pairing when encryption comes up, and times out 30 s after a request.
struct FakeSecurity: PeripheralSecurity {
    static let key: [UInt8] = Array(0x10...0x1F)
    var knownKey: [UInt8]?
    var ediv: UInt16 = 0x1234
    var rand: UInt64 = 0x0102_0304_0506_0708
    var deadline: MonotonicInstant?

    mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        guard pdu.first == 0x01 else { return [.send([0x05, 0x07])] }  // Pairing Failed: Command Not Supported
        deadline = now + .seconds(30)
        // Pairing Response: NoInputNoOutput, no OOB, bonding, 16-byte keys, LTK distributed.
        return [.send([0x02, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01])]
    }
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? {
        ediv == self.ediv && rand == self.rand ? knownKey : nil
    }
    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        deadline = nil
        guard enabled, let knownKey else { return [] }
        return [.paired(longTermKey: knownKey, ediv: ediv, rand: rand)]
    }
    mutating func requestSecurity(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [.send([0x0B, 0x01])] }
    var nextDeadline: MonotonicInstant? { deadline }
    mutating func handleDeadline(at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        deadline = nil
        return [.failed(reason: 0x08)]
    }
}

@Suite struct PeripheralSecurityTests {
    static func monitor(key: [UInt8]?, requiresEncryption: Bool = false) -> SimulatedPeripheral {
        SimulatedDevices.heartRateMonitor(requiresEncryption: requiresEncryption, securityFactory: { _, _ in FakeSecurity(knownKey: key) })
    }

    @Test func smpTravelsOnCID6BothWays() throws {
        let hrm = Self.monitor(key: FakeSecurity.key)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.sendL2CAP(handle: handle, cid: 6, [0x01, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01])
        let frames = try host.l2capFrames()
        #expect(frames.count == 1)
        #expect(frames.first?.cid == 6)
        #expect(frames.first?.payload == [0x02, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01])
        // The security side's 30 s timer runs on the same virtual clock.
        host.run(until: host.now + .seconds(30))
        #expect(host.controller.radio[hrm.address.address]?.events.last == .pairingFailed(reason: 0x08))
    }

    @Test func securityRequestGoesToTheCentral() throws {
        let hrm = Self.monitor(key: nil)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.controller.radio[hrm.address.address]?.requestSecurity(at: host.now)
        let frames = try host.l2capFrames()
        #expect(frames.map(\.cid) == [6])
        #expect(frames.first?.handle == handle)
        #expect(frames.first?.payload == [0x0B, 0x01])
    }

    @Test func withoutASecurityManagerPairingIsNotSupported() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.sendL2CAP(handle: handle, cid: 6, [0x01, 0x03, 0x00, 0x01, 0x10, 0x01, 0x01])
        // Pairing Failed, reason 0x05 Pairing Not Supported (Vol 3 Part H §3.5.5).
        #expect(try host.l2capFrames().map(\.payload) == [[0x05, 0x05]])
    }
}

/// A broken conformer whose deadline never moves: the controller must not hang on it.
struct StuckSecurity: PeripheralSecurity {
    mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? { nil }
    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
    mutating func requestSecurity(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
    var nextDeadline: MonotonicInstant? { MonotonicInstant(nanoseconds: 1) }
    mutating func handleDeadline(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
}

@Suite struct StuckSecurityTests {
    @Test func aDeadlineThatNeverMovesIsReportedNotSpunOn() throws {
        let hrm = SimulatedDevices.heartRateMonitor(securityFactory: { _, _ in StuckSecurity() })
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        _ = try host.send(HCI.LECreateConnection(peer: hrm.address))
        host.controller.handleDeadline(at: TestHost.ms(100))  // connects; the stuck deadline is already past
        host.controller.handleDeadline(at: TestHost.ms(200))
        #expect(host.controller.violations == [.deadlineNotAdvanced(at: MonotonicInstant(nanoseconds: 1)), .deadlineNotAdvanced(at: MonotonicInstant(nanoseconds: 1))])
    }
}

/// Shaped like the SMP target's responder: its own action type, mapped by `output(of:)`.
struct ResponderShapedSecurity: PeripheralSecurity {
    enum Action: Equatable {
        case send([UInt8])
        case startEncryption(ltk: [UInt8], ediv: UInt16, rand: UInt64)
        case failed(UInt8)
    }
    mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [Action] {
        [.startEncryption(ltk: FakeSecurity.key, ediv: 0, rand: 0), .send([0x04] + pdu.dropFirst()), .failed(0x0C)]
    }
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? { nil }
    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [Action] { [] }
    mutating func requestSecurity(at now: MonotonicInstant) -> [Action] { [] }
    var nextDeadline: MonotonicInstant? { nil }
    mutating func handleDeadline(at now: MonotonicInstant) -> [Action] { [] }
    static func output(of action: Action) -> PeripheralSecurityOutput? {
        switch action {
        case .send(let pdu): .send(pdu)
        case .startEncryption: nil  // the central's business
        case .failed(let reason): .failed(reason: reason)
        }
    }
}

@Suite struct ResponderShapedSecurityTests {
    @Test func actionsAreMappedAndCentralOnlyOnesIgnored() throws {
        let hrm = SimulatedDevices.heartRateMonitor(securityFactory: { _, _ in ResponderShapedSecurity() })
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.sendL2CAP(handle: handle, cid: 6, [0x03, 0xAA, 0xBB])
        #expect(try host.l2capFrames().map(\.payload) == [[0x04, 0xAA, 0xBB]])
        #expect(host.controller.radio[hrm.address.address]?.events.last == .pairingFailed(reason: 0x0C))
    }
}
