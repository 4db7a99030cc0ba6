import Web

/// Which Dexcom Share server an account lives on (docs/followers.md "Dexcom Share"): the
/// configuration's `server`. Each region has its own server and accounts; Japan has its own
/// application id too.
public enum DexcomShareServer: Hashable, Sendable, CustomStringConvertible {
    /// share2.dexcom.com
    case unitedStates
    /// shareous1.dexcom.com
    case outsideUnitedStates
    /// share.dexcom.jp
    case japan
    /// Another address (a test server); the United States' application id.
    case custom(HTTP.URL)

    /// The configuration's words: "us", "outside-us", "japan", or an https URL.
    public static let names = ["us", "outside-us", "japan"]

    public init?(configured text: String) {
        switch text {
        case "us": self = .unitedStates
        case "outside-us": self = .outsideUnitedStates
        case "japan": self = .japan
        default: return nil
        }
    }

    public var url: HTTP.URL {
        switch self {
        case .unitedStates: HTTP.URL(scheme: .https, host: "share2.dexcom.com")
        case .outsideUnitedStates: HTTP.URL(scheme: .https, host: "shareous1.dexcom.com")
        case .japan: HTTP.URL(scheme: .https, host: "share.dexcom.jp")
        case let .custom(url): url
        }
    }

    /// The `applicationId` every Share client sends with its login: the Dexcom app's, and for
    /// Japan its own (docs/followers.md).
    var applicationID: String {
        self == .japan ? "d8665ade-9673-4e27-9ff6-92db4ce13d13" : "d89443d2-327c-4a6f-89e5-496bbb0317db"
    }

    public var description: String {
        switch self {
        case .unitedStates: "us"
        case .outsideUnitedStates: "outside-us"
        case .japan: "japan"
        case let .custom(url): url.description
        }
    }
}
