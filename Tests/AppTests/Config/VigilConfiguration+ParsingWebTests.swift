import App
import Testing

/// `[web]`: where the page listens and the files it needs (docs/web.md "Configuration").
@Suite struct VigilConfigurationParsingWebTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate"])
    }

    @Test func withoutTheSectionNothingIsServed() throws {
        #expect(try parse("").web == nil)
        #expect(VigilConfiguration().web == nil)
    }

    @Test func anEmptySectionServesPlainHTTPOnPort8080WithTheDefaultTokenFile() throws {
        let web = try #require(try parse("[web]\n").web)
        #expect(web.listen == .init(host: "0.0.0.0", port: 8080))
        #expect(web.listen.description == "0.0.0.0:8080")
        #expect(web.tokenFile == "/etc/vigil/web-token")
        #expect(web.certificate == nil && web.key == nil && !web.isHTTPS)
        #expect(web.tokenFilePosition.line == 1)
    }

    @Test func everyKeyWithItsLine() throws {
        let web = try #require(try parse("""
            [web]
            listen = "[::]:8443"
            token-file = "web-token"
            certificate = "/etc/vigil/web.crt"
            key = "/etc/vigil/web.key"
            """).web)
        #expect(web.listen == .init(host: "::", port: 8443))
        #expect(web.listen.description == "[::]:8443")
        #expect(web.tokenFile == "web-token" && web.tokenFilePosition.line == 3)
        #expect(web.certificate == "/etc/vigil/web.crt" && web.certificatePosition.line == 4)
        #expect(web.key == "/etc/vigil/web.key" && web.keyPosition.line == 5)
        #expect(web.isHTTPS)
    }

    @Test(arguments: [
        ("0.0.0.0", "0.0.0.0", 8080), ("192.168.1.20:80", "192.168.1.20", 80), ("[::1]", "::1", 8080),
        ("[fe80::1%eth0]:1", "", 0), ("localhost:9000", "localhost", 9000), ("vigil.local", "vigil.local", 8080),
    ] as [(String, String, Int)])
    func listenAddresses(text: String, host: String, port: Int) throws {
        if host.isEmpty {
            #expect(throws: VigilConfiguration.Web.ListenAddress.ParseError.self) { try VigilConfiguration.Web.ListenAddress(parsing: text) }
        } else {
            #expect(try VigilConfiguration.Web.ListenAddress(parsing: text) == .init(host: host, port: UInt16(port)))
        }
    }

    @Test(arguments: [
        ("[web]\nlisten = \"0.0.0.0:0\"\n", "2:10", "port must be a number from 1 to 65535"),
        ("[web]\nlisten = \"0.0.0.0:70000\"\n", "2:10", "port must be a number from 1 to 65535"),
        ("[web]\nlisten = \"0.0.0.0:http\"\n", "2:10", "port must be a number"),
        ("[web]\nlisten = \":8080\"\n", "2:10", "the host is missing"),
        ("[web]\nlisten = \"::\"\n", "2:10", "IPv6 address in brackets"),
        ("[web]\nlisten = \"[::\"\n", "2:10", "closing ]"),
        ("[web]\nlisten = \"[::]8080\"\n", "2:10", "after ] comes :port"),
        ("[web]\nlisten = \"[nothex]:80\"\n", "2:10", "is not an IPv6 address"),
        ("[web]\nlisten = \"300.1.1.1:80\"\n", "2:10", "is not an IPv4 address"),
        ("[web]\nlisten = \"my host:80\"\n", "2:10", "neither an IP address nor a host name"),
        ("[web]\nlisten = 8080\n", "2:10", "a string"),
        ("[web]\ntoken-file = \"\"\n", "2:14", "must name the token's file"),
        ("[web]\ncertificate = \"/etc/vigil/web.crt\"\n", "2:15", "add `key`"),
        ("[web]\nkey = \"/etc/vigil/web.key\"\n", "2:7", "add `certificate`"),
        ("[web]\ntoken-fiel = \"/etc/vigil/web-token\"\n", "2:1", "did you mean \"token-file\""),
        ("[wbe]\n", "1:2", "did you mean [web]"),
    ])
    func badValuesAreErrorsAtTheirLine(text: String, at position: String, saying words: String) {
        expectOneConfigurationError(parsing: text, at: position, saying: words)
    }

    @Test func relativePathsAreInTheConfigurationsFolder() {
        typealias Web = VigilConfiguration.Web
        #expect(Web.path("web-token", relativeTo: "/etc/vigil/vigil.conf") == "/etc/vigil/web-token")
        #expect(Web.path("/srv/token", relativeTo: "/etc/vigil/vigil.conf") == "/srv/token")
        #expect(Web.path("keys/token", relativeTo: "vigil.conf") == "keys/token")
        #expect(Web.path("token", relativeTo: "conf/vigil.conf") == "conf/token")
    }

    @Test func thePackagedFileDocumentsTheSectionCommentedOut() throws {
        let text = try VigilConfigurationTests.packagedFile
        for line in ["# [web]", "# listen = \"0.0.0.0:8080\"", "# token-file = \"/etc/vigil/web-token\"", "# certificate = ", "# key = "] {
            #expect(text.contains(line), "\(line)")
        }
    }
}
