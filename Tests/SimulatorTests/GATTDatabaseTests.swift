import Bluetooth
import Clocks
import Testing
@testable import Simulator

@Suite struct GATTDatabaseTests {
    /// Handles are dense from 1 in declaration order: service, includes, then per characteristic
    /// declaration · value · CCCD (when notify/indicate) · descriptors (Vol 3 Part G §3).
    @Test func layoutOfAServiceWithEveryKindOfAttribute() throws {
        let uuid128 = try #require(BluetoothUUID("F000AA00-0451-4000-B000-000000000000"))
        let database = GATTDatabase(services: [
            SimulatedService(0x1800, includes: [uuid128], characteristics: [
                SimulatedCharacteristic(0x2A00, properties: .read, value: .stored(Array("x".utf8))),
                SimulatedCharacteristic(0x2A37, properties: [.notify, .indicate], descriptors: [SimulatedDescriptor(0x2901, value: [0x41])]),
            ]),
            SimulatedService(uuid128, characteristics: []),
        ])
        let types = database.attributes.map { $0.type.uuid16 ?? 0xFFFF }
        #expect(types == [0x2800, 0x2802, 0x2803, 0x2A00, 0x2803, 0x2A37, 0x2902, 0x2901, 0x2800])
        #expect(database.attributes.map(\.handle) == Array(1...9))
        // Service declaration values: the UUID in its shortest ATT form.
        #expect(database.attributes[0].fixedValue == [0x00, 0x18])
        #expect(database.attributes[8].fixedValue == uuid128.wireBytes128)
        // A 128-bit included service: the include value omits the UUID (Vol 3 Part G §3.2).
        #expect(database.attributes[1].fixedValue == [0x09, 0x00, 0x09, 0x00])
        // Characteristic declaration: properties 0x30 · value handle 6 · UUID.
        #expect(database.attributes[4].fixedValue == [0x30, 0x06, 0x00, 0x37, 0x2A])
        #expect(database.characteristics.map(\.valueHandle) == [4, 6])
        #expect(database.characteristics.map(\.cccdHandle) == [nil, 7])
        if case .serviceDeclaration(let end) = database.attributes[0].role { #expect(end == 8) } else { Issue.record("no service") }
        #expect(database.lastHandle == 9)
    }

    @Test func lookupsOutsideTheTableAreEmpty() {
        let database = GATTDatabase(services: [SimulatedService(0x180F, characteristics: [])])
        #expect(database.attribute(0) == nil)
        #expect(database.attribute(2) == nil)
        #expect(database.attributes(in: 2, 0xFFFF).isEmpty)
        #expect(database.attributes(in: 0, 0xFFFF).count == 1)
    }

    @Test func computedValuesFollowVirtualTime() {
        let database = GATTDatabase(services: [SimulatedService(0x180F, characteristics: [
            SimulatedCharacteristic(0x2A19, properties: .read, value: .computed { [UInt8(truncatingIfNeeded: $0.nanoseconds / 1_000_000_000)] }),
        ])])
        #expect(database.currentValue(of: 0, at: MonotonicInstant(nanoseconds: 7_000_000_000)) == [7])
        #expect(database.currentValue(of: 0, at: MonotonicInstant(nanoseconds: 9_000_000_000)) == [9])
    }
}
