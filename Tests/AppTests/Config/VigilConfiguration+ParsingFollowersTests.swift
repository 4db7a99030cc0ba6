import Testing
import Transmitters
import Web
@testable import App

/// The follower types' `[[device]]` keys (docs/network.md "Configuration"): each service read
/// into its source, each missing secret and bad URL at its line, no Bluetooth key.
@Suite struct VigilConfigurationParsingFollowersTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: TransmitterCatalog.builtIn.names)
    }

    @Test func readsTheThreeServices() throws {
        let config = try parse("""
            [[device]]
            type = "nightscout"
            url = "https://their-site.example/ns"
            token = "reader-0123456789"
            label = "Emma"

            [[device]]
            type = "dexcom-share"
            username = "emma-parent"
            password = "pa55word"
            server = "outside-us"
            watch = false

            [[device]]
            type = "librelinkup"
            email = "parent@example.com"
            password = "pa55word"
            patient = ""
            """)
        #expect(config.followers.map(\.device) == ["Emma", "dexcom-share", "librelinkup"])
        #expect(config.followers[0].source == .nightscout(site: HTTP.URL(scheme: .https, host: "their-site.example", target: "/ns"),
                                                           token: "reader-0123456789", apiSecret: nil))
        #expect(config.followers[1].source == .dexcomShare(username: "emma-parent", password: "pa55word", server: .outsideUnitedStates))
        #expect(config.followers[2].source == .libreLinkUp(email: "parent@example.com", password: "pa55word",
                                                            server: HTTP.URL(scheme: .https, host: "api.libreview.io"), patient: nil))
        #expect(config.devices[1].options["watch"]?.boolean == false, "the alarm keys stay for the engine")
        // None of them is a Bluetooth device; each is watched for signal loss unless it says not.
        let (devices, alarms) = try config.applianceDevices()
        #expect(devices.isEmpty)
        #expect(try alarms.map { try DeviceAlarmOptions(type: $0.typeName, options: $0.options).watch } == [true, false, true])
        #expect(!"\(config.followers.map(\.source))".contains("pa55word"), "a source's description holds no secret")
    }

    @Test(arguments: [
        ("[[device]]\ntype = \"dexcom-share\"\nusername = \"u\"", "1:1",
         "missing required key \"password\" in [[device]] of type dexcom-share (the Dexcom account's password)"),
        ("[[device]]\ntype = \"librelinkup\"\npassword = \"p\"", "1:1", "missing required key \"email\""),
        ("[[device]]\ntype = \"nightscout\"\ntoken = \"reader-0123456789\"", "1:1", "missing required key \"url\""),
        ("[[device]]\ntype = \"dexcom-share\"\nusername = \"u\"\npassword = \"\"", "4:12", "the Dexcom account's password must not be empty"),
        ("[[device]]\ntype = \"nightscout\"\nurl = \"http://their-site.example\"", "3:7", "must be https (http only to this machine)"),
        ("[[device]]\ntype = \"nightscout\"\nurl = \"their-site.example\"", "3:7", "not an absolute URL"),
        ("[[device]]\ntype = \"nightscout\"\nurl = \"https://u:p@site.example\"", "3:7", "user information"),
        ("[[device]]\ntype = \"nightscout\"\nurl = \"https://s.example\"\ntoken = \"reader-0123456789\"\napi-secret = \"0123456789abc\"", "5:14",
         "give token or api-secret, not both"),
        ("[[device]]\ntype = \"nightscout\"\nurl = \"https://s.example\"\napi-secret = \"short\"", "4:14", "at least 12 characters"),
        ("[[device]]\ntype = \"dexcom-share\"\nusername = \"u\"\npassword = \"p\"\nserver = \"ous\"", "5:10",
         "\"ous\" is not one of us, outside-us, japan or an https URL"),
        ("[[device]]\ntype = \"librelinkup\"\nemail = \"e\"\npassword = \"p\"\naddress = \"C0:11:22:33:44:55\"", "5:11",
         "a librelinkup device follows a server over the internet: it has no Bluetooth address"),
    ])
    func refuses(_ text: String, _ position: String, _ words: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.errors.count == 1, "\(error.errors)")
            #expect(error.errors.first.map { "\($0.position.line):\($0.position.column)" } == position, "\(error.errors)")
            #expect(error.errors.first.map { "\($0)".contains(words) } == true, "\(error.errors)")
            #expect(!error.errors.contains { "\($0)".contains("pa55word") })
        }
    }

    @Test func aCustomShareServerAndALoopbackNightscoutAreAccepted() throws {
        let config = try parse("""
            [[device]]
            type = "dexcom-share"
            username = "u"
            password = "p"
            server = "https://127.0.0.1:8443"

            [[device]]
            type = "nightscout"
            url = "http://127.0.0.1:1337"
            label = "local"
            """)
        #expect(config.followers[0].source == .dexcomShare(username: "u", password: "p",
                                                            server: .custom(HTTP.URL(scheme: .https, host: "127.0.0.1", port: 8443))))
        #expect(config.followers[1].source == .nightscout(site: HTTP.URL(scheme: .http, host: "127.0.0.1", port: 1337), token: nil, apiSecret: nil))
    }

    @Test func aKeyNoFollowerKnowsIsRefusedByTheDevicesCheck() throws {
        let config = try parse("[[device]]\ntype = \"nightscout\"\nurl = \"https://s.example\"\ntransmitter-id = \"8G1234\"")
        #expect(throws: VigilConfiguration.DeviceProblem.self) { try config.applianceDevices() }
    }
}
