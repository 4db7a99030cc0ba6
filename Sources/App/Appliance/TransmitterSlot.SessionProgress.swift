extension TransmitterSlot {
    /// How far a link's session got. It only moves forward, but a refusal sticks.
    enum SessionProgress: Comparable, Sendable {
        /// The link dropped before the driver took it on (discovery, security).
        case none
        /// The driver found what it needs and began (`TransmitterEvent.connected`): the
        /// transmitter answers, so a drop after this is retried at once.
        case connected
        /// Readings came, or the driver said when the next session is due: the end of a
        /// session that did its work, not a failure.
        case delivered
        /// The transmitter is not what the configuration says (a wrong ID, a missing service):
        /// retried ever more slowly, not hammered.
        case refused

        mutating func reach(_ step: SessionProgress) {
            if self != .refused { self = max(self, step) }
        }

        /// Whether the transmitter answered: the next session is not a retry of a failing one.
        var answered: Bool { self == .connected || self == .delivered }
    }
}
