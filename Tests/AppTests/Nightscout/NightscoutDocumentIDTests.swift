import Readings
import Testing
@testable import App

@Suite struct NightscoutDocumentIDTests {
    /// `hashlib.sha256(b"abc\0").hexdigest()[:24]`.
    @Test func isTheFirst12BytesOfSHA256OverNULEndedParts() {
        #expect(Nightscout.DocumentID.make(["abc"]) == "dc1114cd074914bd872cc1f9")
        #expect(Nightscout.DocumentID.make(["ab", "c"]) != Nightscout.DocumentID.make(["a", "bc"]))
        #expect(Nightscout.Route.isObjectID(Nightscout.DocumentID.make(["anything"])))
    }

    /// The same reading keeps its id however its wall time was estimated (a re-read, a
    /// backfill, a restart); a new transmitter's first count is another reading.
    @Test func aStampedReadingIsNamedByItsStamp() {
        var again = NightscoutFixtures.sgv0605
        again.wallTime = NightscoutFixtures.at(minute: 5, second: 1)
        again.origin = .backfill
        #expect(Nightscout.DocumentID.of(again, in: "entries") == Nightscout.DocumentID.of(NightscoutFixtures.sgv0605, in: "entries"))
        var newTransmitter = NightscoutFixtures.sgv0605
        newTransmitter.sensorStamp = SensorStamp(run: "8H5678", count: 1000)
        #expect(Nightscout.DocumentID.of(newTransmitter, in: "entries") != Nightscout.DocumentID.of(NightscoutFixtures.sgv0605, in: "entries"))
        #expect(Nightscout.DocumentID.of(NightscoutFixtures.meter0607, in: "entries") != Nightscout.DocumentID.of(NightscoutFixtures.meter0607, in: "treatments"))
    }
}
