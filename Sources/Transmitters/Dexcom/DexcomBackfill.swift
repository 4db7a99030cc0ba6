import Wire

extension Dexcom {
    /// 0x50 BackfillTx, 20 bytes: `50 05 02 00` · start (dex s) · end (dex s) · 4 zero bytes
    /// ("length") · 2 zero bytes ("backfillCRC") · CRC (CGMBLEKit GlucoseBackfillTxMessage;
    /// xDrip BackFillTxMessage.java; docs/protocols/dexcom-g5-g6.md §Backfill). xdrip-js leaves
    /// bytes 12–17 uninitialised, a bug in its code; Vigil sends zeros.
    public struct BackfillTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x50
        public var startTime: DexTime
        public var endTime: DexTime

        public init(startTime: DexTime, endTime: DexTime) {
            self.startTime = startTime
            self.endTime = endTime
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(contentsOf: [Self.opcode, 0x05, 0x02, 0x00])
            w.write(startTime); w.write(endTime)
            w.write(contentsOf: [UInt8](repeating: 0, count: 6))
            return Dexcom.withCRC(w.bytes)
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [20], name: "BackfillTx")
            try r.skip(3, "header")
            startTime = try r.readUInt32("start")
            endTime = try r.readUInt32("end")
        }
    }

    /// 0x51 BackfillRx, the completion on Control after the frames, 20 bytes: status ·
    /// backfillStatus · identifier · start · end · bufferLength u32 · bufferCRC u16 · CRC
    /// (CGMBLEKit GlucoseBackfillRxMessage and its test; docs/protocols/dexcom-g5-g6.md §Backfill).
    public struct BackfillRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x51
        public var status: TransmitterStatus
        public var backfillStatus: UInt8
        public var identifier: UInt8
        public var startTime: DexTime
        public var endTime: DexTime
        /// Bytes of all frames, their 2-byte headers included.
        public var bufferLength: UInt32
        /// CRC-16/XMODEM over all frames, headers included.
        public var bufferCRC: UInt16

        public init(status: TransmitterStatus = .init(rawValue: 0), backfillStatus: UInt8 = 1, identifier: UInt8 = 0,
                    startTime: DexTime, endTime: DexTime, bufferLength: UInt32, bufferCRC: UInt16) {
            self.status = status
            self.backfillStatus = backfillStatus
            self.identifier = identifier
            self.startTime = startTime
            self.endTime = endTime
            self.bufferLength = bufferLength
            self.bufferCRC = bufferCRC
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [20], name: "BackfillRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            backfillStatus = try r.readUInt8("backfillStatus")
            identifier = try r.readUInt8("identifier")
            startTime = try r.readUInt32("start")
            endTime = try r.readUInt32("end")
            bufferLength = try r.readUInt32("bufferLength")
            bufferCRC = try r.readUInt16("bufferCRC")
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(Self.opcode); w.write(status.rawValue); w.write(backfillStatus); w.write(identifier)
            w.write(startTime); w.write(endTime); w.write(bufferLength); w.write(bufferCRC)
            return Dexcom.withCRC(w.bytes)
        }
    }

    /// One 8-byte backfill record: dex time · glucose u16 (low 12 bits) · state · trend i8
    /// (CGMBLEKit GlucoseBackfillFrameBuffer; xdrip-js backfill-parser.js; xDrip BackFillStream).
    public struct BackfillRecord: Hashable, Sendable {
        public var timestamp: DexTime
        public var glucoseMilligramsPerDeciliter: UInt16
        public var calibrationState: CalibrationState
        public var trend: Int8

        public init(timestamp: DexTime, glucoseMilligramsPerDeciliter: UInt16, calibrationState: CalibrationState, trend: Int8) {
            self.timestamp = timestamp
            self.glucoseMilligramsPerDeciliter = glucoseMilligramsPerDeciliter
            self.calibrationState = calibrationState
            self.trend = trend
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(timestamp); w.write(glucoseMilligramsPerDeciliter); w.write(calibrationState.rawValue); w.write(trend)
            return w.bytes
        }
    }

    /// Collects the notifications on the Backfill characteristic (F8083536-…): each frame is
    /// `index · identifier · payload`, index from 1 (docs/protocols/dexcom-g5-g6.md §Backfill). The
    /// payloads joined are a 4-byte header and 8-byte records. Nothing is trusted until
    /// `validate(against:)` has checked the frames against the 0x51 completion.
    public struct BackfillBuffer: Hashable, Sendable {
        /// The frames as received, headers included: what bufferLength and bufferCRC cover.
        public private(set) var frames: [[UInt8]] = []

        public init() {}

        /// Appends a frame. Throws for a frame without payload or out of sequence; the
        /// buffer is then unusable for this backfill (a missing frame shifts every record).
        public mutating func append(_ frame: [UInt8]) throws(WireError) {
            guard frame.count > 2 else { throw .truncated(field: "backfill frame", needed: 3, available: frame.count) }
            let expected = UInt8(truncatingIfNeeded: frames.count + 1)
            guard frame[0] == expected else {
                throw .malformed("backfill frame \(frame[0]) out of sequence (expected \(expected))")
            }
            frames.append(frame)
        }

        public var byteCount: Int { frames.reduce(0) { $0 + $1.count } }
        public var crc: UInt16 { CRC16.xmodem(frames.joined()) }

        /// The records, unchecked against the completion message.
        public func records() throws(WireError) -> [BackfillRecord] {
            let payload = frames.flatMap { $0.dropFirst(2) }
            guard payload.count >= 4 else { throw .truncated(field: "backfill header", needed: 4, available: payload.count) }
            guard (payload.count - 4) % 8 == 0 else {
                throw .malformed("backfill payload of \(payload.count - 4) bytes after the header is not whole 8-byte records")
            }
            var r = ByteReader(payload)
            try r.skip(4, "backfill header")
            var records: [BackfillRecord] = []
            while !r.isAtEnd {
                records.append(BackfillRecord(
                    timestamp: try r.readUInt32("record time"),
                    glucoseMilligramsPerDeciliter: try r.readUInt16("record glucose") & 0x0FFF,
                    calibrationState: CalibrationState(rawValue: try r.readUInt8("record state")),
                    trend: try r.readInt8("record trend")))
            }
            return records
        }

        /// The records, after the checks CGMBLEKit applies (Transmitter.swift;
        /// docs/protocols/dexcom-g5-g6.md §Backfill): the frames' total length and CRC equal the
        /// completion's, and the records lie in the completion's start…end, in order. CGMBLEKit
        /// demands first == start and last == end exactly; Vigil accepts records inside the window
        /// because it may cap the window's start at a time that is not a reading time
        /// (`backfill-hours`), and then the first record legitimately follows the start. A "not
        /// glucose" backfill (CGMBLEKit tests: random-looking payload that passes length and CRC)
        /// still fails the window check.
        public func validate(against completion: BackfillRx) throws(WireError) -> [BackfillRecord] {
            guard byteCount == Int(completion.bufferLength) else {
                throw .malformed("backfill ended early or ran over: \(byteCount) bytes received, \(completion.bufferLength) announced")
            }
            guard crc == completion.bufferCRC else {
                throw .malformed("backfill buffer CRC mismatch: computed 0x\(Dexcom.hex16(crc)), announced 0x\(Dexcom.hex16(completion.bufferCRC))")
            }
            let records = try records()
            var previous: DexTime?
            for record in records {
                guard record.timestamp >= completion.startTime, record.timestamp <= completion.endTime else {
                    throw .malformed("backfill record time \(record.timestamp) outside \(completion.startTime)…\(completion.endTime)")
                }
                if let previous, record.timestamp <= previous {
                    throw .malformed("backfill record times not increasing (\(previous) then \(record.timestamp))")
                }
                previous = record.timestamp
            }
            return records
        }

        /// Splits a complete buffer payload (header and records) into frames of at most
        /// `frameSize` bytes, for simulators.
        public static func frames(header: [UInt8] = [0, 0, 0, 0], records: [BackfillRecord], identifier: UInt8 = 0,
                                  frameSize: Int = 20) -> [[UInt8]] {
            let payload = header + records.flatMap(\.bytes)
            let chunk = max(1, frameSize - 2)
            return stride(from: 0, to: payload.count, by: chunk).enumerated().map { index, start in
                [UInt8(truncatingIfNeeded: index + 1), identifier] + payload[start..<min(start + chunk, payload.count)]
            }
        }
    }
}
