import Bluetooth
import Clocks
import HCI
import Wire

/// An in-process LE controller on a simulated radio, sans-IO: the host's H4 packets go in with
/// `receive(fromHost:at:)`, the controller's H4 packets come out of `takePacketsForHost()`, and
/// time moves only through `handleDeadline(at:)` at `nextDeadline`.
///
/// Written from Core v5.4 Vol 4 Part E (HCI) rather than from what Vigil's host expects, so it
/// is an independent check. It plays the central role only; peripherals live in `radio`.
/// Simplifications, each chosen so tests can predict times exactly: the scanner hears every
/// advertising event (no scan window duty cycle, no advDelay), a connection completes at the
/// peer's next connectable advertising event, ATT/L2CAP traffic crosses the link instantly, and
/// Number Of Completed Packets follows each host ACL packet at once (never, toward a vanished
/// peer). Not modelled: the filter accept list (refused with 0x11), extended advertising and the Enhanced
/// Connection Complete event, Host Buffer Size (controller→host flow control), PHY and data
/// length changes. Duplicate filtering keys on address and report kind.
///
/// Use:
/// ```
/// var controller = SimulatedController(radio: SimulatedRadio(peripherals: [SimulatedDevices.heartRateMonitor()]))
/// controller.receive(fromHost: h4Packet, at: now)
/// for packet in controller.takePacketsForHost() { /* give to the host */ }
/// if let due = controller.nextDeadline { /* later */ controller.handleDeadline(at: due) }
/// ```
public struct SimulatedController: Sendable {
    public struct Configuration: Sendable {
        /// BD_ADDR, as Read BD_ADDR reports it.
        public var publicAddress = Address(value: 0x00_1B_DC_07_51_0A)
        /// Num_HCI_Command_Packets in every Command Complete/Status: how many commands the host
        /// may have outstanding (Vol 4 Part E §4.4).
        public var commandCredits: UInt8 = 1
        /// LE Read Buffer Size. A length of 0 sends the host to Read Buffer Size (§7.8.2).
        public var leACLDataPacketLength: UInt16 = 27
        public var totalNumLEACLDataPackets: UInt8 = 8
        /// Read Buffer Size (shared BR/EDR buffers).
        public var aclDataPacketLength: UInt16 = 27
        public var totalNumACLDataPackets: UInt16 = 8
        /// Largest ACL payload the controller sends to the host; longer L2CAP frames are fragmented.
        public var hostBoundFragmentLength = 27
        /// LE features (Vol 6 Part B §4.6): bit 0 LE Encryption.
        public var leFeatures: UInt64 = 0x01
        /// How long an LE Connection Update takes to reach its instant.
        public var connectionUpdateDelay: Duration = .milliseconds(50)
        public var maximumConnections = 4
        /// Seed of LE Rand's deterministic generator.
        public var randomSeed: UInt64 = 0x5EED
        public init() {}
    }

    /// Host behaviour the spec forbids, recorded instead of trapping.
    public enum Violation: Equatable, Sendable {
        /// A command sent while the host held no Num_HCI_Command_Packets credit (§4.4); dropped.
        case commandWithoutCredit(opcode: UInt16)
        /// A command whose length byte disagrees with its bytes.
        case malformedCommand([UInt8])
        /// An ACL packet sent while every controller buffer was in use (§4.1.1).
        case aclWithoutBuffer(handle: UInt16)
        case aclLongerThanBuffer(handle: UInt16, length: Int)
        case aclForUnknownHandle(UInt16)
        case malformedACL([UInt8])
        /// A continuing fragment with no first fragment before it.
        case continuationWithoutStart(handle: UInt16)
        /// A new first fragment while the previous L2CAP frame was incomplete; the old one is dropped.
        case incompleteL2CAPFrameDropped(handle: UInt16)
        /// Fragments added up to more than the L2CAP length field announced.
        case l2capLengthExceeded(handle: UInt16)
        case unexpectedPacketType(UInt8)
        /// Not the host's fault: a peripheral component (e.g. a `PeripheralSecurity` conformer)
        /// kept reporting a deadline it did not move past when handled. The controller stopped
        /// looping rather than hang; time still advanced.
        case deadlineNotAdvanced(at: MonotonicInstant)
    }

    struct Connection {
        var handle: UInt16
        var peer: DeviceAddress
        var parameters: HCI.ConnectionParameters
        var isEncrypted = false
        var reassembly: [UInt8]?
        /// Host packets sent toward a peer that no longer answers: they sit in the controller's
        /// buffers, unacknowledged, until the link is lost.
        var unacknowledgedPackets = 0
        /// Set when the peer stopped answering: Disconnection Complete 0x08 at this time.
        var linkLossDeadline: MonotonicInstant?
    }

    struct PendingConnection {
        var command: HCI.LECreateConnection
    }

    struct ScanState {
        var parameters: HCI.LESetScanParameters
        var filterDuplicates: Bool
        var reported: Set<ReportKey> = []
    }

    struct ReportKey: Hashable {
        var address: Address
        var kind: UInt8
    }

    enum Timer {
        case connectionUpdateComplete(handle: UInt16, parameters: HCI.ConnectionParameters)
    }

    /// A packet for the host with what taking it gives back to the host's flow control.
    struct Outgoing {
        var h4: [UInt8]
        var commandCredits: UInt8? = nil
        var aclCredits = 0
    }

    public var configuration: Configuration
    public var radio: SimulatedRadio

    // Fault injection.
    /// A dead controller: it answers nothing and reports nothing.
    public var isDead = false
    /// Commands swallowed without any answer, like Bumble's unanswered opcodes.
    public var unansweredOpcodes: Set<HCI.Opcode> = []

    public internal(set) var violations: [Violation] = []

    // HCI state (§7.3.1 and §7.8.1 give the defaults after power-on and Reset).
    static let defaultEventMask: UInt64 = 0x0000_1FFF_FFFF_FFFF
    static let defaultLEEventMask: UInt64 = 0x1F
    public internal(set) var eventMask = defaultEventMask
    public internal(set) var leEventMask = defaultLEEventMask
    public internal(set) var randomAddress: Address?
    var scanParameters = HCI.LESetScanParameters(active: false, interval: 0x0010, window: 0x0010, ownAddressType: .public)
    var scan: ScanState?
    var pendingConnection: PendingConnection?
    var connections: [UInt16: Connection] = [:]
    var nextHandle: UInt16 = 0x0040
    var timers: [(due: MonotonicInstant, timer: Timer)] = []
    /// Advertising events before this instant have been handled.
    var radioCursor = MonotonicInstant.zero
    var outbox: [Outgoing] = []
    /// The host's view of its command credits: it starts with one (§4.4) and learns more only
    /// from Command Complete/Status events it has actually taken.
    var hostCommandCredits = 1
    var hostACLCredits: Int
    var random: UInt64
    var now = MonotonicInstant.zero

    public init(configuration: Configuration = .init(), radio: SimulatedRadio = .init()) {
        self.configuration = configuration
        self.radio = radio
        hostACLCredits = configuration.leACLDataPacketLength == 0
            ? Int(configuration.totalNumACLDataPackets) : Int(configuration.totalNumLEACLDataPackets)
        random = configuration.randomSeed
    }

    // MARK: Host side

    /// One H4 packet (indicator first) from the host.
    public mutating func receive(fromHost packet: [UInt8], at now: MonotonicInstant) {
        advance(to: now)
        guard !isDead, let indicator = packet.first else { return }
        let body = Array(packet.dropFirst())
        switch HCI.PacketType(rawValue: indicator) {
        case .command: receiveCommand(body)
        case .aclData: receiveACL(body)
        default: violations.append(.unexpectedPacketType(indicator))
        }
        pumpPeripherals()
    }

    /// Everything the controller has sent since the last call, as H4 packets in order.
    public mutating func takePacketsForHost() -> [[UInt8]] {
        pumpPeripherals()
        let taken = outbox
        outbox.removeAll()
        for packet in taken {
            if let credits = packet.commandCredits { hostCommandCredits = Int(credits) }
            hostACLCredits += packet.aclCredits
        }
        return taken.map(\.h4)
    }

    public var nextDeadline: MonotonicInstant? {
        isDead ? nil : internalDeadline
    }

    public mutating func handleDeadline(at now: MonotonicInstant) {
        advance(to: now)
        pumpPeripherals()
    }

    // MARK: Faults

    /// Bytes sent to the host as they are: garbage, a truncated event, a wrong indicator.
    public mutating func injectTowardHost(_ bytes: [UInt8]) {
        outbox.append(Outgoing(h4: bytes))
    }

    /// A Hardware Error event (§7.7.16): the controller says it is broken and needs a reset.
    public mutating func reportHardwareError(code: UInt8) {
        emit(HCI.hardwareErrorBytes(code: code))
    }

    /// The link drops as if the radio failed, with `reason` (0x08 Connection Timeout by default).
    public mutating func dropConnection(handle: UInt16, reason: HCI.Status = .connectionTimeout, at now: MonotonicInstant) {
        advance(to: now)
        closeConnection(handle, reason: reason, at: now)
    }

    /// The peripheral goes out of range now: its advertising stops and its link, if any, is lost
    /// after the supervision timeout (Vol 6 Part B §4.5.2).
    public mutating func vanish(_ address: Address, at now: MonotonicInstant) {
        advance(to: now)
        radio[address]?.vanish()
        noticeVanishedPeers(at: now)
    }

    /// The handles of open connections, ascending.
    public var connectionHandles: [UInt16] { connections.keys.sorted() }
    public var isScanning: Bool { scan != nil }
    public var isConnecting: Bool { pendingConnection != nil }

    // MARK: Events

    /// Queues an event unless the host masked it (Set Event Mask §7.3.1, LE Set Event Mask §7.8.1).
    /// Command Complete, Command Status and Number Of Completed Packets cannot be masked.
    mutating func emit(_ event: [UInt8], commandCredits: UInt8? = nil, aclCredits: Int = 0) {
        let code = event[0]
        switch code {
        case HCI.Event.Code.commandComplete, HCI.Event.Code.commandStatus, HCI.Event.Code.numberOfCompletedPackets:
            break
        case HCI.Event.Code.leMeta:
            // Bit n − 1 enables subevent n (§7.8.1); LE Meta itself is bit 61 of the event mask.
            let subevent = event.count > 2 ? event[2] : 0
            guard eventMask & (1 << 61) != 0, subevent >= 1, subevent <= 64, leEventMask & (1 << (UInt64(subevent) - 1)) != 0 else { return }
        default:
            // Bit n − 1 enables event code n for the codes a controller sends here (§7.3.1).
            guard code >= 1, code <= 64, eventMask & (1 << (UInt64(code) - 1)) != 0 else { return }
        }
        outbox.append(Outgoing(h4: [HCI.PacketType.event.rawValue] + event, commandCredits: commandCredits, aclCredits: aclCredits))
    }

    mutating func nextRandom() -> UInt64 {
        // SplitMix64: deterministic, so LE Rand is reproducible in tests.
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
