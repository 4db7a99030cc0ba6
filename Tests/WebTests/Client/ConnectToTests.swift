import Testing
import Web

@Suite struct ConnectToTests {
    @Test func allFourParts() throws {
        let rule = try HTTP.ConnectTo(parsing: "share2.dexcom.com:443:127.0.0.1:8443")
        #expect(rule == HTTP.ConnectTo(host: "share2.dexcom.com", port: 443, address: "127.0.0.1", addressPort: 8443))
        #expect(rule.target(host: "share2.dexcom.com", port: 443)! == ("127.0.0.1", 8443))
        #expect(rule.target(host: "SHARE2.dexcom.com", port: 443) != nil, "host names compare without case")
        #expect(rule.target(host: "share2.dexcom.com", port: 80) == nil)
        #expect(rule.target(host: "other.example", port: 443) == nil)
        #expect(rule.description == "share2.dexcom.com:443:127.0.0.1:8443")
    }

    /// curl's empty parts: any host or port matches; the address or port is kept.
    @Test func emptyPartsMatchAnyOrKeep() throws {
        let anyHost = try HTTP.ConnectTo(parsing: ":443:127.0.0.1:")
        #expect(anyHost.target(host: "a.example", port: 443)! == ("127.0.0.1", 443))
        #expect(anyHost.target(host: "a.example", port: 80) == nil)
        let samePlace = try HTTP.ConnectTo(parsing: "a.example:::9000")
        #expect(samePlace.target(host: "a.example", port: 1)! == ("a.example", 9000))
    }

    @Test func ipv6InBrackets() throws {
        let rule = try HTTP.ConnectTo(parsing: "[fe80::1]:443:[::1]:8443")
        #expect(rule == HTTP.ConnectTo(host: "fe80::1", port: 443, address: "::1", addressPort: 8443))
        #expect(rule.description == "[fe80::1]:443:[::1]:8443")
    }

    @Test func theFirstMatchingRuleWins() throws {
        let rules = try ["a.example:443:127.0.0.1:1001", ":443:127.0.0.1:1002"].map { try HTTP.ConnectTo(parsing: $0) }
        #expect(HTTP.ConnectTo.target(host: "a.example", port: 443, rules: rules) == ("127.0.0.1", 1001))
        #expect(HTTP.ConnectTo.target(host: "b.example", port: 443, rules: rules) == ("127.0.0.1", 1002))
        #expect(HTTP.ConnectTo.target(host: "b.example", port: 80, rules: rules) == ("b.example", 80))
    }

    @Test(arguments: [
        ("a:1:b", HTTP.ConnectToError.notFourParts("a:1:b")), ("a:1:b:2:3", .invalidPort("2:3")),
        ("[::1:443:b:1", .unbalancedBracket("[::1:443:b:1")), ("a b:1:c:2", .invalidHost("a b")),
        ("a:x:c:2", .invalidPort("x")), ("a:1:c:70000", .invalidPort("70000")), ("a:0:c:1", .invalidPort("0")),
        ("a:1:c:-1", .invalidPort("-1")),
    ])
    func badRulesAreRefused(text: String, error: HTTP.ConnectToError) {
        #expect(throws: error) { try HTTP.ConnectTo(parsing: text) }
    }
}
