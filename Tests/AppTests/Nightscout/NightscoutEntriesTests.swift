import Clocks
import Readings
import Testing
@testable import App

@Suite struct NightscoutEntriesTests {
    typealias F = NightscoutFixtures

    @Test func deltaIsTheSlopeToTheSameDevicesPreviousReadingOverFiveMinutes() {
        let t = F.at(minute: 10)
        #expect(Nightscout.Entries.delta(to: (t, 110), from: (F.at(minute: 5), 100)) == 10)
        #expect(Nightscout.Entries.delta(to: (t, 110), from: (F.at(minute: 9), 100)) == 50)
        #expect(Nightscout.Entries.delta(to: (t, 100), from: (F.at(minute: 7), 101)) == -1.667)
        // None, too old, or not before it: 0, as xDrip+ uploads a first reading.
        #expect(Nightscout.Entries.delta(to: (t, 110), from: nil) == 0)
        #expect(Nightscout.Entries.delta(to: (t, 110), from: (F.at(minute: -11), 100)) == 0)
        #expect(Nightscout.Entries.delta(to: (t, 110), from: (t, 100)) == 0)
    }

    @Test func devicesKeepTheirOwnDeltasAndLowsStayReadable() {
        let other = RecordedReading(device: "libre", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 30), trend: nil), wallTime: F.at(minute: 6))
        var snapshot = F.snapshot
        snapshot.readings.append(other)
        let documents = Nightscout.Entries.documents(snapshot)
        let libre = documents.first { $0.contains { $0.0 == "device" && $0.1 == .string("vigil-libre") } }!
        // Below 39 Nightscout reads a code, so a real low is written 39; no trend is NONE.
        #expect(JSON.object(libre).rendered.contains(#""sgv":39,"date":1795327560000,"dateString":"2026-11-22T06:06:00.000Z","direction":"NONE","delta":0,"#))
        #expect(documents.map { JSON.object($0).rendered }.contains(F.entry0605))
    }
}
