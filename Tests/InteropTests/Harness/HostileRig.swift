import Foundation
import Testing

/// `Tests/Rigs/hostile_peers.py`: the legitimate heart-rate monitor (and optionally the
/// legitimate Dexcom, or a BTHome thermometer) and a hostile peer on ONE Bumble controller,
/// and the `vigil run` config that serves them all.
enum HostileRig {
    static let heartRateAddress = "C2:11:22:33:44:55"
    static let hostileAddress = "C5:BA:D0:00:00:01"
    static let dexcomAddress = "C3:DE:C0:00:12:AB"
    static let thermometerAddress = "C4:11:22:33:44:66"
    static let dexcomID = "8112AB"

    /// Launches the rig for `scenario` with extra `arguments` (see the rig's `--help`).
    static func launch(_ scenario: String, _ arguments: [String] = []) throws -> Rig {
        try Rig.launch("hostile_peers.py", arguments: ["--scenario", scenario] + arguments)
    }

    /// A config with `[face] backend = "none"` and one `[[device]]` per device served, pinned
    /// to its address so that no look-alike can take its place.
    static func config(heartRate: Bool = true, hostile: Bool = true, hostilePair: Bool = false,
                       dexcom: Bool = false, thermometer: Bool = false) -> String {
        var text = "[face]\nbackend = \"none\"\n"
        if heartRate {
            text += "\n[[device]]\ntype = \"heart-rate\"\nlabel = \"hrm\"\naddress = \"\(heartRateAddress)\"\n"
        }
        if hostile {
            text += "\n[[device]]\ntype = \"heart-rate\"\nlabel = \"hostile\"\naddress = \"\(hostileAddress)\"\npair = \(hostilePair)\n"
        }
        if dexcom {
            // The rig's Dexcom runs its dex time 60 times faster (`--dexcom-speed`): a reading every 5 s.
            text += "\n[[device]]\ntype = \"dexcom\"\nlabel = \"g6\"\ntransmitter-id = \"\(dexcomID)\"\nreading-interval = \"5s\"\n"
        }
        if thermometer {
            text += "\n[[device]]\ntype = \"bthome\"\nlabel = \"fridge\"\naddress = \"\(thermometerAddress)\"\n"
        }
        return text
    }
}

extension VigilRun {
    /// Events about the device at `address`.
    func events(named name: String, address: String) -> [JSONObject] {
        events(named: name).filter { $0.string("address") == address }
    }

    /// Rig lines of the hostile peer (`{"hostile":KIND,...}`).
    func hostileRecords(_ kind: String? = nil) -> [JSONObject] {
        rigRecords.filter { $0.has("hostile") && (kind == nil || $0.string("hostile") == kind) }
    }

    /// The index in `rigRecords` of the first `{"hostile":kind}` line.
    func rigIndex(ofHostile kind: String) -> Int? {
        rigRecords.firstIndex { $0.string("hostile") == kind }
    }

    /// vigil's stderr lines (its log) that mention `text`.
    func logLines(containing text: String) -> [Substring] {
        result.stderrText.split(separator: "\n").filter { $0.contains(text) }
    }

    /// The legitimate heart-rate monitor's readings against its `{"sent":"hrm"}` log: one for
    /// one, in order, every field (as `RunInteropTests` does for the HRM alone); the last sent
    /// value may still have been in flight when vigil stopped.
    func expectHeartRateOneForOne(minimum: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let readings = heartRateReadings
        let sent = heartRateSent
        #expect(readings.count >= minimum, "\(readings.count) legitimate readings\n\(diagnostics)", sourceLocation: sourceLocation)
        #expect((0...1).contains(sent.count - readings.count),
                "rig sent \(sent.count), vigil reported \(readings.count) for the legitimate HRM\n\(diagnostics)",
                sourceLocation: sourceLocation)
        for (index, (reading, expected)) in zip(readings, sent).enumerated() {
            let context = Comment(rawValue: "reading \(index): \(reading) vs sent \(expected)")
            #expect(reading.int("bpm") == expected.int("bpm"), context, sourceLocation: sourceLocation)
            #expect(reading.string("contact") == expected.string("contact"), context, sourceLocation: sourceLocation)
            #expect(reading.int("energyExpended") == expected.int("energyExpended"), context, sourceLocation: sourceLocation)
            #expect(reading.doubles("rrIntervals")?.count == expected.doubles("rrIntervals")?.count, context,
                    sourceLocation: sourceLocation)
        }
    }

    /// The legitimate strap's readings, and the values the rig logged as sent.
    var heartRateReadings: [JSONObject] {
        events(named: "reading", address: HostileRig.heartRateAddress).filter { $0.string("kind") == "heart-rate" }
    }
    var heartRateSent: [JSONObject] { rigRecords.filter { $0.string("sent") == "hrm" } }

    /// How many of the strap's values sent so far vigil has not reported yet.
    func heartRateReadingsBehind() -> Int { heartRateSent.count - heartRateReadings.count }

    /// How many `{"sent":"hrm"}` lines the rig printed between its `{"hostile":from}` and
    /// `{"hostile":to}` lines (to nil: up to the end): legitimate values sent during, or after,
    /// the attack. With `expectHeartRateOneForOne` they all reached vigil.
    func heartRateSent(betweenHostile from: String, and to: String?) -> Int {
        guard let start = rigIndex(ofHostile: from) else { return 0 }
        let end = to.flatMap { rigIndex(ofHostile: $0) } ?? rigRecords.count
        guard start < end else { return 0 }
        return rigRecords[start..<end].filter { $0.string("sent") == "hrm" }.count
    }

    /// The legitimate Dexcom's glucose against its `{"sent":"glucose"|"backfill"}` log, in order.
    ///
    /// Each dex time counts once over the whole run: a backfill repeats the live reading, and a
    /// later session serves again what an earlier one did, and vigil delivers each reading
    /// once, by its dex time (the reading's `SensorStamp`). Everything sent before the rig's
    /// last `sent` line must have arrived; that last one may have been in flight when vigil
    /// stopped.
    func expectDexcomOneForOne(minimum: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        var expected: [(line: Int, mgdl: Int)] = []
        var seen = Set<Int>()
        var lastSentLine = -1
        for (index, line) in rigRecords.enumerated() {
            var sent: [Interop.DexcomInteropTests.SentReading] = []
            if line.string("sent") == "glucose", let t = line.int("dexTime"), let mgdl = line.int("mgdl") {
                sent = [.init(dexTime: t, mgdl: mgdl, trend: line.int("trend") ?? 0)]
            } else if line.string("sent") == "backfill", line.bool("truncated") != true {
                sent = Interop.DexcomInteropTests.backfillRecords(line)
            }
            if !sent.isEmpty { lastSentLine = index }
            for reading in sent where seen.insert(reading.dexTime).inserted { expected.append((index, reading.mgdl)) }
        }
        let readings = glucoseValues().filter { $0.address == HostileRig.dexcomAddress }
        let required = expected.filter { $0.line < lastSentLine }.count
        let context = Comment(rawValue: "vigil \(readings.map(\.mgdl)) vs rig \(expected.map(\.mgdl))\n\(diagnostics)")
        #expect(readings.count >= max(minimum, required) && readings.count <= expected.count, context, sourceLocation: sourceLocation)
        #expect(readings.map(\.mgdl) == expected.prefix(readings.count).map { Double($0.mgdl) }, context, sourceLocation: sourceLocation)
    }

    /// An `until` condition's half that every hostile run shares: more legitimate heart-rate
    /// readings than `minimum` (the last sent may be in flight), and with `dexcom`, the
    /// Dexcom's glucose and its urgent-low alarm: what `expectHeartRateOneForOne` and
    /// `expectDexcomOneForOne` look for.
    func legitimateDevicesServed(heartRate minimum: Int, dexcom: Bool = true) -> Bool {
        heartRateReadings.count > minimum
            && (!dexcom || (glucoseValues().contains { $0.address == HostileRig.dexcomAddress } && !alarmsRaised("urgent-low").isEmpty))
    }

    /// `{"event":"alarm","alarm":name,"change":"raised"}` lines.
    func alarmsRaised(_ name: String) -> [JSONObject] {
        events(named: "alarm").filter { $0.string("alarm") == name && $0.string("change") == "raised" }
    }
}
