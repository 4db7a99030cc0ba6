/// Every transmitter type Vigil knows, connected and broadcast, one line each. Adding a type
/// means its folder under `Sources/Transmitters/` and its line here: the connected and broadcast
/// registries, the configuration's type names, the alarm defaults and the fuzz checks all
/// derive from this list and the declarations it holds.
public struct TransmitterCatalog: Sendable {
    /// One type: read over a connection (a driver) or from advertisements (a decoder).
    public enum Entry: Sendable {
        case connected(TransmitterType)
        case broadcast(BroadcastType)

        public var name: String {
            switch self {
            case let .connected(type): type.name
            case let .broadcast(type): type.name
            }
        }

        public var summary: String {
            switch self {
            case let .connected(type): type.summary
            case let .broadcast(type): type.summary
            }
        }

        public var declaration: TransmitterDeclaration {
            switch self {
            case let .connected(type): type.declaration
            case let .broadcast(type): type.declaration
            }
        }

        public var isBroadcast: Bool { if case .broadcast = self { true } else { false } }
    }

    public let entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    /// The built-in types. The order is the order of `vigil --help` and of the registries.
    public static let builtIn = TransmitterCatalog([
        .connected(HeartRateDriver.transmitterType),
        .connected(SensorTagDriver.transmitterType),
        .connected(XBridgeDriver.transmitterType),
        .connected(GlucoseMeterDriver.transmitterType),
        .connected(CGMServiceDriver.transmitterType),
        .connected(MiaoMiaoDriver.transmitterType),
        .connected(BubbleDriver.transmitterType),
        .connected(DexcomDriver.transmitterType),
        .connected(DexcomG7Driver.transmitterType),
        .broadcast(BTHomeDecoder.broadcastType),
        .broadcast(RuuviDecoder.broadcastType),
    ])

    /// Every type name, as configuration lines use them.
    public var names: [String] { entries.map(\.name) }

    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    public func declaration(named name: String) -> TransmitterDeclaration? { entry(named: name)?.declaration }

    /// The names of the types in `category`.
    public func names(in category: TransmitterCategory) -> [String] {
        entries.filter { $0.declaration.category == category }.map(\.name)
    }

    /// The connected types, as a registry that makes drivers.
    public var connected: TransmitterRegistry {
        TransmitterRegistry(entries.compactMap { if case let .connected(type) = $0 { type } else { nil } })
    }

    /// The broadcast types, as a registry that makes decoders.
    public var broadcast: BroadcastRegistry {
        BroadcastRegistry(entries.compactMap { if case let .broadcast(type) = $0 { type } else { nil } })
    }
}
