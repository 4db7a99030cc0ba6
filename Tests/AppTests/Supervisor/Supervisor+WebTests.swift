import Alarms
import App
import Clocks
import Testing
import Web

/// The page's server driven through the supervisor on the virtual clock: raw HTTP in, the bytes
/// it writes back read and parsed.
@Suite struct SupervisorWebTests {
    static let token = "s3cret-token-for-tests-0123456789"
    static func web(_ configuration: inout Supervisor.Configuration) {
        configuration.website = Website.Configuration(token: token)
    }

    @Test func healthIsOpenAndSaysOkWithoutAFault() throws {
        var world = try SupervisorWorld(configure: Self.web)
        world.advance(by: .seconds(5))
        #expect(world.supervisor.servesWeb)
        let answer = world.webGet("/health")
        let response = try #require(answer)
        #expect(response.status == 200)
        #expect(response.body == #"{"status":"ok"}"#)
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
    }

    @Test func healthNamesAStandingFault() throws {
        var world = try SupervisorWorld(configure: Self.web, failingFiles: [.alarmState])
        world.advance(by: .seconds(5))
        #expect(world.storageFaultRaised)
        let answer = world.webGet("/health")
        let response = try #require(answer)
        #expect(response.status == 503)
        #expect(response.body.contains("fault:storage-failing"))
    }

    @Test func aSocketAcceptedWhileThePageIsOffIsClosed() throws {
        var world = try SupervisorWorld()
        #expect(!world.supervisor.servesWeb)
        let id = world.webConnect()
        #expect(world.web.closed.contains(id))
    }

    @Test func theDateIsSentOnlyOnceTheClockIsBelievable() throws {
        var set = try SupervisorWorld(configure: Self.web)
        let answer = set.webGet("/health")
        #expect(try #require(answer).header("Date") != nil)
        var unset = try SupervisorWorld(configure: Self.web, wallAtStart: SupervisorWorld.unsetClock)
        let unsetAnswer = unset.webGet("/health")
        #expect(try #require(unsetAnswer).status == 200)
        #expect(unsetAnswer?.header("Date") == nil)
    }
}
