import Foundation
import Testing

extension Interop {
    /// `vigil run` with a `type = "miaomiao"` device against `Tests/Rigs/miaomiao.py`, a MiaoMiao
    /// bridge carrying a real Libre 1 FRAM dump (xDrip NFCReaderXTest `data_libre1`). The rig
    /// logs each packet it sent as hex; the expected glucose is what that packet's FRAM implies,
    /// decoded here from the logged bytes by the Libre 1 FRAM layout (trend and history rings of
    /// 6-byte records, 13-bit raw values: docs/libre-history-timing.md) and the uncalibrated
    /// raw / 8.5 conversion (`LibreCalibration`'s doc comment says where it comes from).
    @Suite(bumbleRequired) struct MiaoMiaoInteropTests {
        /// A packet every 3 s instead of the real bridge's 5 min.
        static let intervalSeconds = "3"
        static let seconds = 9
        static let config = "[[device]]\ntype = \"miaomiao\"\nlabel = \"libre\"\n"

        /// A run that waits for one live reading (the packet's trend minute) ends with it, once
        /// the rig has logged the packets it came from (it logs a packet after its last
        /// fragment left, which vigil may read first); `seconds` is the cap.
        static func liveReading(_ run: VigilRun) -> Bool {
            let live = run.glucoseValues().filter { $0.trend != nil }.count
            let good = run.rigRecords.filter { $0.string("sent") == "packet" && $0.bool("complete") == true && $0.bool("corrupt") != true }
            return live >= 1 && good.count >= live
        }

        @Test func readsTheLibreDumpAndReportsWhatItImplies() throws {
            let rig = try Rig.launch("miaomiao.py", arguments: ["--interval-s", Self.intervalSeconds])
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config), seconds: Self.seconds)
            try run.expectCleanExit()
            #expect(run.rigRecords.contains { $0.string("received") == "command" && $0.string("hex") == "f0" },
                    "vigil never sent F0 (start reading)\n\(run.diagnostics)")

            let packets = try run.rigRecords.filter { $0.string("sent") == "packet" && $0.bool("complete") == true }
                .map { try Self.packet(from: $0) }
            try #require(packets.count >= 2, "want at least two packets from the rig\n\(run.diagnostics)")
            let glucose = run.glucoseValues()
            #expect(glucose.allSatisfy { $0.kind == "glucose" && $0.address == run.address }, "\(glucose)")
            // The live reading of each packet carries a trend; history (backfill) ones do not.
            let live = glucose.filter { $0.trend != nil }
            let history = glucose.filter { $0.trend == nil }
            // A FRAM read again is the same reading (its sensor minute, its `SensorStamp`): one
            // live reading per distinct sensor minute the packets carried. The rig repeats one
            // dump, so that is one, however many packets came.
            var minutes: [Int] = []
            for packet in packets where !minutes.contains(packet.sensorAgeMinutes) { minutes.append(packet.sensorAgeMinutes) }
            #expect(live.count == minutes.count,
                    "rig sent \(packets.count) packets of sensor minutes \(minutes), vigil reported \(live.count) live readings\n\(run.diagnostics)")
            #expect(live.allSatisfy { $0.sensorTime != nil }, "\(live)")
            for (index, (reading, packet)) in zip(live, packets).enumerated() {
                let context = Comment(rawValue: "packet \(index): \(reading) vs raw \(packet.trend.first ?? -1)")
                #expect(abs(reading.mgdl - Double(packet.trend[0]) / 8.5) < 1e-6, context)
                // 16 good trend minutes give a computable direction.
                #expect(reading.trend.map { !["NONE", "NOT COMPUTABLE", "RATE OUT OF RANGE"].contains($0) } == true, context)
            }
            // History: the first packet's whole ring, oldest first; the later packets repeat the
            // same FRAM, so they add nothing (stored once).
            let expectedHistory = packets[0].history.reversed().map { Double($0) / 8.5 }
            #expect(history.count == expectedHistory.count,
                    "vigil reported \(history.count) history readings, the FRAM holds \(expectedHistory.count)\n\(run.diagnostics)")
            for (index, (reading, mgdl)) in zip(history, expectedHistory).enumerated() {
                #expect(abs(reading.mgdl - mgdl) < 1e-6, "history \(index): \(reading) vs \(mgdl)")
            }
            #expect(run.readingLinesWithRepeatedKeys().isEmpty, "\(run.readingLinesWithRepeatedKeys())")
            // Sensor state, age, bridge battery, firmware, hardware and sensor serial number,
            // all as the packet carried them.
            let first = packets[0]
            let infos = run.events(named: "info")
            #expect(infos.contains { $0.double("sensorAgeSeconds") == Double(first.sensorAgeMinutes * 60) },
                    "no sensor age of \(first.sensorAgeMinutes) min in \(infos)")
            #expect(first.sensorState == 3, "the dump is a ready sensor")
            #expect(infos.contains { $0.string("sensorState") == "ready" }, "\(infos)")
            #expect(infos.contains { $0.string("firmware") == first.firmwareHex && $0.string("hardware") == first.hardwareHex },
                    "firmware \(first.firmwareHex) hardware \(first.hardwareHex) not in \(infos)")
            #expect(infos.contains { $0.string("serialNumber")?.lowercased() == first.sensorUIDHex }, "\(infos)")
            let battery = run.events(named: "battery")
            #expect(!battery.isEmpty && battery.allSatisfy { $0.int("percent") == first.battery }, "\(battery) vs \(first.battery)")
        }

        /// A MiaoMiao 2 carrying a European Libre 2 (`--libre2`): the rig serves a published
        /// encrypted dump with its UID and patchInfo; deciphered, it holds a ready sensor of the
        /// age docs/protocols/libre2-fram.md §Test vectors gives, which vigil must report along
        /// with live glucose, and nothing malformed.
        @Test(arguments: [("example", 10320), ("example2", 3170)])
        func readsAnEncryptedLibre2(dump: String, ageMinutes: Int) throws {
            let rig = try Rig.launch("miaomiao.py", arguments: ["--interval-s", Self.intervalSeconds, "--libre2", dump])
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config), seconds: 6,
                                   until: Self.liveReading)
            try run.expectCleanExit()

            #expect(run.events(named: "malformed-value").isEmpty, "\(run.diagnostics)")
            let infos = run.events(named: "info")
            #expect(infos.contains { $0.double("sensorAgeSeconds") == Double(ageMinutes * 60) },
                    "no sensor age of \(ageMinutes) min in \(infos)\n\(run.diagnostics)")
            #expect(infos.contains { $0.string("sensorState") == "ready" }, "\(infos)")
            let live = run.glucoseValues().filter { $0.trend != nil }
            #expect(!live.isEmpty, "no live glucose from the Libre 2\n\(run.diagnostics)")
            #expect(live.allSatisfy { $0.sensorTime != nil }, "\(live)")
        }

        @Test func newSensorIsAcknowledgedAndThenRead() throws {
            let rig = try Rig.launch("miaomiao.py", arguments: ["--interval-s", Self.intervalSeconds, "--new-sensor"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config), seconds: 6,
                                   until: Self.liveReading)
            try run.expectCleanExit()

            let log = run.rigRecords
            let newSensorAt = try #require(log.firstIndex { $0.string("sent") == "message" && $0.string("hex") == "32" },
                                           "the rig never said new sensor\n\(run.diagnostics)")
            #expect(!run.events(named: "new-sensor").isEmpty, "no new-sensor event\n\(run.diagnostics)")
            // Acknowledged (D3 01) after the rig's 0x32, then read.
            let ackAt = log.firstIndex { $0.string("received") == "command" && $0.string("hex") == "d301" }
            #expect(ackAt.map { $0 > newSensorAt } == true, "no D3 01 after the new-sensor message\n\(run.diagnostics)")
            let packet = try #require(log.first { $0.string("sent") == "packet" && $0.bool("complete") == true },
                                      "no packet after the acknowledgement\n\(run.diagnostics)")
            let expected = Double(try Self.packet(from: packet).trend[0]) / 8.5
            let live = try #require(run.glucoseValues().first { $0.trend != nil },
                                    "no live glucose after the new sensor\n\(run.diagnostics)")
            #expect(abs(live.mgdl - expected) < 1e-6, "\(live) vs \(expected)")
        }

        @Test func noSensorIsReportedAndGivesNoGlucose() throws {
            let rig = try Rig.launch("miaomiao.py", arguments: ["--interval-s", Self.intervalSeconds, "--no-sensor"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config), seconds: 6)
            try run.expectCleanExit()

            let noSensor = run.rigRecords.filter { $0.string("sent") == "message" && $0.string("hex") == "34" }
            try #require(!noSensor.isEmpty, "the rig never said no sensor\n\(run.diagnostics)")
            let events = run.events(named: "no-sensor")
            #expect(!events.isEmpty, "no no-sensor event\n\(run.diagnostics)")
            #expect(events.allSatisfy { $0.string("address") == run.address })
            #expect(events.count <= noSensor.count, "more no-sensor events (\(events.count)) than 0x34 messages (\(noSensor.count))")
            #expect(!run.rigRecords.contains { $0.string("sent") == "packet" })
            #expect(run.events(named: "reading").isEmpty, "\(run.diagnostics)")
        }

        @Test(arguments: [["--corrupt-first"], ["--stop-after", "100"]])
        func aBadFirstPacketIsReportedRetriedAndNeverReachesReadings(fault: [String]) throws {
            let rig = try Rig.launch("miaomiao.py", arguments: ["--interval-s", "30"] + fault)
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config), seconds: 7,
                                   until: Self.liveReading)
            try run.expectCleanExit()

            let packets = run.rigRecords.filter { $0.string("sent") == "packet" }
            let bad = packets.filter { $0.bool("complete") == false || $0.bool("corrupt") == true }
            try #require(bad.count == 1, "the rig's first packet was not the bad one: \(packets)\n\(run.diagnostics)")
            #expect(!run.events(named: "malformed-value").isEmpty, "the bad packet was not reported\n\(run.diagnostics)")
            // Recovery: vigil asked again (a second F0) and read the good packet that followed.
            let starts = run.rigRecords.filter { $0.string("received") == "command" && $0.string("hex") == "f0" }
            #expect(starts.count >= 2, "no retry: \(starts.count) F0\n\(run.diagnostics)")
            let good = try packets.filter { $0.bool("complete") == true && $0.bool("corrupt") != true }.map { try Self.packet(from: $0) }
            let live = run.glucoseValues().filter { $0.trend != nil }
            try #require(!good.isEmpty, "no good packet after the retry\n\(run.diagnostics)")
            #expect(live.count == good.count, "\(live.count) live readings for \(good.count) good packets")
            for (reading, packet) in zip(live, good) {
                #expect(abs(reading.mgdl - Double(packet.trend[0]) / 8.5) < 1e-6, "\(reading)")
            }
        }

        // MARK: - The packet the rig logged

        /// The fields of one logged MiaoMiao data packet (`MiaoMiaoPacket`'s table: 0x28, length u16be,
        /// minute counter u16, sensor UID 8, battery, firmware 2, hardware 2, FRAM 344, 0x29).
        struct Packet {
            var sensorUIDHex: String
            var battery: Int
            var firmwareHex: String
            var hardwareHex: String
            var sensorState: Int
            var sensorAgeMinutes: Int
            /// 13-bit raw values, newest first (slot trendIndex − 1 backwards).
            var trend: [Int]
            /// The usable history raw values, newest first.
            var history: [Int]
        }

        static func packet(from line: JSONObject) throws -> Packet {
            let hex = try #require(line.string("hex"), "no hex in \(line)")
            let bytes = try #require(Self.bytes(hex: hex), "bad hex in \(line)")
            try #require(bytes.count >= 363 && bytes[0] == 0x28 && bytes[362] == 0x29, "not a data packet: \(hex.prefix(40))…")
            func hexString(_ range: Range<Int>) -> String { bytes[range].map { String(format: "%02x", $0) }.joined() }
            let fram = Array(bytes[18..<362])
            // Bits 0–12 raw glucose, 14–25 error bits (docs/libre-history-timing.md: 6-byte records).
            func record(_ offset: Int) -> (raw: Int, usable: Bool) {
                let raw = Int(fram[offset + 1] & 0x1F) << 8 | Int(fram[offset])
                let bits = (0..<6).reduce(0) { $0 | Int(fram[offset + $1]) << (8 * $1) }
                let bit13 = bits >> 13 & 1
                let errors = bits >> 14 & 0xFFF
                return (raw, raw != 0 && errors == 0 && bit13 == 0)
            }
            let trendIndex = Int(fram[26]), historyIndex = Int(fram[27])
            let trend = (0..<16).map { record(28 + 6 * ((trendIndex - 1 - $0 + 32) % 16)).raw }
            let history = (0..<32).map { record(124 + 6 * ((historyIndex - 1 - $0 + 64) % 32)) }.filter(\.usable).map(\.raw)
            return Packet(
                sensorUIDHex: hexString(5..<13), battery: Int(bytes[13]),
                firmwareHex: hexString(14..<16), hardwareHex: hexString(16..<18),
                sensorState: Int(fram[4]), sensorAgeMinutes: Int(fram[316]) | Int(fram[317]) << 8,
                trend: trend, history: history)
        }

        static func bytes(hex: String) -> [UInt8]? {
            let digits = Array(hex.utf8)
            guard digits.count % 2 == 0 else { return nil }
            return stride(from: 0, to: digits.count, by: 2).map { index -> UInt8? in
                UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)
            }.reduce(into: [UInt8]?([])) { result, byte in
                if let byte { result?.append(byte) } else { result = nil }
            }
        }
    }
}
