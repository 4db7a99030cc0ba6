import Bluetooth
import Clocks
import Readings

extension Appliance {
    /// Each configured device's link and the peer it is (or was last) bound to, for `vigil
    /// status`: connected transmitters first, then broadcast ones, each in configuration order.
    public func links(at now: MonotonicInstant) -> [(device: DeviceID, link: ApplianceStatus.Link, peer: DeviceAddress?)] {
        slots.map { slot in
            let link: ApplianceStatus.Link = switch slot.state {
            case .searching: .searching
            case .waitingToReconnect(let until): .waitingToReconnect(in: max(.zero, until - now))
            case .waitingForNextReading(let until): .waitingForNextReading(in: max(.zero, until - now))
            case .connecting: .connecting
            case .securing: .securingTheLink
            case .discovering: .discoveringServices
            case .running: .connected(for: slot.connectedSince.map { now - $0 })
            }
            let peer: DeviceAddress? = switch slot.state {
            case .connecting(let p): p
            default: slot.peer ?? slot.matcher.remembered
            }
            return (slot.device, link, peer)
        } + broadcasters.map { ($0.device, .listeningForAdvertisements, $0.remembered) }
    }
}
