import Foundation
import Testing

extension Interop {
    /// `vigil config check`: what `vigil run` would say about a file, without starting anything.
    @Suite struct ConfigCheckInteropTests {
        static func file(_ text: String) throws -> String {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-check-\(UUID().uuidString).conf").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        @Test func aGoodFileIsSummarisedAndExitsZero() throws {
            let config = try Self.file("[[device]]\ntype = \"heart-rate\"\nlabel = \"strap\"\nheart-rate-high = 170\n\n[face]\nboard = \"pi-4b\"\n")
            defer { try? FileManager.default.removeItem(atPath: config) }
            let result = try VigilProcess().run(["config", "check", config])
            #expect(result.exitCode == 0, "\(result.stderrText)")
            #expect(result.stdoutText == """
                \(config): ok
                  controller: hci0
                  devices: 1 (strap (heart-rate))
                  face: GPIO on board pi-4b (buzzer 17, LED 27, button 22)
                  state directory: /var/lib/vigil
                  nightscout: off (no [nightscout] section)
                  web: off (no [web] section)
                  certificate authorities: the system's (/etc/ssl/certs/ca-certificates.crt)

                """)
        }

        @Test func everyKindOfProblemIsExit78WithItsLine() throws {
            for (text, expected) in [
                ("[bluetooth]\nhci = \"hci0\"\nbogus = 1\n", ":3:1: unknown key \"bogus\" in [bluetooth]"),
                ("[[device]]\ntype = \"heart-rate\"\nheart-rate-hgh = 170\n", ":1: unknown option \"heart-rate-hgh\" for heart-rate"),
                ("[face]\nboard = \"generic\"\n", "[face]"),
                // A Firefly G6 (ID 8G...): refused with the reason, not at the first connection.
                ("[[device]]\ntype = \"dexcom\"\ntransmitter-id = \"8G1234\"\n", "is a Firefly G6 (IDs starting 8G, 8H, 8J, 8L or 8R), which pairs with an EC J-PAKE exchange"),
                ("[[device]]\ntype = \"dexcom\"\ntransmitter-id = \"81H0AB\"\nslot = \"both\"\n", "option slot=both"),
            ] {
                let config = try Self.file(text)
                defer { try? FileManager.default.removeItem(atPath: config) }
                let result = try VigilProcess().run(["config", "check", config])
                #expect(result.exitCode == 78, "\(text): \(result.summary)")
                #expect(result.stderrText.contains(expected), "\(text): \(result.stderrText)")
                #expect(result.stdoutText.isEmpty)
            }
        }

        @Test func aMissingFileIsExit78() throws {
            let result = try VigilProcess().run(["config", "check", "/nonexistent/vigil.conf"])
            #expect(result.exitCode == 78)
            #expect(result.stderrText.contains("cannot read the configuration"), "\(result.stderrText)")
        }
    }
}
