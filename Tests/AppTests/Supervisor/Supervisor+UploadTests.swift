import Clocks
import Readings
import Testing
import Web
@testable import App

/// The upload's glue on the virtual clock: started when the history opens, woken by commits
/// that stored rows the queue takes, sent through the supervisor's `HTTP.Client`, shown on the
/// page. (The uploader's own decisions are `NightscoutUploaderTests`; the queue's are
/// `HistoryStoreUploadTests`: here the history is the world's stand-in.)
@Suite struct SupervisorUploadTests {
    static func upload(_ configuration: inout Supervisor.Configuration) {
        SupervisorWebTests.web(&configuration)
        configuration.upload = .init(site: HTTP.URL(scheme: .https, host: "ns.example.org"), credential: .token("vigil-uploader-token"),
                                     utcOffset: .zero)
        configuration.uploadSeed = 1
    }

    @Test func theUploaderStartsWithTheHistoryAndOnlyQueuedRowsWakeIt() throws {
        var world = try SupervisorWorld(configure: Self.upload)
        #expect(world.uploadLoads == 1, "what an earlier run left is sent")
        world.holdUploadLoads = true
        world.advance(by: .seconds(60))
        #expect(world.uploadLoads == 2, "the thermometer's first battery level is queued")
        let batteries = world.written.flatMap { record -> [RecordedReading] in
            if case let .readings(readings, _) = record { readings.filter { $0.kind == .battery } } else { [] }
        }
        #expect(batteries.map(\.device) == ["fridge"], "recorded once: the level repeats in every advertisement")
        // The site has it: the queue is empty again.
        world.uploadQueue = []
        world.tell(.uploadBatchLoaded(.success(UploadQueue.Batch(items: [], status: .init(lastSuccess: world.wall)))))
        world.advance(by: .seconds(60))
        #expect(world.uploadLoads == 2, "a thermometer's temperatures are not queued")
        let idle = try #require(world.webGet("/state.json", [SupervisorWebStateTests.cookie])?.body)
        #expect(idle.contains(#""upload":{"queued":0,"oldest":null,"lastSuccess":"#))
        #expect(idle.contains(#""failing":false,"lastFailure":null,"#))

        let glucose = RecordedReading(device: "cgm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 120), trend: .flat),
                                      wallTime: world.wall)
        world.supervisor.record(.readings([glucose], receivedAt: world.now))
        world.perform()
        world.pump()
        #expect(world.uploadLoads == 3, "the commit that stored a glucose reading grew the queue")

        world.tell(.uploadBatchLoaded(.failure(Nightscout.HistoryReadFailure("history: disk I/O error"))))
        #expect(world.logged("nightscout: the history could not be read: history: disk I/O error; trying again in "))
        let failing = try #require(world.webGet("/state.json", [SupervisorWebStateTests.cookie])?.body)
        #expect(failing.contains(#""failing":true,"lastFailure":"the history could not be read: history: disk I/O error""#))
        world.advance(by: .seconds(31))
        #expect(world.uploadLoads == 4, "loaded again after the back-off")
        #expect(world.supervisor.uploadStatus?.failingSince != nil)
    }

    @Test func withoutTheSectionNothingIsLoadedAndThePageSaysNull() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web)
        world.advance(by: .seconds(10))
        #expect(world.uploadLoads == 0)
        #expect(world.supervisor.uploadStatus == nil)
        #expect(try #require(world.webGet("/state.json", [SupervisorWebStateTests.cookie])?.body).contains(#""upload":null"#))
    }

    /// Through the real HTTP client: every glucose reading the appliance stores reaches the
    /// site once, in order, signed with the secret's SHA-1; a site down for ten minutes delays
    /// them and loses none.
    @Test func readingsReachTheSiteOnceThroughTheHTTPClient() throws {
        var world = try SupervisorWorld(configure: {
            SupervisorWebTests.web(&$0)
            $0.upload = .init(site: HTTP.URL(scheme: .https, host: "ns.example.org", target: "/ns"),
                              credential: .apiSecret("correct-horse-battery"), utcOffset: .zero)
            $0.uploadSeed = 3
        }, glucose: SupervisorWebStateTests.flat(123))
        var down = false
        var accepted: [String] = []
        world.server = { request in
            if down { return 503 }
            accepted.append(request)
            return 200
        }
        world.advance(by: .seconds(30))
        down = true
        world.advance(by: .seconds(600))
        #expect(!world.uploadQueue.isEmpty, "readings wait while the site is down")
        down = false
        world.advance(by: .seconds(660))
        #expect(world.uploadQueue.isEmpty)
        #expect(world.served.count > accepted.count, "some requests met the site down")
        let entries = accepted.filter { $0.hasPrefix("POST /ns/api/v1/entries HTTP/1.1\r\nHost: ns.example.org\r\n") }
        let statuses = accepted.filter { $0.hasPrefix("POST /ns/api/v1/devicestatus HTTP/1.1\r\n") }
        #expect(entries.count + statuses.count == accepted.count)
        #expect(statuses.count == 1, "the thermometer's battery level, once")
        guard case let .apiSecret(hex) = Nightscout.UploadCredential.apiSecret("correct-horse-battery") else { return }
        #expect(accepted.allSatisfy { $0.contains("\r\napi-secret: \(hex)\r\n") })
        let sent = entries.flatMap { request in
            request.split(separator: "\"date\":").dropFirst().map { Int64($0.prefix { $0.isNumber }) ?? -1 }
        }
        let stored = world.written.flatMap { record -> [Int64] in
            guard case let .readings(readings, _) = record else { return [] }
            return readings.filter { $0.kind == .glucose }.map(\.wallTime.millisecondsSinceEpoch)
        }
        #expect(stored.count > 300)
        #expect(sent == stored.sorted(), "every stored reading once, oldest first")
        #expect(world.supervisor.uploadStatus?.failingSince == nil)
        #expect(world.logged("nightscout: POST /api/v1/entries"))
        #expect(world.logged("HTTP 503"))
        #expect(world.logged("nightscout: the site accepts uploads again"))
    }
}
