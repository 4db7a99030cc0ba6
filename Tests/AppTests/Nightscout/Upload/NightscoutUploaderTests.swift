import Clocks
import Host
import Readings
import Testing
import Web
@testable import App

/// The uploader on a virtual clock against a scripted site and an in-memory queue that
/// behaves as the history's: batches oldest first, rows gone only when acknowledged.
@Suite struct NightscoutUploaderTests {
    static let secret = "correct-horse-battery"
    static let token = "vigil-uploader-1a2b3c4d&x=y"
    static let noon = WallClockTime(secondsSinceEpoch: 1_795_341_600)

    struct World {
        var uploader: Nightscout.Uploader
        var queue: [UploadQueue.Item] = []
        var lastSuccess: WallClockTime?
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        let wallAtStart = NightscoutUploaderTests.noon + .seconds(86_400)
        var wall: WallClockTime { wallAtStart + (now - MonotonicInstant(nanoseconds: 1_000_000_000)) }
        var clocks: ClockReadings { ClockReadings(monotonic: now, wall: wall) }
        /// The site: how it answers each request.
        var site: (Nightscout.UploadRequest) -> Nightscout.Uploader.Outcome = { _ in .answered(status: 200) }
        var acknowledgementsFail = false
        /// The history's count of queued rows retention deleted.
        var droppedUnsent = 0
        var sent: [(request: Nightscout.UploadRequest, at: MonotonicInstant, outcome: Nightscout.Uploader.Outcome)] = []
        var logs: [(level: Host.LogLevel, text: String)] = []
        var nextRow: Int64 = 1

        init(credential: Nightscout.UploadCredential = .apiSecret(NightscoutUploaderTests.secret), seed: UInt64 = 7,
             site: HTTP.URL = HTTP.URL(scheme: .https, host: "ns.example.org")) {
            uploader = Nightscout.Uploader(configuration: .init(site: site, credential: credential, utcOffset: .seconds(3600)), seed: seed)
        }

        mutating func queue(_ readings: [RecordedReading]) {
            for reading in readings { queue(.reading(reading)) }
        }

        mutating func queue(_ content: UploadQueue.Item.Content) {
            let source: UploadQueue.ItemID.Source = if case .calibration = content { .calibration } else { .reading }
            queue.append(UploadQueue.Item(id: UploadQueue.ItemID(source: source, row: nextRow), content: content))
            nextRow += 1
        }

        /// Performs every action, answering each as the runner would, until there are none.
        mutating func pump() {
            while true {
                let actions = uploader.takeActions()
                if actions.isEmpty { return }
                for action in actions {
                    switch action {
                    case let .loadBatch(limit):
                        let items = queue.sorted { time(of: $0) < time(of: $1) }.prefix(limit)
                        let status = UploadQueue.Status(queued: queue.count, oldest: queue.map(time(of:)).min(), lastSuccess: lastSuccess,
                                                        droppedUnsent: droppedUnsent)
                        uploader.batchLoaded(.success(UploadQueue.Batch(items: Array(items), status: status)), at: clocks)
                    case let .send(request):
                        let outcome = site(request)
                        sent.append((request, now, outcome))
                        uploader.exchangeEnded(outcome, at: clocks)
                    case let .acknowledge(ids, success):
                        if acknowledgementsFail {
                            uploader.acknowledged(.failure(Nightscout.HistoryReadFailure("history: disk I/O error")), at: clocks)
                        } else {
                            queue.removeAll { ids.contains($0.id) }
                            if let success { lastSuccess = success }
                            uploader.acknowledged(.success(()), at: clocks)
                        }
                    case let .log(level, text):
                        logs.append((level, text))
                    }
                }
            }
        }

        mutating func start() {
            uploader.start(at: now)
            pump()
        }

        /// Moves the clock to the uploader's deadline and runs what it does there.
        mutating func advanceToDeadline() {
            guard let deadline = uploader.nextDeadline else {
                Issue.record("no deadline")
                return
            }
            now = max(now, deadline)
            uploader.advance(to: now)
            pump()
        }

        func time(of item: UploadQueue.Item) -> WallClockTime {
            switch item.content {
            case let .reading(reading): reading.wallTime
            case let .calibration(calibration): calibration.wallTime
            case .unreadable: .init(microsecondsSinceEpoch: 0)
            }
        }

        /// Every entry date the site accepted, in the order it got them.
        var acceptedEntryDates: [Int64] {
            sent.filter { $0.request.collection == .entries && $0.outcome == .answered(status: 200) }.flatMap { Self.dates(in: $0.request) }
        }

        static func dates(in request: Nightscout.UploadRequest) -> [Int64] {
            let text = String(decoding: request.request.body, as: UTF8.self)
            return text.split(separator: "\"date\":").dropFirst().map { Int64($0.prefix { $0.isNumber }) ?? -1 }
        }
    }

    static func glucose(_ mgdL: Double, minutes: Int, device: DeviceID = "dexcom") -> RecordedReading {
        RecordedReading(device: device, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: .flat),
                        wallTime: noon + .seconds(minutes * 60), sensorStamp: SensorStamp(run: "8G1234", count: Int64(minutes * 60)))
    }

    static func day(count: Int = 1000) -> [RecordedReading] {
        (0..<count).map { glucose(100 + Double($0 % 80), minutes: $0 * 5) }
    }

    @Test func aBacklogGoesOutInBoundedBatchesOldestFirstExactlyOnce() {
        var world = World()
        world.queue(Self.day().reversed())
        world.start()
        #expect(world.queue.isEmpty)
        #expect(world.sent.map(\.request.acknowledges.count) == [288, 288, 288, 136])
        #expect(world.acceptedEntryDates == (0..<1000).map { (Self.noon + .seconds($0 * 300)).millisecondsSinceEpoch })
        #expect(world.uploader.status.lastSuccess == world.wall)
        #expect(world.uploader.status.queued == 0)
        #expect(world.uploader.nextDeadline == nil, "idle until the queue grows")

        // One new reading: one request.
        world.queue([Self.glucose(150, minutes: 5000)])
        world.uploader.queueGrew(at: world.now)
        world.pump()
        #expect(world.sent.count == 5)
        #expect(world.queue.isEmpty)
    }

    @Test func anEntryHasNightscoutsFieldsAndTheSecretsSHA1() throws {
        var world = World(site: HTTP.URL(scheme: .https, host: "ns.example.org", target: "/ns/"))
        world.queue([Self.glucose(38, minutes: 0)])
        world.start()
        let request = try #require(world.sent.first?.request)
        #expect(request.request.url.description == "https://ns.example.org/ns/api/v1/entries")
        #expect(request.request.method == .post)
        // SHA-1("correct-horse-battery"), lowercase hex.
        let secretHeader = try #require(request.request.headers.first { $0.name == "api-secret" }?.value)
        #expect(secretHeader.count == 40)
        #expect(secretHeader == secretHeader.lowercased())
        guard case let .apiSecret(hex) = Nightscout.UploadCredential.apiSecret(Self.secret) else { return }
        #expect(secretHeader == hex)
        let body = String(decoding: request.request.body, as: UTF8.self)
        let id = Nightscout.DocumentID.of(Self.glucose(38, minutes: 0), in: "entries")
        #expect(body == #"[{"type":"sgv","sgv":39,"date":1795341600000,"dateString":"2026-11-22T11:00:00.000+01:00","direction":"Flat","#
            + #""device":"vigil-dexcom","utcOffset":60,"identifier":"\#(id)"}]"#)
    }

    /// SHA-1 of a known string, so the header is the digest and not merely 40 hex digits.
    @Test func theSecretIsSentAsItsSHA1() {
        guard case let .apiSecret(hex) = Nightscout.UploadCredential.apiSecret("abc") else {
            Issue.record("not a secret")
            return
        }
        #expect(hex == "a9993e364706816aba3e25717850c26c9cd0d89d")  // FIPS 180-2 appendix A.1
    }

    @Test func aTokenGoesInTheQueryPercentEncodedAndNoSecretHeader() throws {
        var world = World(credential: .token(Self.token))
        world.queue([Self.glucose(120, minutes: 0)])
        world.start()
        let request = try #require(world.sent.first?.request)
        #expect(request.request.url.target == "/api/v1/entries?token=vigil-uploader-1a2b3c4d%26x%3Dy")
        #expect(!request.request.headers.contains { $0.name.lowercased() == "api-secret" || $0.name.lowercased() == "authorization" })
    }

    @Test func calibrationsAreBGChecksAndOnlyTheNewestBatteryOfADeviceIsSent() throws {
        var world = World()
        let calibration = Calibration(device: "dexcom", glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: Self.noon + .seconds(60))
        world.queue([RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: nil),
                                     wallTime: Self.noon + .seconds(59))])
        world.queue(.calibration(calibration))
        world.queue([RecordedReading(device: "bubble", value: .battery(Percent(81)!), wallTime: Self.noon),
                     RecordedReading(device: "bubble", value: .battery(Percent(80)!), wallTime: Self.noon + .seconds(300)),
                     RecordedReading(device: "polar", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: Self.noon)])
        world.queue(.unreadable("unknown kind code 42"))
        world.start()
        #expect(world.queue.isEmpty, "every row sent or said")
        #expect(world.sent.map(\.request.collection) == [.entries, .treatments, .devicestatus])
        let entries = String(decoding: world.sent[0].request.request.body, as: UTF8.self)
        #expect(entries.hasPrefix(#"[{"type":"mbg","mbg":104,"#))
        let treatments = String(decoding: world.sent[1].request.request.body, as: UTF8.self)
        let id = Nightscout.DocumentID.make(["treatments", "calibration", "dexcom", String(calibration.wallTime.microsecondsSinceEpoch)])
        #expect(treatments == #"[{"_id":"\#(id)","eventType":"BG Check","created_at":"2026-11-22T11:01:00.000+01:00","glucose":104,"#
            + #""glucoseType":"Finger","units":"mg/dl","enteredBy":"vigil-dexcom","notes":"calibration of dexcom","utcOffset":60,"#
            + #""identifier":"\#(id)"}]"#)
        let status = String(decoding: world.sent[2].request.request.body, as: UTF8.self)
        #expect(status == #"{"device":"vigil-bubble","created_at":"2026-11-22T11:05:00.000+01:00","uploader":{"battery":80},"utcOffset":60}"#,
                "one object, no _id: Nightscout inserts device status as sent")
        let warnings = world.logs.filter { $0.level == .warning }.map(\.text)
        #expect(warnings.contains { $0.contains("older battery level of bubble") })
        #expect(warnings.contains { $0.contains("heart-rate of polar has no Nightscout form") })
        #expect(warnings.contains { $0.contains("cannot be read back (unknown kind code 42)") })
    }

    /// 5xx and failures back off from 5 s doubling to 10 minutes, each wait jittered into
    /// its upper half by the seeded generator: the same seed, the same waits.
    @Test func failuresBackOffWithSeededJitterAndNothingIsLostOrDoubled() {
        func waits(seed: UInt64) -> ([Duration], World) {
            var world = World(seed: seed)
            world.queue(Self.day(count: 300))
            var failing = true
            world.site = { _ in failing ? .answered(status: 503) : .answered(status: 200) }
            world.start()
            var waits: [Duration] = []
            for _ in 0..<8 {
                guard let deadline = world.uploader.nextDeadline else { break }
                waits.append(deadline - world.now)
                world.advanceToDeadline()
            }
            failing = false
            world.site = { _ in .answered(status: 200) }
            world.advanceToDeadline()
            return (waits, world)
        }
        let (first, world) = waits(seed: 42)
        let ceilings: [Int64] = [5, 10, 20, 40, 80, 160, 320, 600]
        #expect(first.count == 8)
        for (wait, ceiling) in zip(first, ceilings) {
            #expect(wait >= .seconds(ceiling / 2) && wait <= .seconds(ceiling), "\(wait) within [\(ceiling / 2), \(ceiling)] s")
        }
        #expect(waits(seed: 42).0 == first)
        #expect(waits(seed: 43).0 != first)
        #expect(world.queue.isEmpty)
        #expect(world.acceptedEntryDates == (0..<300).map { (Self.noon + .seconds($0 * 300)).millisecondsSinceEpoch })
        #expect(world.uploader.status.failingSince == nil)
        #expect(world.uploader.status.lastFailure?.contains("HTTP 503") == true, "the last failure is kept for the record")
        #expect(world.logs.contains { $0.level == .notice && $0.text.contains("accepts uploads again") })
        let failures = world.logs.filter { $0.text.contains("HTTP 503") }
        #expect(failures.map(\.level) == [.warning] + Array(repeating: .info, count: 8), "one warning per outage")
    }

    /// A wrong secret: one error line, then quiet retries on the back-off's schedule (the site's
    /// owner may mend the secret on the site's side; a restart is not needed to notice), never
    /// a storm.
    @Test func aRefusedSecretIsOneClearLineAndAQuietRetry() {
        var world = World()
        world.queue(Self.day(count: 10))
        world.site = { _ in .answered(status: 401) }
        world.start()
        #expect(world.uploader.status.refused)
        let errors = world.logs.filter { $0.level == .error }.map(\.text)
        #expect(errors == ["nightscout: the Nightscout site refused the API secret (HTTP 401); nothing is sent until it accepts it; trying again in "
            + Nightscout.Uploader.spoken(world.uploader.nextDeadline! - world.now)])
        for attempt in 0..<5 {
            let wait = world.uploader.nextDeadline! - world.now
            let ceiling = Nightscout.UploadBackOff.first * (1 << attempt)
            #expect(wait >= ceiling / 2 && wait <= ceiling, "attempt \(attempt): \(wait)")
            world.advanceToDeadline()
        }
        #expect(world.sent.count == 6, "one request per wait")
        #expect(world.logs.filter { $0.level == .error }.count == 1)
        #expect(world.queue.count == 10)
        world.site = { _ in .answered(status: 200) }
        world.advanceToDeadline()
        #expect(world.queue.isEmpty)
        #expect(!world.uploader.status.refused)
    }

    /// A row the site refuses is found by halving the batch and dropped alone, with an error
    /// line; every other row arrives once.
    @Test func aPoisonedRowIsFoundAndDroppedAloneWithALine() {
        var world = World()
        world.queue(Self.day(count: 600))
        let poisoned = (Self.noon + .seconds(417 * 300)).millisecondsSinceEpoch
        world.site = { request in World.dates(in: request).contains(poisoned) ? .answered(status: 400) : .answered(status: 200) }
        world.start()
        #expect(world.queue.isEmpty)
        #expect(world.acceptedEntryDates == (0..<600).filter { $0 != 417 }.map { (Self.noon + .seconds($0 * 300)).millisecondsSinceEpoch })
        #expect(world.uploader.status.rejected == 1)
        let errors = world.logs.filter { $0.level == .error }.map(\.text)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("refused reading 418 alone (HTTP 400); it is dropped from the queue") == true)
        #expect(world.sent.count < 30, "a bounded search: \(world.sent.count) requests")
    }

    /// A site that refuses everything as malformed loses at most one row, then backs off.
    @Test func aSiteRefusingEverythingDropsAtMostOneRow() {
        var world = World()
        world.queue(Self.day(count: 20))
        world.site = { _ in .answered(status: 400) }
        world.start()
        for _ in 0..<4 { world.advanceToDeadline() }
        #expect(world.queue.count == 19)
        #expect(world.uploader.status.failingSince != nil)
        #expect(world.uploader.nextDeadline != nil)
    }

    @Test func otherAnswersAndTransportFailuresAreRetriedAndAFaultAfterAnHour() {
        var world = World()
        world.queue(Self.day(count: 3))
        world.site = { _ in .failed("cannot connect to ns.example: connection refused") }
        world.start()
        #expect(world.uploader.status.lastFailure == "POST /api/v1/entries (3 rows): cannot connect to ns.example: connection refused")
        #expect(world.uploader.status.fault(at: world.now) == nil)
        while world.now - world.uploader.status.failingSince! < .seconds(3600) { world.advanceToDeadline() }
        #expect(world.uploader.status.fault(at: world.now)?.hasPrefix("Nightscout upload failing for ") == true)
        world.site = { _ in .answered(status: 404) }
        world.advanceToDeadline()
        #expect(world.uploader.status.lastFailure?.contains("HTTP 404; is the url the Nightscout site's address?") == true)
        #expect(world.queue.count == 3, "a 404 drops nothing")
        world.site = { _ in .answered(status: 201) }
        world.advanceToDeadline()
        #expect(world.queue.isEmpty)
        #expect(world.uploader.status.fault(at: world.now) == nil)
    }

    /// Rows that arrive while a request is out are sent right after it; a history that cannot
    /// remove sent rows makes the uploader wait (they go again later: Nightscout keeps one).
    @Test func growthDuringAnExchangeAndAFailedAcknowledgement() {
        var world = World()
        world.queue([Self.glucose(120, minutes: 0)])
        var grew = false
        world.site = { _ in .answered(status: 200) }
        world.uploader.start(at: world.now)
        // The load is answered; then, before the send's answer, a reading arrives.
        let first = world.uploader.takeActions()
        guard case let .loadBatch(limit)? = first.first else {
            Issue.record("no load")
            return
        }
        world.uploader.batchLoaded(.success(UploadQueue.Batch(items: Array(world.queue.prefix(limit)), status: .init(queued: 1))), at: world.clocks)
        world.queue([Self.glucose(125, minutes: 5)])
        world.uploader.queueGrew(at: world.now)
        grew = true
        let sends = world.uploader.takeActions()
        guard case let .send(request)? = sends.first else {
            Issue.record("no send")
            return
        }
        world.sent.append((request, world.now, .answered(status: 200)))
        world.uploader.exchangeEnded(.answered(status: 200), at: world.clocks)
        world.pump()
        #expect(grew)
        #expect(world.queue.isEmpty)
        #expect(world.sent.count == 2)

        world.acknowledgementsFail = true
        world.queue([Self.glucose(130, minutes: 10)])
        world.uploader.queueGrew(at: world.now)
        world.pump()
        #expect(world.uploader.status.lastFailure == "the history could not mark sent rows: history: disk I/O error")
        #expect(world.uploader.nextDeadline != nil)
        world.acknowledgementsFail = false
        world.advanceToDeadline()
        #expect(world.queue.isEmpty)
        #expect(world.acceptedEntryDates.filter { $0 == (Self.noon + .seconds(600)).millisecondsSinceEpoch }.count == 2,
                "sent again after the failed acknowledgement: Nightscout's upsert on time and type keeps one")
    }

    /// No log line, failure line or status holds the secret, its SHA-1 or the token.
    @Test func noSecretReachesALogLineOrTheStatus() {
        for credential in [Nightscout.UploadCredential.apiSecret(Self.secret), .token(Self.token)] {
            var world = World(credential: credential)
            world.queue(Self.day(count: 400))
            var answers: [Nightscout.Uploader.Outcome] = [.answered(status: 401), .answered(status: 400), .answered(status: 503),
                                                         .failed("TLS: certificate verify failed"), .answered(status: 200)]
            world.site = { _ in answers.count > 1 ? answers.removeFirst() : answers[0] }
            world.start()
            for _ in 0..<6 where world.uploader.nextDeadline != nil { world.advanceToDeadline() }
            guard case let .apiSecret(hex) = Nightscout.UploadCredential.apiSecret(Self.secret) else { return }
            let said = world.logs.map(\.text) + [world.uploader.status.lastFailure ?? "", "\(world.uploader.status)", "\(credential)"]
            for line in said {
                for secret in [Self.secret, hex, Self.token, "vigil-uploader-1a2b3c4d"] {
                    #expect(!line.contains(secret), "\(line)")
                }
            }
        }
    }

    /// Rows retention deleted before the site took them are an error line when it happens,
    /// and a reminder at the next start.
    @Test func rowsPrunedUnsentAreSaid() {
        var world = World()
        world.queue(Self.day(count: 3))
        world.droppedUnsent = 2
        world.start()
        world.droppedUnsent = 5
        world.queue([Self.glucose(150, minutes: 5000)])
        world.uploader.queueGrew(at: world.now)
        world.pump()
        #expect(world.logs.filter { $0.level == .notice }.map(\.text)
            == ["nightscout: 2 queued rows have reached the end of their retention unsent since the site was configured"])
        #expect(world.logs.filter { $0.level == .error }.map(\.text)
            == ["nightscout: 3 queued rows reached the end of their retention before the site took them, and are not sent"])
        #expect(world.uploader.status.droppedUnsent == 5)
    }
}
