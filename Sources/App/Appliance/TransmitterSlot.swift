import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

/// One configured transmitter and the state machine of the link to it: it looks for the
/// transmitter, connects, secures, discovers, runs the driver, and when the link ends waits —
/// for the next reading, or out a back-off — before looking again.
///
/// Sans-IO: fed `(input, now)` by the appliance (`receive(_:at:linkIsEncrypted:)`), it answers
/// with the effects the appliance must carry out, in order (`Effect`), and has a next deadline.
/// It knows nothing of other slots: the appliance routes host events to it and merges outputs.
/// Only the slot's own methods change its properties; the appliance reads them, and hands
/// back what only it can know (`sent(_:as:)`, `remembered(_:)`).
struct TransmitterSlot: Sendable {
    enum State: Sendable, Equatable {
        /// Connect to the first advertisement that is this transmitter's.
        case searching
        /// After a session that failed, out a back-off that grows while sessions keep failing.
        case waitingToReconnect(until: MonotonicInstant)
        /// After a session that did its work: the transmitter has nothing new before then.
        case waitingForNextReading(until: MonotonicInstant)
        case connecting(to: DeviceAddress)
        case securing(handle: UInt16)
        case discovering(handle: UInt16)
        case running(handle: UInt16)

        /// For `vigil status` and logs.
        var inWords: String {
            switch self {
            case .searching: "searching"
            case .waitingToReconnect: "waiting to reconnect"
            case .waitingForNextReading: "waiting for the next reading"
            case .connecting(let peer): "connecting to \(peer)"
            case .securing: "securing the link"
            case .discovering: "discovering services"
            case .running: "connected"
            }
        }
    }

    /// What lasts as long as one link: cleared in one go when the link ends, so that nothing of
    /// one session leaks into the next.
    struct Link: Sendable {
        var connectedSince: MonotonicInstant?
        var database: GATT.Database?
        /// GATT requests the host is doing for this link, by the ID the host gave them.
        var requests: [GATTClient.RequestID: Request] = [:]
        /// A driver's `requestPairing` is answered by `encrypted` or `pairingFailed`.
        var driverAwaitsEncryption = false
        /// How far the session got, for what follows its end.
        var progress = SessionProgress.none
        /// When the driver said the next session can bring something new (`DriverAction.nextSession`).
        var nextSessionAt: MonotonicInstant?
        /// Why the slot closed the link (the driver asked, or the device will not do), kept
        /// until the host reports it closed, so that one `disconnected` event carries both this
        /// reason and the link's.
        var closingReason: String?
        /// When to ask again if the link is still up: a controller may refuse a Disconnect
        /// (Command Disallowed), and the link would then stay open with nothing using it.
        var closeRetryAt: MonotonicInstant?
    }

    /// What a GATT request the host does for the slot is for.
    enum Request: Sendable, Equatable {
        /// The whole database, before the driver starts.
        case discovery
        /// An operation the driver asked for, answered back to it.
        case driver(GATTOperation)
    }

    static let closeRetryInterval: Duration = .seconds(10)
    static let maximumBackoff: Duration = .seconds(60)
    /// A link up this long was a working session whatever its end: the next one is tried at once.
    static let longLink: Duration = .seconds(60)
    /// Calibrations kept for a transmitter that is not connected, the newest.
    static let pendingCalibrationLimit = 10

    let device: DeviceID
    /// Pair (or re-encrypt) before discovery, per configuration or profile.
    let securityFirst: Bool
    /// A configured address: only this peer is ours, whatever the matcher would say.
    let fixedAddress: Address?
    var driver: any TransmitterDriver
    var matcher: TransmitterMatcher
    var state = State.searching
    /// The current link's peer, or the last one tried: watched while searching again.
    var peer: DeviceAddress?
    var link = Link()
    /// The wait after the next failed session; doubles up to `maximumBackoff`.
    var backoff: Duration = .seconds(1)
    /// A peer that rejected our bond gets one fresh pairing, until a pairing succeeds.
    var retriedPairingAfterBondLoss = false
    /// What was already handed on, so a reading received again is not handed on twice.
    var delivered = DeliveredReadings()
    /// The driver's persistent state as last reported, to notice changes.
    var savedState: [String: String] = [:]
    /// Fingerstick calibrations that arrived while the link was down, handed over at the next start.
    var pendingCalibrations: [(GlucoseConcentration, MonotonicInstant)] = []
    var ignoredValues = IgnoredValues()

    init(driver: any TransmitterDriver, matcher: TransmitterMatcher, securityFirst: Bool, fixedAddress: Address? = nil) {
        self.device = driver.device
        self.driver = driver
        self.matcher = matcher
        self.securityFirst = securityFirst
        self.fixedAddress = fixedAddress
    }

    /// The connection handle while a link is up.
    var handle: UInt16? {
        switch state {
        case .securing(let h), .discovering(let h), .running(let h): h
        default: nil
        }
    }

    var connectedSince: MonotonicInstant? { link.connectedSince }

    /// The peer this slot holds (connecting to it or linked to it), which no other slot may take.
    var claimedPeer: DeviceAddress? {
        if case .connecting(let p) = state { return p }
        return handle != nil ? peer : nil
    }

    /// The peer to watch while searching, so that its unchanged advertisement is reported again.
    var watchedPeer: DeviceAddress? { matcher.remembered ?? peer }

    var nextDeadline: MonotonicInstant? {
        switch state {
        case .waitingToReconnect(let until), .waitingForNextReading(let until): until
        case .running: earliest(driver.nextDeadline, link.closeRetryAt)
        default: link.closeRetryAt
        }
    }

    /// Whether this advertisement is the one the slot is searching for.
    func isLookingFor(_ summary: AdvertisementSummary) -> Bool {
        guard state == .searching else { return false }
        if let fixedAddress { return summary.address.address == fixedAddress }
        return matcher.matches(summary)
    }
}
