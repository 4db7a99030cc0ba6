import Clocks
import Readings
import Testing
import Web
@testable import App

/// The upload's glue on the virtual clock: started when the history opens, woken by commits
/// that stored rows the queue takes, shown on the page. (The exchanges themselves go through
/// `HTTP.Client`, whose state machine the network branch provides; the uploader's decisions
/// about them are `NightscoutUploaderTests`.)
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
}
