import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// Host-to-controller ACL flow control (Core v5.4 Vol 4 Part E §4.1.1): buffers shared by all
/// connections, returned by Number Of Completed Packets, and round-robin between links.
@Suite struct ACLSchedulerTests {
    static func frame(_ n: Int) -> L2CAP.BasicFrame { L2CAP.BasicFrame(channel: 0x0004, payload: [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 3)) }

    /// The handles of H4 ACL packets, in order.
    static func handles(_ packets: [[UInt8]]) -> [UInt16] {
        packets.map { (UInt16($0[1]) | UInt16($0[2]) << 8) & 0x0FFF }
    }

    @Test func sendsOnlyWhileBuffersAreFreeAndResumesOnCompletion() {
        var scheduler = ACLScheduler()
        scheduler.configure(packetLength: 27, totalPackets: 2)
        scheduler.open(0x40)
        for n in 0..<5 { let queued = scheduler.enqueue(Self.frame(n), on: 0x40); #expect(queued) }
        let first = scheduler.pump()
        #expect(first.count == 2)
        // H4 ACL: indicator 02, handle 0x0040 with PB 0b00 (first non-flushable), length 7.
        #expect(first[0] == [0x02, 0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00])
        #expect(scheduler.pump().isEmpty)
        scheduler.completed(handle: 0x40, count: 1)
        #expect(scheduler.pump().count == 1)
        #expect(scheduler.queuedCount(0x40) == 2)
    }

    @Test func completionsBeyondWhatWasSentDoNotInflateCredits() {
        var scheduler = ACLScheduler()
        scheduler.configure(packetLength: 27, totalPackets: 2)
        scheduler.open(0x40)
        for n in 0..<6 { _ = scheduler.enqueue(Self.frame(n), on: 0x40) }
        #expect(scheduler.pump().count == 2)
        // A buggy controller returns 10 for one handle and some for a handle never used.
        scheduler.completed(handle: 0x40, count: 10)
        scheduler.completed(handle: 0x99, count: 3)
        #expect(scheduler.pump().count == 2)
        #expect(scheduler.freePackets == 0)
    }

    @Test func linksTakeTurnsSoABacklogCannotStarveAnother() {
        var scheduler = ACLScheduler()
        scheduler.configure(packetLength: 27, totalPackets: 4)
        scheduler.open(0x40)
        scheduler.open(0x41)
        for n in 0..<20 { _ = scheduler.enqueue(Self.frame(n), on: 0x40) }
        _ = scheduler.enqueue(Self.frame(99), on: 0x41)
        _ = scheduler.enqueue(Self.frame(98), on: 0x41)
        #expect(Self.handles(scheduler.pump()) == [0x40, 0x41, 0x40, 0x41])
    }

    @Test func closingALinkReturnsItsBuffers() {
        var scheduler = ACLScheduler()
        scheduler.configure(packetLength: 27, totalPackets: 2)
        scheduler.open(0x40)
        scheduler.open(0x41)
        _ = scheduler.enqueue(Self.frame(1), on: 0x40)
        _ = scheduler.enqueue(Self.frame(2), on: 0x40)
        _ = scheduler.enqueue(Self.frame(3), on: 0x41)
        #expect(Self.handles(scheduler.pump()) == [0x40, 0x41])
        scheduler.close(0x40)
        let refused = scheduler.enqueue(Self.frame(4), on: 0x40)
        #expect(!refused)
        #expect(scheduler.freePackets == 1)
    }

    @Test func aBacklogBeyondTheLimitIsRefused() {
        var scheduler = ACLScheduler()
        scheduler.configure(packetLength: 27, totalPackets: 1)
        scheduler.open(0x40)
        for n in 0..<ACLScheduler.maximumQueuedFragments { let queued = scheduler.enqueue(Self.frame(n), on: 0x40); #expect(queued) }
        let overLimit = scheduler.enqueue(Self.frame(0), on: 0x40)
        #expect(!overLimit)
        let unopened = scheduler.enqueue(Self.frame(0), on: 0x77)
        #expect(!unopened)  // never opened
    }

    @Test(arguments: [(UInt16(27), UInt8(1)), (27, 8), (251, 2)])
    func theHostNeverOverrunsTheControllersBuffers(length: UInt16, count: UInt8) throws {
        var configuration = SimulatedController.Configuration()
        configuration.leACLDataPacketLength = length
        configuration.totalNumLEACLDataPackets = count
        configuration.hostBoundFragmentLength = Int(length)
        // A sink: 0xFFF1 readable at handle 3, 0xFFF2 write-without-response at handle 5.
        let sink = SimulatedPeripheral(
            address: HRM.address, advertising: AdvertisingConfiguration(data: [0x02, 0x01, 0x06]),
            services: [SimulatedService(0xFFF0, characteristics: [
                SimulatedCharacteristic(0xFFF1, properties: .read, value: .stored(Array("sink".utf8))),
                SimulatedCharacteristic(0xFFF2, properties: .writeWithoutResponse),
            ])])
        var (world, handle) = SimulatedWorld.connected(to: [sink], controller: configuration)
        // Long writes fragment into many ACL packets; many at once compete for the buffers.
        var ids: [GATTClient.RequestID] = []
        for i in 0..<10 { ids.append(world.gatt(.writeWithoutResponse(handle: 0x0005, value: [UInt8](repeating: UInt8(i), count: 200)), on: handle)) }
        ids.append(world.gatt(.read(handle: 0x0003), on: handle))
        world.advance(by: .milliseconds(10))
        #expect(world.result(of: ids.last!) == .value(Array("sink".utf8)))
        let writes = world.peripheral(HRM.address)?.attWrites ?? []
        #expect(writes.map(\.handle) == [UInt16](repeating: 5, count: 10))
        #expect(writes.map(\.value) == (0..<10).map { [UInt8](repeating: UInt8($0), count: 200) })
        // The simulator records any packet sent without a free buffer or longer than one.
        world.expectHealthy()
        let aclLengths = world.sent.filter { $0.h4.first == 0x02 }.map { Int($0.h4[3]) | Int($0.h4[4]) << 8 }
        #expect(aclLengths.allSatisfy { $0 <= Int(length) })
    }
}
