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
        world.advance(by: .seconds(60))
        #expect(world.uploadLoads == 1, "a thermometer's readings are not queued")
        let idle = try #require(world.webGet("/state.json", [SupervisorWebStateTests.cookie])?.body)
        #expect(idle.contains(#""upload":{"queued":0,"oldest":null,"lastSuccess":null,"failing":false,"lastFailure":null,"#))

        world.holdUploadLoads = true
        let glucose = RecordedReading(device: "cgm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 120), trend: .flat),
                                      wallTime: world.wall)
        world.supervisor.record(.readings([glucose], receivedAt: world.now))
        world.perform()
        world.pump()
        #expect(world.uploadLoads == 2, "the commit that stored a glucose reading grew the queue")

        world.tell(.uploadBatchLoaded(.failure(Nightscout.HistoryReadFailure("history: disk I/O error"))))
        #expect(world.logged("nightscout: the history could not be read: history: disk I/O error; trying again in "))
        let failing = try #require(world.webGet("/state.json", [SupervisorWebStateTests.cookie])?.body)
        #expect(failing.contains(#""failing":true,"lastFailure":"the history could not be read: history: disk I/O error""#))
        world.advance(by: .seconds(31))
        #expect(world.uploadLoads == 3, "loaded again after the back-off")
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
