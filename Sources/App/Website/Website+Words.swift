import Alarms
import Readings

/// The page's words for what the core knows by name (docs/web.md "The page's data").
extension Website {
    /// An alarm's title, as a person reads it on the page.
    static func title(of kind: AlarmKind) -> String {
        switch kind {
        case let .glucose(alarm):
            switch alarm {
            case .urgentLow: "Urgent low"
            case .urgentLowSoon: "Urgent low soon"
            case .low: "Low"
            case .high: "High"
            case .urgentHigh: "Urgent high"
            case .risingFast: "Rising fast"
            case .fallingFast: "Falling fast"
            }
        case let .signalLoss(device): "No data from \(device.rawValue)"
        case let .fault(fault):
            switch fault {
            case .noController: "No Bluetooth controller"
            case .controllerLost: "Bluetooth controller lost"
            case .storageFailing: "Storage failing"
            case .clockNotSet: "Clock not set"
            case .configurationProblem: "Configuration problem"
            case .faceFailing: "Buzzer, light or button failing"
            }
        case let .device(alarm, device):
            switch alarm {
            case .sensorWarmUp: "Sensor warming up (\(device.rawValue))"
            case .sensorExpiring: "Sensor ends soon (\(device.rawValue))"
            case .sensorEnded: "Sensor ended (\(device.rawValue))"
            case .batteryLow: "Battery low (\(device.rawValue))"
            case .heartRateLow: "Heart rate low (\(device.rawValue))"
            case .heartRateHigh: "Heart rate high (\(device.rawValue))"
            case .temperatureLow: "Temperature low (\(device.rawValue))"
            case .temperatureHigh: "Temperature high (\(device.rawValue))"
            }
        }
    }

    /// What a fault means for the person, in one sentence: the page's banner.
    static func sentence(for fault: ApplianceFault) -> String {
        switch fault {
        case .noController: "Vigil has no Bluetooth controller, so it hears no sensor and cannot alarm on glucose. Check the USB dongle or the board's Bluetooth."
        case .controllerLost: "The Bluetooth controller stopped answering; Vigil hears no sensor until it is back."
        case .storageFailing: "Vigil cannot write its files: readings may not be kept. Check the SD card or disk."
        case .clockNotSet: "The clock is not set (no network time yet): readings cannot be dated and night profiles do not apply."
        case .configurationProblem: "The configuration has a problem; Vigil runs with what it could read. See the log."
        case .faceFailing: "The buzzer, the light or the button cannot be driven: an alarm may not be heard. See the log."
        }
    }

    /// The status of an active alarm (docs/web.md "alarms").
    static func status(of alarm: ActiveAlarm) -> String {
        switch alarm.status {
        case .sounding: "sounding"
        case .escalated: "escalated"
        case .snoozed: "snoozed"
        case .awaitingFreshData: "waiting-for-fresh-data"
        case .quiet: "noted"
        }
    }

    /// What a follower's link word leaves out: its service, and why it fails (docs/web.md
    /// "devices[].linkDetail"); nil for a Bluetooth device.
    static func detail(for link: ApplianceStatus.Link) -> String? {
        switch link {
        case let .reachingServer(service), let .following(service): service
        case let .serverUnreachable(service, reason), let .serverRefused(service, reason): "\(service): \(reason)"
        default: nil
        }
    }

    /// A device's link in one word (docs/web.md "devices[].link").
    static func word(for link: ApplianceStatus.Link) -> String {
        switch link {
        case .searching: "searching"
        case .waitingToReconnect, .waitingForNextReading: "waiting"
        case .connecting: "connecting"
        case .securingTheLink: "securing"
        case .discoveringServices: "discovering"
        case .connected: "connected"
        case .listeningForAdvertisements: "listening"
        case .reachingServer: "connecting"
        case .following: "reachable"
        case .serverUnreachable: "unreachable"
        case .serverRefused: "refused"
        }
    }
}
