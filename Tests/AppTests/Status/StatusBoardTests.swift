import Alarms
import App
import Bluetooth
import Clocks
import Readings
import Testing
import Transmitters

/// The status board fed a scripted night on a virtual clock: every field of the snapshot is
/// asserted, ages and snooze times computed from the `now` given to `snapshot`. The events are
/// the appliance's own (`ApplianceEvent`), as `vigil run` hands them over.
@Suite struct StatusBoardTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    /// 2027-01-15T08:00:00Z, the wall clock at t0.
    static let wall0 = WallClockTime(secondsSinceEpoch: 1_800_000_000)
    static let g6Peer = DeviceAddress(Address(value: 0xC0_11_22_33_44_55), type: .random)
    static let fridgePeer = DeviceAddress(Address(value: 0xA4_C1_38_00_00_01), type: .public)

    static func at(_ seconds: Int64) -> MonotonicInstant { t0 + .seconds(seconds) }
    static func wall(_ seconds: Int64) -> WallClockTime { wall0 + .seconds(seconds) }

    static func board() -> StatusBoard {
        StatusBoard(version: "9.8.7", startedAt: t0 - .seconds(100), devices: [
            .init(id: "g6", kind: "dexcom"), .init(id: "strap", kind: "heart-rate"), .init(id: "fridge", kind: "bthome"),
        ])
    }

    /// The script: the controller comes up, the Dexcom connects and reports (a backfilled value
    /// arriving after a newer one), the strap and the fridge report, then the controller is lost.
    static func scriptedBoard() -> StatusBoard {
        var board = board()
        board.observe(.bluetooth(.poweredOn), at: at(0))
        board.observe(.connecting("g6", peer: g6Peer), at: at(5))
        board.observe(.readings("g6", peer: g6Peer, [
            Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 54), trend: .flat), time: .monotonic(at(20))),
        ]), at: at(20))
        board.observe(.readings("g6", peer: g6Peer, [
            Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 61), trend: .singleDown), time: .monotonic(at(-280))),
        ]), at: at(21))
        board.observe(.transmitter("g6", peer: g6Peer, .info(TransmitterInfo(battery: Percent(80), sensorState: "warmup", sensorAge: .seconds(3600)))), at: at(21))
        // A later report with only the state keeps the age from before, advanced from the new report.
        board.observe(.transmitter("g6", peer: g6Peer, .info(TransmitterInfo(sensorState: "ok"))), at: at(25))
        board.observe(.readings("strap", peer: nil, [
            Reading(device: "strap", value: .heartRate(BeatsPerMinute(72), contact: .detected), time: .monotonic(at(30))),
            Reading(device: "strap", value: .rrIntervals([RRInterval(ticks: 832), RRInterval(ticks: 840)]), time: .monotonic(at(30))),
            Reading(device: "strap", value: .energyExpended(EnergyExpended(kilojoules: 12)), time: .monotonic(at(30))),
        ]), at: at(30))
        board.observe(.readings("fridge", peer: fridgePeer, [
            Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4.25)), time: .monotonic(at(40))),
            Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: 55)!), time: .monotonic(at(40))),
            Reading(device: "fridge", value: .battery(Percent(90)!), time: .monotonic(at(40))),
        ]), at: at(40))
        board.observe(.bluetooth(.unavailable(reason: "hci0 went away")), at: at(50))
        return board
    }

    @Test func aScriptedNightInEveryField() {
        let now = Self.at(80)
        let alarms = [
            ActiveAlarm(kind: .glucose(.low), raisedAt: Self.at(10), status: .snoozed(until: now + .seconds(900))),
            ActiveAlarm(kind: .fault(.controllerLost), raisedAt: Self.at(50), status: .sounding(escalatesAt: now + .seconds(60))),
            ActiveAlarm(kind: .signalLoss("strap"), raisedAt: Self.at(30), status: .awaitingFreshData),
            ActiveAlarm(kind: .urgentLow, raisedAt: Self.at(20), status: .sounding(escalatesAt: now + .seconds(120))),
            ActiveAlarm(kind: .device(.sensorWarmUp, "g6"), raisedAt: Self.at(21), status: .quiet(remindsAt: nil)),
            ActiveAlarm(kind: .glucose(.urgentLowSoon), raisedAt: Self.at(15), status: .escalated),
        ]
        let links: [(device: DeviceID, link: ApplianceStatus.Link, peer: DeviceAddress?)] = [
            ("g6", .connected(for: .seconds(60)), Self.g6Peer), ("strap", .searching, nil), ("fridge", .listeningForAdvertisements, nil),
        ]
        let status = Self.scriptedBoard().snapshot(links: links, alarms: alarms, history: .init(path: "/var/lib/vigil/history.sqlite", pendingRows: 3),
                                                   at: now, wallNow: Self.wall(80))
        #expect(status.version == "9.8.7")
        #expect(status.uptime == .seconds(180))
        #expect(status.time == Self.wall(80))
        #expect(status.controller == .lost(reason: "hci0 went away", ago: .seconds(30)))
        #expect(status.devices.count == 3)
        #expect(status.devices[0] == ApplianceStatus.Device(
            id: "g6", kind: "dexcom", link: .connected(for: .seconds(60)), address: "C0:11:22:33:44:55",
            readings: [.init(kind: .glucose, value: 54, unit: "mg/dL", detail: "trend Flat", age: .seconds(60))],
            battery: .init(level: Percent(80)!, age: .seconds(59)),
            sensor: .init(state: "ok", age: .seconds(3600 + 4 + 55), reportedAgo: .seconds(55))))
        #expect(status.devices[1] == ApplianceStatus.Device(
            id: "strap", kind: "heart-rate", link: .searching, address: nil,
            readings: [
                .init(kind: .heartRate, value: 72, unit: "bpm", detail: "skin contact", age: .seconds(50)),
                .init(kind: .rrIntervals, value: 820.3125, unit: "ms", detail: "last of 2", age: .seconds(50)),
                .init(kind: .energyExpended, value: 12, unit: "kJ", age: .seconds(50)),
            ]))
        // Heard advertising: the address comes from the events when the appliance has none.
        #expect(status.devices[2] == ApplianceStatus.Device(
            id: "fridge", kind: "bthome", link: .listeningForAdvertisements, address: "A4:C1:38:00:00:01",
            readings: [
                .init(kind: .humidity, value: 55, unit: "%", age: .seconds(40)),
                .init(kind: .temperature, value: 4.25, unit: "°C", age: .seconds(40)),
            ],
            battery: .init(level: Percent(90)!, age: .seconds(40))))
        // Sounding first, then by priority, then the oldest; faults apart.
        #expect(status.alarms == [
            .init(name: "urgent-low-soon", priority: .high, state: .escalated, since: Self.wall(15), age: .seconds(65)),
            .init(name: "urgent-low", priority: .high, state: .sounding, since: Self.wall(20), age: .seconds(60)),
            .init(name: "low", priority: .medium, state: .snoozed(until: Self.wall(980), remaining: .seconds(900)), since: Self.wall(10), age: .seconds(70)),
            .init(name: "signal-loss:strap", priority: .medium, state: .waitingForFreshData, since: Self.wall(30), age: .seconds(50)),
            .init(name: "sensor-warmup:g6", priority: .low, state: .noted, since: Self.wall(21), age: .seconds(59)),
        ])
        #expect(status.faults == [
            .init(name: "fault:controller-lost", priority: .medium, state: .sounding, since: Self.wall(50), age: .seconds(30)),
        ])
        #expect(status.history == .init(path: "/var/lib/vigil/history.sqlite", pendingRows: 3))
    }

    @Test func timeMovesOnBetweenSnapshots() {
        let board = Self.scriptedBoard()
        let alarms = [ActiveAlarm(kind: .glucose(.low), raisedAt: Self.at(10), status: .snoozed(until: Self.at(980)))]
        let early = board.snapshot(links: [], alarms: alarms, history: nil, at: Self.at(80), wallNow: Self.wall(80))
        let late = board.snapshot(links: [], alarms: alarms, history: nil, at: Self.at(1080), wallNow: Self.wall(1080))
        #expect(early.devices[1].readings[0].age == .seconds(50))
        #expect(late.devices[1].readings[0].age == .seconds(1050))
        #expect(early.alarms[0].state == .snoozed(until: Self.wall(980), remaining: .seconds(900)))
        // A snooze that ran out before the engine's next turn shows no time left, never negative.
        #expect(late.alarms[0].state == .snoozed(until: Self.wall(980), remaining: .zero))
        #expect(late.controller == .lost(reason: "hci0 went away", ago: .seconds(1030)))
        #expect(late.uptime == .seconds(1180))
        // With no link given for a device it reads as searching; the last heard address stays.
        #expect(late.devices[0].link == .searching && late.devices[0].address == "C0:11:22:33:44:55")
    }

    @Test(arguments: [
        ([] as [ApplianceEvent], ApplianceStatus.Controller.neverUp(reason: nil)),
        ([.bluetooth(.unavailable(reason: "no hci0"))], .neverUp(reason: "no hci0")),
        ([.bluetooth(.unavailable(reason: "no hci0")), .bluetooth(.poweredOn)], .up(for: .seconds(8))),
        ([.bluetooth(.poweredOn), .bluetooth(.poweredOff)], .lost(reason: "powered off", ago: .seconds(8))),
        ([.bluetooth(.poweredOn), .bluetooth(.unavailable(reason: "a")), .bluetooth(.unavailable(reason: "b"))],
         .lost(reason: "b", ago: .seconds(7))),
    ])
    func controllerStates(events: [ApplianceEvent], expected: ApplianceStatus.Controller) {
        var board = Self.board()
        // Event i happens at t0 + i + 1 s; the snapshot is at t0 + 10 s.
        for (i, event) in events.enumerated() { board.observe(event, at: Self.at(Int64(i + 1))) }
        #expect(board.snapshot(links: [], alarms: [], history: nil, at: Self.at(10), wallNow: Self.wall(10)).controller == expected)
    }

    @Test func aMeterReadingOnItsOwnClockIsAgedByTheWallClock() {
        var board = StatusBoard(version: "1", startedAt: Self.t0, devices: [.init(id: "meter", kind: "glucose-meter")])
        board.observe(.readings("meter", peer: nil, [
            Reading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 99), context: nil), time: .wallClock(Self.wall(-600))),
        ]), at: Self.at(5))
        // And one from a meter whose clock runs ahead: "just now", not in the future.
        board.observe(.transmitter("meter", peer: nil, .reading(
            Reading(device: "meter", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 120), trend: nil), time: .wallClock(Self.wall(3600))))), at: Self.at(6))
        let status = board.snapshot(links: [], alarms: [], history: nil, at: Self.at(10), wallNow: Self.wall(10))
        #expect(status.devices[0].readings == [
            .init(kind: .glucose, value: 120, unit: "mg/dL", detail: nil, age: .zero),
            .init(kind: .meterGlucose, value: 99, unit: "mg/dL", age: .seconds(610)),
        ])
        #expect(status.devices[0].battery == nil && status.devices[0].sensor == nil)
    }

    @Test func eventsForUnconfiguredDevicesAndAlarmsAreIgnored() {
        var board = Self.board()
        board.observe(.readings("stranger", peer: nil, [Reading(device: "stranger", value: .battery(Percent(5)!), time: .monotonic(Self.t0))]), at: Self.t0)
        board.observe(.alarm(AlarmEvent(time: Self.t0, kind: .urgentLow, change: .raised(.high))), at: Self.t0)
        board.observe(.driverState("g6", ["k": "v"]), at: Self.t0)
        let status = board.snapshot(links: [], alarms: [], history: nil, at: Self.t0, wallNow: Self.wall0)
        #expect(status.devices.map(\.id) == ["g6", "strap", "fridge"])
        #expect(status.devices.allSatisfy { $0.readings.isEmpty && $0.battery == nil && $0.address == nil })
        #expect(status.alarms.isEmpty && status.faults.isEmpty)
    }
}
