import Testing
import Transmitters
@testable import App

/// The files a configuration's devices name (a G7's credentials): listed for the executable to
/// read, and their contents, or why they could not be read, handed to the driver.
@Suite struct VigilConfigurationApplianceTests {
    static func configuration(_ text: String) throws -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: TransmitterCatalog.builtIn.names)
    }

    static let twoSensors = """
        [[device]]
        type = "dexcom-g7"
        label = "mine"
        pairing-code = "1234"
        credentials = "/etc/vigil/dexcom-g7.pem"

        [[device]]
        type = "dexcom-g7"
        label = "spare"
        pairing-code = "5678"
        credentials = "/etc/vigil/dexcom-g7.pem"

        [[device]]
        type = "heart-rate"
        """

    @Test func eachNamedFileIsListedOnce() throws {
        #expect(try Self.configuration(Self.twoSensors).filesToRead == ["/etc/vigil/dexcom-g7.pem"])
        #expect(try Self.configuration("[[device]]\ntype = \"heart-rate\"\n").filesToRead.isEmpty)
    }

    @Test func anUnreadableFileIsTheDevicesProblemWithItsReason() throws {
        let configuration = try Self.configuration(Self.twoSensors)
        let files: [String: AttachedFile] = ["/etc/vigil/dexcom-g7.pem": .unreadable(reason: "open(/etc/vigil/dexcom-g7.pem): No such file or directory")]
        #expect {
            _ = try configuration.applianceDevices(files: files)
        } throws: { error in
            let problem = try #require(error as? VigilConfiguration.DeviceProblem)
            return problem.device.label == "mine" && "\(problem)".contains("No such file or directory")
                && "\(problem)".contains("credentials=/etc/vigil/dexcom-g7.pem")
        }
    }

    @Test func aFileNobodyReadIsSaidSoRatherThanTakenAsEmpty() throws {
        let configuration = try Self.configuration(Self.twoSensors)
        #expect {
            _ = try configuration.applianceDevices()
        } throws: { error in
            "\(error)".contains("not read")
        }
    }

    @Test func contentsThatAreNotCredentialsAreRefusedWithWhatIsWrong() throws {
        let configuration = try Self.configuration(Self.twoSensors)
        #expect {
            _ = try configuration.applianceDevices(files: ["/etc/vigil/dexcom-g7.pem": .contents(Array("hello\n".utf8))])
        } throws: { error in
            "\(error)".contains("a usable credentials file")
        }
    }
}
