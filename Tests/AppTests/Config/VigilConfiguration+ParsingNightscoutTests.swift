import App
import Testing
import Web

/// `[nightscout]`: the site to upload to and one credential (docs/nightscout-upload.md).
@Suite struct VigilConfigurationParsingNightscoutTests {
    static let secret = "correct-horse-battery"

    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate", "dexcom-share", "nightscout"])
    }

    @Test func withoutTheSectionNothingIsUploaded() throws {
        #expect(try parse("").nightscout == nil)
        #expect(VigilConfiguration().nightscout == nil)
    }

    @Test func theSiteAndTheSecret() throws {
        let nightscout = try #require(try parse("[nightscout]\nurl = \"https://Ns.Example.org/care/\"\napi-secret = \"\(Self.secret)\"\n").nightscout)
        #expect(nightscout.url == HTTP.URL(scheme: .https, host: "ns.example.org", target: "/care"))
        #expect(nightscout.url.appending("/api/v1/entries").target == "/care/api/v1/entries")
        #expect(nightscout.apiSecret == Self.secret && nightscout.token == nil)
        guard case .apiSecret? = nightscout.credential else {
            Issue.record("no secret")
            return
        }
        let token = try #require(try parse("[nightscout]\nurl = \"http://127.0.0.1:1337\"\ntoken = \"vigil-1a2b3c4d5e6f\"\n").nightscout)
        #expect(token.url == HTTP.URL(scheme: .http, host: "127.0.0.1", port: 1337, target: "/"))
        #expect(token.token == "vigil-1a2b3c4d5e6f")
    }

    @Test(arguments: [
        ("https://[::1]:8443/", true, "::1", 8443), ("http://localhost", false, "localhost", 80), ("http://[::1]", false, "::1", 80),
        ("HTTPS://x.example", true, "x.example", 443),
    ] as [(String, Bool, String, Int)])
    func sites(text: String, https: Bool, host: String, port: Int) throws {
        let site = try VigilConfiguration.Nightscout.site(parsing: text)
        #expect(site == HTTP.URL(scheme: https ? .https : .http, host: host, port: UInt16(port), target: "/"))
    }

    @Test(arguments: [
        ("[nightscout]\nurl = \"http://ns.example.org\"\napi-secret = \"\(secret)\"\n", "2:7", "must be https"),
        ("[nightscout]\nurl = \"ns.example.org\"\napi-secret = \"\(secret)\"\n", "2:7", "not an absolute URL"),
        ("[nightscout]\nurl = \"https://ns.example.org/?x=1\"\napi-secret = \"\(secret)\"\n", "2:7", "without a query"),
        ("[nightscout]\nurl = \"https://me:pw@ns.example.org\"\napi-secret = \"\(secret)\"\n", "2:7", "user information"),
        ("[nightscout]\nurl = \"https://ns.example.org:0\"\napi-secret = \"\(secret)\"\n", "2:7", "is not a port (1-65535)"),
        ("[nightscout]\napi-secret = \"\(secret)\"\n", "1:1", "missing required key \"url\""),
        ("[nightscout]\nurl = \"https://ns.example.org\"\n", "1:1", "add api-secret (the site's API_SECRET) or token"),
        ("[nightscout]\nurl = \"https://ns.example.org\"\napi-secret = \"\(secret)\"\ntoken = \"vigil-1a2b3c4d5e6f\"\n", "4:9", "either api-secret or token, not both"),
        ("[nightscout]\nurl = \"https://ns.example.org\"\napi-secret = \"short-one\"\n", "3:14", "has 9 characters; Nightscout needs at least 12"),
        ("[nightscout]\nurl = \"https://ns.example.org\"\ntoken = \"has a space in it\"\n", "3:9", "printable ASCII without spaces"),
        ("[nightscout]\nurl = \"https://ns.example.org\"\napi-secret = \"\"\n", "3:14", "the API secret is empty"),
        ("[nightscout]\nurl = \"https://ns.example.org\"\napi-secret = 12345678901234\n", "3:14", "a string"),
        ("[nightscout]\nurl = \"https://ns.example.org\"\ntoken = \"vigil-1a2b3c4d5e6f\"\napi_secret = \"\(secret)\"\n", "4:1", "did you mean \"api-secret\""),
        ("[nigthscout]\n", "1:2", "did you mean [nightscout]"),
    ])
    func badValuesAreErrorsAtTheirLine(text: String, at position: String, saying words: String) {
        expectOneConfigurationError(parsing: text, at: position, saying: words)
    }

    /// Neither an error nor the configuration's description holds the secret.
    @Test func noMessageOrDescriptionHoldsTheSecret() throws {
        let texts = [
            "[nightscout]\nurl = \"https://ns.example.org\"\napi-secret = \"\(Self.secret) x\"\n",
            "[nightscout]\nurl = \"http://ns.example.org\"\napi-secret = \"\(Self.secret)\"\ntoken = \"\(Self.secret)\"\n",
        ]
        for text in texts {
            do {
                _ = try parse(text)
                Issue.record("accepted")
            } catch {
                #expect(!error.formatted(file: "vigil.conf").contains(Self.secret))
            }
        }
        let configuration = try parse("[nightscout]\nurl = \"https://ns.example.org\"\napi-secret = \"\(Self.secret)\"\n")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in ["\(configuration)", dumped, "\(configuration.nightscout!)", "\(configuration.nightscout!.credential!)"] {
            #expect(!text.contains(Self.secret))
        }
        #expect("\(configuration.nightscout!)" == "Nightscout at https://ns.example.org/ with the API secret")
    }

    /// A file holding any secret, in [nightscout] or in a follower's [[device]], must give
    /// other users no access; a file without one may be world-readable as before.
    @Test func aFileHoldingASecretMustNotBeReadableByOthers() throws {
        let uploading = try parse("[nightscout]\nurl = \"https://ns.example.org\"\ntoken = \"vigil-1a2b3c4d5e6f\"\n")
        #expect(uploading.secretsHeld == ["[nightscout] token"])
        #expect(uploading.secretFileProblem(mode: 0o640) == nil)
        #expect(uploading.secretFileProblem(mode: 0o600) == nil)
        #expect(uploading.secretFileProblem(mode: 0o644)
            == "holds a secret ([nightscout] token) and other users may read it (mode 644): `chmod o-rwx` it (the package installs it root:vigil 0640)")
        #expect(uploading.secretFileProblem(mode: 0o641) != nil)
        let following = try parse("[[device]]\ntype = \"dexcom-share\"\nlabel = \"Emma\"\nusername = \"a\"\npassword = \"b\"\n")
        #expect(following.secretsHeld == ["[[device]] Emma password"])
        #expect(following.secretFileProblem(mode: 0o644) != nil)
        let site = try parse("[[device]]\ntype = \"nightscout\"\nlabel = \"Leo\"\nurl = \"https://leo.example\"\ntoken = \"leo-reader-12345\"\n")
        #expect(site.secretsHeld == ["[[device]] Leo token"])
        let open = try parse("[[device]]\ntype = \"nightscout\"\nlabel = \"Mia\"\nurl = \"https://mia.example\"\n")
        #expect(open.secretsHeld.isEmpty, "a site open to readers needs no secret")
        #expect(try parse("[web]\n").secretFileProblem(mode: 0o644) == nil)
    }

    @Test func thePackagedFileDocumentsTheSectionCommentedOut() throws {
        let text = try VigilConfigurationTests.packagedFile
        for line in ["# [nightscout]", "# url = \"https://", "# api-secret = \"\"", "# token = \"\""] {
            #expect(text.contains(line), "\(line)")
        }
    }
}
