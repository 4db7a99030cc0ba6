import App
import Clocks
import Testing
import Web

/// `GET /report`: one job at a time, its answer sent to every page that waited for it.
@Suite struct SupervisorWebReportTests {
    static let get = "GET /report HTTP/1.1\r\nHost: vigil.local:8080\r\nCookie: vigil_token=\(SupervisorWebTests.token)\r\n\r\n"

    @Test func theReportIsMadeOnceForEveryPageWaitingAndSent() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web)
        world.advance(by: .seconds(2))
        let first = world.webConnect(), second = world.webConnect()
        world.web.read[first] = []
        world.web.read[second] = []
        world.webSend(Array(Self.get.utf8), on: first)
        world.webSend(Array(Self.get.utf8), on: second)
        #expect(world.web.reportRequests.count == 1)
        #expect(world.web.reportRequests.first?.days == 14)
        #expect(world.web.reportRequests.first?.end == world.wall || world.web.reportRequests.first.map { $0.end <= world.wall } == true)
        #expect(world.web.read[first]?.isEmpty == true, "nothing until the report is made")
        world.tell(.webReportEnded(.rendered(html: "<html>report</html>")))
        world.webTurn()
        for id in [first, second] {
            let response = WebResponse.parse(world.web.read[id] ?? [])?.0
            #expect(response?.status == 200)
            #expect(response?.body == "<html>report</html>")
            #expect(response?.header("Content-Type") == "text/html; charset=utf-8")
            // The report's style is inline, and it has no script: its own policy says exactly that.
            let policy = response?.header("Content-Security-Policy") ?? ""
            #expect(policy.contains("style-src 'unsafe-inline'") && policy.hasPrefix("default-src 'none'") && !policy.contains("script-src"), "\(policy)")
            #expect(response?.header("X-Frame-Options") == "DENY")
        }
        // The next request makes a new report.
        _ = world.webConnect()
        world.webSend(Array(Self.get.utf8), on: world.webConnect())
        #expect(world.web.reportRequests.count == 2)
    }

    @Test func aReportThatFailedIs503WithASentence() throws {
        var world = try SupervisorWorld(configure: SupervisorWebTests.web)
        world.advance(by: .seconds(2))
        let id = world.webConnect()
        world.web.read[id] = []
        world.webSend(Array(Self.get.utf8), on: id)
        world.tell(.webReportEnded(.failed("disk I/O error")))
        world.webTurn()
        let response = WebResponse.parse(world.web.read[id] ?? [])?.0
        #expect(response?.status == 503)
        #expect(response?.body == "The report could not be made: disk I/O error\n")
        #expect(world.logged("web: the report could not be made: disk I/O error"))
    }

    @Test func withoutAHistoryThereIsNoReport() throws {
        var world = try SupervisorWorld(configure: { SupervisorWebTests.web(&$0); $0.historyPath = nil })
        let response = world.webRequest(Self.get)
        #expect(response?.status == 503)
        #expect(response?.body.contains("the history is not open") == true)
        #expect(world.web.reportRequests.isEmpty)
    }
}
