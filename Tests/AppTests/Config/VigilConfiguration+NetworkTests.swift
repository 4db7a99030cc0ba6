import App
import Testing

/// `[network] ca-file`: the authorities HTTPS servers must chain to.
@Suite struct VigilConfigurationNetworkTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate"])
    }

    @Test func theDefaultIsTheSystemsBundle() throws {
        #expect(try parse("").network.caFile == nil)
        #expect(try parse("[network]\nca-file = \"\"\n").network.caFile == nil)
    }

    @Test func aFileIsKeptAsWrittenWithItsLine() throws {
        let network = try parse("[log]\nlevel = \"info\"\n\n[network]\nca-file = \"certs/test-ca.pem\"\n").network
        #expect(network.caFile == "certs/test-ca.pem")
        #expect(network.caFilePosition?.line == 5)
    }

    @Test(arguments: [
        ("[network]\nca-file = 1\n", "2:11", "a string"),
        ("[network]\nca-fiel = \"/x.pem\"\n", "2:1", "ca-file"),
        ("[[network]]\nca-file = \"/x.pem\"\n", "1:3", "single table"),
    ])
    func badValuesAreErrorsAtTheirLine(text: String, at position: String, saying words: String) {
        expectOneConfigurationError(parsing: text, at: position, saying: words)
    }

    @Test func thePackagedFileDocumentsTheKeyWithItsDefault() throws {
        #expect(try VigilConfigurationTests.packagedFile.contains("# [network]\n"))
        #expect(try VigilConfigurationTests.packagedFile.contains("# ca-file = \"\""))
    }
}
