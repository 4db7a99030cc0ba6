/// A broadcast transmitter type as the configuration names it (`bthome`, `ruuvi`): how its
/// advertisements are recognised, what it declares about itself, and how to make its decoder
/// from a configuration line.
public struct BroadcastType: Sendable {
    public let name: String
    /// One line for `vigil --help` and the status page.
    public let summary: String
    public let recognition: BroadcastRecognition
    public let declaration: TransmitterDeclaration
    private let factory: @Sendable (TransmitterConfiguration) throws(TransmitterConfigurationError) -> any BroadcastDecoder

    public init<Decoder: BroadcastDecoder>(
        name: String, summary: String, declaration: TransmitterDeclaration, decoder: Decoder.Type,
        factory: @escaping @Sendable (TransmitterConfiguration) throws(TransmitterConfigurationError) -> Decoder
    ) {
        self.name = name
        self.summary = summary
        self.recognition = Decoder.recognition
        self.declaration = declaration
        self.factory = { (configuration) throws(TransmitterConfigurationError) -> any BroadcastDecoder in try factory(configuration) }
    }

    public func makeDecoder(_ configuration: TransmitterConfiguration) throws(TransmitterConfigurationError) -> any BroadcastDecoder {
        try factory(configuration)
    }
}

/// The broadcast types Vigil knows, by configuration name. Kept beside `TransmitterRegistry`
/// rather than inside it because a broadcast type has no driver, profile or connection; both
/// are views of the one list, `TransmitterCatalog.builtIn` (names are unique across the two).
public struct BroadcastRegistry: Sendable {
    public private(set) var types: [BroadcastType]

    /// Later entries with an existing name replace the earlier one.
    public init(_ types: [BroadcastType]) {
        self.types = []
        for type in types { register(type) }
    }

    /// The broadcast types of `TransmitterCatalog.builtIn`.
    public static let builtIn = TransmitterCatalog.builtIn.broadcast

    public mutating func register(_ type: BroadcastType) {
        if let index = types.firstIndex(where: { $0.name == type.name }) { types[index] = type } else { types.append(type) }
    }

    public var names: [String] { types.map(\.name) }

    public func type(named name: String) -> BroadcastType? { types.first { $0.name == name } }

    /// The decoder for a configuration line, or a typed error naming what was wrong.
    public func makeDecoder(_ configuration: TransmitterConfiguration) throws(TransmitterConfigurationError) -> any BroadcastDecoder {
        guard let type = type(named: configuration.typeName) else {
            throw .unknownType(configuration.typeName, known: names)
        }
        return try type.makeDecoder(configuration)
    }
}
