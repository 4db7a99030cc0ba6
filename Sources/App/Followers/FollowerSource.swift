import Readings
import Web

/// What a follower `[[device]]` configures (docs/network.md "Configuration"): the service and
/// its account. Its `description` names the service and server, never a secret.
public enum FollowerSource: Hashable, Sendable, CustomStringConvertible {
    /// `type = "nightscout"`: a site's entries; `token` or `apiSecret`, or neither for an open site.
    case nightscout(site: HTTP.URL, token: String?, apiSecret: String?)
    /// `type = "dexcom-share"`: the Dexcom account's user name and password.
    case dexcomShare(username: String, password: String, server: DexcomShareServer)
    /// `type = "librelinkup"`: the follower app's email and password; `patient` by name, nil: the first.
    case libreLinkUp(email: String, password: String, server: HTTP.URL, patient: String?)

    /// The `[[device]] type` of each.
    public static let typeNames = ["nightscout", "dexcom-share", "librelinkup"]

    public var typeName: String {
        switch self {
        case .nightscout: "nightscout"
        case .dexcomShare: "dexcom-share"
        case .libreLinkUp: "librelinkup"
        }
    }

    public var description: String {
        switch self {
        case let .nightscout(site, _, _): "Nightscout at \(site.scheme.rawValue)://\(site.authority)"
        case let .dexcomShare(_, _, server): "Dexcom Share (\(server))"
        case let .libreLinkUp(_, _, server, _): "LibreLinkUp at \(server.authority)"
        }
    }
}

extension Follower {
    public init(device: DeviceID, source: FollowerSource) {
        let service: any FollowerService = switch source {
        case let .nightscout(site, token, apiSecret): NightscoutFollowerService(site: site, token: token, apiSecret: apiSecret)
        case let .dexcomShare(username, password, server): DexcomShareFollowerService(server: server, username: username, password: password)
        case let .libreLinkUp(email, password, server, patient):
            LibreLinkUpFollowerService(server: server, email: email, password: password, patient: patient)
        }
        self.init(device: device, service: service)
    }
}
