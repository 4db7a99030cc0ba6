import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

/// One configured transmitter and the link to it: searching, connecting, securing,
/// discovering, running, or waiting to try again.
struct TransmitterSlot: Sendable {
    enum State: Sendable, Equatable {
        case searching
        /// After a failure, with a growing back-off.
        case waitingToReconnect(until: MonotonicInstant)
        /// After a session that did its work: the transmitter has nothing new before then.
        case waitingForNextReading(until: MonotonicInstant)
        case connecting(DeviceAddress)
        case securing(handle: UInt16)
        case discovering(handle: UInt16, request: GATTClient.RequestID)
        case running(handle: UInt16)
    }

    /// A GATT request the host is doing on the driver's behalf.
    enum PendingOperation: Sendable, Equatable {
        case read(BluetoothUUID)
        case write(BluetoothUUID)
        case subscribe(BluetoothUUID)
    }

    let device: DeviceID
    var driver: any TransmitterDriver
    var matcher: TransmitterMatcher
    /// Pair (or re-encrypt) before discovery, per configuration or profile.
    let securityFirst: Bool

    init(device: DeviceID, driver: any TransmitterDriver, matcher: TransmitterMatcher, securityFirst: Bool) {
        self.device = device
        self.driver = driver
        self.matcher = matcher
        self.securityFirst = securityFirst
    }
    var state: State = .searching
    var peer: DeviceAddress?
    var database: GATT.Database?
    var pending: [GATTClient.RequestID: PendingOperation] = [:]
    /// A driver's `requestPairing` is answered by `encrypted` or `pairingFailed`.
    var driverAwaitsEncryption = false
    var retriedPairingAfterBondLoss = false
    var backoff: Duration = .seconds(1)
    var connectedSince: MonotonicInstant?
    /// How far this link's session got, for what follows its end (`SessionProgress`).
    var progress = SessionProgress.none
    /// When the driver said the next session can bring something new (`DriverAction.nextSession`).
    var nextSessionAt: MonotonicInstant?
    /// What was already handed on, so a reading received again is not handed on twice.
    var delivered = DeliveredReadings()
    /// The driver's persistent state as last reported, to notice changes.
    var savedState: [String: String] = [:]
    /// Fingerstick calibrations that arrived while the link was down, handed over at the next start.
    var pendingCalibrations: [(GlucoseConcentration, MonotonicInstant)] = []
    /// A configured address: only this peer is ours, whatever the matcher would say.
    var fixedAddress: Address?
    var ignoredValues = IgnoredValues()
    /// Why the appliance closed the link (the driver asked, or the device will not do), kept
    /// until the host reports it closed, so that one `disconnected` event carries both this
    /// reason and the link's.
    var closingReason: String?
    /// When to ask again if the link is still up: a controller may refuse a Disconnect
    /// (Command Disallowed), and the link would then stay open with nothing using it.
    var closeRetryAt: MonotonicInstant?
    static let closeRetryInterval: Duration = .seconds(10)

    /// Values on attributes outside the database, counted between reports: the first is
    /// reported at once, later ones at most every `interval`.
    struct IgnoredValues {
        static let interval: Duration = .seconds(60)
        var unreported = 0
        var lastReport: MonotonicInstant?

        /// One more; the count to report now, if a report is due.
        mutating func count(at now: MonotonicInstant) -> Int? {
            unreported += 1
            if let last = lastReport, now - last < Self.interval { return nil }
            defer { unreported = 0 }
            lastReport = now
            return unreported
        }
    }

    static let maximumBackoff: Duration = .seconds(60)

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
    }

    var handle: UInt16? {
        switch state {
        case .securing(let h), .running(let h): h
        case .discovering(let h, _): h
        default: nil
        }
    }

    var nextDeadline: MonotonicInstant? {
        switch state {
        case .waitingToReconnect(let until), .waitingForNextReading(let until): until
        case .running: earliest(driver.nextDeadline, closeRetryAt)
        default: closeRetryAt
        }
    }
}
