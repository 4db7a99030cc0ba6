import Bluetooth
import HCI
import SMP

extension Host {
    /// Severity of a host log line, in syslog order.
    public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, notice, warning, error
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
        public var description: String { ["debug", "info", "notice", "warning", "error"][rawValue] }
    }

    /// What the controller told us during bring-up.
    public struct ControllerInfo: Sendable, Equatable {
        public var publicAddress: Address
        public var staticAddress: Address
        public var hciVersion: UInt8
        public var manufacturer: UInt16
        public var leFeatures: UInt64
        public var aclPacketLength: Int
        public var aclPackets: Int
    }

    /// Everything the host reports upward. The owner (the app, or a CLI command) reacts; the
    /// host never blocks on it.
    public enum Event: Sendable, Equatable {
        case controllerReady(ControllerInfo)
        /// The controller stopped answering or failed bring-up: close and reopen the transport,
        /// then call `start(at:)` again.
        case controllerFailed(String)
        case advertisement(Advertisement)
        case connected(handle: UInt16, peer: DeviceAddress)
        case connectionFailed(peer: DeviceAddress, reason: String)
        case disconnected(handle: UInt16, peer: DeviceAddress, reason: HCI.Status)
        case gatt(handle: UInt16, request: GATTClient.RequestID, result: GATTClient.Result)
        case notification(handle: UInt16, attribute: UInt16, value: [UInt8])
        case indication(handle: UInt16, attribute: UInt16, value: [UInt8])
        case mtuExchanged(handle: UInt16, mtu: Int)
        case encryptionChanged(handle: UInt16, enabled: Bool, bonded: Bool)
        /// Encrypting with a stored bond failed: the peer has probably forgotten us.
        case encryptionFailed(handle: UInt16, reason: String, bondRejected: Bool)
        case paired(handle: UInt16, bond: SMP.Bond)
        case pairingFailed(handle: UInt16, reason: String)
        case connectionParametersChanged(handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
        case log(LogLevel, String)
    }

    public enum Output: Sendable, Equatable {
        /// An H4 packet (indicator first) for the transport.
        case send([UInt8])
        case event(Event)
    }
}
