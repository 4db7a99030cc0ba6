import Clocks
import Readings
import Testing
@testable import Transmitters

@Suite struct TransmitterTypeTests {
    @Test func builtInRegistryKnowsHeartRate() throws {
        let registry = TransmitterRegistry.builtIn
        #expect(registry.names.first == "heart-rate")  // other types follow as they are added
        let type = try #require(registry.type(named: "heart-rate"))
        #expect(type.profile == HeartRateProfile.profile)
        #expect(registry.type(named: "Heart-Rate") == nil)
    }

    @Test func makesADriverFromAConfigurationLine() throws {
        var driver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "heart-rate hr1 no-data-timeout=45s")
        #expect(driver.device == "hr1")
        #expect(driver.profile == HeartRateProfile.profile)
        let discovered = DiscoveredServices([0x180D: [DiscoveredCharacteristic(0x2A37, properties: .notify)]])
        _ = driver.start(discovered, at: .zero)
        // The configured timeout reached the driver.
        #expect(driver.nextDeadline == .zero + .seconds(45))
    }

    @Test func defaultsApplyWithoutOptions() throws {
        var driver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "heart-rate")
        #expect(driver.device == "heart-rate")
        _ = driver.start(DiscoveredServices([0x180D: [DiscoveredCharacteristic(0x2A37, properties: .notify)]]), at: .zero)
        #expect(driver.nextDeadline == .zero + .seconds(30))
    }

    @Test(arguments: [
        ("nonesuch x", TransmitterConfigurationError.unknownType("nonesuch", known: TransmitterRegistry.builtIn.names)),
        ("heart-rate hr1 timeout=3s", .unknownOption("timeout", type: "heart-rate")),
        ("heart-rate hr1 no-data-timeout=soon",
         .invalidOption("no-data-timeout", value: "soon", expected: "a positive duration such as 30s, 500ms, 2m")),
    ])
    func reportsConfigurationErrors(line: String, error: TransmitterConfigurationError) {
        #expect(throws: error) { try TransmitterRegistry.builtIn.makeDriver(configurationLine: line) }
    }

    @Test func registeringTheSameNameReplaces() throws {
        let replacement = TransmitterType(name: "heart-rate", summary: "test double", declaration: HeartRateDriver.transmitterType.declaration,
                                          driver: HeartRateDriver.self) { configuration in
            HeartRateDriver(device: "replaced", configuration: .init(noDataTimeout: .seconds(5)))
        }
        var registry = TransmitterRegistry.builtIn
        registry.register(replacement)
        #expect(registry.names.first == "heart-rate")  // other types follow as they are added
        #expect(try registry.makeDriver(configurationLine: "heart-rate hr1").device == "replaced")
    }

    @Test func errorsDescribeThemselves() {
        #expect(TransmitterConfigurationError.unknownType("x", known: ["a", "b"]).description
            == "unknown transmitter type \"x\" (known: a, b)")
    }
}
