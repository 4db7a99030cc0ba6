import Testing
import Wire
@testable import Transmitters

struct DexcomBackfillTests {
    // CGMBLEKit GlucoseBackfillMessageTests (docs/protocols/dexcom-g5-g6.md §Backfill) [verified].
    static let completionBytes = [UInt8](hex: "51000100b7ff52006604530032000000e6cb9805")
    static let frames = [
        [UInt8](hex: "0100bc460000b7ff52008b0006eee30053008500"),
        [UInt8](hex: "020006eb0f025300800006ee3a0353007e0006f5"),
        [UInt8](hex: "030066045300790006f8"),
    ]

    @Test func request() throws {
        let tx = Dexcom.BackfillTx(startTime: 5_439_415, endTime: 5_440_614)
        #expect(tx.bytes == [UInt8](hex: "50 05 02 00 b7 ff 52 00 66 04 53 00 00 00 00 00 00 00 71 38"))
        #expect(try Dexcom.BackfillTx(decoding: tx.bytes) == tx)
    }

    @Test func completion() throws {
        let rx = try Dexcom.BackfillRx(decoding: Self.completionBytes)
        #expect(rx.status.isOK)
        #expect(rx.backfillStatus == 1)
        #expect(rx.identifier == 0)
        #expect(rx.startTime == 5_439_415)
        #expect(rx.endTime == 5_440_614)
        #expect(rx.bufferLength == 50)
        #expect(rx.bufferCRC == 0xCBE6)
        #expect(rx.bytes == Self.completionBytes)
    }

    @Test func framesValidateAndDecode() throws {
        var buffer = Dexcom.BackfillBuffer()
        for frame in Self.frames { try buffer.append(frame) }
        #expect(buffer.byteCount == 50)
        #expect(buffer.crc == 0xCBE6)
        let records = try buffer.validate(against: try Dexcom.BackfillRx(decoding: Self.completionBytes))
        let expected: [(UInt32, UInt16, Int8)] = [
            (5_439_415, 139, -18), (5_439_715, 133, -21), (5_440_015, 128, -18), (5_440_314, 126, -11), (5_440_614, 121, -8),
        ]
        #expect(records.count == expected.count)
        for (record, (time, glucose, trend)) in zip(records, expected) {
            #expect(record.timestamp == time)
            #expect(record.glucoseMilligramsPerDeciliter == glucose)
            #expect(record.calibrationState == .ok)
            #expect(record.trend == trend)
        }
        // Re-framing the same records and header reproduces the captured frames.
        #expect(Dexcom.BackfillBuffer.frames(header: [0xBC, 0x46, 0x00, 0x00], records: records) == Self.frames)
    }

    @Test func endsEarly() throws {
        var buffer = Dexcom.BackfillBuffer()
        try buffer.append(Self.frames[0])
        try buffer.append(Self.frames[1])
        #expect(throws: WireError.malformed("backfill ended early or ran over: 40 bytes received, 50 announced")) {
            try buffer.validate(against: try Dexcom.BackfillRx(decoding: Self.completionBytes))
        }
    }

    @Test func corruptedFrameFailsBufferCRC() throws {
        var buffer = Dexcom.BackfillBuffer()
        var bad = Self.frames
        bad[1][5] ^= 0x01
        for frame in bad { try buffer.append(frame) }
        #expect(throws: WireError.self) { try buffer.validate(against: try Dexcom.BackfillRx(decoding: Self.completionBytes)) }
    }

    @Test func recordsOutsideTheWindowFail() throws {
        var buffer = Dexcom.BackfillBuffer()
        for frame in Self.frames { try buffer.append(frame) }
        var completion = try Dexcom.BackfillRx(decoding: Self.completionBytes)
        completion.startTime += 1  // the first record now precedes the window
        #expect(throws: WireError.self) { try buffer.validate(against: completion) }
        completion = try Dexcom.BackfillRx(decoding: Self.completionBytes)
        completion.endTime -= 1
        #expect(throws: WireError.self) { try buffer.validate(against: completion) }
    }

    @Test func framesOutOfSequenceOrEmptyAreRejected() throws {
        var buffer = Dexcom.BackfillBuffer()
        #expect(throws: WireError.self) { try buffer.append(Self.frames[1]) }
        #expect(throws: WireError.self) { try buffer.append([0x01, 0x00]) }
        try buffer.append(Self.frames[0])
        #expect(throws: WireError.self) { try buffer.append(Self.frames[2]) }
    }

    @Test func partialRecordIsMalformed() throws {
        var buffer = Dexcom.BackfillBuffer()
        try buffer.append([0x01, 0x00, 0, 0, 0, 0, 1, 2, 3])
        #expect(throws: WireError.self) { try buffer.records() }
    }

    @Test func completionRejects() {
        #expect(throws: WireError.self) { try Dexcom.BackfillRx(decoding: Array(Self.completionBytes.prefix(19))) }
        #expect(throws: WireError.self) { try Dexcom.BackfillRx(decoding: Self.completionBytes + [0]) }
        var bad = Self.completionBytes
        bad[19] ^= 0xFF
        #expect(throws: WireError.self) { try Dexcom.BackfillRx(decoding: bad) }
    }
}
