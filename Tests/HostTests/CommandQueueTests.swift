import Clocks
import HCI
import Testing
@testable import Host

/// HCI command flow control (Core v5.4 Vol 4 Part E §4.4) and per-command deadlines.
@Suite struct CommandQueueTests {
    static let t0 = MonotonicInstant.zero

    @Test func sendsOneCommandPerCreditAndStampsADeadline() {
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        queue.enqueue(HCI.ReadBDADDR(), purpose: .bringUp(.readBDADDR))
        // The host starts with one credit (§4.4). H4: 01 · opcode 0x0C03 · length 0.
        #expect(queue.flush(at: Self.t0) == [[0x01, 0x03, 0x0C, 0x00]])
        #expect(queue.flush(at: Self.t0).isEmpty)
        #expect(queue.nextDeadline == Self.t0 + .seconds(3))
        // Command Complete for Reset grants 1: Read BD_ADDR (0x1009) may go.
        let answered = queue.answer(opcode: HCI.Reset.opcode, credits: 1)
        #expect(answered?.purpose == .bringUp(.reset))
        #expect(queue.flush(at: Self.t0 + .milliseconds(5)) == [[0x01, 0x09, 0x10, 0x00]])
        #expect(queue.nextDeadline == Self.t0 + .milliseconds(3005))
    }

    @Test func takingWaitingCommandsSendsNothingAndSetsNoDeadline() {
        // A replay's host answers its own commands: taken in order, none is ever in flight.
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.LESetScanParameters(active: true, interval: 0x60, window: 0x30, ownAddressType: .random), purpose: .scanParameters)
        queue.enqueue(HCI.LESetScanEnable(enable: true, filterDuplicates: false), purpose: .scanEnable(true))
        #expect(queue.takeWaiting()?.purpose == .scanParameters)
        #expect(queue.takeWaiting()?.packet.opcode == HCI.LESetScanEnable.opcode)
        #expect(queue.takeWaiting() == nil)
        #expect(queue.isIdle)
        #expect(queue.flush(at: Self.t0).isEmpty)
        #expect(queue.nextDeadline == nil)
        #expect(queue.expire(at: Self.t0 + .seconds(3600)).isEmpty)
    }

    @Test func creditsAreAbsoluteNotAdded() {
        var queue = CommandQueue(timeout: .seconds(3))
        for _ in 0..<5 { queue.enqueue(HCI.LERand(), purpose: .optional("rand")) }
        _ = queue.flush(at: Self.t0)
        // A NOP Command Complete (opcode 0) that grants 3: exactly three more go out.
        #expect(queue.answer(opcode: HCI.Opcode(rawValue: 0), credits: 3) == nil)
        #expect(queue.flush(at: Self.t0).count == 3)
        #expect(queue.credits == 0)
        // Zero credits in an answer stop the host until a later event grants more.
        #expect(queue.answer(opcode: HCI.LERand.opcode, credits: 0) != nil)
        #expect(queue.flush(at: Self.t0).isEmpty)
        #expect(queue.answer(opcode: HCI.Opcode(rawValue: 0), credits: 1) == nil)
        #expect(queue.flush(at: Self.t0).count == 1)
        #expect(queue.isIdle == false)
    }

    @Test func anAnswerForACommandNotInFlightMatchesNothing() {
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        _ = queue.flush(at: Self.t0)
        #expect(queue.answer(opcode: HCI.ReadBDADDR.opcode, credits: 1) == nil)
        #expect(queue.inFlight.count == 1)
    }

    @Test func expiredCommandsAreReturnedOnceAndTheirCreditPresumed() {
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        queue.enqueue(HCI.ReadBDADDR(), purpose: .bringUp(.readBDADDR))
        _ = queue.flush(at: Self.t0)
        #expect(queue.expire(at: Self.t0 + .milliseconds(2999)).isEmpty)
        let expired = queue.expire(at: Self.t0 + .seconds(3))
        #expect(expired.map(\.purpose) == [.bringUp(.reset)])
        #expect(queue.expire(at: Self.t0 + .seconds(3)).isEmpty)
        #expect(queue.flush(at: Self.t0 + .seconds(3)) == [[0x01, 0x09, 0x10, 0x00]])
    }

    @Test func aQueueLeftWithoutCreditsExpiresItsNextCommand() {
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        queue.enqueue(HCI.ReadBDADDR(), purpose: .bringUp(.readBDADDR))
        _ = queue.flush(at: Self.t0)
        // While Reset is in flight its own deadline is the only one.
        #expect(queue.nextDeadline == Self.t0 + .seconds(3))
        // Answered with Num_HCI_Command_Packets = 0 at 1 s: nothing may go, nothing in flight.
        #expect(queue.answer(opcode: HCI.Reset.opcode, credits: 0) != nil)
        #expect(queue.flush(at: Self.t0 + .seconds(1)).isEmpty)
        #expect(queue.nextDeadline == Self.t0 + .seconds(4))
        #expect(queue.expire(at: Self.t0 + .milliseconds(3999)).isEmpty)
        let expired = queue.expire(at: Self.t0 + .seconds(4))
        #expect(expired.map(\.purpose) == [.bringUp(.readBDADDR)])
        #expect(queue.isIdle)
        #expect(queue.nextDeadline == nil)
    }

    @Test func aLateNOPCreditEndsTheStarvation() {
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        queue.enqueue(HCI.ReadBDADDR(), purpose: .bringUp(.readBDADDR))
        _ = queue.flush(at: Self.t0)
        _ = queue.answer(opcode: HCI.Reset.opcode, credits: 0)
        _ = queue.flush(at: Self.t0)
        #expect(queue.nextDeadline == Self.t0 + .seconds(3))
        // NOP Command Complete (opcode 0x0000) granting one credit at 2 s (§7.7.14).
        _ = queue.answer(opcode: HCI.Opcode(rawValue: 0), credits: 1)
        #expect(queue.flush(at: Self.t0 + .seconds(2)) == [[0x01, 0x09, 0x10, 0x00]])
        #expect(queue.nextDeadline == Self.t0 + .seconds(5))
        #expect(queue.expire(at: Self.t0 + .seconds(3)).isEmpty)
    }

    @Test func onlyOptionalCommandsAreNotCritical() {
        #expect(!CommandPurpose.optional("x").isCritical)
        #expect(CommandPurpose.bringUp(.reset).isCritical)
        #expect(CommandPurpose.cancelConnection.isCritical)
        #expect(CommandPurpose.enableEncryption(handle: 0x40).isCritical)
    }

    @Test func resetForgetsEverythingAndRestoresOneCredit() {
        var queue = CommandQueue(timeout: .seconds(3))
        queue.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        _ = queue.flush(at: Self.t0)
        _ = queue.answer(opcode: HCI.Reset.opcode, credits: 0)
        queue.reset()
        #expect(queue.isIdle)
        #expect(queue.credits == 1)
        #expect(queue.nextDeadline == nil)
    }
}
