import Readings
import Transmitters

extension VigilConfiguration {
    /// A `[[device]]` whose options its type refused, with the entry (and so its line).
    public struct DeviceProblem: Error, CustomStringConvertible {
        public let device: Device
        public let error: TransmitterConfigurationError
        public var description: String { "\(error)" }
    }

    /// Every `[[device]]` as the appliance runs it, and as the alarm engine sees it: alarm
    /// options (heart-rate-high, temperature-low, ...) go to the engine, the driver sees only
    /// its own and still rejects what nobody knows; broadcast types become decoders, the
    /// others drivers. `vigil run`, `vigil config check` and the soak benchmark all build the
    /// appliance through this one function.
    /// `files` holds what the executable read of every path in `filesToRead`, keyed by path.
    public func applianceDevices(files: [String: AttachedFile] = [:]) throws(DeviceProblem) -> (devices: [Appliance.Device], alarms: [TransmitterConfiguration]) {
        var appliance: [Appliance.Device] = []
        var alarmDevices: [TransmitterConfiguration] = []
        for device in devices {
            let options = device.options.mapValues(\.plainText)
            let driverOptions = DeviceAlarmOptions.driverOptions(type: device.type, options: options)
            var attached: [String: AttachedFile] = [:]
            for (option, path) in Self.fileOptions(of: device) {
                attached[option] = files[path] ?? .unreadable(reason: "not read")
            }
            let transmitter = TransmitterConfiguration(typeName: device.type, device: .init(device.displayName), options: driverOptions,
                                                       files: attached)
            alarmDevices.append(TransmitterConfiguration(typeName: device.type, device: .init(device.displayName), options: options))
            do throws(TransmitterConfigurationError) {
                _ = try DeviceAlarmOptions(type: device.type, options: options)
                // A follower is no Bluetooth device (`followers`); beside its service's keys,
                // which the schema read, it takes the alarm keys alone.
                if device.follower != nil {
                    try transmitter.rejectUnknownOptions(known: [])
                    continue
                }
                switch TransmitterCatalog.builtIn.entry(named: device.type) {
                case let .broadcast(type)?:
                    let decoder = try type.makeDecoder(transmitter)
                    appliance.append(Appliance.Device(decoder: decoder, address: device.address, namePrefix: device.namePrefix))
                case .connected?, nil:
                    // An unknown name gets the registry's error, which lists the known ones.
                    let driver = try TransmitterRegistry.builtIn.makeDriver(transmitter)
                    appliance.append(Appliance.Device(driver: driver, pair: device.pair, address: device.address, namePrefix: device.namePrefix))
                }
            } catch {
                throw DeviceProblem(device: device, error: error)
            }
        }
        return (appliance, alarmDevices)
    }

    /// The follower devices (docs/followers.md), by the name their readings carry.
    public var followers: [(device: DeviceID, source: FollowerSource)] {
        devices.compactMap { device in device.follower.map { (DeviceID(device.displayName), $0) } }
    }

    /// The paths of the files the devices' options name (a G7's `credentials`), for the
    /// executable to read before `applianceDevices(files:)`: the core never reads a file.
    public var filesToRead: [String] {
        var paths: [String] = []
        for device in devices {
            for (_, path) in Self.fileOptions(of: device) where !paths.contains(path) { paths.append(path) }
        }
        return paths
    }

    /// A device's file options (per its type's declaration) that are set, with their paths.
    static func fileOptions(of device: Device) -> [(option: String, path: String)] {
        guard let declared = TransmitterCatalog.builtIn.declaration(named: device.type)?.fileOptions else { return [] }
        return declared.sorted().compactMap { option in device.options[option].map { (option, $0.plainText) } }
    }
}
