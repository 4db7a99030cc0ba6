import Alarms

extension FaceSetup {
    /// What the buzzer sequencer needs to know of the configured buzzer: whether it must make
    /// the tone itself (a configured `tone-hz` is the GPIO device's business).
    public var sequencerDrive: BuzzerSequencer.Drive {
        switch buzzerDrive {
        case .active: .active
        case .passive: .passive
        }
    }

    /// The button's meaning from `[face] long-press` and `snooze-all-hours`.
    public var buttonActions: ButtonActions {
        switch longPress {
        case .acknowledge: ButtonActions(longPress: .acknowledge)
        case .snoozeAll: ButtonActions(longPress: .snoozeAll(for: snoozeAllFor))
        }
    }
}
