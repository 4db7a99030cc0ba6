import Alarms
import App
import Clocks
import Readings
import Testing

/// The two renderings of a status snapshot, every line and every JSON field asserted. The
/// snapshot is written out here field by field (StatusBoardTests builds one from events).
@Suite struct ApplianceStatusRenderingTests {
    /// 2027-01-15T08:00:00Z.
    static let wall0 = WallClockTime(secondsSinceEpoch: 1_800_000_000)
    static func wall(_ seconds: Int64) -> WallClockTime { wall0 + .seconds(seconds) }

    static let night = ApplianceStatus(
        version: "9.8.7", uptime: .seconds(3 * 3600 + 2 * 60 + 5), time: wall(80), controller: .up(for: .seconds(125)),
        devices: [
            .init(id: "g6", kind: "dexcom", link: .connected(for: .seconds(60)), address: "C0:11:22:33:44:55",
                  readings: [.init(kind: .glucose, value: 54, unit: "mg/dL", detail: "trend Flat", age: .seconds(60))],
                  battery: .init(level: Percent(80)!, age: .seconds(59)),
                  sensor: .init(state: "ok", age: .seconds(3659), reportedAgo: .seconds(55))),
            .init(id: "strap", kind: "heart-rate", link: .waitingToReconnect(in: .seconds(4))),
            .init(id: "fridge", kind: "bthome", link: .listeningForAdvertisements, address: "A4:C1:38:00:00:01",
                  readings: [.init(kind: .temperature, value: 4.25, unit: "°C", age: .milliseconds(500))],
                  battery: .init(level: Percent(90)!, age: .seconds(40))),
        ],
        alarms: [
            .init(name: "urgent-low", priority: .high, state: .sounding, since: wall(20), age: .seconds(60)),
            .init(name: "low", priority: .medium, state: .snoozed(until: wall(980), remaining: .seconds(900)), since: wall(10), age: .seconds(70)),
        ],
        faults: [], history: nil)

    @Test func textForAPerson() {
        #expect(Self.night.text == """
            Vigil 9.8.7, up 3 h 2 min
            controller: up for 2 min 5 s
            devices:
              g6 (dexcom): connected for 1 min, C0:11:22:33:44:55
                glucose 54 mg/dL (trend Flat), 1 min ago
                battery 80 %, 59 s ago
                sensor ok, 1 h old (reported 55 s ago)
              strap (heart-rate): waiting to reconnect (in 4 s)
                no reading yet
              fridge (bthome): listening for advertisements, A4:C1:38:00:00:01
                temperature 4.25 °C, just now
                battery 90 %, 40 s ago
            alarms:
              urgent-low (high priority): SOUNDING, since 2027-01-15T08:00:20.000Z (1 min)
              low (medium priority): snoozed until 2027-01-15T08:16:20.000Z (15 min left), since 2027-01-15T08:00:10.000Z (1 min 10 s)
            faults: none
            history: not kept
            web: off
            nightscout: off

            """)
    }

    @Test func jsonForScripts() {
        #expect(Self.night.json.rendered == #"{"version":"9.8.7","uptimeSeconds":10925,"time":"2027-01-15T08:01:20.000Z","controller":{"state":"up","upSeconds":125},"#
            + #""devices":[{"id":"g6","kind":"dexcom","state":"connected","connectedSeconds":60,"address":"C0:11:22:33:44:55","#
            + #""readings":[{"kind":"glucose","value":54,"unit":"mg/dL","detail":"trend Flat","ageSeconds":60}],"battery":{"percent":80,"ageSeconds":59},"#
            + #""sensor":{"state":"ok","ageSeconds":3659,"reportedSecondsAgo":55}},"#
            + #"{"id":"strap","kind":"heart-rate","state":"waiting-to-reconnect","reconnectInSeconds":4,"address":null,"readings":[],"battery":null,"sensor":null},"#
            + #"{"id":"fridge","kind":"bthome","state":"listening","address":"A4:C1:38:00:00:01","#
            + #""readings":[{"kind":"temperature","value":4.25,"unit":"°C","ageSeconds":0}],"battery":{"percent":90,"ageSeconds":40},"sensor":null}],"#
            + #""alarms":[{"alarm":"urgent-low","priority":"high","state":"sounding","since":"2027-01-15T08:00:20.000Z","ageSeconds":60},"#
            + #"{"alarm":"low","priority":"medium","state":"snoozed","snoozedUntil":"2027-01-15T08:16:20.000Z","snoozedSeconds":900,"since":"2027-01-15T08:00:10.000Z","ageSeconds":70}],"#
            + #""faults":[],"history":null,"web":null,"upload":null}"#)
    }

    /// A bad night for the appliance itself: no controller ever, faults, the other alarm states.
    static let troubled = ApplianceStatus(
        version: "1.0", uptime: .seconds(2 * 86400 + 5 * 3600 + 59), time: wall(0), controller: .neverUp(reason: "hci0: no such device"),
        devices: [],
        alarms: [
            .init(name: "urgent-low-soon", priority: .high, state: .escalated, since: wall(-300), age: .seconds(300)),
            .init(name: "signal-loss:g6", priority: .medium, state: .waitingForFreshData, since: wall(-3600), age: .seconds(3600)),
            .init(name: "sensor-warmup:g6", priority: .low, state: .noted, since: wall(-7200), age: .seconds(7200)),
        ],
        faults: [.init(name: "fault:no-controller", priority: .medium, state: .sounding, since: wall(-30), age: .seconds(30))],
        history: .init(path: "/var/lib/vigil/history.sqlite", pendingRows: 1), web: .notServed(reason: "port 8080 in use"))

    @Test func textOfATroubledAppliance() {
        #expect(Self.troubled.text == """
            Vigil 1.0, up 2 d 5 h
            controller: never up (hci0: no such device)
            devices: none configured
            alarms:
              urgent-low-soon (high priority): SOUNDING, escalated, since 2027-01-15T07:55:00.000Z (5 min)
              signal-loss:g6 (medium priority): snooze over, waiting for fresh data, since 2027-01-15T07:00:00.000Z (1 h)
              sensor-warmup:g6 (low priority): noted, quiet, since 2027-01-15T06:00:00.000Z (2 h)
            faults:
              fault:no-controller (medium priority): SOUNDING, since 2027-01-15T07:59:30.000Z (30 s)
            history: /var/lib/vigil/history.sqlite, 1 row waiting to be written
            web: not served: port 8080 in use
            nightscout: off

            """)
    }

    @Test func jsonOfATroubledAppliance() {
        #expect(Self.troubled.json.rendered == #"{"version":"1.0","uptimeSeconds":190859,"time":"2027-01-15T08:00:00.000Z","#
            + #""controller":{"state":"never-up","reason":"hci0: no such device"},"devices":[],"#
            + #""alarms":[{"alarm":"urgent-low-soon","priority":"high","state":"escalated","since":"2027-01-15T07:55:00.000Z","ageSeconds":300},"#
            + #"{"alarm":"signal-loss:g6","priority":"medium","state":"waiting-for-fresh-data","since":"2027-01-15T07:00:00.000Z","ageSeconds":3600},"#
            + #"{"alarm":"sensor-warmup:g6","priority":"low","state":"noted","since":"2027-01-15T06:00:00.000Z","ageSeconds":7200}],"#
            + #""faults":[{"alarm":"fault:no-controller","priority":"medium","state":"sounding","since":"2027-01-15T07:59:30.000Z","ageSeconds":30}],"#
            + #""history":{"path":"/var/lib/vigil/history.sqlite","pendingRows":1},"web":{"serving":false,"reason":"port 8080 in use"},"upload":null}"#)
    }

    @Test(arguments: [
        (ApplianceStatus.Controller.up(for: .seconds(59)), "up for 59 s", #"{"state":"up","upSeconds":59}"#),
        (.neverUp(reason: nil), "never up yet", #"{"state":"never-up","reason":null}"#),
        (.lost(reason: "hci0 went away", ago: .seconds(90)), "lost 1 min 30 s ago (hci0 went away); reopening",
         #"{"state":"lost","reason":"hci0 went away","lostSecondsAgo":90}"#),
    ])
    func controllerWords(controller: ApplianceStatus.Controller, text: String, json: String) {
        var status = Self.troubled
        status.controller = controller
        #expect(status.text.split(separator: "\n")[1] == "controller: " + text)
        #expect(status.json.rendered.contains(#""controller":"# + json + ","))
    }

    @Test(arguments: [
        (ApplianceStatus.Link.searching, "searching", #""state":"searching","address""#),
        (.connecting, "connecting", #""state":"connecting","address""#),
        (.securingTheLink, "securing the link", #""state":"securing","address""#),
        (.discoveringServices, "discovering services", #""state":"discovering","address""#),
        (.connected(for: nil), "connected", #""state":"connected","address""#),
    ])
    func linkWords(link: ApplianceStatus.Link, text: String, json: String) {
        let status = ApplianceStatus(version: "1", uptime: .zero, time: Self.wall0, controller: .up(for: .zero),
                                     devices: [.init(id: "hr", kind: "heart-rate", link: link)], alarms: [], faults: [], history: nil)
        #expect(status.text.split(separator: "\n")[3] == "  hr (heart-rate): " + text)
        #expect(status.json.rendered.contains(json))
    }

    @Test(arguments: [
        (Duration.zero, "0 s"), (.milliseconds(59_999), "59 s"), (.seconds(60), "1 min"), (.seconds(3599), "59 min 59 s"),
        (.seconds(3600), "1 h"), (.seconds(86_399), "23 h 59 min"), (.seconds(86_400), "1 d"), (.seconds(90_000), "1 d 1 h"),
        (.seconds(-5), "0 s"),
    ])
    func durationsInWords(duration: Duration, words: String) {
        #expect(ApplianceStatus.words(duration) == words)
    }

    /// A fridge's readings at the thermometer's resolution (Ruuvi dataformat_05 steps: 0.0025 %,
    /// 0.005 °C; BTHome 0x03: 0.01 %), from the reading through to the status line and JSON.
    @Test func fridgeReadingsKeepTheirDecimals() throws {
        let humidity = ApplianceStatus.LastReading(Reading(device: "fridge", value: .humidity(try #require(RelativeHumidity(percent: 21397.0 / 400))),
                                                           time: .monotonic(.zero)), age: .seconds(5))
        let temperature = ApplianceStatus.LastReading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4861.0 / 200)),
                                                              time: .monotonic(.zero)), age: .seconds(5))
        let bthome = ApplianceStatus.LastReading(Reading(device: "fridge", value: .humidity(try #require(RelativeHumidity(percent: 8150.0 / 100))),
                                                         time: .monotonic(.zero)), age: .seconds(5))
        let status = ApplianceStatus(version: "1", uptime: .zero, time: Self.wall0, controller: .up(for: .zero),
                                     devices: [.init(id: "fridge", kind: "ruuvi", link: .listeningForAdvertisements,
                                                     readings: [humidity, temperature, bthome])],
                                     alarms: [], faults: [], history: nil)
        let lines = status.text.split(separator: "\n")
        #expect(lines[4] == "    humidity 53.4925 %, 5 s ago")
        #expect(lines[5] == "    temperature 24.305 °C, 5 s ago")
        #expect(lines[6] == "    humidity 81.5 %, 5 s ago")
        #expect(status.json.rendered.contains(#"{"kind":"humidity","value":53.4925,"unit":"%","ageSeconds":5}"#))
        #expect(status.json.rendered.contains(#"{"kind":"humidity","value":81.5,"unit":"%","ageSeconds":5}"#))
    }

    /// The page's line: where it is served, for a person and for scripts.
    @Test func aServedPageSaysItsAddress() {
        let status = ApplianceStatus(version: "1", uptime: .zero, time: Self.wall0, controller: .up(for: .zero), devices: [], alarms: [],
                                     faults: [], history: nil, web: .serving(url: "https://0.0.0.0:8443/"))
        #expect(status.text.hasSuffix("history: not kept\nweb: serving https://0.0.0.0:8443/\nnightscout: off\n"))
        #expect(status.json.rendered.hasSuffix(#""web":{"serving":true,"url":"https://0.0.0.0:8443/"},"upload":null}"#))
    }

    /// The upload's line: what waits, since when, the last success, the failure while failing,
    /// and the warning after an hour; never the site's address or a credential.
    @Test func theUploadSaysItsQueueAndItsLastSuccess() {
        var upload = Nightscout.UploadStatus()
        upload.queued = 37
        upload.oldest = Self.wall0 - .seconds(3 * 3600)
        upload.lastSuccess = Self.wall0 - .seconds(2 * 3600 + 60)
        upload.failingSince = .zero
        upload.lastFailure = "POST /api/v1/entries (37 rows): could not connect: connection refused"
        upload.lastFailureAt = Self.wall0 - .seconds(30)
        var status = ApplianceStatus(version: "1", uptime: .zero, time: Self.wall0, controller: .up(for: .zero), devices: [], alarms: [],
                                     faults: [], history: nil)
        status.upload = .init(status: upload, fault: "Nightscout upload failing for 2 h, 37 waiting: could not connect")
        #expect(status.text.hasSuffix("""
            nightscout: 37 waiting (the oldest 3 h ago), last sent 2 h 1 min ago; failing: POST /api/v1/entries (37 rows): could not connect: connection refused
              warning: Nightscout upload failing for 2 h, 37 waiting: could not connect

            """))
        #expect(status.json.rendered.hasSuffix(#""upload":{"queued":37,"oldest":"2027-01-15T05:00:00.000Z","lastSuccess":"2027-01-15T05:59:00.000Z","#
            + #""failing":true,"lastFailure":"POST /api/v1/entries (37 rows): could not connect: connection refused","#
            + #""lastFailureAt":"2027-01-15T07:59:30.000Z","refused":false,"droppedUnsent":0,"rejected":0,"#
            + #""fault":"Nightscout upload failing for 2 h, 37 waiting: could not connect"}}"#))
    }

}
