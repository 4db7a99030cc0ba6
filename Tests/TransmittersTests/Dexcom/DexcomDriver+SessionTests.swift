import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

// The Control exchange's later steps (DexcomDriver+Session.swift): backfill, listen-only and
// hostile input, on the same harness and virtual clock as DexcomDriverTests.
extension DexcomDriverTests {
    // MARK: - Backfill

    /// Drives a second session after a 30-minute gap: the backfill covers the gap, the live
    /// reading is not repeated, and the frames are validated against the completion.
    func sessionAfterGap(_ h: inout Harness, frames: (([Dexcom.BackfillRecord]) -> [[UInt8]])? = nil,
                         completion: ((Dexcom.BackfillRx) -> Dexcom.BackfillRx)? = nil) -> (live: [DriverAction], backfill: [DriverAction]) {
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let live = h.exchange(currentTime: 12_000, sessionStart: 1_000, glucose: Self.glucose(130, at: 11_800), firstSession: false)
        #expect(live.last == .subscribe(Self.backfill, indications: false))
        let request = h.send(.subscribed(Self.backfill))
        #expect(request == [.write(Self.control, Dexcom.BackfillTx(startTime: 10_000, endTime: 11_800).bytes, withResponse: true)])
        let records = stride(from: UInt32(10_000), through: 11_800, by: 300).map {
            Dexcom.BackfillRecord(timestamp: $0, glucoseMilligramsPerDeciliter: UInt16(100 + ($0 - 10_000) / 60),
                                  calibrationState: $0 == 10_600 ? .warmup : .ok, trend: 3)
        }
        let sent = frames?(records) ?? Dexcom.BackfillBuffer.frames(records: records)
        var backfill: [DriverAction] = []
        for frame in sent { backfill += h.send(.value(Self.backfill, frame, origin: .notification)) }
        let full = Dexcom.BackfillBuffer.frames(records: records)
        var rx = Dexcom.BackfillRx(startTime: 10_000, endTime: 11_800, bufferLength: UInt32(full.joined().count),
                                   bufferCRC: CRC16.xmodem(full.joined()))
        rx = completion?(rx) ?? rx
        backfill += h.indicate(rx.bytes)
        return (live, backfill)
    }

    func firstSession(_ h: inout Harness) {
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let actions = h.exchange(currentTime: 10_100, sessionStart: 1_000, glucose: Self.glucose(100, at: 10_000))
        #expect(Self.readings(actions).count == 1)
        // First session with backfill-hours 3: from max(now − 3 h, session start) = 1000 to 10000.
        #expect(actions.last == .subscribe(Self.backfill, indications: false))
        #expect(h.send(.subscribed(Self.backfill)) == [.write(Self.control, Dexcom.BackfillTx(startTime: 1_000, endTime: 10_000).bytes, withResponse: true)])
        // The transmitter has nothing: an empty buffer (header only) is valid.
        let frames = Dexcom.BackfillBuffer.frames(records: [])
        for frame in frames { _ = h.send(.value(Self.backfill, frame, origin: .notification)) }
        let rx = Dexcom.BackfillRx(startTime: 1_000, endTime: 10_000, bufferLength: 6, bufferCRC: CRC16.xmodem(frames.joined()))
        // After the backfill, what is good to know; then the session ends, paced.
        #expect(h.indicate(rx.bytes) == [.write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true)])
        let rest = h.answerTheRest(firstSession: true)
        #expect(rest.last == Self.disconnectTx)
        #expect(Self.nextSession(rest) != nil)
        _ = h.send(.disconnected(reason: "remote"))
    }

    @Test func backfillAfterGapDeduplicatesAndSkipsUnusable() {
        var h = Harness()
        firstSession(&h)
        h.advance(.seconds(1800))
        let (live, backfill) = sessionAfterGap(&h)
        #expect(Self.readings(live).map(\.value) == [.glucose(GlucoseConcentration(milligramsPerDeciliter: 130), trend: .flat)])
        let times = Self.readings(backfill).map(\.time)
        // 10000…11800 every 300 s = 7 records: 10000 was stored in the first session, 10600 is
        // warm-up and 11800 is this session's live reading, which leaves 4.
        #expect(times.count == 4)
        let t = h.now  // the time reply arrived "now" with current time 12000
        #expect(times.first == .monotonic(t - .seconds(1_700)))
        #expect(Self.readings(backfill).first?.value == .glucose(GlucoseConcentration(milligramsPerDeciliter: 105), trend: .flat))
        // Every backfilled reading carries its dex time: the same reading backfilled again is one.
        #expect(Self.readings(backfill).map(\.sensorStamp?.count) == [10_300, 10_900, 11_200, 11_500])
        #expect(backfill.last == .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true))
        #expect(h.driver.unfilledGapStart == nil)
    }

    @Test func backfillEndingEarlyIsDiscardedAndRetriedNextSession() {
        var h = Harness()
        firstSession(&h)
        h.advance(.seconds(1800))
        let (_, backfill) = sessionAfterGap(&h, frames: { Array(Dexcom.BackfillBuffer.frames(records: $0).dropLast()) })
        #expect(Self.readings(backfill).isEmpty)
        guard case .emit(.malformedValue(Self.backfill, let reason))? = backfill.first else {
            Issue.record("expected malformedValue, got \(backfill)")
            return
        }
        #expect(reason.hasPrefix("backfill discarded: backfill ended early"))
        #expect(h.driver.unfilledGapStart == 10_000)
        _ = h.send(.disconnected(reason: "remote"))
        // Next session: no new gap (5 minutes later), but the old one is requested again.
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let live = h.exchange(currentTime: 12_300, sessionStart: 1_000, glucose: Self.glucose(131, at: 12_100), firstSession: false)
        #expect(live.last == .subscribe(Self.backfill, indications: false))
        #expect(h.send(.subscribed(Self.backfill)) == [.write(Self.control, Dexcom.BackfillTx(startTime: 10_000, endTime: 12_100).bytes, withResponse: true)])
    }

    @Test func backfillFailingValidationIsDiscarded() {
        var h = Harness()
        firstSession(&h)
        let (_, backfill) = sessionAfterGap(&h, completion: { var rx = $0; rx.bufferCRC ^= 1; return rx })
        #expect(Self.readings(backfill).isEmpty)
        #expect(Self.events(backfill).count == 1)
        var out = Harness()
        firstSession(&out)
        let (_, window) = sessionAfterGap(&out, completion: { var rx = $0; rx.endTime = 11_000; return rx })
        #expect(Self.readings(window).isEmpty)
    }

    @Test func backfillThatStopsTimesOut() {
        var h = Harness()
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        _ = h.exchange(currentTime: 10_100, sessionStart: 1_000, glucose: Self.glucose(100, at: 10_000))
        _ = h.send(.subscribed(Self.backfill))
        _ = h.send(.value(Self.backfill, [0x01, 0x00, 0, 0, 0, 0], origin: .notification))
        #expect(h.driver.nextDeadline == h.now + .seconds(30))
        let actions = h.expire()
        #expect(actions == [.emit(.malformedValue(Self.backfill, reason: "backfill stopped: 1 frame(s) and no completion (0x51) within 30 s")),
                            .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true)])
        #expect(h.driver.unfilledGapStart == 1_000)
        #expect(h.answerTheRest(firstSession: true).last == Self.disconnectTx)
        #expect(h.expire() == [.disconnect(reason: "session complete")])  // the link did not drop by itself
    }

    @Test func backfillSubscriptionRefusedKeepsTheGap() {
        var h = Harness()
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        _ = h.exchange(currentTime: 10_100, sessionStart: 1_000, glucose: Self.glucose(100, at: 10_000))
        let actions = h.send(.operationFailed(.subscribe(Self.backfill), .attError(code: 0x03)))
        #expect(actions == [.emit(.operationFailed(.subscribe(Self.backfill), .attError(code: 0x03))),
                            .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true)])
        #expect(h.driver.unfilledGapStart == 1_000)
    }

    // MARK: - Listen-only

    @Test func listenOnlyNeverWrites() {
        var h = Harness(listenOnly: true)
        let start = h.start()
        #expect(start == [.emit(.connected), .subscribe(Self.auth, indications: true), .subscribe(Self.control, indications: true),
                          .subscribe(Self.backfill, indications: false)])
        var all: [DriverAction] = []
        all += h.send(.value(Self.auth, Dexcom.AuthChallengeRx(tokenHash: [0, 0, 0, 0, 0, 0, 0, 0], challenge: Self.challenge).bytes, origin: .indication))
        all += h.send(.value(Self.auth, [0x05, 0x01, 0x01], origin: .indication))
        all += h.indicate(Dexcom.TransmitterTimeRx(currentTime: 10_000, sessionStartTime: 9_000).bytes)
        all += h.indicate(Self.glucose(140, at: 9_995, trend: 25).bytes)
        all += h.indicate([UInt8](hex: "23 00 3c 01 2f 01 cd 02 1f 24 7b ae"))
        #expect(!all.contains { if case .write = $0 { true } else { false } })
        #expect(Self.readings(all).map(\.value) == [.glucose(GlucoseConcentration(milligramsPerDeciliter: 140), trend: .singleUp)])
        #expect(Self.readings(all).first?.time == .monotonic(h.now - .seconds(5)))
        // No glucose for the listen timeout: signal loss, and the link is dropped.
        let silence = h.expire()
        #expect(silence.last == .disconnect(reason: "listen-only: no glucose seen for 360 s"))
        #expect(Self.events(silence) == [.noData(since: h.now - .seconds(360), duration: .seconds(360))])
    }

    @Test func listenOnlyObservesABackfill() {
        var h = Harness(listenOnly: true)
        _ = h.start()
        _ = h.indicate(Self.glucose(140, at: 10_000).bytes)  // no time reply seen: dated now
        let records = [Dexcom.BackfillRecord(timestamp: 9_400, glucoseMilligramsPerDeciliter: 120, calibrationState: .ok, trend: 0),
                       Dexcom.BackfillRecord(timestamp: 9_700, glucoseMilligramsPerDeciliter: 125, calibrationState: .ok, trend: 0)]
        let frames = Dexcom.BackfillBuffer.frames(records: records)
        for frame in frames { _ = h.send(.value(Self.backfill, frame, origin: .notification)) }
        let rx = Dexcom.BackfillRx(startTime: 9_400, endTime: 9_700, bufferLength: UInt32(frames.joined().count), bufferCRC: CRC16.xmodem(frames.joined()))
        let actions = h.indicate(rx.bytes)
        #expect(Self.readings(actions).map(\.time) == [.monotonic(h.now - .seconds(600)), .monotonic(h.now - .seconds(300))])
    }

    /// Hostile input in every phase: random values on every characteristic, extreme times.
    /// Nothing may trap, and nothing undecodable may become a reading.
    @Test func hostileValuesNeverTrapOrBecomeReadings() {
        var generator = SplitMix64(seed: 0xDE_C0)
        for round in 0..<300 {
            var h = Harness()
            _ = h.authenticate(bonded: round % 2 == 0)
            if round % 3 != 0 { h.encryptAndSubscribe() }
            var all: [DriverAction] = []
            for _ in 0..<20 {
                let length = Int(generator.next() % 24)
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if !bytes.isEmpty, generator.next() % 2 == 0 {
                    bytes[0] = [0x25, 0x4F, 0x31, 0x2F, 0x23, 0x21, 0x4B, 0x33, 0x51, 0x03, 0x05][Int(generator.next() % 11)]
                }
                let uuid = [Self.control, Self.auth, Self.backfill][Int(generator.next() % 3)]
                all += h.send(.value(uuid, bytes, origin: .indication))
            }
            // Extreme but well-formed times: a clock at the top of the range, a reading after it.
            all += h.indicate(Dexcom.TransmitterTimeRx(currentTime: 0xFFFF_FFF0, sessionStartTime: 0xFFFF_FFFE).bytes)
            all += h.indicate(Self.glucose(120, at: 0xFFFF_FFFF).bytes)
            all += h.expire() + h.expire()
            for reading in Self.readings(all) {
                guard case let .glucose(value, _) = reading.value else { continue }
                #expect(value.milligramsPerDeciliter >= 39)
            }
        }
    }
}

/// A small deterministic generator so the hostile-input test repeats exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
