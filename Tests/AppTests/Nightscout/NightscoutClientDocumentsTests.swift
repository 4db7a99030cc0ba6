#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import App

/// The documents a Nightscout client library no one here wrote parses
/// (`Tests/Rigs/check_nightscout_client.py`, docs/nightscout-api.md "Checked by a client"):
/// every endpoint's answer to the fixture morning, written to the directory
/// `$VIGIL_NIGHTSCOUT_DOCUMENTS` names, with `served.tsv` mapping each request path to its file
/// and `api-secret.txt` holding the header value this API accepted for them.
@Suite struct NightscoutClientDocumentsTests {
    typealias F = NightscoutFixtures

    static let served: [(path: String, file: String)] = [
        ("/api/v1/entries.json", "entries.json"), ("/api/v1/entries/sgv.json", "entries-sgv.json"),
        ("/api/v1/entries/current.json", "entries-current.json"), ("/api/v1/treatments.json", "treatments.json"),
        ("/api/v1/devicestatus.json", "devicestatus.json"), ("/api/v1/status.json", "status.json"), ("/pebble", "pebble.json"),
    ]

    @Test func writesEveryEndpointsDocumentWhenAsked() {
        var files: [(String, [UInt8])] = [("api-secret.txt", Array(F.secretSHA1.utf8))]
        var index = ""
        for (path, file) in Self.served {
            let response = F.answer(F.get(path, headers: [("api-secret", F.secretSHA1)]))
            #expect(response.status == 200)
            #expect(response.body.first == UInt8(ascii: "[") || response.body.first == UInt8(ascii: "{"))
            files.append((file, response.body))
            index += "\(path)\t\(file)\n"
        }
        files.append(("served.tsv", Array(index.utf8)))
        #if canImport(Glibc)
        guard let directory = getenv("VIGIL_NIGHTSCOUT_DOCUMENTS").map({ String(cString: $0) }) else { return }
        for (name, bytes) in files {
            let file = fopen(directory + "/" + name, "w")
            #expect(file != nil)
            guard let file else { continue }
            #expect(fwrite(bytes, 1, bytes.count, file) == bytes.count)
            #expect(fclose(file) == 0)
        }
        #endif
    }
}
