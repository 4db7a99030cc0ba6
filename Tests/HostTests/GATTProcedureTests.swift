import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// GATT client procedures (Core v5.4 Vol 3 Part G §4) against the simulated GATT server.
@Suite struct GATTProcedureTests {
    /// The HRM's database written out by hand from `SimulatedDevices.heartRateMonitor`'s
    /// service list: handles assigned from 1 in declaration order, a CCCD after each
    /// notifying value, each characteristic ending where the next declaration begins.
    static let expectedHRMDatabase = GATT.Database(entries: [
        .init(service: GATT.Service(uuid: BluetoothUUID(0x180D), startHandle: 1, endHandle: 8), characteristics: [
            GATT.Characteristic(uuid: BluetoothUUID(0x2A37), declarationHandle: 2, valueHandle: 3, properties: .notify, endHandle: 4,
                                descriptors: [GATT.Descriptor(uuid: BluetoothUUID(0x2902), handle: 4)]),
            GATT.Characteristic(uuid: BluetoothUUID(0x2A38), declarationHandle: 5, valueHandle: 6, properties: .read, endHandle: 6),
            GATT.Characteristic(uuid: BluetoothUUID(0x2A39), declarationHandle: 7, valueHandle: 8, properties: .write, endHandle: 8),
        ]),
        .init(service: GATT.Service(uuid: BluetoothUUID(0x180F), startHandle: 9, endHandle: 12), characteristics: [
            GATT.Characteristic(uuid: BluetoothUUID(0x2A19), declarationHandle: 10, valueHandle: 11, properties: [.read, .notify], endHandle: 12,
                                descriptors: [GATT.Descriptor(uuid: BluetoothUUID(0x2902), handle: 12)]),
        ]),
        .init(service: GATT.Service(uuid: BluetoothUUID(0x180A), startHandle: 13, endHandle: 21), characteristics: [
            GATT.Characteristic(uuid: BluetoothUUID(0x2A29), declarationHandle: 14, valueHandle: 15, properties: .read, endHandle: 15),
            GATT.Characteristic(uuid: BluetoothUUID(0x2A24), declarationHandle: 16, valueHandle: 17, properties: .read, endHandle: 17),
            GATT.Characteristic(uuid: BluetoothUUID(0x2A25), declarationHandle: 18, valueHandle: 19, properties: .read, endHandle: 19),
            GATT.Characteristic(uuid: BluetoothUUID(0x2A26), declarationHandle: 20, valueHandle: 21, properties: .read, endHandle: 21),
        ]),
    ])

    @Test func discoversTheWholeHeartRateMonitorDatabase() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let result = world.perform(.discoverDatabase, on: handle)
        guard case .database(let database) = result else {
            Issue.record("expected a database, got \(String(describing: result))")
            return
        }
        #expect(database == Self.expectedHRMDatabase)
        #expect(world.host.database(of: handle) == database)
        #expect(database.characteristic(BluetoothUUID(0x2A37))?.cccdHandle == HRM.heartRateCCCD)
        // Cross-check against the simulator's own bookkeeping.
        let peripheral = try #require(world.peripheral(HRM.address))
        #expect(peripheral.valueHandle(of: BluetoothUUID(0x2A37)) == HRM.heartRateMeasurement)
        #expect(peripheral.cccdHandle(of: BluetoothUUID(0x2A19)) == HRM.batteryCCCD)
        world.expectHealthy()
    }

    @Test func discoversTheSameDatabaseAtTheDefaultMTU() throws {
        // A host that offers only the default ATT_MTU of 23: more round trips, the same answer.
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()]) { $0.preferredMTU = 23 }
        world.start()
        let outcome1 = world.connect(HRM.address)
        let handle = try #require(outcome1)
        #expect(world.host.mtu(of: handle) == 23)
        let requests = world.peripheral(HRM.address)?.attRequestsReceived ?? 0
        let outcome2 = world.perform(.discoverDatabase, on: handle)
        #expect(outcome2 == .database(Self.expectedHRMDatabase))
        #expect((world.peripheral(HRM.address)?.attRequestsReceived ?? 0) - requests > 10)
        world.expectHealthy()
    }

    @Test func discoversServicesByUUIDAndCharacteristicsAndDescriptors() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let outcome3 = world.perform(.discoverPrimaryServices(BluetoothUUID(0x180F)), on: handle)
        #expect(outcome3
            == .services([GATT.Service(uuid: BluetoothUUID(0x180F), startHandle: 9, endHandle: 12)]))
        let outcome4 = world.perform(.discoverPrimaryServices(nil), on: handle)
        #expect(outcome4
            == .services(Self.expectedHRMDatabase.services))
        let outcome5 = world.perform(.discoverPrimaryServices(BluetoothUUID(0x1809)), on: handle)
        #expect(outcome5 == .services([]))
        let heartRate = Self.expectedHRMDatabase.entries[0]
        let characteristics = heartRate.characteristics.map { var c = $0; c.descriptors = []; return c }
        let outcome6 = world.perform(.discoverCharacteristics(heartRate.service), on: handle)
        #expect(outcome6 == .characteristics(characteristics))
        let outcome7 = world.perform(.discoverDescriptors(start: 4, end: 4), on: handle)
        #expect(outcome7
            == .descriptors([GATT.Descriptor(uuid: BluetoothUUID(0x2902), handle: 4)]))
        // An empty range needs no request at all.
        let outcome8 = world.perform(.discoverDescriptors(start: 7, end: 6), on: handle)
        #expect(outcome8 == .descriptors([]))
        world.expectHealthy()
    }

    @Test func discoversMixed16And128BitUUIDs() throws {
        // A vendor service between two SIG ones: the server must answer each UUID size in its own
        // response (Vol 3 Part F §3.4.4.10, §3.4.3.2), so discovery has to keep asking.
        let vendorService = BluetoothUUID(high: 0xF8D1_0000_4A1C_11EE, low: 0xBE56_0242_AC12_0002)
        let vendorCharacteristic = BluetoothUUID(high: 0xF8D1_0001_4A1C_11EE, low: 0xBE56_0242_AC12_0002)
        let mixed = SimulatedPeripheral(
            address: HRM.address, advertising: AdvertisingConfiguration(data: [0x02, 0x01, 0x06]),
            services: [
                SimulatedService(0x180F, characteristics: [SimulatedCharacteristic(0x2A19, properties: .read, value: .stored([77]))]),
                SimulatedService(vendorService, characteristics: [
                    SimulatedCharacteristic(vendorCharacteristic, properties: [.read, .notify], value: .stored([1, 2, 3]),
                                            descriptors: [SimulatedDescriptor(BluetoothUUID(0x2901), value: Array("vendor".utf8))]),
                ]),
                SimulatedService(0x180A, characteristics: [SimulatedCharacteristic(0x2A29, properties: .read, value: .stored([0x41]))]),
            ])
        var (world, handle) = SimulatedWorld.connected(to: [mixed])
        let result = world.perform(.discoverDatabase, on: handle)
        // Handles: 180F 1–3 (decl 2, value 3); vendor 4–8 (decl 5, value 6, CCCD 7, 0x2901 at 8);
        // 180A 9–11 (decl 10, value 11).
        let expected = GATT.Database(entries: [
            .init(service: GATT.Service(uuid: BluetoothUUID(0x180F), startHandle: 1, endHandle: 3), characteristics: [
                GATT.Characteristic(uuid: BluetoothUUID(0x2A19), declarationHandle: 2, valueHandle: 3, properties: .read, endHandle: 3),
            ]),
            .init(service: GATT.Service(uuid: vendorService, startHandle: 4, endHandle: 8), characteristics: [
                GATT.Characteristic(uuid: vendorCharacteristic, declarationHandle: 5, valueHandle: 6, properties: [.read, .notify], endHandle: 8,
                                    descriptors: [GATT.Descriptor(uuid: BluetoothUUID(0x2902), handle: 7), GATT.Descriptor(uuid: BluetoothUUID(0x2901), handle: 8)]),
            ]),
            .init(service: GATT.Service(uuid: BluetoothUUID(0x180A), startHandle: 9, endHandle: 11), characteristics: [
                GATT.Characteristic(uuid: BluetoothUUID(0x2A29), declarationHandle: 10, valueHandle: 11, properties: .read, endHandle: 11),
            ]),
        ])
        #expect(result == .database(expected))
        let services = world.perform(.discoverPrimaryServices(vendorService), on: handle)
        #expect(services == .services([GATT.Service(uuid: vendorService, startHandle: 4, endHandle: 8)]))
        let value = world.perform(.read(handle: 6), on: handle)
        #expect(value == .value([1, 2, 3]))
        world.expectHealthy()
    }

    /// A peripheral with one readable value of `length` bytes (0..255 repeating) at handle 3.
    static func longValuePeripheral(length: Int, serverMTU: Int = 247) -> SimulatedPeripheral {
        let value = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        return SimulatedPeripheral(
            address: HRM.address,
            advertising: AdvertisingConfiguration(data: [0x02, 0x01, 0x06]),
            services: [SimulatedService(0xFFF0, characteristics: [SimulatedCharacteristic(0xFFF1, properties: .read, value: .stored(value))])],
            serverMTU: serverMTU)
    }

    /// (value length, server MTU, ATT requests the read needs: Read + Read Blobs, §4.8.1 and §4.8.3).
    @Test(arguments: [
        (10, 247, 1), (245, 247, 1), (246, 247, 2), (300, 247, 2), (492, 247, 3), (512, 247, 3),
        (21, 23, 1), (22, 23, 2), (50, 23, 3),
    ])
    func longValuesAreReadWithReadBlob(length: Int, serverMTU: Int, requests: Int) throws {
        var (world, handle) = SimulatedWorld.connected(to: [Self.longValuePeripheral(length: length, serverMTU: serverMTU)])
        #expect(world.host.mtu(of: handle) == serverMTU)
        let before = world.peripheral(HRM.address)?.attRequestsReceived ?? 0
        let result = world.perform(.read(handle: 3), on: handle)
        #expect(result == .value((0..<length).map { UInt8(truncatingIfNeeded: $0) }))
        #expect((world.peripheral(HRM.address)?.attRequestsReceived ?? 0) - before == requests)
        // The read requests on the wire: Read (0x0A) first, then Read Blob (0x0C) at growing offsets.
        let reads = world.sentFrames.filter { $0.channel == L2CAP.ChannelID.att && [0x0A, 0x0C].contains($0.payload.first) }.map(\.payload)
        #expect(reads.first == [0x0A, 0x03, 0x00])
        for (i, blob) in reads.dropFirst().enumerated() {
            let offset = (i + 1) * (serverMTU - 1)
            #expect(blob == [0x0C, 0x03, 0x00, UInt8(truncatingIfNeeded: offset), UInt8(offset >> 8)])
        }
        world.expectHealthy()
    }

    @Test func readingAMissingHandleFailsWithTheServersError() {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let outcome9 = world.perform(.read(handle: 0x0099), on: handle)
        #expect(outcome9 == .failed(.attributeError(.invalidHandle, handle: 0x0099)))
        // Heart Rate Measurement is notify-only: Read Not Permitted (Vol 3 Part F §3.4.1.1).
        let outcome10 = world.perform(.read(handle: HRM.heartRateMeasurement), on: handle)
        #expect(outcome10
            == .failed(.attributeError(.readNotPermitted, handle: HRM.heartRateMeasurement)))
        world.expectHealthy()
    }

    /// A connected world whose peripheral swallows requests, so a test can script each answer.
    static func scripted() -> (SimulatedWorld, UInt16) {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.hostileATT.ignoresRequests = true
        return (world, handle)
    }

    static func reply(_ world: inout SimulatedWorld, _ pdu: [UInt8]) {
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.att, payload: pdu)
        world.pump()
    }

    /// The ATT requests the host has sent, latest last.
    static func requests(_ world: SimulatedWorld) -> [[UInt8]] {
        world.sentFrames.filter { $0.channel == L2CAP.ChannelID.att }.map(\.payload)
    }

    @Test func aServerThatRepeatsItselfEndsDiscoveryInsteadOfLooping() throws {
        var (world, handle) = Self.scripted()
        let id = world.gatt(.discoverPrimaryServices(nil), on: handle)
        // Read By Group Type Response (§3.4.4.10): 0x180D at 1–8.
        Self.reply(&world, [0x11, 0x06, 0x01, 0x00, 0x08, 0x00, 0x0D, 0x18])
        #expect(Self.requests(world).last == [0x10, 0x09, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        // The same group again: it goes backwards from handle 9, so discovery must stop.
        Self.reply(&world, [0x11, 0x06, 0x01, 0x00, 0x08, 0x00, 0x0D, 0x18])
        guard case .failed(.malformedResponse) = world.result(of: id) else {
            Issue.record("expected malformedResponse, got \(String(describing: world.result(of: id)))")
            return
        }
        world.expectHealthy()
    }

    @Test func aServiceEndingAtTheLastHandleEndsDiscovery() throws {
        var (world, handle) = Self.scripted()
        let id = world.gatt(.discoverPrimaryServices(nil), on: handle)
        Self.reply(&world, [0x11, 0x06, 0x01, 0x00, 0xFF, 0xFF, 0x0D, 0x18])
        #expect(world.result(of: id) == .services([GATT.Service(uuid: BluetoothUUID(0x180D), startHandle: 1, endHandle: 0xFFFF)]))
        world.expectHealthy()
    }

    @Test func aCharacteristicWhoseValueHandleIsNotAfterItsDeclarationIsMalformed() throws {
        var (world, handle) = Self.scripted()
        let service = GATT.Service(uuid: BluetoothUUID(0x180D), startHandle: 1, endHandle: 8)
        let id = world.gatt(.discoverCharacteristics(service), on: handle)
        // Read By Type Response: declaration at 2 claiming value handle 2 (§3.3.1: it must follow).
        Self.reply(&world, [0x09, 0x07, 0x02, 0x00, 0x10, 0x02, 0x00, 0x37, 0x2A])
        guard case .failed(.malformedResponse) = world.result(of: id) else {
            Issue.record("expected malformedResponse, got \(String(describing: world.result(of: id)))")
            return
        }
        world.expectHealthy()
    }

    @Test func aLongReadEndsOnAttributeNotLong() throws {
        var (world, handle) = Self.scripted()
        let id = world.gatt(.read(handle: 0x0003), on: handle)
        // A Read Response that fills ATT_MTU − 1 = 246 bytes: there may be more (§4.8.3).
        let chunk = [UInt8](repeating: 0x5A, count: 246)
        Self.reply(&world, [0x0B] + chunk)
        #expect(Self.requests(world).last == [0x0C, 0x03, 0x00, 0xF6, 0x00])
        // Error Response to Read Blob: Attribute Not Long (0x0B) — the value was exactly that long.
        Self.reply(&world, [0x01, 0x0C, 0x03, 0x00, 0x0B])
        #expect(world.result(of: id) == .value(chunk))
        world.expectHealthy()
    }

    @Test func anErrorPartWayThroughALongReadFailsTheRead() throws {
        var (world, handle) = Self.scripted()
        let id = world.gatt(.read(handle: 0x0003), on: handle)
        Self.reply(&world, [0x0B] + [UInt8](repeating: 0x5A, count: 246))
        // Insufficient Authentication on the blob: the partial value must not pass as the whole.
        Self.reply(&world, [0x01, 0x0C, 0x03, 0x00, 0x05])
        #expect(world.result(of: id) == .failed(.attributeError(.insufficientAuthentication, handle: 3)))
        world.expectHealthy()
    }
}
