import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// L2CAP basic frames (Core v5.4 Vol 3 Part A §3.1) and ACL reassembly (§7.2.1), alone and
/// against simulated peers whose length fields lie.
@Suite struct L2CAPTests {
    @Test func aBasicFrameEncodesLengthChannelAndPayload() {
        // B-frame: length 0x0003, CID 0x0004, ATT Read Request for handle 0x0003.
        let frame = L2CAP.BasicFrame(channel: L2CAP.ChannelID.att, payload: [0x0A, 0x03, 0x00])
        #expect(frame.bytes == [0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00])
    }

    @Test func fragmentsSplitAtTheBufferSizeAndMarkTheFirst() {
        let frame = L2CAP.BasicFrame(channel: 0x0006, payload: Array(0..<60))
        let fragments = L2CAP.fragment(frame, maximumFragment: 27)
        #expect(fragments.map(\.data.count) == [27, 27, 10])
        #expect(fragments.map(\.isFirst) == [true, false, false])
        #expect(fragments.flatMap(\.data) == frame.bytes)
    }

    @Test func theReassemblerJoinsFragmentsIntoOneFrame() throws {
        var reassembler = L2CAP.Reassembler()
        let bytes = L2CAP.BasicFrame(channel: 0x0004, payload: Array(0..<40)).bytes
        #expect(try reassembler.receive(fragment: Array(bytes[0..<27]), isFirst: true) == nil)
        #expect(!reassembler.isIdle)
        let frame = try reassembler.receive(fragment: Array(bytes[27...]), isFirst: false)
        #expect(frame == L2CAP.BasicFrame(channel: 0x0004, payload: Array(0..<40)))
        #expect(reassembler.isIdle)
    }

    /// Fragment sequences that break the rules, and the typed error each must produce.
    static let rejections: [(name: String, fragments: [(data: [UInt8], isFirst: Bool)], error: L2CAP.Reassembler.ReassemblyError)] = [
        ("continuation first", [([1, 2, 3], false)], .continuationWithoutStart(bytes: 3)),
        ("header cut short", [([0x01, 0x00, 0x04], true)], .headerTooShort(bytes: 3)),
        ("more bytes than announced", [([0x01, 0x00, 0x04, 0x00, 0xAA, 0xBB], true)], .lengthExceeded(announced: 1, received: 2)),
        ("continuation overflows", [([0x02, 0x00, 0x04, 0x00, 0xAA], true), ([0xBB, 0xCC], false)], .lengthExceeded(announced: 2, received: 3)),
        ("new start while incomplete", [([0x05, 0x00, 0x04, 0x00, 0xAA], true), ([0x01, 0x00, 0x04, 0x00], true)], .startWhileIncomplete(dropped: 4)),
        ("longer than Vigil accepts", [([0xFF, 0xFF, 0x04, 0x00], true)], .frameTooLong(announced: 0xFFFF)),
    ]

    @Test(arguments: rejections.indices)
    func theReassemblerRejectsLies(index: Int) {
        let (name, fragments, error) = Self.rejections[index]
        var reassembler = L2CAP.Reassembler()
        var thrown: L2CAP.Reassembler.ReassemblyError?
        for fragment in fragments {
            do { _ = try reassembler.receive(fragment: fragment.data, isFirst: fragment.isFirst) } catch { thrown = error }
        }
        #expect(thrown == error, "\(name)")
    }

    /// Found by the hostile-peer interop rig (`hostile_peers.py --scenario l2cap-lies`):
    /// a start fragment arriving while a frame is incomplete ends that frame (Vol 3 Part A
    /// §7.2.1), but when the start is itself a whole frame, that frame is good and must not be
    /// lost with the broken one. Bytes: a start announcing 30 bytes with 3 (never continued),
    /// then a whole ATT Handle Value Notification (0x1B) for handle 0x0003 with value 00 50
    /// (a Heart Rate Measurement of 80 bpm).
    @Test func aWholeFrameInTheStartThatEndsABrokenOneIsKept() throws {
        var reassembler = L2CAP.Reassembler()
        #expect(try reassembler.receive(fragment: [0x1E, 0x00, 0x04, 0x00, 0x1B, 0x03, 0x00], isFirst: true) == nil)
        var thrown: L2CAP.Reassembler.ReassemblyError?
        var returned: L2CAP.BasicFrame?
        do {
            returned = try reassembler.receive(fragment: [0x05, 0x00, 0x04, 0x00, 0x1B, 0x03, 0x00, 0x00, 0x50], isFirst: true)
        } catch { thrown = error }
        // The broken frame is reported (27 of its 30 payload bytes never came) ...
        #expect(thrown == .startWhileIncomplete(dropped: 27))
        #expect(returned == nil)
        // ... and the whole one is handed over once.
        let kept = reassembler.takeFrameAfterError()
        #expect(kept?.channel == L2CAP.ChannelID.att)
        #expect(kept?.payload == [0x1B, 0x03, 0x00, 0x00, 0x50])
        #expect(reassembler.takeFrameAfterError() == nil)
        #expect(reassembler.isIdle)
        // A later fragment starts clean.
        #expect(try reassembler.receive(fragment: [0x01, 0x00, 0x04, 0x00, 0x13], isFirst: true)
                == L2CAP.BasicFrame(channel: L2CAP.ChannelID.att, payload: [0x13]))
    }

    /// The same interruption, but the new start is itself incomplete: nothing to hand over,
    /// and its continuation completes it.
    @Test func anIncompleteStartThatEndsABrokenOneIsKeptPending() throws {
        var reassembler = L2CAP.Reassembler()
        _ = try reassembler.receive(fragment: [0x1E, 0x00, 0x04, 0x00, 0x1B], isFirst: true)
        #expect(throws: L2CAP.Reassembler.ReassemblyError.startWhileIncomplete(dropped: 29)) {
            try reassembler.receive(fragment: [0x03, 0x00, 0x04, 0x00, 0x0B], isFirst: true)
        }
        #expect(reassembler.takeFrameAfterError() == nil)
        #expect(try reassembler.receive(fragment: [0x01, 0x02], isFirst: false)
                == L2CAP.BasicFrame(channel: L2CAP.ChannelID.att, payload: [0x0B, 0x01, 0x02]))
    }

    @Test(arguments: [-1, 3, 200])
    func aPeerWhoseLengthsLieIsLoggedAndTimedOutNotHung(lie: Int) throws {
        let liar = SimulatedDevices.heartRateMonitor(address: HRM.address(1))
        let honest = SimulatedDevices.heartRateMonitor(address: HRM.address(2))
        var world = SimulatedWorld(peripherals: [liar, honest])
        world.start()
        let outcome1 = world.connect(HRM.address(1))
        let bad = try #require(outcome1)
        let outcome2 = world.connect(HRM.address(2))
        let good = try #require(outcome2)
        world.controller.radio[HRM.address(1).address]?.l2capLengthLie = lie
        let lost = world.gatt(.read(handle: HRM.bodySensorLocation), on: bad)
        // A second response on the lying link completes, or replaces, the broken frame.
        world.gatt(.read(handle: HRM.modelNumber), on: bad)
        world.controller.radio[HRM.address(1).address]?.sendUnsolicitedATT()
        world.pump()
        if lie < 0 {
            #expect(world.logged("L2CAP length says", atLeast: .warning), "lie \(lie)")
        }
        // The other link is untouched.
        let outcome3 = world.perform(.read(handle: HRM.bodySensorLocation), on: good)
        #expect(outcome3 == .value([0x01]))
        // The lost answer ends in the ATT timeout, never a hang.
        world.run(until: { $0.result(of: lost) != nil }, within: .seconds(40))
        #expect(world.result(of: lost) == .failed(.timedOut), "lie \(lie)")
        if lie > 0 {
            #expect(world.logged("L2CAP frame start while", atLeast: .warning), "lie \(lie)")
        }
        let outcome4 = world.perform(.read(handle: HRM.modelNumber), on: good)
        #expect(outcome4 == .value(Array("HRM-1".utf8)))
        world.expectHealthy()
    }

    @Test func framesOnUnknownChannelsAreDropped() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.controller.radio[HRM.address.address]?.sendRaw(cid: 0x0040, payload: [1, 2, 3])
        world.pump()
        #expect(world.logged("unsupported CID 0x40"))
        let outcome5 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome5 == .value([0x01]))
        world.expectHealthy()
    }

    @Test func aclForAnUnknownHandleIsDropped() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        // ACL (Vol 4 Part E §5.4.2): handle 0x0123, first flushable, 5 bytes: an L2CAP frame on CID 4.
        world.controller.injectTowardHost([0x02, 0x23, 0x21, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x13])
        world.pump()
        #expect(world.logged("unknown handle 0x123"))
        let outcome6 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome6 == .value([0x01]))
        world.expectHealthy()
    }
}
