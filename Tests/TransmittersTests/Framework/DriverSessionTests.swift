import Bluetooth
import Clocks
import Testing
@testable import Transmitters

@Suite struct DriverSessionTests {
    enum Stage: Hashable, Sendable { case first, second }
    enum Timer: Hashable, Comparable, Sendable { case early, late }
    typealias Session = DriverSession<Stage, Timer>

    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let data = BluetoothUUID(0x2A37)
    static let other = BluetoothUUID(0x2A19)

    func running(noDataTimeout: Duration? = .seconds(30)) -> Session {
        var session = Session(noDataTimeout: noDataTimeout)
        session.restart()
        session.run(.first, at: Self.t0)
        return session
    }

    @Test func runsStagesUntilStopped() {
        var session = Session()
        #expect(session.phase == .notStarted && !session.isActive && session.stage == nil)
        session.enter(.second)
        #expect(session.phase == .notStarted, "a session that is not running does not move")
        session.run(.first, at: Self.t0)
        session.enter(.second)
        #expect(session.phase == .running(.second) && session.isActive)
        #expect(session.stop(reason: "done") == [.disconnect(reason: "done")])
        #expect(session.phase == .disconnecting(reason: "done") && session.stage == nil)
    }

    @Test func refusingIsIncompatibleThenDisconnectWithoutConnected() {
        var session = Session()
        #expect(session.refuse(because: "no service", at: Self.t0) == [.emit(.incompatible(reason: "no service")), .disconnect(reason: "no service")])
        #expect(session.phase == .disconnecting(reason: "no service"))
    }

    @Test func aDisconnectIsAskedAgainWhileTheLinkStaysUp() {
        var session = Session(disconnectRetry: .seconds(10))
        session.restart()
        session.run(.first, at: Self.t0)
        #expect(session.stop(reason: "done", at: Self.t0) == [.disconnect(reason: "done")])
        #expect(session.nextDeadline == Self.t0 + .seconds(10))
        #expect(session.askAgainToDisconnect(at: Self.t0 + .seconds(9)) == [], "not yet due")
        #expect(session.askAgainToDisconnect(at: Self.t0 + .seconds(10)) == [.disconnect(reason: "done")])
        #expect(session.nextDeadline == Self.t0 + .seconds(20), "and again after another retry interval")
        session.linkDropped(reason: "gone")
        #expect(session.nextDeadline == nil)
        #expect(session.askAgainToDisconnect(at: Self.t0 + .seconds(30)) == [], "the link is down: nothing to ask")
        _ = session.refuse(because: "no service", at: Self.t0 + .seconds(40))
        #expect(session.nextDeadline == Self.t0 + .seconds(50), "a refused peer's link is insisted on too")
    }

    @Test func leavingAsksTheHostOnlyIfTheLinkOutlivesItsDeadline() {
        var session = Session(disconnectRetry: .seconds(10))
        session.restart()
        session.run(.first, at: Self.t0)
        session.schedule(.early, at: Self.t0 + .seconds(1))
        session.leave(reason: "complete", askingHostAt: Self.t0 + .seconds(2))
        #expect(session.phase == .disconnecting(reason: "complete") && session.timers.isEmpty)
        #expect(session.nextDeadline == Self.t0 + .seconds(2))
        #expect(session.askAgainToDisconnect(at: Self.t0 + .seconds(2)) == [.disconnect(reason: "complete")])
        #expect(session.nextDeadline == Self.t0 + .seconds(12))
    }

    @Test func withoutARetryTheHostIsAskedOnce() {
        var session = running(noDataTimeout: nil)
        #expect(session.stop(reason: "done", at: Self.t0) == [.disconnect(reason: "done")])
        #expect(session.nextDeadline == nil)
        #expect(session.askAgainToDisconnect(at: Self.t0 + .seconds(3600)) == [])
    }

    @Test func aDroppedLinkEndsASessionOnce() {
        var session = Session()
        #expect(!session.hasSessionToEnd, "never started")
        session = running()
        #expect(session.hasSessionToEnd)
        session.linkDropped(reason: "gone")
        #expect(session.phase == .disconnected(reason: "gone"))
        #expect(!session.hasSessionToEnd, "already reported")
        _ = session.stop(reason: "x")
        #expect(session.hasSessionToEnd, "a session ending by our request still waits for the link to drop")
    }

    @Test func tracksRequestsUntilAnswered() {
        var session = running()
        let actions: [DriverAction] = [.emit(.connected), .subscribe(Self.data, indications: false), .read(Self.other),
                                       .write(Self.other, [1], withResponse: true), .write(Self.other, [2], withResponse: false),
                                       .requestPairing]
        #expect(session.track(actions) == actions)
        // Nothing answers a write command on the air: it is not waited for.
        #expect(session.pendingOperations == [.subscribe(Self.data), .read(Self.other), .write(Self.other)])
        #expect(session.complete(.read(Self.other)) == .read(Self.other))
        #expect(session.complete(.read(Self.other)) == nil, "answered once")
        #expect(session.complete(.write(Self.other)) == .write(Self.other, [1], withResponse: true))
        #expect(session.pendingOperations == [.subscribe(Self.data)])
        session.abandonPending()
        #expect(session.pending.isEmpty)
    }

    @Test func aSessionThatDoesNotPairOnRefusalLeavesTheRefusalToTheDriver() {
        var session = Session(pairsOnRefusal: false)
        session.restart()
        session.run(.first, at: Self.t0)
        #expect(session.park(.read(Self.other), refusedWith: .attError(code: 0x05)) == nil)
        #expect(!session.isAwaitingPairing && session.parked.isEmpty)
    }

    @Test func parksRefusalsThatPairingCuresAndAsksOnce() {
        var session = running()
        let subscribe = DriverAction.subscribe(Self.data, indications: true)
        let read = DriverAction.read(Self.other)
        #expect(session.park(subscribe, refusedWith: .attError(code: 0x05)) == [.emit(.needsPairing), .requestPairing])
        #expect(session.park(read, refusedWith: .attError(code: 0x0F)) == [], "pairing already asked for")
        #expect(session.isAwaitingPairing && session.parkedOperations == [.subscribe(Self.data), .read(Self.other)])
        #expect(session.park(read, refusedWith: .attError(code: 0x08)) == nil, "authorization is not the link's")
        #expect(session.park(read, refusedWith: .timedOut) == nil)
        // Encrypted: the parked requests go out again, as they were asked for, and are pending.
        #expect(session.paired(at: Self.t0 + .seconds(20)) == [subscribe, read])
        #expect(!session.isAwaitingPairing && session.parked.isEmpty && session.encryptedThisSession)
        #expect(session.pendingOperations == [.subscribe(Self.data), .read(Self.other)])
        #expect(session.watchdog?.since == Self.t0 + .seconds(20), "the pairing dialogue was not the peer's silence")
        // A refusal after encryption is final: no pairing loop.
        #expect(session.park(read, refusedWith: .attError(code: 0x05)) == nil)
    }

    @Test func pairingFailureAbandonsTheParked() {
        var session = running()
        #expect(session.pairingFailed() == nil, "pairing was not the session's")
        _ = session.park(.read(Self.other), refusedWith: .attError(code: 0x05))
        #expect(session.pairingFailed() == [.read(Self.other)])
        #expect(!session.isAwaitingPairing && session.parked.isEmpty)
        #expect(session.paired(at: Self.t0) == nil, "nothing left to send again")
    }

    @Test func aSessionThatStartsEncryptedNeverParks() {
        var session = Session()
        session.restart(encrypted: true)
        session.run(.first, at: Self.t0)
        #expect(session.park(.read(Self.other), refusedWith: .attError(code: 0x05)) == nil)
    }

    @Test func timersFireEarliestFirstThenInDeclaredOrder() {
        var session = running(noDataTimeout: nil)
        session.schedule(.late, at: Self.t0 + .seconds(5))
        session.schedule(.early, at: Self.t0 + .seconds(5))
        #expect(session.nextDeadline == Self.t0 + .seconds(5))
        #expect(session.takeDueTimers(at: Self.t0 + .seconds(4)) == [])
        #expect(session.takeDueTimers(at: Self.t0 + .seconds(9)) == [.early, .late])
        #expect(session.nextDeadline == nil)
        session.schedule(.early, at: Self.t0 + .seconds(7))
        session.schedule(.late, at: Self.t0 + .seconds(6))
        #expect(session.takeDueTimers(at: Self.t0 + .seconds(7)) == [.late, .early])
        session.schedule(.late, at: Self.t0 + .seconds(8))
        session.cancel(.late)
        #expect(session.deadline(of: .late) == nil)
    }

    @Test func theWatchdogTimesSilenceWhileRunning() {
        var session = running()
        #expect(session.nextDeadline == Self.t0 + .seconds(30))
        session.feedWatchdog(at: Self.t0 + .seconds(10))
        #expect(session.expireWatchdog(at: Self.t0 + .seconds(39)) == nil)
        #expect(session.expireWatchdog(at: Self.t0 + .seconds(40)) == Self.t0 + .seconds(10))
        #expect(session.nextDeadline == nil, "expired and disarmed")
        session.armWatchdog(at: Self.t0 + .seconds(50))
        session.schedule(.early, at: Self.t0 + .seconds(60))
        #expect(session.nextDeadline == Self.t0 + .seconds(60))
        session.disarmWatchdog()
        _ = session.stop(reason: "x")
        #expect(session.nextDeadline == nil && session.timers.isEmpty, "an ending session times nothing")
    }

    @Test func gattRequestsNameTheirOperation() {
        #expect(DriverAction.read(Self.data).gattRequest == .read(Self.data))
        #expect(DriverAction.write(Self.data, [], withResponse: false).gattRequest == .write(Self.data))
        #expect(DriverAction.subscribe(Self.data, indications: true).gattRequest == .subscribe(Self.data))
        #expect(DriverAction.requestPairing.gattRequest == nil)
        #expect(DriverAction.emit(.connected).gattRequest == nil)
    }
}
