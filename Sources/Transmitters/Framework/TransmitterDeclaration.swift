/// What a transmitter type says about itself beyond how to talk to it: its category, the alarms
/// that apply, the default life of its sensor, and the fuzz target that drives its decoders.
/// It stands beside the driver or decoder (`TransmitterType`, `BroadcastType`), so everything
/// the app derives per type (the signal-loss watch, alarm keys, sensor-life defaults) comes
/// from the type's own folder and its one line in `TransmitterCatalog.builtIn`.
public struct TransmitterDeclaration: Sendable {
    public let category: TransmitterCategory
    /// The `vigil-fuzz` target (`FuzzTarget.name`) whose inputs reach this type's decoders and
    /// driver. Types that share wire formats share one (MiaoMiao and Bubble: `libre`). A type
    /// without a target of its own is fuzzed by `transmitter-types` (the default), which runs
    /// every catalogued type's driver or decoder on arbitrary values: a new type is fuzzed from
    /// its catalog line alone, and a hand-written target can reach deeper later.
    public let fuzzTarget: String
    /// Options that make a working driver or decoder of this type for that generic target
    /// (`transmitter-id=811234`): what a configuration must give, with harmless values.
    public let fuzzOptions: [String: String]

    /// The target that runs every catalogued type (`FuzzTarget.transmitterTypes`).
    public static let catalogFuzzTarget = "transmitter-types"
    /// The category's alarms and the type's own.
    public let alarms: Set<AlarmFamily>
    /// Options whose value is the path of a file the driver needs (a G7's `credentials`): the
    /// executable reads each before the driver is made (`TransmitterConfiguration.files`).
    public let fileOptions: Set<String>
    private let sensorLife: @Sendable ([String: String]) -> Duration?

    /// `extraAlarms` are added to the category's; `sensorLife` is the default sensor life for a
    /// device configured with these options, nil where the type has none.
    public init(category: TransmitterCategory, fuzzTarget: String = catalogFuzzTarget, fuzzOptions: [String: String] = [:],
                extraAlarms: Set<AlarmFamily> = [], fileOptions: Set<String> = [],
                sensorLife: @escaping @Sendable (_ options: [String: String]) -> Duration? = { _ in nil }) {
        self.category = category
        self.fuzzTarget = fuzzTarget
        self.fuzzOptions = fuzzOptions
        self.alarms = category.alarms.union(extraAlarms)
        self.fileOptions = fileOptions
        self.sensorLife = sensorLife
    }

    /// The same, for a type whose sensors all last `life`.
    public init(category: TransmitterCategory, fuzzTarget: String = catalogFuzzTarget, fuzzOptions: [String: String] = [:],
                extraAlarms: Set<AlarmFamily> = [], sensorLife life: Duration) {
        self.init(category: category, fuzzTarget: fuzzTarget, fuzzOptions: fuzzOptions, extraAlarms: extraAlarms) { _ in life }
    }

    /// How long a sensor lasts for a device configured with `options`, or nil if the type
    /// cannot say (no "sensor expiring" alarm unless the configuration sets one).
    public func defaultSensorLife(options: [String: String]) -> Duration? { sensorLife(options) }
}
