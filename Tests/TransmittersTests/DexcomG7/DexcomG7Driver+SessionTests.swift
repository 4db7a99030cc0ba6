import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// Steps 5 and 6 (DexcomG7Driver+Session.swift): glucose, backfill, the sensor's state.
struct DexcomG7DriverSessionTests {
    typealias T = DexcomG7DriverTests
    typealias Harness = DexcomG7DriverTests.Harness

    @Test func aGapIsBackfilledOnceAndOldReadingsAreNotDeliveredAgain() throws {
        var h = Harness()
        _ = try h.pair()
        _ = h.control(T.serialReply)
        // First session: live reading at 3,600 and a backfill from the sensor's start.
        var actions = h.control(T.glucose(at: 3_600, mgdl: 150))
        #expect(actions.last == .write(T.control, DexcomG7.BackfillTx(start: 0, end: 3_600).bytes, withResponse: true))
        let early = DexcomG7.BackfillRecord(measuredAt: 3_000, glucoseField: 160, state: .ok, trendByte: 0xF6)
        let warm = DexcomG7.BackfillRecord(measuredAt: 1_200, glucoseField: 0xFFFF, state: .warmup, trendByte: 0x7F)
        let again = DexcomG7.BackfillRecord(measuredAt: 3_600, glucoseField: 150, state: .ok, trendByte: 0xF6)
        #expect(h.send(.value(T.backfill, warm.bytes + early.bytes, origin: .notification)).isEmpty)
        #expect(h.send(.value(T.backfill, again.bytes, origin: .notification)).isEmpty)
        actions = h.control([0x59, 0x00])
        #expect(T.readings(actions).map(\.sensorStamp?.count) == [3_000], "the warm-up record and the live reading are not delivered")
        // The session length, once; then the session ends and paces the next.
        #expect(actions.last == .write(T.control, [0x52], withResponse: true))
        actions = h.control([UInt8](hex: "5200c0d70d00540600020404ff0c00"))
        #expect(actions.contains { if case let .emit(.info(info)) = $0 { info.hardware?.contains("10.5 days") == true } else { false } })
        #expect(actions.contains { if case .nextSession = $0 { true } else { false } })
        _ = h.send(.disconnected(reason: "sensor dropped the link"))

        // Next session, 20 minutes later: the gap since 3,600 is backfilled, nothing older.
        h.now += .seconds(1_200)
        let key = try #require(h.driver.sessionKey)
        _ = h.subscribe()
        _ = h.challenge(key: key, status: .init(auth: 1, bond: 1))
        #expect(h.encryptAndSubscribe().last == .write(T.control, [0x4E], withResponse: true))
        actions = h.control(T.glucose(at: 4_800, mgdl: 140))
        #expect(T.readings(actions).map(\.sensorStamp?.count) == [4_800])
        #expect(actions.last == .write(T.control, DexcomG7.BackfillTx(start: 3_600, end: 4_800).bytes, withResponse: true))
        let records = stride(from: UInt32(3_600), through: 4_800, by: 300).map {
            DexcomG7.BackfillRecord(measuredAt: $0, glucoseField: UInt16(150 - ($0 - 3_600) / 120), state: .ok, trendByte: 0xF6)
        }
        for pair in stride(from: 0, to: records.count, by: 2) {
            _ = h.send(.value(T.backfill, records[pair..<min(pair + 2, records.count)].flatMap(\.bytes), origin: .notification))
        }
        actions = h.control([0x59, 0x00])
        #expect(T.readings(actions).map(\.sensorStamp?.count) == [3_900, 4_200, 4_500], "neither the last session's nor this one's live reading again")
    }

    @Test func aMalformedBackfillIsDiscardedAndAskedAgainNextSession() throws {
        var h = Harness()
        _ = try h.pair()
        _ = h.control(T.serialReply)
        _ = h.control(T.glucose(at: 3_600, mgdl: 150))
        let actions = h.send(.value(T.backfill, [0x01, 0x02, 0x03], origin: .notification))
        #expect(actions.contains { if case let .emit(.malformedValue(uuid, _)) = $0 { uuid == T.backfill } else { false } })
        let end = h.control([0x59, 0x00])
        #expect(end.contains { if case let .emit(.malformedValue(_, reason)) = $0 { reason.contains("backfill discarded") } else { false } })
        #expect(T.readings(end).isEmpty)
        #expect(h.driver.unfilledGapStart == 0)
    }

    @Test func warmUpAndExpiryAreTheSensorsStateNotReadings() throws {
        var h = Harness()
        _ = try h.pair()
        _ = h.control(T.serialReply)
        for (state, word) in [(Dexcom.CalibrationState.warmup, "warmup"), (Dexcom.CalibrationState(rawValue: 24), "expired")] {
            let actions = h.control(T.glucose(at: 600, mgdl: 0xFFFF, state: state))
            #expect(T.readings(actions).isEmpty)
            #expect(actions.contains { if case let .emit(.info(info)) = $0 { info.sensorState == word && info.sensorAge == .seconds(605) } else { false } },
                    "\(actions)")
            h.driver.session.enter(.awaitingReply(to: .glucose))
        }
    }
}
