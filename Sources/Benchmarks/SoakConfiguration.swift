import Alarms
import App
import Bluetooth
import Clocks
import Readings
import Simulator
import Transmitters

/// The soak's appliance, configured as `vigil run` configures it from a file: the TOML below is
/// parsed by `VigilConfiguration`, and each `[[device]]` becomes a driver or broadcast decoder
/// and an alarm device through `VigilConfiguration.applianceDevices()`, the function
/// `vigil run` uses.
enum SoakConfiguration {
    static let dexcom = DeviceID("dexcom")
    static let heartRate = DeviceID("strap")
    static let fridge = DeviceID("fridge")
    static let transmitterID = "811234"

    /// `battery-low-percent = 0` on the strap: the simulated strap drains 1 % every 10 minutes
    /// and would (rightly) raise battery low after 13 h 20 min, which is not what this run is about.
    /// `watch = true` on the strap makes its silence a signal-loss alarm.
    static let text = """
        [bluetooth]
        hci = "hci0"
        scan = "passive"

        [[device]]
        type = "dexcom"
        label = "\(dexcom.rawValue)"
        transmitter-id = "\(transmitterID)"

        [[device]]
        type = "heart-rate"
        label = "\(heartRate.rawValue)"
        name = "Vigil Sim HRM"
        watch = true
        battery-low-percent = 0

        [[device]]
        type = "bthome"
        label = "\(fridge.rawValue)"
        address = "\(SimulatedThermometer.defaultAddress.address)"
        temperature-high = 8.0

        [alarms]
        signal-loss-minutes = 20

        [face]
        board = "pi-zero-2w"
        buzzer = "active"
        """

    enum Problem: Error, CustomStringConvertible {
        case configuration(String)
        var description: String {
            switch self {
            case let .configuration(text): "the soak configuration is rejected: \(text)"
            }
        }
    }

    struct Built {
        var configuration: VigilConfiguration
        var devices: [Appliance.Device]
        var alarmDevices: [TransmitterConfiguration]
    }

    static func build() throws(Problem) -> Built {
        let configuration: VigilConfiguration
        do throws(ConfigurationErrors) {
            configuration = try VigilConfiguration(parsing: text, knownDeviceTypes: TransmitterCatalog.builtIn.names)
        } catch {
            throw .configuration(error.errors.map { "\($0)" }.joined(separator: "; "))
        }
        let devices: [Appliance.Device]
        let alarmDevices: [TransmitterConfiguration]
        do throws(VigilConfiguration.DeviceProblem) {
            (devices, alarmDevices) = try configuration.applianceDevices()
        } catch {
            throw .configuration("[[device]] \(error.device.displayName): \(error)")
        }
        return Built(configuration: configuration, devices: devices, alarmDevices: alarmDevices)
    }
}
