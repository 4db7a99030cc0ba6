import App
import Testing

/// The token file's rules and how a new token is made (docs/web.md "Configuration"). No
/// message may contain the token.
@Suite struct WebTokenTests {
    let good = "Abc-def_ghi.jkl0123456789"

    @Test func oneLineWithOrWithoutItsLineEnd() throws {
        #expect(try WebToken.read(Array(good.utf8)) == good)
        #expect(try WebToken.read(Array((good + "\n").utf8)) == good)
        #expect(try WebToken.read(Array((good + "\r\n").utf8)) == good)
    }

    @Test(arguments: [
        ("", WebToken.Problem.empty), ("\n", .empty), ("abcdefghijklmnop\nabcdefghijklmnop\n", .severalLines),
        ("abcdefghijklmnop\n\n", .severalLines), ("short", .tooShort(length: 5)), ("abcdefghijklmno", .tooShort(length: 15)),
        ("abcdefgh ijklmnopq", .forbiddenCharacter(column: 9)), (" abcdefghijklmnopq", .forbiddenCharacter(column: 1)),
        ("abcdefghijklmnopé", .forbiddenCharacter(column: 17)), (String(repeating: "a", count: 513), .tooLong),
    ])
    func refusals(contents: String, problem: WebToken.Problem) {
        #expect(throws: problem) { try WebToken.read(Array(contents.utf8)) }
    }

    @Test func theShortestAndLongestAccepted() throws {
        let shortest = String(repeating: "a", count: WebToken.minimumLength)
        let longest = String(repeating: "Z", count: WebToken.maximumLength)
        #expect(try WebToken.read(Array(shortest.utf8)) == shortest)
        #expect(try WebToken.read(Array(longest.utf8)) == longest)
    }

    @Test func noMessageContainsTheToken() {
        let secret = "SECRETsecretSECRET secret"
        do {
            _ = try WebToken.read(Array(secret.utf8))
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("SECRET") && !error.description.contains("secret"), "\(error)")
            #expect(error.description.contains("column 19"))
        }
    }

    @Test(arguments: [(UInt32(0o640), true), (0o600, true), (0o400, true), (0o644, false), (0o604, false), (0o666, false)])
    func onlyTheOwnerAndItsGroupMayReadIt(mode: UInt32, accepted: Bool) {
        if accepted {
            #expect(throws: Never.self) { try WebToken.checkMode(mode) }
        } else {
            #expect(throws: WebToken.Problem.readableByOthers(mode: mode)) { try WebToken.checkMode(mode) }
            #expect("\(WebToken.Problem.readableByOthers(mode: mode))".contains("mode \(String(mode, radix: 8))"))
        }
    }

    /// 32 characters, each byte's low six bits choosing one of 64: a made token passes the rules.
    @Test func aMadeTokenIsValidAndUsesTheBytesLowBits() throws {
        let bytes = (0..<32).map { UInt8($0 * 8 + 3) }
        let token = WebToken.make(from: bytes)
        #expect(token.count == WebToken.generatedLength)
        #expect(try WebToken.read(Array(token.utf8)) == token)
        #expect(WebToken.make(from: [UInt8](repeating: 0, count: 32)) == String(repeating: "A", count: 32))
        #expect(WebToken.make(from: [UInt8](repeating: 63, count: 32)) == String(repeating: "_", count: 32))
        #expect(WebToken.make(from: [UInt8](repeating: 64 + 26, count: 32)) == String(repeating: "a", count: 32))
        #expect(WebToken.make(from: [UInt8](repeating: 0xFF, count: 40)).count == 32)
    }

    /// Every one of the 64 characters is reachable: the alphabet has no repeats.
    @Test func everyByteValueMapsOntoAllSixtyFourCharacters() {
        let tokens = stride(from: 0, to: 64, by: 1).map { WebToken.make(from: [UInt8](repeating: UInt8($0), count: 32)) }
        #expect(Set(tokens).count == 64)
    }
}
