import Alarms
import Clocks
import Readings
import Testing
@testable import History

@Suite struct HistoryStoreRedatingTests {
    /// A Pi booted without network: its wall clock starts at the epoch plus uptime.
    static func unsetWall(_ instant: MonotonicInstant) -> WallClockTime {
        WallClockTime(microsecondsSinceEpoch: instant.nanoseconds / 1000)
    }

    static func seconds(_ s: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: s * 1_000_000_000) }

    func glucose(_ mgdl: Double, at instant: MonotonicInstant, device: DeviceID = "dexcom") -> RecordedReading {
        RecordedReading(device: device, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: .flat),
                        wallTime: Self.unsetWall(instant))
    }

    @Test func rowsOfThisBootBeforeTheJumpAreShiftedOnce() throws {
        let directory = try TemporaryDirectory()
        // An earlier boot's rows: dated by a clock we can no longer judge, left alone.
        do {
            let earlier = try HistoryStore.open(path: directory.database, bootID: "boot-0", now: noon)
            earlier.append([glucose(90, at: Self.seconds(100))], receivedAt: Self.seconds(100))
            earlier.commit()
        }
        let store = try HistoryStore.open(path: directory.database, bootID: "boot-1", now: noon)
        // Committed before the jump: a reading, an alarm event snoozed past the jump, a calibration.
        store.append([glucose(100, at: Self.seconds(300))], receivedAt: Self.seconds(300))
        store.append([AlarmEvent(time: Self.seconds(310), kind: .glucose(.low), change: .snoozed(until: Self.seconds(2110)))],
                     monotonicNow: Self.seconds(310), wallNow: Self.unsetWall(Self.seconds(310)))
        store.append(Calibration(device: "dexcom", glucose: GlucoseConcentration(milligramsPerDeciliter: 98), wallTime: Self.unsetWall(Self.seconds(320))),
                     receivedAt: Self.seconds(320))
        // A reading with no reception instant (an import): nothing to re-date it by.
        store.append([glucose(50, at: Self.seconds(330), device: "import")])
        #expect(store.commit() == .committed(rows: 4, duplicates: 0))
        // Pending (not yet committed) at the jump.
        store.append([glucose(110, at: Self.seconds(600))], receivedAt: Self.seconds(600))

        // NTP sets the clock at monotonic 900 s: the old clock said epoch+900 s, the new says noon.
        let jump = ClockJump(monotonic: Self.seconds(900), from: Self.unsetWall(Self.seconds(900)), to: noon)
        let shift = jump.shift
        #expect(try store.redate(jump) == 4, "reading, event, calibration committed + the pending reading")
        // Received after the jump: dated on the new clock already.
        store.append([glucose(120, at: Self.seconds(1200))].map { var r = $0; r.wallTime = noon + .seconds(300); return r }, receivedAt: Self.seconds(1200))
        #expect(store.commit() == .committed(rows: 2, duplicates: 0))

        let expected: [(Double, WallClockTime)] = [
            (90, Self.unsetWall(Self.seconds(100))),
            (50, Self.unsetWall(Self.seconds(330))),
            (100, noon - .seconds(600)),
            (110, noon - .seconds(300)),
            (120, noon + .seconds(300)),
        ]
        func stored() -> [(Double, WallClockTime)] {
            store.readings().map { reading in
                guard case let .glucose(value, _) = reading.value else { return (-1, reading.wallTime) }
                return (value.milligramsPerDeciliter, reading.wallTime)
            }
        }
        #expect(stored().map(\.0) == expected.map(\.0))
        #expect(stored().map(\.1) == expected.map(\.1))
        #expect(try store.alarmEvents() == [RecordedAlarmEvent(kind: .glucose(.low), change: .snoozed(until: noon + .seconds(1210)), wallTime: noon - .seconds(590))])
        #expect(try store.calibrations().map(\.wallTime) == [Self.unsetWall(Self.seconds(320)) + shift])

        // The same jump again (a runner restarted in the same boot): nothing moves.
        #expect(try store.redate(jump) == 0)
        #expect(stored().map(\.1) == expected.map(\.1))

        // A restarted process in the same boot sees the jump as done, too.
        let restarted = try HistoryStore.open(path: directory.database, bootID: "boot-1", now: noon)
        #expect(try restarted.redate(jump) == 0)
    }

    @Test func aJumpOfZeroChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b", now: noon)
        store.append([glucose(100, at: Self.seconds(5))], receivedAt: Self.seconds(5))
        store.commit()
        #expect(try store.redate(ClockJump(monotonic: Self.seconds(10), from: noon, to: noon)) == 0)
        #expect(store.readings().map(\.wallTime) == [Self.unsetWall(Self.seconds(5))])
    }

    /// Rows moving onto an identical reading (same device, kind and microsecond) collapse into
    /// one instead of failing the whole re-dating.
    @Test func aRedatedRowLandingOnAnIdenticalOneReplacesIt() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b", now: noon)
        let heart = RecordedReading(device: "polar", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon)
        store.append([heart])
        var early = heart
        early.wallTime = Self.unsetWall(Self.seconds(50))
        store.append([early], receivedAt: Self.seconds(50))
        store.commit()
        #expect(try store.redate(ClockJump(monotonic: Self.seconds(60), from: Self.unsetWall(Self.seconds(50)), to: noon)) == 1)
        #expect(Array(store.readings()) == [heart])
        #expect(try store.check(full: true) == "ok")
    }
}
