import Bluetooth
import Clocks
import HCI
import Testing
@testable import Simulator

/// Notifications, indications, programmable values and hostile toggles of a simulated
/// peripheral, seen from the host side of the simulated controller.
@Suite struct SimulatedPeripheralTests {
    static let sensor = DeviceAddress(Address(value: 0xC2_00_00_00_00_03), type: .random)

    /// A peripheral with one indicating characteristic (0xFFF1) and one stored notify value (0xFFF2).
    static func sensorPeripheral() -> SimulatedPeripheral {
        SimulatedPeripheral(
            address: sensor, advertising: AdvertisingConfiguration(data: [0x02, 0x01, 0x06]),
            services: [SimulatedService(0xFFF0, characteristics: [
                SimulatedCharacteristic(0xFFF1, properties: [.read, .indicate], value: .stored([0x00])),
                SimulatedCharacteristic(0xFFF2, properties: [.read, .notify], value: .stored(Array(0..<30))),
            ])])
    }

    static func connect(_ peripheral: SimulatedPeripheral) throws -> (TestHost, UInt16) {
        var host = TestHost(peripherals: [peripheral])
        try host.bringUp()
        let handle = try host.connect(peripheral.address)
        return (host, handle)
    }

    @Test func heartRateIsNotifiedEverySecondAfterTheCCCDWrite() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        host.run(until: host.now + .seconds(3))
        #expect(try host.l2capFrames().isEmpty)  // nothing before subscribing
        let subscribedAt = host.now
        #expect(try host.att(handle, [0x12, 0x04, 0x00, 0x01, 0x00]) == [[0x13]])
        #expect(host.controller.radio[hrm.address.address]?.subscription(of: 0x2A37) == 1)
        var received: [[UInt8]] = []
        for second in 1...4 {
            host.run(until: subscribedAt + .seconds(second))
            received += try host.l2capFrames().filter { $0.cid == 4 }.map(\.payload)
        }
        let expected = (1...4).map { [0x1B, 0x03, 0x00] + SimulatedDevices.heartRateMeasurement(at: subscribedAt + .seconds($0)) }
        #expect(received == expected)
        // Unsubscribing stops them.
        #expect(try host.att(handle, [0x12, 0x04, 0x00, 0x00, 0x00]) == [[0x13]])
        host.run(until: host.now + .seconds(5))
        #expect(try host.l2capFrames().isEmpty)
        #expect(try host.att(handle, [0x0A, 0x04, 0x00]) == [[0x0B, 0x00, 0x00]])
    }

    @Test func cccdBitsThePropertiesDoNotOfferStayClear() throws {
        var (host, handle) = try Self.connect(SimulatedDevices.heartRateMonitor())
        // Indications asked of a notify-only characteristic.
        #expect(try host.att(handle, [0x12, 0x04, 0x00, 0x02, 0x00]) == [[0x13]])
        #expect(try host.att(handle, [0x0A, 0x04, 0x00]) == [[0x0B, 0x00, 0x00]])
    }

    @Test func indicationsWaitForTheirConfirmation() throws {
        var (host, handle) = try Self.connect(Self.sensorPeripheral())
        let address = Self.sensor.address
        #expect(try host.att(handle, [0x12, 0x04, 0x00, 0x02, 0x00]) == [[0x13]])
        host.controller.radio[address]?.setValue([0x01], for: 0xFFF1, at: host.now)
        host.controller.radio[address]?.setValue([0x02], for: 0xFFF1, at: host.now)
        #expect(try host.l2capFrames().map(\.payload) == [[0x1D, 0x03, 0x00, 0x01]])
        host.sendL2CAP(handle: handle, cid: 4, [0x1E])
        #expect(try host.l2capFrames().map(\.payload) == [[0x1D, 0x03, 0x00, 0x02]])
        host.sendL2CAP(handle: handle, cid: 4, [0x1E])
        #expect(try host.l2capFrames().isEmpty)
        // Reads see the programmed value.
        #expect(try host.att(handle, [0x0A, 0x03, 0x00]) == [[0x0B, 0x02]])
    }

    @Test func anUnconfirmedIndicationClosesTheBearerAfter30Seconds() throws {
        var (host, handle) = try Self.connect(Self.sensorPeripheral())
        let address = Self.sensor.address
        _ = try host.att(handle, [0x12, 0x04, 0x00, 0x02, 0x00])
        let sentAt = host.now
        host.controller.radio[address]?.setValue([0x01], for: 0xFFF1, at: host.now)
        _ = try host.l2capFrames()
        #expect(host.controller.nextDeadline == sentAt + .seconds(30))
        host.run(until: sentAt + .seconds(30))
        #expect(host.controller.radio[address]?.events.last == .indicationConfirmationTimedOut)
        // Vol 3 Part F §3.3.3: no further PDUs on this bearer.
        #expect(try host.att(handle, [0x0A, 0x03, 0x00]) == [])
    }

    @Test func notificationsAreCutToTheMTU() throws {
        var (host, handle) = try Self.connect(Self.sensorPeripheral())
        _ = try host.att(handle, [0x12, 0x07, 0x00, 0x01, 0x00])
        host.controller.radio[Self.sensor.address]?.notify(0xFFF2, at: host.now)
        #expect(try host.l2capFrames().map(\.payload) == [[0x1B, 0x06, 0x00] + Array(0..<20)])
    }

    // MARK: Hostile toggles

    @Test func aPeerThatIgnoresRequests() throws {
        var (host, handle) = try Self.connect(SimulatedDevices.heartRateMonitor())
        host.controller.radio[SimulatedDevices.heartRateMonitor().address.address]?.hostileATT.ignoresRequests = true
        #expect(try host.att(handle, [0x0A, 0x06, 0x00]) == [])
        host.run(until: host.now + .seconds(40))
        #expect(try host.l2capFrames().isEmpty)
        #expect(host.controller.radio[SimulatedDevices.heartRateMonitor().address.address]?.attRequestsReceived == 1)
    }

    @Test func aPeerThatAnswersRequestsNeverSent() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        host.controller.radio[hrm.address.address]?.sendUnsolicitedATT()
        #expect(try host.l2capFrames().map(\.payload) == [[0x0B, 0x42]])
        host.controller.radio[hrm.address.address]?.hostileATT.duplicatesResponses = true
        #expect(try host.att(handle, [0x0A, 0x06, 0x00]) == [[0x0B, 0x01], [0x0B, 0x01]])
    }

    @Test func aFloodOfNotifications() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, _) = try Self.connect(hrm)
        let start = host.now
        host.controller.radio[hrm.address.address]?.floodNotifications(every: .milliseconds(10), at: start)
        host.run(until: start + .milliseconds(100))
        let frames = try host.l2capFrames()
        // Unsubscribed, yet ten notifications of 2A37 (handle 3) arrive in 100 ms.
        #expect(frames.count == 10)
        #expect(frames.allSatisfy { $0.payload.prefix(3) == [0x1B, 0x03, 0x00] })
        host.controller.radio[hrm.address.address]?.floodNotifications(every: nil, at: host.now)
        host.run(until: host.now + .seconds(1))
        #expect(try host.l2capFrames().isEmpty)
    }

    @Test func rawFramesOnAnyChannel() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        host.controller.radio[hrm.address.address]?.sendRaw(cid: 0x0006, payload: [0x0B, 0x05])
        let frames = try host.l2capFrames()
        #expect(frames.count == 1)
        #expect(frames.first?.handle == handle)
        #expect(frames.first?.cid == 6)
        #expect(frames.first?.payload == [0x0B, 0x05])
    }

    @Test func framesWhoseLengthLies() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        host.controller.radio[hrm.address.address]?.l2capLengthLie = 5
        host.sendL2CAP(handle: handle, cid: 4, [0x0A, 0x06, 0x00])
        let acl = try host.packets().compactMap { p -> HCI.ACLData? in
            guard case .aclData(let b) = p else { return nil }
            return try HCI.ACLData(bytes: b)
        }
        // The frame is 4 + 2 bytes but claims a 7-byte payload.
        #expect(acl.map(\.data) == [[0x07, 0x00, 0x04, 0x00, 0x0B, 0x01]])
    }

    @Test func oversizeValues() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        host.controller.radio[hrm.address.address]?.hostileATT.sendsOversizeValues = true
        let response = try host.att(handle, [0x0A, 0x06, 0x00])
        // MTU 23 allows 22 value bytes; this one carries 32.
        #expect(response.map(\.count) == [33])
        #expect(response.first?.prefix(2) == [0x0B, 0x01])
    }

    // MARK: L2CAP signaling

    @Test func connectionParameterUpdateRequestAndItsResponse() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        let wanted = HCI.ConnectionParameters(intervalMin: 80, intervalMax: 100, latency: 2, supervisionTimeout: 500)
        host.controller.radio[hrm.address.address]?.requestConnectionParameterUpdate(wanted, at: host.now)
        let frames = try host.l2capFrames()
        #expect(frames.map(\.cid) == [5])
        #expect(frames.first?.payload == [0x12, 0x01, 0x08, 0x00, 0x50, 0x00, 0x64, 0x00, 0x02, 0x00, 0xF4, 0x01])
        // A response with another identifier is ignored; the right one is recorded.
        host.sendL2CAP(handle: handle, cid: 5, [0x13, 0x09, 0x02, 0x00, 0x00, 0x00])
        host.sendL2CAP(handle: handle, cid: 5, [0x13, 0x01, 0x02, 0x00, 0x00, 0x00])
        #expect(host.controller.radio[hrm.address.address]?.events.last == .connectionParameterUpdateAnswered(accepted: true))
        #expect(try host.l2capFrames().isEmpty)
    }

    @Test func anUnansweredParameterRequestTimesOut() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, _) = try Self.connect(hrm)
        let start = host.now
        host.controller.radio[hrm.address.address]?.requestConnectionParameterUpdate(.init(), at: start)
        host.run(until: start + .seconds(30))
        #expect(host.controller.radio[hrm.address.address]?.events.last == .connectionParameterUpdateTimedOut)
    }

    @Test(arguments: [
        [0x0A, 0x07, 0x02, 0x00, 0x01, 0x00],  // Information Request: a BR/EDR command, not on LE
        [0x12, 0x07, 0x08, 0x00, 0x50, 0x00, 0x64, 0x00, 0x00, 0x00, 0xF4, 0x01],  // only peripherals send this
        [0x13, 0x07, 0x05, 0x00, 0x00],  // length field says 5, one byte follows
    ] as [[UInt8]])
    func signalingCommandsAreRejected(_ command: [UInt8]) throws {
        var (host, handle) = try Self.connect(SimulatedDevices.heartRateMonitor())
        host.sendL2CAP(handle: handle, cid: 5, command)
        // Command Reject, same identifier, reason 0x0000 Command not understood.
        #expect(try host.l2capFrames().map(\.payload) == [[0x01, 0x07, 0x02, 0x00, 0x00, 0x00]])
    }

    @Test func framesOnUnknownChannelsAreDropped() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var (host, handle) = try Self.connect(hrm)
        host.sendL2CAP(handle: handle, cid: 0x0040, [0x01, 0x02])
        #expect(try host.l2capFrames().isEmpty)
        #expect(host.controller.radio[hrm.address.address]?.events.last == .droppedFrame(cid: 0x0040))
    }

    @Test func eachConnectionStartsAFreshBearerButKeepsStoredValues() throws {
        var (host, handle) = try Self.connect(Self.sensorPeripheral())
        _ = try host.att(handle, [0x02, 0x00, 0x01])
        _ = try host.att(handle, [0x12, 0x04, 0x00, 0x02, 0x00])
        host.controller.radio[Self.sensor.address]?.setValue([0x09], for: 0xFFF1, at: host.now)
        _ = try host.send(HCI.Disconnect(handle: handle))
        let again = try host.connect(Self.sensor)
        let peripheral = try #require(host.controller.radio[Self.sensor.address])
        #expect(peripheral.attMTU == 23)
        #expect(peripheral.subscription(of: 0xFFF1) == 0)
        #expect(try host.att(again, [0x0A, 0x03, 0x00]) == [[0x0B, 0x09]])
    }
}
