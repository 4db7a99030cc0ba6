import Bluetooth
import Clocks
import HCI
import Testing
@testable import Simulator

/// GATT discovery and ATT errors against the simulated heart-rate monitor, with hand-built ATT
/// PDUs (Core v5.4 Vol 3 Part F §3.4, Part G §4). Expected bytes follow from the layout the
/// monitor declares: 0x180D at 1–8, 0x180F at 9–12, 0x180A at 13–21.
@Suite struct ATTServerTests {
    static func connected(requiresEncryption: Bool = false) throws -> (TestHost, UInt16, SimulatedPeripheral) {
        let hrm = SimulatedDevices.heartRateMonitor(requiresEncryption: requiresEncryption,
                                                     securityFactory: { _, _ in FakeSecurity(knownKey: FakeSecurity.key) })
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        return (host, handle, hrm)
    }

    @Test func primaryServiceDiscoveryEndsWithAttributeNotFound() throws {
        var (host, handle, _) = try Self.connected()
        #expect(try host.att(handle, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]) == [[
            0x11, 0x06,
            0x01, 0x00, 0x08, 0x00, 0x0D, 0x18,
            0x09, 0x00, 0x0C, 0x00, 0x0F, 0x18,
            0x0D, 0x00, 0x15, 0x00, 0x0A, 0x18,
        ]])
        #expect(try host.att(handle, [0x10, 0x16, 0x00, 0xFF, 0xFF, 0x00, 0x28]) == [[0x01, 0x10, 0x16, 0x00, 0x0A]])
    }

    @Test func findByTypeValueFindsTheHeartRateService() throws {
        var (host, handle, _) = try Self.connected()
        #expect(try host.att(handle, [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18]) == [[0x07, 0x01, 0x00, 0x08, 0x00]])
        #expect(try host.att(handle, [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x08, 0x18]) == [[0x01, 0x06, 0x01, 0x00, 0x0A]])
    }

    @Test func characteristicAndDescriptorDiscovery() throws {
        var (host, handle, _) = try Self.connected()
        #expect(try host.att(handle, [0x08, 0x01, 0x00, 0x08, 0x00, 0x03, 0x28]) == [[
            0x09, 0x07,
            0x02, 0x00, 0x10, 0x03, 0x00, 0x37, 0x2A,  // 2A37 notify, value handle 3
            0x05, 0x00, 0x02, 0x06, 0x00, 0x38, 0x2A,  // 2A38 read, value handle 6
            0x07, 0x00, 0x08, 0x08, 0x00, 0x39, 0x2A,  // 2A39 write, value handle 8
        ]])
        #expect(try host.att(handle, [0x08, 0x08, 0x00, 0x08, 0x00, 0x03, 0x28]) == [[0x01, 0x08, 0x08, 0x00, 0x0A]])
        // The automatic CCCD of 2A37 sits right after its value.
        #expect(try host.att(handle, [0x04, 0x04, 0x00, 0x04, 0x00]) == [[0x05, 0x01, 0x04, 0x00, 0x02, 0x29]])
        #expect(try host.att(handle, [0x04, 0x16, 0x00, 0xFF, 0xFF]) == [[0x01, 0x04, 0x16, 0x00, 0x0A]])
        // Read By Type on a characteristic UUID reads the values.
        #expect(try host.att(handle, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x38, 0x2A]) == [[0x09, 0x03, 0x06, 0x00, 0x01]])
    }

    @Test func mtuExchangeTakesTheSmallerMTU() throws {
        var (host, handle, hrm) = try Self.connected()
        #expect(try host.att(handle, [0x02, 0x00, 0x01]) == [[0x03, 0xF7, 0x00]])
        #expect(host.controller.radio[hrm.address.address]?.attMTU == 247)
    }

    @Test func readsAndBlobReads() throws {
        var (host, handle, _) = try Self.connected()
        let name = Array("Vigil Simulations".utf8)
        #expect(try host.att(handle, [0x0A, 0x06, 0x00]) == [[0x0B, 0x01]])
        #expect(try host.att(handle, [0x0A, 0x0F, 0x00]) == [[0x0B] + name])
        #expect(try host.att(handle, [0x0C, 0x0F, 0x00, 0x06, 0x00]) == [[0x0D] + Array("Simulations".utf8)])
        #expect(try host.att(handle, [0x0C, 0x0F, 0x00, 0x11, 0x00]) == [[0x0D]])
        #expect(try host.att(handle, [0x0C, 0x0F, 0x00, 0x12, 0x00]) == [[0x01, 0x0C, 0x0F, 0x00, 0x07]])
    }

    @Test func writesAreAnsweredOrRefused() throws {
        var (host, handle, hrm) = try Self.connected()
        #expect(try host.att(handle, [0x12, 0x08, 0x00, 0x01]) == [[0x13]])
        // The HRS Control Point refuses other values with the application error 0x80.
        #expect(try host.att(handle, [0x12, 0x08, 0x00, 0x02]) == [[0x01, 0x12, 0x08, 0x00, 0x80]])
        // Write Command: no answer either way.
        #expect(try host.att(handle, [0x52, 0x08, 0x00, 0x01]) == [])
        #expect(try host.att(handle, [0x52, 0x06, 0x00, 0x01]) == [])
        #expect(host.controller.radio[hrm.address.address]?.attWrites.map(\.value) == [[0x01], [0x01]])
    }

    /// Requests that must fail, and the Error Response each gets: request opcode, handle, code.
    @Test(arguments: [
        ([0x0A, 0x00, 0x00], [0x01, 0x0A, 0x00, 0x00, 0x01]),                       // Read handle 0: Invalid Handle
        ([0x0A, 0x00, 0x01], [0x01, 0x0A, 0x00, 0x01, 0x01]),                       // Read past the table: Invalid Handle
        ([0x0A, 0x03, 0x00], [0x01, 0x0A, 0x03, 0x00, 0x02]),                       // Read a notify-only value: Read Not Permitted
        ([0x12, 0x06, 0x00, 0x02], [0x01, 0x12, 0x06, 0x00, 0x03]),                 // Write a read-only value: Write Not Permitted
        ([0x12, 0x02, 0x00, 0x02], [0x01, 0x12, 0x02, 0x00, 0x03]),                 // Write a declaration
        ([0x12, 0x04, 0x00, 0x01], [0x01, 0x12, 0x04, 0x00, 0x0D]),                 // One-byte CCCD: Invalid Attribute Value Length
        ([0x08, 0x03, 0x00, 0x02, 0x00, 0x03, 0x28], [0x01, 0x08, 0x03, 0x00, 0x01]), // start > end: Invalid Handle
        ([0x04, 0x00, 0x00, 0xFF, 0xFF], [0x01, 0x04, 0x00, 0x00, 0x01]),           // start 0: Invalid Handle
        ([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x10, 0x01, 0x00, 0x10]), // group type 0x2803: Unsupported Group Type
        ([0x3F, 0x01], [0x01, 0x3F, 0x00, 0x00, 0x06]),                             // unknown request: Request Not Supported
        ([0x16, 0x08, 0x00, 0x00, 0x00, 0x01], [0x01, 0x16, 0x00, 0x00, 0x06]),     // Prepare Write is not supported
        ([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x37, 0x2A], [0x01, 0x08, 0x03, 0x00, 0x02]), // Read By Type of a notify-only value
        ([0x0C, 0x03, 0x00, 0x00, 0x00], [0x01, 0x0C, 0x03, 0x00, 0x02]),           // Read Blob of it
        ([0x12, 0x00, 0x00, 0x01], [0x01, 0x12, 0x00, 0x00, 0x01]),                 // Write handle 0
        ([0x0A, 0x03], [0x01, 0x0A, 0x00, 0x00, 0x04]),                             // truncated Read: Invalid PDU
        ([0x02, 0x17], [0x01, 0x02, 0x00, 0x00, 0x04]),                             // truncated Exchange MTU
        ([0x04, 0x01, 0x00, 0xFF, 0xFF, 0x00], [0x01, 0x04, 0x00, 0x00, 0x04]),     // Find Information with a trailing byte
        ([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03], [0x01, 0x08, 0x00, 0x00, 0x04]),     // a 1-byte UUID
    ] as [([UInt8], [UInt8])])
    func errorResponses(_ request: [UInt8], _ expected: [UInt8]) throws {
        var (host, handle, _) = try Self.connected()
        #expect(try host.att(handle, request) == [expected])
    }

    @Test func unknownCommandsAreIgnored() throws {
        var (host, handle, _) = try Self.connected()
        #expect(try host.att(handle, [0x7F, 0x01, 0x02]) == [])
        #expect(try host.att(handle, [0xD2, 0x03, 0x00]) == [])  // Signed Write Command
    }

    @Test func encryptedCCCDWantsAuthenticationThenEncryption() throws {
        var (host, handle, hrm) = try Self.connected(requiresEncryption: true)
        let write: [UInt8] = [0x12, 0x04, 0x00, 0x01, 0x00]
        // No key for this central yet: Insufficient Authentication (pair first).
        #expect(try host.att(handle, write) == [[0x01, 0x12, 0x04, 0x00, 0x05]])
        // Discovery and unprotected reads still work.
        #expect(try host.att(handle, [0x0A, 0x06, 0x00]) == [[0x0B, 0x01]])
        _ = try host.send(HCI.LEEnableEncryption(handle: handle, random: 0x0102_0304_0506_0708, ediv: 0x1234, longTermKey: FakeSecurity.key))
        #expect(try host.att(handle, write) == [[0x13]])
        // Next connection: the bond exists but the link is not encrypted yet → Insufficient Encryption.
        _ = try host.send(HCI.Disconnect(handle: handle))
        let second = try host.connect(hrm.address)
        #expect(try host.att(second, write) == [[0x01, 0x12, 0x04, 0x00, 0x0F]])
    }

    @Test func includedServicesAreDiscoverable() throws {
        let battery = SimulatedService(0x180F, isPrimary: false, characteristics: [SimulatedCharacteristic(0x2A19, properties: .read, value: .stored([77]))])
        let main = SimulatedService(0x1808, includes: [0x180F], characteristics: [])
        let database = GATTDatabase(services: [main, battery])
        var server = ATTServer(database: database)
        let link = ATTServer.LinkSecurity(isEncrypted: false, hasKey: false)
        // Include declaration at 2: included range 3–5, UUID 0x180F (Vol 3 Part G §3.2).
        #expect(server.receive([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x02, 0x28], link: link, at: .zero) == [[0x09, 0x08, 0x02, 0x00, 0x03, 0x00, 0x05, 0x00, 0x0F, 0x18]])
        // Secondary services are not primary: Read By Group Type 0x2800 sees only 0x1808.
        #expect(server.receive([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], link: link, at: .zero) == [[0x11, 0x06, 0x01, 0x00, 0x02, 0x00, 0x08, 0x18]])
        #expect(server.receive([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x28], link: link, at: .zero) == [[0x11, 0x06, 0x03, 0x00, 0x05, 0x00, 0x0F, 0x18]])
    }

    @Test func protectedValuesAskForAuthenticationOrEncryption() {
        let secret = SimulatedService(0xFFF0, characteristics: [
            SimulatedCharacteristic(0xFFF1, properties: [.read, .write], value: .stored([0x2A]), access: .encryptionRequired,
                                    descriptors: [SimulatedDescriptor(0x2901, value: Array("s".utf8), isWritable: true)]),
        ])
        var server = ATTServer(database: GATTDatabase(services: [secret]))
        let stranger = ATTServer.LinkSecurity(isEncrypted: false, hasKey: false)
        let bonded = ATTServer.LinkSecurity(isEncrypted: false, hasKey: true)
        let encrypted = ATTServer.LinkSecurity(isEncrypted: true, hasKey: true)
        #expect(server.receive([0x0A, 0x03, 0x00], link: stranger, at: .zero) == [[0x01, 0x0A, 0x03, 0x00, 0x05]])
        #expect(server.receive([0x08, 0x01, 0x00, 0xFF, 0xFF, 0xF1, 0xFF], link: stranger, at: .zero) == [[0x01, 0x08, 0x03, 0x00, 0x05]])
        #expect(server.receive([0x12, 0x03, 0x00, 0x01], link: bonded, at: .zero) == [[0x01, 0x12, 0x03, 0x00, 0x0F]])
        #expect(server.receive([0x0A, 0x03, 0x00], link: encrypted, at: .zero) == [[0x0B, 0x2A]])
        #expect(server.receive([0x12, 0x03, 0x00, 0x07], link: encrypted, at: .zero) == [[0x13]])
        #expect(server.receive([0x0A, 0x03, 0x00], link: encrypted, at: .zero) == [[0x0B, 0x07]])
        // The declaration stays readable: discovery needs no security (Vol 3 Part G §3.3.1).
        #expect(server.receive([0x0A, 0x02, 0x00], link: stranger, at: .zero) == [[0x0B, 0x0A, 0x03, 0x00, 0xF1, 0xFF]])
        // A writable descriptor accepts writes; the automatic CCCD is absent (no notify/indicate).
        #expect(server.receive([0x12, 0x04, 0x00, 0x78], link: stranger, at: .zero) == [[0x13]])
        #expect(server.writes.map(\.handle) == [3, 4])
    }

    @Test func aClientMTUBelow23LeavesTheDefault() {
        var server = ATTServer(database: GATTDatabase(services: []), serverMTU: 185)
        #expect(server.receive([0x02, 0x10, 0x00], link: .init(isEncrypted: false, hasKey: false), at: .zero) == [[0x03, 0xB9, 0x00]])
        #expect(server.mtu == 23)
    }

    @Test func responsesRespectTheMTU() throws {
        // Ten characteristics: at MTU 23, Read By Type 0x2803 fits three 7-byte entries.
        let many = SimulatedService(0xFFF0, characteristics: (0..<10).map { SimulatedCharacteristic(BluetoothUUID(UInt16(0xFFF1 + $0)), properties: .read) })
        var server = ATTServer(database: GATTDatabase(services: [many]))
        let link = ATTServer.LinkSecurity(isEncrypted: false, hasKey: false)
        let first = server.receive([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], link: link, at: .zero)
        #expect(first.first?.count == 23)
        #expect(first.first?[1] == 7)
        // A long value is cut to MTU − 1 in a Read Response.
        let long = SimulatedService(0xFFF0, characteristics: [SimulatedCharacteristic(0xFFF1, properties: .read, value: .stored(Array(0..<40)))])
        server = ATTServer(database: GATTDatabase(services: [long]))
        #expect(server.receive([0x0A, 0x03, 0x00], link: link, at: .zero) == [[0x0B] + Array(0..<22)])
    }
}

/// A whole GATT discovery the way a client pages through it (Vol 3 Part G §4.4.1, §4.6.1,
/// §4.7.1): every stage continues after the last handle it got until Attribute Not Found.
@Suite struct GATTDiscoveryWalkTests {
    @Test func walkingTheHeartRateMonitorFindsEveryCharacteristicAndCCCD() throws {
        var (host, handle, _) = try ATTServerTests.connected()
        var services: [(start: UInt16, end: UInt16, uuid: UInt16)] = []
        var start: UInt16 = 1
        walk: while true {
            let pdu = try #require(try host.att(handle, [0x10] + le16(start) + [0xFF, 0xFF, 0x00, 0x28]).first)
            if pdu[0] == 0x01 { #expect(pdu[4] == 0x0A); break walk }
            let length = Int(pdu[1])
            for entry in stride(from: 2, to: pdu.count, by: length) {
                let s = UInt16(pdu[entry]) | UInt16(pdu[entry + 1]) << 8
                let e = UInt16(pdu[entry + 2]) | UInt16(pdu[entry + 3]) << 8
                services.append((s, e, UInt16(pdu[entry + 4]) | UInt16(pdu[entry + 5]) << 8))
                start = e + 1
            }
        }
        #expect(services.map(\.uuid) == [0x180D, 0x180F, 0x180A])

        var characteristics: [(valueHandle: UInt16, uuid: UInt16)] = []
        var pages = 0
        for service in services {
            var from = service.start
            while true {
                let pdu = try #require(try host.att(handle, [0x08] + le16(from) + le16(service.end) + [0x03, 0x28]).first)
                if pdu[0] == 0x01 { #expect(pdu[4] == 0x0A); break }
                pages += 1
                let length = Int(pdu[1])
                for entry in stride(from: 2, to: pdu.count, by: length) {
                    let declaration = UInt16(pdu[entry]) | UInt16(pdu[entry + 1]) << 8
                    characteristics.append((UInt16(pdu[entry + 3]) | UInt16(pdu[entry + 4]) << 8, UInt16(pdu[entry + 5]) | UInt16(pdu[entry + 6]) << 8))
                    from = declaration + 1
                }
            }
        }
        #expect(characteristics.map(\.uuid) == [0x2A37, 0x2A38, 0x2A39, 0x2A19, 0x2A29, 0x2A24, 0x2A25, 0x2A26])
        #expect(characteristics.map(\.valueHandle) == [3, 6, 8, 11, 15, 17, 19, 21])
        // At MTU 23 a page holds three declarations: the four of 0x180A take two pages.
        #expect(pages == 4)

        // Descriptors: Find Information between a value and the next declaration.
        var cccds: [UInt16] = []
        for (index, c) in characteristics.enumerated() {
            let end = index + 1 < characteristics.count ? characteristics[index + 1].valueHandle - 2 : 21
            guard c.valueHandle < end else { continue }
            let pdu = try #require(try host.att(handle, [0x04] + le16(c.valueHandle + 1) + le16(end)).first)
            if pdu[0] == 0x05, pdu[1] == 0x01, Array(pdu[4...5]) == [0x02, 0x29] { cccds.append(UInt16(pdu[2]) | UInt16(pdu[3]) << 8) }
        }
        #expect(cccds == [4, 12])
    }

    @Test func twoMonitorsAtOnceKeepTheirDataApart() throws {
        let first = SimulatedDevices.heartRateMonitor()
        let second = SimulatedDevices.heartRateMonitor(address: DeviceAddress(Address(value: 0xC0_00_00_00_00_99), type: .random), rssi: -70)
        var host = TestHost(peripherals: [first, second])
        try host.bringUp()
        let a = try host.connect(first.address)
        let b = try host.connect(second.address)
        host.sendL2CAP(handle: a, cid: 4, [0x12, 0x04, 0x00, 0x01, 0x00])
        host.sendL2CAP(handle: b, cid: 4, [0x12, 0x0C, 0x00, 0x01, 0x00])  // battery only
        #expect(try host.l2capFrames().map(\.handle) == [a, b])
        host.run(until: host.now + .seconds(60))
        let frames = try host.l2capFrames()
        #expect(frames.filter { $0.handle == a }.count == 60)
        #expect(frames.filter { $0.handle == a }.allSatisfy { $0.payload.prefix(3) == [0x1B, 0x03, 0x00] })
        #expect(frames.filter { $0.handle == b }.map(\.payload) == [[0x1B, 0x0B, 0x00, 100]])
    }
}
