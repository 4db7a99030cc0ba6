import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// The ATT bearer rules of the GATT client (Core v5.4 Vol 3 Part F §3.3–3.4) against the
/// simulated server: values, writes, notifications, indications, the 30 s transaction timeout,
/// and responses the client never asked for.
@Suite struct GATTClientTests {
    @Test func readsAndWritesValues() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let outcome1 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome1 == .value([0x01]))
        let outcome2 = world.perform(.read(handle: HRM.manufacturerName), on: handle)
        #expect(outcome2 == .value(Array("Vigil Simulations".utf8)))
        let outcome3 = world.perform(.read(handle: HRM.batteryLevel), on: handle)
        #expect(outcome3 == .value([100]))
        // HRS Control Point: 0x01 resets Energy Expended; others are 0x80 Control Point Not Supported.
        let outcome4 = world.perform(.write(handle: HRM.controlPoint, value: [0x01]), on: handle)
        #expect(outcome4 == .written)
        let outcome5 = world.perform(.write(handle: HRM.controlPoint, value: [0x07]), on: handle)
        #expect(outcome5
            == .failed(.attributeError(ATT.ErrorCode(0x80), handle: HRM.controlPoint)))
        let writes = try #require(world.peripheral(HRM.address)?.attWrites)
        #expect(writes.count == 1)
        #expect(writes.first?.handle == HRM.controlPoint)
        #expect(writes.first?.value == [0x01])
        world.expectHealthy()
    }

    @Test func writeWithoutResponseNeedsNoTransaction() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let requestsBefore = world.peripheral(HRM.address)?.attRequestsReceived ?? 0
        let id = world.gatt(.writeWithoutResponse(handle: HRM.controlPoint, value: [0x01]), on: handle)
        #expect(world.result(of: id) == .written)
        #expect(world.peripheral(HRM.address)?.attWrites.last?.value == [0x01])
        // A Write Command (0x52) went out, not a request.
        #expect(world.sentFrames.last?.payload == [0x52, 0x08, 0x00, 0x01])
        #expect(world.peripheral(HRM.address)?.attRequestsReceived == requestsBefore)
        // Longer than ATT_MTU − 3 cannot be sent at all (§3.4.5.3).
        let tooLong = world.gatt(.writeWithoutResponse(handle: HRM.controlPoint, value: [UInt8](repeating: 1, count: 245)), on: handle)
        #expect(world.result(of: tooLong) == .failed(.valueTooLong(245)))
        world.expectHealthy()
    }

    @Test func subscribingBringsNotificationsWithTheValueHandle() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let subscribedAt = world.now
        let outcome6 = world.perform(.write(handle: HRM.heartRateCCCD, value: [0x01, 0x00]), on: handle)
        #expect(outcome6 == .written)
        #expect(world.peripheral(HRM.address)?.subscription(of: BluetoothUUID(0x2A37)) == 1)
        world.advance(by: .milliseconds(3500))
        let notifications = world.notifications(on: handle)
        // One a second from the subscription (the HRM's update interval).
        #expect(notifications.map(\.time) == [1, 2, 3].map { subscribedAt + .seconds($0) })
        #expect(notifications.allSatisfy { $0.attribute == HRM.heartRateMeasurement })
        for n in notifications { #expect(n.value == SimulatedDevices.heartRateMeasurement(at: n.time)) }
        world.expectHealthy()
    }

    /// A peripheral with one characteristic that indicates every second (value = seconds since 0).
    static func indicatingPeripheral() -> SimulatedPeripheral {
        SimulatedPeripheral(
            address: HRM.address, advertising: AdvertisingConfiguration(data: [0x02, 0x01, 0x06]),
            services: [SimulatedService(0x1809, characteristics: [
                SimulatedCharacteristic(0x2A1C, properties: .indicate, value: .computed { [UInt8(truncatingIfNeeded: $0.nanoseconds / 1_000_000_000)] },
                                        updateInterval: .seconds(1)),
            ])])
    }

    @Test func indicationsAreDeliveredAndConfirmed() throws {
        var (world, handle) = SimulatedWorld.connected(to: [Self.indicatingPeripheral()])
        // Service 1, declaration 2, value 3, CCCD 4.
        let outcome7 = world.perform(.write(handle: 0x0004, value: [0x02, 0x00]), on: handle)
        #expect(outcome7 == .written)
        world.advance(by: .seconds(40))
        let indications = world.events.compactMap { if case let .indication(h, a, v) = $0, h == handle { (a, v) } else { nil } }
        // Without confirmations the server could send only the first and then time out (§3.4.7.2).
        #expect(indications.count == 40)
        #expect(indications.allSatisfy { $0.0 == 0x0003 })
        #expect(indications.first?.1 == [1])
        #expect(indications.last?.1 == [40])
        let confirmations = world.sentFrames.filter { $0.channel == L2CAP.ChannelID.att && $0.payload == [0x1E] }
        #expect(confirmations.count == 40)
        #expect(world.peripheral(HRM.address)?.events.contains(.indicationConfirmationTimedOut) == false)
        world.expectHealthy()
    }

    @Test func theATTTimeoutClosesTheBearerAndDropsTheLink() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.ignoresRequests = true
        let sentAt = world.now
        let first = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        world.advance(by: .seconds(10))
        let queued = world.gatt(.read(handle: HRM.modelNumber), on: handle)
        world.run(until: { $0.result(of: first) != nil }, within: .seconds(60))
        #expect(world.result(of: first) == .failed(.timedOut))
        #expect(world.now == sentAt + .seconds(30))  // the transaction timer (§3.3.3), exactly
        #expect(world.result(of: queued) == .failed(.bearerClosed))
        #expect(world.logged("no response in 30 s", atLeast: .notice))
        #expect(world.logged("ATT bearer timed out", atLeast: .warning))
        // The link is dropped: no more ATT on this bearer.
        #expect(world.disconnection(handle) == .localHostTerminated)
        #expect(world.sentCommands(HCI.Disconnect.self).last?.handle == handle)
        let later = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(world.result(of: later) == .failed(.disconnected))
        world.expectHealthy()
    }

    @Test func aPeerThatNeverAnswersEvenTheMTUExchangeIsDropped() throws {
        var silent = SimulatedDevices.heartRateMonitor()
        silent.hostileATT.ignoresRequests = true
        var world = SimulatedWorld(peripherals: [silent])
        world.start()
        world.host.connect(HRM.address, at: world.now)
        world.run(until: { $0.host.handle(for: HRM.address) != nil }, within: .seconds(1))
        let handle = try #require(world.host.handle(for: HRM.address))
        let queued = world.gatt(.discoverDatabase, on: handle)
        world.run(until: { $0.disconnection(handle) != nil }, within: .seconds(60))
        // The MTU exchange (sent on connection) times out at 30 s; the queued discovery cannot run.
        #expect(world.now == .zero + .seconds(30))
        #expect(world.result(of: queued) == .failed(.bearerClosed))
        #expect(world.disconnection(handle) == .localHostTerminated)
        #expect(!world.events.contains { if case .mtuExchanged = $0 { true } else { false } })
        world.expectHealthy()
    }

    @Test func aWriteLongerThanTheMTUAllowsIsRefusedBeforeSending() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let framesBefore = world.sentFrames.count
        let refused = world.perform(.write(handle: HRM.controlPoint, value: [UInt8](repeating: 1, count: 245)), on: handle)
        #expect(refused == .failed(.valueTooLong(245)))
        #expect(world.sentFrames.count == framesBefore)
        // 244 = ATT_MTU − 3 still goes (§3.4.5.1); the HRS control point then refuses its content.
        let sent = world.perform(.write(handle: HRM.controlPoint, value: [UInt8](repeating: 1, count: 244)), on: handle)
        #expect(sent == .failed(.attributeError(ATT.ErrorCode(0x80), handle: HRM.controlPoint)))
        world.expectHealthy()
    }

    @Test func aTimedOutBearerAnswersLaterRequestsWithBearerClosed() {
        // The closed bearer itself (before the link is gone): the client refuses new work.
        var client = GATTClient(preferredMTU: 247)
        let t0 = MonotonicInstant.zero
        #expect(client.enqueue(.read(handle: 3), id: 1, at: t0) == [.send([0x0A, 0x03, 0x00])])
        #expect(client.nextDeadline == t0 + .seconds(30))
        #expect(client.handleDeadline(at: t0 + .seconds(29)) == [])
        let out = client.handleDeadline(at: t0 + .seconds(30))
        #expect(out.contains(.completed(1, .failed(.timedOut))))
        #expect(out.last == .bearerTimedOut)
        #expect(client.isClosed)
        #expect(client.enqueue(.read(handle: 3), id: 2, at: t0 + .seconds(31)) == [.completed(2, .failed(.bearerClosed))])
        #expect(client.nextDeadline == nil)
    }

    @Test func anUnsolicitedResponseIsLoggedAndIgnored() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.sendUnsolicitedATT([0x0B, 0x42])
        world.pump()
        #expect(world.logged("unsolicited ATT response 0xb", atLeast: .notice))
        let outcome8 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome8 == .value([0x01]))
        world.expectHealthy()
    }

    @Test func aDuplicatedResponseWithNothingOutstandingIsIgnored() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.duplicatesResponses = true
        let id = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(world.result(of: id) == .value([0x01]))
        #expect(world.resultCount(of: id) == 1)
        #expect(world.logged("unsolicited", atLeast: .notice))
        world.expectHealthy()
    }

    @Test func outOfOrderResponsesAreLoggedAndTheRealOneStillCompletes() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.ignoresRequests = true
        let id = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        // A Write Response (0x13) while a Read is outstanding, then an Error Response for a
        // Write Request (0x12), then the real Read Response.
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.att, payload: [0x13])
        world.pump()
        #expect(world.logged("out-of-order ATT response 0x13", atLeast: .notice))
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.att, payload: [0x01, 0x12, 0x08, 0x00, 0x03])
        world.pump()
        #expect(world.logged("error response for opcode 0x12", atLeast: .notice))
        #expect(world.result(of: id) == nil)
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.att, payload: [0x0B, 0x01])
        world.pump()
        #expect(world.result(of: id) == .value([0x01]))
        world.expectHealthy()
    }

    @Test func aMalformedResponseEndsItsTransactionWithATypedFailure() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.ignoresRequests = true
        let id = world.gatt(.write(handle: HRM.controlPoint, value: [0x01]), on: handle)
        // ATT_WRITE_RSP has no parameters (§3.4.5.2): one trailing byte makes it malformed.
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.att, payload: [0x13, 0xFF])
        world.pump()
        guard case .failed(.malformedResponse) = world.result(of: id) else {
            Issue.record("expected a malformed-response failure, got \(String(describing: world.result(of: id)))")
            return
        }
        #expect(world.logged("malformed ATT response", atLeast: .notice))
        world.expectHealthy()
    }

    @Test func thePeersOwnClientRequestsAreAnswered() throws {
        var (world, _) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let before = world.sentFrames.count
        // Read By Group Type for primary services, from the peer's client role (§3.4.4.9).
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.att, payload: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        world.pump()
        // We have no database: Attribute Not Found at the starting handle (§3.4.1.1).
        #expect(world.sentFrames[before...].last?.payload == [0x01, 0x10, 0x01, 0x00, 0x0A])
        world.expectHealthy()
    }

    @Test func aNotificationFloodOnOneLinkDoesNotStarveAnother() throws {
        let flooder = SimulatedDevices.heartRateMonitor(address: HRM.address(1))
        let quiet = SimulatedDevices.heartRateMonitor(address: HRM.address(2))
        var world = SimulatedWorld(peripherals: [flooder, quiet])
        world.start()
        let outcome9 = world.connect(HRM.address(1))
        let a = try #require(outcome9)
        let outcome10 = world.connect(HRM.address(2))
        let b = try #require(outcome10)
        let now = world.now
        world.controller.radio[HRM.address(1).address]?.floodNotifications(every: .milliseconds(1), at: now)
        var ids: [GATTClient.RequestID] = []
        for i in 0..<20 {
            ids.append(world.gatt(.read(handle: i.isMultiple(of: 2) ? HRM.bodySensorLocation : HRM.modelNumber), on: b))
            world.advance(by: .milliseconds(50))
        }
        for (i, id) in ids.enumerated() {
            #expect(world.result(of: id) == .value(i.isMultiple(of: 2) ? [0x01] : Array("HRM-1".utf8)))
        }
        // About a thousand notifications a second arrived on the flooded link, all with its handle.
        let flood = world.notifications(on: a)
        #expect(flood.count >= 990)
        #expect(flood.allSatisfy { $0.attribute == HRM.heartRateMeasurement })
        #expect(world.notifications(on: b).isEmpty)
        // And the flooded link itself still answers.
        let outcome11 = world.perform(.read(handle: HRM.bodySensorLocation), on: a)
        #expect(outcome11 == .value([0x01]))
        world.expectHealthy()
    }
}

/// A server that breaks ATT_MTU (Vol 3 Part F §3.2.8: no PDU may be longer).
@Suite struct GATTClientOversizeTests {
    @Test func anOversizeResponseFailsItsTransactionInsteadOfPassingAsAValue() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.sendsOversizeValues = true
        let id = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        guard case .failed(.malformedResponse(let why)) = world.result(of: id) else {
            Issue.record("expected a malformed-response failure, got \(String(describing: world.result(of: id)))")
            return
        }
        #expect(why.contains("exceeds ATT_MTU 247"))
        #expect(world.logged("exceeds ATT_MTU", atLeast: .notice))
        // The bearer is still in step: with honest values again, reads work.
        world.controller.radio[HRM.address.address]?.hostileATT.sendsOversizeValues = false
        let outcome = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome == .value([0x01]))
        world.expectHealthy()
    }

    @Test func oversizeNotificationsAreDroppedAndLogged() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let subscribed = world.perform(.write(handle: HRM.heartRateCCCD, value: [0x01, 0x00]), on: handle)
        #expect(subscribed == .written)
        world.controller.radio[HRM.address.address]?.hostileATT.sendsOversizeValues = true
        world.advance(by: .milliseconds(2500))
        #expect(world.notifications(on: handle).isEmpty)
        #expect(world.logs.filter { $0.message.contains("exceeds ATT_MTU") }.count == 2)
        world.expectHealthy()
    }
}
