import Clocks
import Readings
import Testing
@testable import App

@Suite struct NightscoutTreatmentsTests {
    typealias F = NightscoutFixtures

    @Test func aCalibrationIsTheMeterReadingOfTheSameBlood() {
        var snapshot = F.snapshot
        // A second transmitter took the same fingerstick; a third took another value at that time.
        snapshot.calibrations = [
            .init(device: "dexcom", glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: F.at(minute: 7)),
            .init(device: "g4", glucose: GlucoseConcentration(milligramsPerDeciliter: 104.2), wallTime: F.at(minute: 7, second: 1)),
            .init(device: "libre", glucose: GlucoseConcentration(milligramsPerDeciliter: 150), wallTime: F.at(minute: 7)),
        ]
        let documents = Nightscout.Treatments.documents(snapshot).map { JSON.object($0).rendered }
        #expect(documents.count == 2)
        #expect(documents.contains { $0.contains(#""glucose":104,"#) && $0.contains(#""notes":"meal=preprandial;tester=self, calibration of dexcom, g4""#) })
        #expect(documents.contains { $0.contains(#""glucose":150,"#) && $0.contains(#""enteredBy":"vigil-libre","notes":"calibration of libre""#) })
    }

    @Test func aMeterReadingWithoutContextHasNoNotes() {
        var reading = F.meter0607
        reading.value = .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 90), context: nil)
        let documents = Nightscout.Treatments.documents(Nightscout.Snapshot(now: F.now, readings: [reading]))
        #expect(documents.count == 1)
        #expect(!documents[0].contains { $0.0 == "notes" })
    }
}
