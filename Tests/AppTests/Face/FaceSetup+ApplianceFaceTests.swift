import Alarms
import App
import Testing

@Suite struct FaceSetupApplianceFaceTests {
    @Test func aPassiveBuzzerMakesItsOwnToneWhateverTheConfiguredFrequency() {
        #expect(FaceSetup(backend: .none, buzzerDrive: .active).sequencerDrive == .active)
        #expect(FaceSetup(backend: .none, buzzerDrive: .passive(toneHertz: nil)).sequencerDrive == .passive)
        #expect(FaceSetup(backend: .none, buzzerDrive: .passive(toneHertz: 2_700)).sequencerDrive == .passive)
    }

    @Test func longPressFollowsTheConfiguration() {
        let acknowledge = FaceSetup(backend: .none, longPress: .acknowledge).buttonActions
        #expect(acknowledge.longPress == .acknowledge)
        let snoozeAll = FaceSetup(backend: .none, longPress: .snoozeAll, snoozeAllFor: .seconds(3 * 3600)).buttonActions
        #expect(snoozeAll.longPress == .snoozeAll(for: .seconds(3 * 3600)))
    }
}
