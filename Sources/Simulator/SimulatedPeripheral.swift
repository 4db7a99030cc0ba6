import Bluetooth
import Clocks
import HCI

/// A simulated LE peripheral: an advertiser and, once connected, a GATT server on ATT
/// (CID 0x0004), an L2CAP LE signaling endpoint (CID 0x0005) and the responder side of SMP
/// (CID 0x0006) behind `PeripheralSecurity`.
///
/// It speaks in L2CAP frames (basic header, Core v5.4 Vol 3 Part A §3.1); the
/// `SimulatedController` carries them over the simulated link and fragments them for the host.
public struct SimulatedPeripheral: Sendable {
    /// Things that happened on the peripheral side, for tests and the demo log.
    public enum Event: Equatable, Sendable {
        case connected(central: DeviceAddress)
        case disconnected
        case encryptionEnabled
        case paired(ediv: UInt16, rand: UInt64)
        case pairingFailed(reason: UInt8)
        case connectionParameterUpdateAnswered(accepted: Bool)
        case connectionParameterUpdateTimedOut
        case commandRejectReceived(reason: UInt16)
        case indicationConfirmationTimedOut
        case droppedFrame(cid: UInt16)
    }

    struct Bond: Sendable {
        var longTermKey: [UInt8]
        var ediv: UInt16
        var rand: UInt64
    }

    struct Link {
        var central: DeviceAddress
        var isEncrypted = false
        var parameters: HCI.ConnectionParameters
    }

    public var address: DeviceAddress
    public var advertising: AdvertisingConfiguration
    /// Signal strength the scanner sees, in dBm.
    public var rssi: Int8
    /// False after `vanish`: the device went out of range or its battery died.
    public private(set) var isInRange = true
    public var isAdvertisingEnabled = true
    /// Added to the length field of every outgoing L2CAP frame: a peer whose lengths lie.
    public var l2capLengthLie = 0
    public var securityFactory: SecurityFactory?
    public internal(set) var events: [Event] = []

    var server: ATTServer
    private let pristineDatabase: GATTDatabase
    var security: (any PeripheralSecurity)?
    var bonds: [DeviceAddress: [Bond]] = [:]
    var link: Link?
    var advertisingAnchor: MonotonicInstant
    /// Outgoing L2CAP frames (header included) for the controller to carry.
    var outbox: [[UInt8]] = []
    var signalingIdentifier: UInt8 = 0
    var pendingParameterRequest: (identifier: UInt8, deadline: MonotonicInstant)?

    public init(address: DeviceAddress, advertising: AdvertisingConfiguration, services: [SimulatedService] = [],
                rssi: Int8 = -60, serverMTU: Int = 247, securityFactory: SecurityFactory? = nil) {
        self.address = address
        self.advertising = advertising
        self.rssi = rssi
        self.securityFactory = securityFactory
        let database = GATTDatabase(services: services)
        pristineDatabase = database
        server = ATTServer(database: database, serverMTU: serverMTU)
        advertisingAnchor = .zero + advertising.phase
    }

    // MARK: State a test reads

    public var isConnected: Bool { link != nil }
    public var isEncrypted: Bool { link?.isEncrypted ?? false }
    /// Whether advertising PDUs are on the air now: a legacy peripheral stops advertising
    /// while it is connected.
    public var isAdvertising: Bool { isInRange && isAdvertisingEnabled && link == nil }
    /// The effective ATT MTU of the current connection.
    public var attMTU: Int { server.mtu }
    /// The connection parameters the central last applied.
    public var connectionParameters: HCI.ConnectionParameters? { link?.parameters }
    public var hostileATT: HostileATTBehaviour {
        get { server.hostile }
        set { server.hostile = newValue }
    }
    public var attWrites: [(handle: UInt16, value: [UInt8])] { server.writes }
    public var attRequestsReceived: Int { server.requestsReceived }

    public func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        server.database.characteristicIndex(uuid: uuid).map { server.database.characteristics[$0].valueHandle }
    }
    public func cccdHandle(of uuid: BluetoothUUID) -> UInt16? {
        server.database.characteristicIndex(uuid: uuid).flatMap { server.database.characteristics[$0].cccdHandle }
    }
    /// The CCCD bits the central wrote for this characteristic (0 when unsubscribed).
    public func subscription(of uuid: BluetoothUUID) -> UInt16 {
        server.database.characteristicIndex(uuid: uuid).flatMap { server.cccd[$0] } ?? 0
    }

    // MARK: What the peripheral's application does

    /// Changes a stored value and pushes it to a subscribed central.
    public mutating func setValue(_ value: [UInt8], for uuid: BluetoothUUID, at now: MonotonicInstant) {
        guard let index = server.database.characteristicIndex(uuid: uuid) else { return }
        server.database.characteristics[index].storedValue = value
        notify(uuid, at: now)
    }

    /// Sends the current value to a subscribed central (notification or indication per its CCCD).
    public mutating func notify(_ uuid: BluetoothUUID, at now: MonotonicInstant) {
        guard link != nil, let index = server.database.characteristicIndex(uuid: uuid) else { return }
        sendATT(server.push(characteristic: index, value: server.database.currentValue(of: index, at: now), at: now))
    }

    /// Floods the central with notifications every `interval`, subscribed or not (nil stops).
    public mutating func floodNotifications(every interval: Duration?, at now: MonotonicInstant) {
        server.setFlood(interval, at: now)
    }

    /// Sends an ATT PDU the central never asked for (by default a Read Response).
    public mutating func sendUnsolicitedATT(_ pdu: [UInt8] = [0x0B, 0x42]) {
        guard link != nil else { return }
        sendATT([pdu])
    }

    /// Sends any L2CAP payload on any channel (for hostile tests).
    public mutating func sendRaw(cid: UInt16, payload: [UInt8]) {
        guard link != nil else { return }
        outbox.append(frame(cid: cid, payload))
    }

    /// Asks the security side for a Security Request (Vol 3 Part H §3.6.7).
    public mutating func requestSecurity(at now: MonotonicInstant) {
        guard link != nil, let outputs = security?.requestSecurityOutputs(at: now) else { return }
        apply(outputs)
    }

    /// Goes out of range: stops advertising; the controller loses any link after its
    /// supervision timeout.
    public mutating func vanish() { isInRange = false }

    /// Comes back into range and advertises again from `now`.
    public mutating func reappear(at now: MonotonicInstant) {
        isInRange = true
        advertisingAnchor = now + advertising.phase
    }

    // MARK: Link events from the controller

    mutating func linkEstablished(central: DeviceAddress, parameters: HCI.ConnectionParameters, at now: MonotonicInstant) {
        link = Link(central: central, parameters: parameters)
        // Each connection starts a fresh ATT bearer: MTU 23, no subscriptions (a real
        // server keeps CCCDs only for bonded clients, Vol 3 Part G §3.3.3.3; Vigil re-subscribes).
        let hostile = server.hostile
        server = ATTServer(database: databaseWithCurrentValues(), serverMTU: server.serverMTU)
        server.hostile = hostile
        if let interval = hostile.notificationFloodInterval { server.setFlood(interval, at: now) }
        security = securityFactory?(address, central)
        pendingParameterRequest = nil
        events.append(.connected(central: central))
    }

    private func databaseWithCurrentValues() -> GATTDatabase {
        var database = pristineDatabase
        for i in database.characteristics.indices { database.characteristics[i].storedValue = server.database.characteristics[i].storedValue }
        return database
    }

    mutating func linkClosed(at now: MonotonicInstant) {
        guard link != nil else { return }
        link = nil
        security = nil
        outbox.removeAll()
        advertisingAnchor = now + advertising.phase
        events.append(.disconnected)
    }

    mutating func connectionParametersChanged(_ parameters: HCI.ConnectionParameters) {
        link?.parameters = parameters
    }

    /// The link layer's LTK lookup for LL_ENC_REQ: the security side first, then bonds from
    /// earlier connections.
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? {
        guard let central = link?.central else { return nil }
        if let key = security?.longTermKey(ediv: ediv, rand: rand) { return key }
        return bonds[central]?.last { $0.ediv == ediv && $0.rand == rand }?.longTermKey
    }

    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) {
        link?.isEncrypted = enabled
        if enabled { events.append(.encryptionEnabled) }
        apply(security?.encryptionChangedOutputs(enabled: enabled, at: now) ?? [])
    }

    mutating func takeFrames() -> [[UInt8]] {
        defer { outbox.removeAll() }
        return outbox
    }

    var nextDeadline: MonotonicInstant? {
        guard link != nil else { return nil }
        return earliest(server.nextDeadline, security?.nextDeadline, pendingParameterRequest?.deadline)
    }

    mutating func handleDeadline(at now: MonotonicInstant) {
        guard link != nil else { return }
        let wasTimedOut = server.bearerTimedOut
        sendATT(server.handleDeadline(at: now))
        if !wasTimedOut && server.bearerTimedOut { events.append(.indicationConfirmationTimedOut) }
        if let due = security?.nextDeadline, due <= now {
            apply(security?.handleDeadlineOutputs(at: now) ?? [])
        }
        if let pending = pendingParameterRequest, pending.deadline <= now {
            pendingParameterRequest = nil
            events.append(.connectionParameterUpdateTimedOut)
        }
    }

    func linkSecurity() -> ATTServer.LinkSecurity {
        ATTServer.LinkSecurity(isEncrypted: link?.isEncrypted ?? false, hasKey: link.map { bonds[$0.central] != nil } ?? false)
    }

    mutating func sendATT(_ pdus: [[UInt8]]) {
        for pdu in pdus { outbox.append(frame(cid: L2CAPChannel.att, pdu)) }
    }

    mutating func apply(_ outputs: [PeripheralSecurityOutput]) {
        for output in outputs {
            switch output {
            case .send(let pdu):
                outbox.append(frame(cid: L2CAPChannel.smp, pdu))
            case .paired(let key, let ediv, let rand):
                if let central = link?.central { bonds[central, default: []].append(Bond(longTermKey: key, ediv: ediv, rand: rand)) }
                events.append(.paired(ediv: ediv, rand: rand))
            case .failed(let reason):
                events.append(.pairingFailed(reason: reason))
            }
        }
    }
}
