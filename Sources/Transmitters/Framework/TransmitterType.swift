/// A transmitter type read over a connection, as the configuration names it: its profile, what
/// it declares about itself, and how to make its driver.
public struct TransmitterType: Sendable {
    /// The name in configuration lines, e.g. `heart-rate`.
    public let name: String
    /// One line for `vigil --help` and the status page.
    public let summary: String
    public let profile: TransmitterProfile
    public let declaration: TransmitterDeclaration
    private let factory: @Sendable (TransmitterConfiguration) throws(TransmitterConfigurationError) -> any TransmitterDriver

    public init(name: String, summary: String, profile: TransmitterProfile, declaration: TransmitterDeclaration,
                factory: @escaping @Sendable (TransmitterConfiguration) throws(TransmitterConfigurationError) -> any TransmitterDriver) {
        self.name = name
        self.summary = summary
        self.profile = profile
        self.declaration = declaration
        self.factory = factory
    }

    /// Convenience for a driver type whose profile is the type's profile.
    public init<Driver: TransmitterDriver>(name: String, summary: String, declaration: TransmitterDeclaration, driver: Driver.Type,
                                           factory: @escaping @Sendable (TransmitterConfiguration) throws(TransmitterConfigurationError) -> Driver) {
        self.init(name: name, summary: summary, profile: Driver.profile, declaration: declaration) {
            (configuration) throws(TransmitterConfigurationError) -> any TransmitterDriver in try factory(configuration)
        }
    }

    public func makeDriver(_ configuration: TransmitterConfiguration) throws(TransmitterConfigurationError) -> any TransmitterDriver {
        try factory(configuration)
    }
}

/// The connected transmitter types Vigil knows, by configuration name.
public struct TransmitterRegistry: Sendable {
    public private(set) var types: [TransmitterType]

    /// Later entries with an existing name replace the earlier one.
    public init(_ types: [TransmitterType]) {
        self.types = []
        for type in types { register(type) }
    }

    /// The connected types of `TransmitterCatalog.builtIn`.
    public static let builtIn = TransmitterCatalog.builtIn.connected

    public mutating func register(_ type: TransmitterType) {
        if let index = types.firstIndex(where: { $0.name == type.name }) { types[index] = type } else { types.append(type) }
    }

    public var names: [String] { types.map(\.name) }

    public func type(named name: String) -> TransmitterType? { types.first { $0.name == name } }

    /// The driver for a configuration line, or a typed error naming what was wrong.
    public func makeDriver(_ configuration: TransmitterConfiguration) throws(TransmitterConfigurationError) -> any TransmitterDriver {
        guard let type = type(named: configuration.typeName) else {
            throw .unknownType(configuration.typeName, known: names)
        }
        return try type.makeDriver(configuration)
    }

    public func makeDriver(configurationLine line: String) throws(TransmitterConfigurationError) -> any TransmitterDriver {
        try makeDriver(TransmitterConfiguration(parsing: line))
    }
}
