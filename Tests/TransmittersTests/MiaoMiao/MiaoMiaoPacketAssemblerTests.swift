import Clocks
import Testing
import Wire
@testable import Transmitters

@Suite struct MiaoMiaoPacketAssemblerTests {
    static let t0 = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let packet = MiaoMiaoFixtures.packet()

    func feed(_ chunks: [[UInt8]], into assembler: inout MiaoMiaoPacketAssembler, every step: Duration = .milliseconds(30)) -> [MiaoMiaoPacketAssembler.Output] {
        var now = Self.t0
        var outputs: [MiaoMiaoPacketAssembler.Output] = []
        for chunk in chunks {
            outputs += assembler.receive(chunk, at: now)
            now += step
        }
        return outputs
    }

    @Test(arguments: [1, 2, 3, 7, 20, 100, 363])
    func anySplitReassembles(size: Int) {
        var assembler = MiaoMiaoPacketAssembler()
        #expect(feed(MiaoMiaoFixtures.chunks(Self.packet, size: size), into: &assembler) == [.packet(Self.packet)])
        #expect(!assembler.isAssembling)
        #expect(assembler.deadline == nil)
    }

    @Test func irregularSplits() {
        var assembler = MiaoMiaoPacketAssembler()
        let cuts = [0, 1, 3, 50, 51, 200, 362, 363]
        let chunks = zip(cuts, cuts.dropFirst()).map { Array(Self.packet[$0 ..< $1]) }
        #expect(feed(chunks, into: &assembler) == [.packet(Self.packet)])
    }

    @Test func patchInfoInTheLastNotification() {
        let full = MiaoMiaoFixtures.packet(declaredLength: 363, patchInfo: [0xDF, 0, 0, 8, 0x1A, 0x24])
        var assembler = MiaoMiaoPacketAssembler()
        #expect(feed(MiaoMiaoFixtures.chunks(full), into: &assembler) == [.packet(full)])
    }

    @Test func declared369WaitsForPatchInfo() {
        let full = MiaoMiaoFixtures.packet(declaredLength: 369, patchInfo: [0xDF, 0, 0, 8, 0x1A, 0x24])
        var assembler = MiaoMiaoPacketAssembler()
        let chunks = [Array(full[0..<363]), Array(full[363...])]
        #expect(assembler.receive(chunks[0], at: Self.t0) == [])
        #expect(assembler.bufferedCount == 363)
        #expect(assembler.receive(chunks[1], at: Self.t0) == [.packet(full)])
    }

    @Test func messagesPassThroughWhenIdle() {
        var assembler = MiaoMiaoPacketAssembler()
        #expect(assembler.receive([0x32], at: Self.t0) == [.message([0x32])])
        #expect(assembler.receive([0x34], at: Self.t0) == [.message([0x34])])
        #expect(assembler.receive([0xD1, 0x01], at: Self.t0) == [.message([0xD1, 0x01])])
    }

    @Test func stopHalfWayTimesOut() {
        var assembler = MiaoMiaoPacketAssembler()
        _ = feed(Array(MiaoMiaoFixtures.chunks(Self.packet).prefix(9)), into: &assembler)
        #expect(assembler.bufferedCount == 180)
        let deadline = Self.t0 + .milliseconds(8 * 30) + .seconds(3)
        #expect(assembler.deadline == deadline)
        #expect(assembler.handleDeadline(at: deadline - .milliseconds(1)) == nil)
        #expect(assembler.handleDeadline(at: deadline) == "MiaoMiao packet stopped after 180 of 363 bytes (no notification for 3 s)")
        #expect(assembler.deadline == nil)
        // The next packet is assembled from scratch.
        #expect(feed(MiaoMiaoFixtures.chunks(Self.packet), into: &assembler) == [.packet(Self.packet)])
    }

    /// A late chunk after the gap is not glued to the stale half: the stale half is dropped and
    /// the new packet starts clean, even if `handleDeadline` was never called.
    @Test func newPacketAfterTheGapReplacesTheStaleHalf() {
        var assembler = MiaoMiaoPacketAssembler()
        _ = assembler.receive(Array(Self.packet[0..<100]), at: Self.t0)
        var outputs = assembler.receive(Array(Self.packet[0..<200]), at: Self.t0 + .seconds(4))
        #expect(outputs == [.dropped(reason: "MiaoMiao packet stopped after 100 of 363 bytes (no notification for 3 s)")])
        outputs = assembler.receive(Array(Self.packet[200...]), at: Self.t0 + .seconds(4))
        #expect(outputs == [.packet(Self.packet)])
    }

    @Test func oversizedIsDroppedAndItsTailSwallowed() {
        var assembler = MiaoMiaoPacketAssembler()
        let oversized = Self.packet + [UInt8](repeating: 0xAA, count: 10)
        #expect(assembler.receive(oversized, at: Self.t0) == [.dropped(reason: "MiaoMiao packet oversized: 373 bytes where 363 were declared")])
        #expect(assembler.receive([0xAA, 0xAA], at: Self.t0 + .milliseconds(10)) == [])
        #expect(assembler.handleDeadline(at: Self.t0 + .seconds(4)) == nil)
        #expect(assembler.receive([0x34], at: Self.t0 + .seconds(5)) == [.message([0x34])])
    }

    @Test func impossibleDeclaredLengthIsDroppedWithItsMiddle() {
        var assembler = MiaoMiaoPacketAssembler()
        let bad = MiaoMiaoFixtures.packet(declaredLength: 1000)
        let chunks = MiaoMiaoFixtures.chunks(bad)
        #expect(feed(chunks, into: &assembler) == [.dropped(reason: "MiaoMiao packet declares 1000 bytes, expected 363 or 369")])
    }

    @Test func twoByteStartWaitsForTheLength() {
        var assembler = MiaoMiaoPacketAssembler()
        #expect(assembler.receive([0x28, 0x01], at: Self.t0) == [])
        #expect(assembler.isAssembling)
        #expect(assembler.handleDeadline(at: Self.t0 + .seconds(3)) == "MiaoMiao packet stopped after 2 of ? bytes (no notification for 3 s)")
    }
}
