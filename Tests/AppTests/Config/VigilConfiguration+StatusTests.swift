import App
import Testing

/// `[status] socket`: where `vigil status` asks the running daemon.
@Suite struct VigilConfigurationStatusTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate"])
    }

    @Test func theDefaultIsTheServicesRuntimeDirectory() throws {
        #expect(try parse("").status.socketPath == "/run/vigil/status.sock")
        #expect(VigilConfiguration.Status() == VigilConfiguration.Status(socketPath: "/run/vigil/status.sock"))
    }

    @Test func anotherPathOrOff() throws {
        #expect(try parse("[status]\nsocket = \"/tmp/vigil.sock\"\n").status.socketPath == "/tmp/vigil.sock")
        #expect(try parse("[status]\nsocket = \"\"\n").status.socketPath == nil)
    }

    @Test(arguments: [
        ("[status]\nsocket = \"status.sock\"\n", "2:10", "must be absolute"),
        ("[status]\nsocket = 1\n", "2:10", "a string"),
        ("[status]\nsokcet = \"/run/vigil/status.sock\"\n", "2:1", "socket"),
    ])
    func badValuesAreErrorsAtTheirLine(text: String, at position: String, saying words: String) {
        expectOneConfigurationError(parsing: text, at: position, saying: words)
    }

    @Test func thePackagedFileDocumentsTheKeyWithItsDefault() throws {
        #expect(try VigilConfigurationTests.packagedFile.contains("# socket = \"/run/vigil/status.sock\""))
    }
}
