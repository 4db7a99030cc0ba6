import Testing
@testable import App

@Suite struct NightscoutRouteTests {
    typealias Route = Nightscout.Route

    @Test(arguments: [
        ("/api/v1/entries.json", Route.entries(.all)), ("/api/v1/entries", .entries(.all)),
        ("/api/v1/entries/current.json", .entries(.current)), ("/api/v1/entries/sgv.json", .entries(.type("sgv"))),
        ("/api/v1/entries/sgv", .entries(.type("sgv"))), ("/api/v1/entries/c23bb46ddba6eb1b06b38674.json", .entries(.id("c23bb46ddba6eb1b06b38674"))),
        // Upper-case hex is not an id to Nightscout's `^[a-f\d]{24}$`: it is a type.
        ("/api/v1/entries/C23BB46DDBA6EB1B06B38674.json", .entries(.type("C23BB46DDBA6EB1B06B38674"))),
        ("/api/v1/treatments.json", .treatments), ("/api/v1/treatments/", .treatments), ("/api/v1/devicestatus/", .deviceStatus),
        ("/api/v1/devicestatus.json", .deviceStatus), ("/api/v1/status.json", .status(.json)), ("/api/v1/status", .status(.json)),
        ("/api/v1/status.txt", .status(.text)), ("/api/v1/status.html", .status(.html)), ("/pebble", .pebble),
    ])
    func knownPaths(_ path: String, _ route: Route) throws {
        #expect(try Route(path: path) == route)
    }

    @Test(arguments: [
        "/", "/api/v1", "/api/v1/", "/api/v2/entries.json", "/api/v1/entries/sgv/extra.json", "/api/v1/profile.json",
        "/api/v1/treatments.csv", "/api/v1/status.png", "/api/v1/entries/s%20v.json", "/api/v1/entries/.json", "/pebble.json",
        "/api/v1/entries/" + String(repeating: "a", count: 33),
    ])
    func unknownPathsAreNotFound(_ path: String) {
        #expect(throws: Nightscout.Failure.notFound(path)) { try Route(path: path) }
    }

    @Test func otherMethodsAreRefused() {
        let response = NightscoutFixtures.answer(Nightscout.Request(method: "POST", path: "/api/v1/entries.json"))
        #expect(response.status == 405)
        #expect(NightscoutFixtures.body(response) == #"{"status":405,"message":"Method Not Allowed","description":"this Nightscout API only reads (GET)"}"#)
        let missing = NightscoutFixtures.answer(NightscoutFixtures.get("/api/v1/nothing"))
        #expect(NightscoutFixtures.body(missing) == #"{"status":404,"message":"Not Found","description":"no Nightscout API resource at /api/v1/nothing"}"#)
    }

    @Test func theAPIsPathsAreTold() {
        #expect(Nightscout.API.answers(path: "/api/v1/entries.json") && Nightscout.API.answers(path: "/pebble"))
        #expect(!Nightscout.API.answers(path: "/") && !Nightscout.API.answers(path: "/api/v10/x") && !Nightscout.API.answers(path: "/pebbles"))
    }

    @Test func headersAreFoundWithoutRegardToCase() {
        let request = Nightscout.Request(method: "GET", path: "/", headers: [("API-SECRET", "a"), ("api-secret", "b")])
        #expect(request.header("api-secret") == "a")
        #expect(request.header("api-secre") == nil)
    }
}
