import Bluetooth
import Clocks
import HCI
import SMP

/// Everything the host keeps for one LE connection.
struct Connection: Sendable {
    enum Encryption: Sendable, Equatable {
        case off
        /// LE Enable Encryption sent; `withBond` tells a failure apart from a pairing failure.
        case starting(withBond: Bool)
        case on
    }

    let handle: UInt16
    let peer: DeviceAddress
    var reassembler = L2CAP.Reassembler()
    var gatt: GATTClient
    var pairing: SMP.Initiator?
    var encryption: Encryption = .off
    var disconnecting = false
    var database: GATT.Database?
    /// Identifiers for LE signaling commands we originate.
    var nextSignalingIdentifier: UInt8 = 1

    init(handle: UInt16, peer: DeviceAddress, preferredMTU: UInt16) {
        self.handle = handle
        self.peer = peer
        self.gatt = GATTClient(preferredMTU: preferredMTU)
    }

    var nextDeadline: MonotonicInstant? { earliest(gatt.nextDeadline, pairing?.nextDeadline) }
}
