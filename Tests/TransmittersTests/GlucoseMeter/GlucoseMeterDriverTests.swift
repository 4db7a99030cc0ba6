import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The glucose-meter session on a virtual clock, through every RACP branch.
@Suite struct GlucoseMeterDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 2_000_000_000)
    static let measurement = GlucoseMeterProfile.measurement
    static let context = GlucoseMeterProfile.measurementContext
    static let feature = GlucoseMeterProfile.feature
    static let racp = GlucoseMeterProfile.recordAccessControlPoint
    static let battery = SIG.Characteristic.batteryLevel

    static let meter = DiscoveredServices([
        SIG.Service.glucose: [
            DiscoveredCharacteristic(measurement, properties: .notify),
            DiscoveredCharacteristic(context, properties: .notify),
            DiscoveredCharacteristic(feature, properties: .read),
            DiscoveredCharacteristic(racp, properties: [.write, .indicate]),
        ],
        SIG.Service.battery: [DiscoveredCharacteristic(battery, properties: .read)],
    ])

    /// 2026-11-22 07:30:00 read as UTC: 1 795 332 600 s (Python calendar.timegm).
    static let baseTime = DateTime(year: 2026, month: 11, day: 22, hours: 7, minutes: 30, seconds: 0)
    static let baseEpoch: Int64 = 1_795_332_600

    /// A record of `mgdl` mg/dL (kg/L SFLOAT with exponent −5), capillary blood from a finger.
    static func record(_ sequence: UInt16, mgdl: Int16 = 123, offsetMinutes: Int64? = nil, type: GlucoseSampleType = .capillaryWholeBlood,
                       location: GlucoseSampleLocation = .finger, status: GlucoseSensorStatus? = nil, raw: UInt16? = nil,
                       time: DateTime = baseTime, contextFollows: Bool = false) -> [UInt8] {
        let sfloat = raw ?? (0xB000 | UInt16(bitPattern: mgdl) & 0x0FFF)
        return GlucoseMeasurement(sequenceNumber: sequence, baseTime: time, timeOffset: offsetMinutes.map { .seconds($0 * 60) },
                                  concentration: .init(value: .init(raw: sfloat), unit: .kilogramsPerLiter),
                                  sampleType: type, sampleLocation: location, sensorStatus: status,
                                  contextInformationFollows: contextFollows).encoded
    }

    /// The reading of record `sequence`: dated `epoch` (UTC) and stamped with the sequence
    /// number and the record's own date on the meter's clock (`run`; the base time by default).
    /// A transfer that ended: the next session is not before the rest after it (a meter that
    /// stays connectable is not asked every second).
    static func rest(at t: MonotonicInstant) -> DriverAction { .nextSession(notBefore: t + GlucoseMeterDriver.restAfterTransfer) }

    static func meterReading(_ mgdl: Double, epoch: Int64, sequence: Int64 = 1, run: String = "2026-11-22T07:30:00",
                             context: MeterReadingContext? = nil) -> DriverAction {
        .emit(.reading(Reading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), context: context),
                               time: .wallClock(WallClockTime(secondsSinceEpoch: epoch)), sensorStamp: SensorStamp(run: run, count: sequence))))
    }

    static let lastRecordRequest = DriverAction.write(racp, [0x01, 0x06], withResponse: true)
    static let success = [UInt8](hex: "06 00 01 01")

    func started(_ configuration: GlucoseMeterDriver.Configuration = .init()) -> GlucoseMeterDriver {
        var driver = GlucoseMeterDriver(device: "meter", configuration: configuration)
        _ = driver.start(Self.meter, at: Self.t0)
        return driver
    }

    /// A transfer under way, as for a meter that cannot report its last record (RACP operator 6
    /// refused with "operator not supported"): the request is the one without the check.
    func transferring(_ configuration: GlucoseMeterDriver.Configuration = .init()) -> GlucoseMeterDriver {
        var driver = started(configuration)
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        _ = driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 04")), at: Self.t0)
        return driver
    }

    /// The check answered: the meter's newest record is `newest` (its bytes), then success.
    func checked(_ newest: [UInt8], _ configuration: GlucoseMeterDriver.Configuration = .init(),
                 state: [String: String] = [:]) -> (GlucoseMeterDriver, [DriverAction]) {
        var driver = started(configuration)
        driver.restore(state)
        #expect(driver.receive(.subscribed(Self.racp), at: Self.t0) == [Self.lastRecordRequest])
        #expect(driver.receive(value(Self.measurement, newest), at: Self.t0) == [], "the newest record is looked at, not taken")
        let actions = driver.receive(value(Self.racp, Self.success), at: Self.t0)
        return (driver, actions)
    }

    func value(_ uuid: BluetoothUUID, _ bytes: [UInt8]) -> DriverInput {
        .value(uuid, bytes, origin: uuid == Self.racp ? .indication : .notification)
    }

    // MARK: - Start and request

    @Test func startSubscribesReadsAndSubscribesTheRACPLast() {
        var driver = GlucoseMeterDriver(device: "meter")
        #expect(driver.start(Self.meter, at: Self.t0) == [
            .emit(.connected),
            .subscribe(Self.measurement, indications: false),
            .subscribe(Self.context, indications: false),
            .read(Self.feature),
            .read(Self.battery),
            .subscribe(Self.racp, indications: true),
        ])
        #expect(driver.phase == .running(.subscribing))
        #expect(driver.nextDeadline == nil)
    }

    @Test func minimalMeter() {
        var driver = GlucoseMeterDriver(device: "meter")
        let minimal = DiscoveredServices([SIG.Service.glucose: [
            DiscoveredCharacteristic(Self.measurement, properties: .notify),
            DiscoveredCharacteristic(Self.racp, properties: [.write, .indicate]),
        ]])
        #expect(driver.start(minimal, at: Self.t0) == [.emit(.connected), .subscribe(Self.measurement, indications: false), .subscribe(Self.racp, indications: true)])
    }

    @Test(arguments: [
        DiscoveredServices([SIG.Service.glucose: [DiscoveredCharacteristic(measurement, properties: .notify)]]),
        DiscoveredServices([SIG.Service.glucose: [DiscoveredCharacteristic(measurement, properties: .notify),
                                                  DiscoveredCharacteristic(racp, properties: [.write])]]),
        DiscoveredServices([SIG.Service.glucose: [DiscoveredCharacteristic(measurement, properties: .read),
                                                  DiscoveredCharacteristic(racp, properties: [.write, .indicate])]]),
    ])
    func refusesAnIncompleteGlucoseService(discovered: DiscoveredServices) {
        var driver = GlucoseMeterDriver(device: "meter")
        let actions = driver.start(discovered, at: Self.t0)
        guard actions.count == 2, case .emit(.incompatible) = actions[0], case .disconnect = actions[1] else {
            Issue.record("expected incompatible + disconnect, got \(actions)")
            return
        }
    }

    /// The check first: RACP op 1 "report stored records" with operator 6 "last record" (no
    /// operand; record_access_control_point.xml), under the procedure deadline.
    @Test func theNewestRecordIsCheckedFirst() {
        var driver = started()
        #expect(driver.receive(.subscribed(Self.measurement), at: Self.t0) == [])
        #expect(driver.receive(.subscribed(Self.racp), at: Self.t0) == [Self.lastRecordRequest])
        #expect(driver.phase == .running(.checkingTheNewestRecord) && driver.session.deadline(of: .procedure) == Self.t0 + .seconds(30))
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))
        // Looking at the newest record keeps the check alive, and takes nothing.
        #expect(driver.receive(value(Self.measurement, Self.record(9)), at: Self.t0 + .seconds(10)) == [])
        #expect(driver.nextDeadline == Self.t0 + .seconds(40))
        #expect(driver.lastSequenceNumber == nil)
    }

    @Test func firstTransferAsksForAllRecords() {
        let (driver, actions) = checked(Self.record(9))
        #expect(actions == [.write(Self.racp, [0x01, 0x01], withResponse: true)])
        #expect(driver.phase == .running(.awaitingRecords(request: .reportAllRecords)) && driver.session.deadline(of: .procedure) == Self.t0 + .seconds(30))
    }

    @Test func laterTransfersAskOnlyForNewerRecords() {
        let (_, actions) = checked(Self.record(0x0105), .init(lastSequenceNumber: 0x0102))
        #expect(actions == [.write(Self.racp, [UInt8](hex: "01 03 01 03 01"), withResponse: true)])
    }

    /// The meter's newest record is the one taken before: nothing to ask for.
    @Test func nothingNewMeansNoRequest() {
        let (driver, actions) = checked(Self.record(7), state: ["last-sequence": "7", "last-record": "2026-11-22T07:30:00"])
        #expect(actions == [.emit(.info(TransmitterInfo(sensorState: "0 new record(s), last sequence number 7"))), Self.rest(at: Self.t0)])
        #expect(driver.phase == .running(.idle))
        #expect(driver.nextDeadline == nil)
    }

    /// A meter whose numbers restarted (a new meter under the same label, a battery change, a
    /// factory reset): its newest is #3, below #200 taken before. Everything is read again, and
    /// its new #1 is its own reading, not the old #1 (another date, so another stamp).
    @Test func numbersThatWentBackAreReadAgainFromTheStart() {
        let newDay = DateTime(year: 2026, month: 12, day: 1, hours: 8, minutes: 0, seconds: 0)
        var (driver, actions) = checked(Self.record(3, time: newDay), state: ["last-sequence": "200", "last-record": "2026-11-22T07:30:00"])
        #expect(actions == [
            .emit(.info(TransmitterInfo(sensorState: "the meter's newest record is #3, below #200 taken before: its numbers restarted "
                + "(a reset or another meter) or wrapped; reading all its records"))),
            .write(Self.racp, [0x01, 0x01], withResponse: true),
        ])
        // 2026-12-01 08:00:00 = 1 796 112 000 s (Python calendar.timegm).
        #expect(driver.receive(value(Self.measurement, Self.record(1, time: newDay)), at: Self.t0)
                == [Self.meterReading(123, epoch: 1_796_112_000, sequence: 1, run: "2026-12-01T08:00:00")])
        _ = driver.receive(value(Self.measurement, Self.record(2, time: newDay)), at: Self.t0)
        _ = driver.receive(value(Self.measurement, Self.record(3, time: newDay)), at: Self.t0)
        #expect(driver.receive(value(Self.racp, Self.success), at: Self.t0)
                == [.emit(.info(TransmitterInfo(sensorState: "3 new record(s), last sequence number 3"))), Self.rest(at: Self.t0)])
        #expect(driver.persistentState == ["last-sequence": "3", "last-record": "2026-12-01T08:00:00"])
    }

    /// Wrapped past 65535: the newest is #2, #65530 was taken before. The old run's records up
    /// to #65530 are skipped, the ones after it (#65531 …) and the new ones (#0 …) are taken.
    @Test func aWrapTakesOnlyWhatWasNotTaken() {
        var (driver, actions) = checked(Self.record(2), state: ["last-sequence": "65530", "last-record": "2026-11-20T07:30:00"])
        #expect(actions.last == .write(Self.racp, [0x01, 0x01], withResponse: true))
        #expect(driver.receive(value(Self.measurement, Self.record(65529)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.measurement, Self.record(65530)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.measurement, Self.record(65531)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 65531)])
        #expect(driver.receive(value(Self.measurement, Self.record(65535)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 65535)])
        #expect(driver.receive(value(Self.measurement, Self.record(0)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 0)])
        #expect(driver.receive(value(Self.measurement, Self.record(2)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 2)])
        _ = driver.receive(value(Self.racp, Self.success), at: Self.t0)
        #expect(driver.lastSequenceNumber == 2)
    }

    /// The same number with another date: a reset meter that happens to have as many records.
    @Test func theSameNumberWithAnotherDateIsAnotherRecord() {
        let (driver, actions) = checked(Self.record(7), state: ["last-sequence": "7", "last-record": "2026-01-05T12:00:00"])
        #expect(actions == [
            .emit(.info(TransmitterInfo(sensorState: "the meter's record #7 is dated 2026-11-22T07:30:00, not 2026-01-05T12:00:00 as taken "
                + "before: its numbers restarted (a reset or another meter) or wrapped; reading all its records"))),
            .write(Self.racp, [0x01, 0x01], withResponse: true),
        ])
        #expect(driver.phase == .running(.awaitingRecords(request: .reportAllRecords)) && driver.session.deadline(of: .procedure) == Self.t0 + .seconds(30))
    }

    /// A meter that refuses operator 6 gets today's request: all records at first, then ≥ last + 1.
    @Test(arguments: [[UInt8](hex: "06 00 01 04"), [UInt8](hex: "06 00 01 03")])
    func aMeterWithoutLastRecordGetsTheRequestWithoutTheCheck(refusal: [UInt8]) {
        var first = started()
        _ = first.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(first.receive(value(Self.racp, refusal), at: Self.t0) == [.write(Self.racp, [0x01, 0x01], withResponse: true)])
        var later = started(.init(lastSequenceNumber: 0x0102))
        _ = later.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(later.receive(value(Self.racp, refusal), at: Self.t0) == [.write(Self.racp, [UInt8](hex: "01 03 01 03 01"), withResponse: true)])
    }

    /// Any other refusal of the check is reported, and the records are still asked for.
    @Test func anotherRefusalOfTheCheckIsReportedAndTheRequestGoesOut() {
        var driver = started(.init(lastSequenceNumber: 5))
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 02")), at: Self.t0) == [
            .emit(.operationFailed(.write(Self.racp), .other("RACP last record refused: op code not supported; asking without the check"))),
            .write(Self.racp, [UInt8](hex: "01 03 01 06 00"), withResponse: true),
        ])
    }

    /// A meter holding no records at all was cleared or reset: the record taken before is
    /// forgotten, so its next records are read whatever they are numbered.
    @Test func anEmptyMeterForgetsTheRecordTakenBefore() {
        var driver = started(.init(lastSequenceNumber: 40))
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 06")), at: Self.t0) == [
            .emit(.info(TransmitterInfo(sensorState: "the meter holds no records any more (cleared or reset): record #40 forgotten, "
                + "its next records will all be read"))),
            Self.rest(at: Self.t0),
        ])
        #expect(driver.lastSequenceNumber == nil)
        #expect(driver.persistentState == [:])
        #expect(driver.phase == .running(.idle))
    }

    @Test func atTheLastSequenceNumberAllRecordsAreAskedFor() {
        #expect(started(.init(lastSequenceNumber: .max)).nextRequest == .reportAllRecords)
    }

    /// A silent check is aborted like a silent transfer.
    @Test func aSilentCheckIsAborted() throws {
        var driver = started()
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(30)) == [
            .emit(.operationFailed(.write(Self.racp), .other("RACP reportStoredRecords: nothing for 30 s; aborting"))),
            .write(Self.racp, [0x03, 0x00], withResponse: true),
        ])
        #expect(driver.phase == .running(.abortingTransfer) && driver.session.deadline(of: .procedure) == Self.t0 + .seconds(60))
    }

    // MARK: - Records

    @Test func recordsBecomeMeterReadingsDatedByTheMetersClock() {
        var driver = transferring()
        let t1 = Self.t0 + .seconds(1)
        #expect(driver.receive(value(Self.measurement, Self.record(1)), at: t1) == [Self.meterReading(123, epoch: Self.baseEpoch)])
        // Time offset −60 min is added to the base time.
        #expect(driver.receive(value(Self.measurement, Self.record(2, mgdl: 98, offsetMinutes: -60)), at: t1)
                == [Self.meterReading(98, epoch: Self.baseEpoch - 3600, sequence: 2, run: "2026-11-22T06:30:00")])
        #expect(driver.lastSequenceNumber == 2)
        #expect(driver.recordsThisTransfer == 2)
        // Each record pushes the procedure deadline.
        #expect(driver.nextDeadline == t1 + .seconds(30))
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 01")), at: t1)
                == [.emit(.info(TransmitterInfo(sensorState: "2 new record(s), last sequence number 2"))), Self.rest(at: t1)])
        #expect(driver.phase == .running(.idle))
        #expect(driver.nextDeadline == nil)
    }

    @Test func theMeterClocksUTCOffsetIsSubtracted() {
        var driver = transferring(.init(meterUTCOffset: .seconds(3600)))
        #expect(driver.receive(value(Self.measurement, Self.record(1)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch - 3600)])
    }

    @Test func molesPerLiterRecordsAreConvertedToMilligramsPerDeciliter() {
        var driver = transferring()
        let bytes = [UInt8](hex: "06 05 00 ea 07 0b 16 07 1e 00 44 c0 11")
        #expect(driver.receive(value(Self.measurement, bytes), at: Self.t0) == [Self.meterReading(6.8 * 18.0182, epoch: Self.baseEpoch, sequence: 5)])
    }

    @Test func lowBatteryKeepsTheReadingAndSaysSo() {
        var driver = transferring()
        #expect(driver.receive(value(Self.measurement, Self.record(1, status: .batteryLow)), at: Self.t0) == [
            Self.meterReading(123, epoch: Self.baseEpoch),
            .emit(.info(TransmitterInfo(sensorState: "meter battery low"))),
        ])
    }

    @Test(arguments: [
        (record(1, type: .controlSolution), "record #1 discarded: control solution test"),
        (record(1, location: .controlSolution), "record #1 discarded: control solution test"),
        (record(1, status: [.batteryLow, .stripInsertionError]), "record #1 discarded: meter reports strip insertion error"),
        (record(1, status: .timeFault), "record #1 discarded: meter reports time fault"),
        (record(1, raw: 0x07FF), "record #1 discarded: concentration is NaN"),
        (record(1, raw: 0x07FE), "record #1 discarded: concentration is +INF"),
        (record(1, raw: 0x0000), "record #1 discarded: concentration 0e0 is not positive"),
        (record(1, time: DateTime(year: 0, month: 0, day: 0, hours: 0, minutes: 0, seconds: 0)),
         "record #1 discarded: the meter's clock is not set (0000-00-00 00:00:00)"),
        ([UInt8](hex: "00 01 00 ea 07 0b 16 07 1e 00"), "record #1 discarded: no concentration"),
    ])
    func unusableRecordsAreDiscardedWithTheirReason(bytes: [UInt8], reason: String) {
        var driver = transferring()
        #expect(driver.receive(value(Self.measurement, bytes), at: Self.t0) == [.emit(.malformedValue(Self.measurement, reason: reason))])
        // The record is still counted as stored: asking for it again would not make it better.
        #expect(driver.lastSequenceNumber == 1)
    }

    @Test func recordsAlreadyStoredAreSkipped() {
        var driver = transferring(.init(lastSequenceNumber: 5))
        #expect(driver.receive(value(Self.measurement, Self.record(4)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.measurement, Self.record(5)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.measurement, Self.record(6)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 6)])
        #expect(driver.lastSequenceNumber == 6)
    }

    @Test func aMalformedRecordIsReportedAndTheTransferGoesOn() {
        var driver = transferring()
        #expect(driver.receive(value(Self.measurement, [0x03, 0x01]), at: Self.t0)
                == [.emit(.malformedValue(Self.measurement, reason: "truncated at Glucose Measurement sequence number: needed 2 byte(s), 1 left in 03 01"))])
        #expect(driver.phase == .running(.awaitingRecords(request: .reportAllRecords)) && driver.session.deadline(of: .procedure) == Self.t0 + .seconds(30))
    }

    @Test func contextAndFeatureAreKept() {
        var driver = transferring()
        #expect(driver.receive(value(Self.context, [UInt8](hex: "02 01 00 01")), at: Self.t0) == [])
        #expect(driver.lastContext?.meal == 1)
        #expect(driver.receive(.value(Self.feature, [0x01, 0x04], origin: .read), at: Self.t0) == [])
        #expect(driver.feature == [.lowBatteryDetection, .multipleBond])
        #expect(driver.receive(.value(Self.battery, [55], origin: .read), at: Self.t0) == [.emit(.info(TransmitterInfo(battery: Percent(55))))])
        #expect(driver.receive(value(Self.context, [0x02]), at: Self.t0).count == 1)
    }

    // MARK: - Measurement Context

    /// A context for record `sequence`, flags 0x06 (meal, tester/health): meal 1 preprandial,
    /// tester 1 self / health 15 not available (0xF1), as glucose_measurement_context.xml lays out.
    static func context(_ sequence: UInt16) -> [UInt8] { [0x06, UInt8(sequence & 0xFF), UInt8(sequence >> 8), 0x01, 0xF1] }
    static let preprandialBySelf = MeterReadingContext(meal: .preprandial, tester: .selfTested)

    /// A record that announces a context (flag bit 4) waits for it, and carries it.
    @Test func aRecordWaitsForItsContext() {
        var driver = transferring()
        #expect(driver.receive(value(Self.measurement, Self.record(4, contextFollows: true)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.context, Self.context(4)), at: Self.t0)
                == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4, context: Self.preprandialBySelf)])
        #expect(driver.lastContext?.sequenceNumber == 4)
    }

    /// What goes with the record (a low meter battery) waits with it and follows its reading.
    @Test func whatGoesWithAHeldRecordFollowsIt() {
        var driver = transferring()
        #expect(driver.receive(value(Self.measurement, Self.record(4, status: .batteryLow, contextFollows: true)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.context, Self.context(4)), at: Self.t0) == [
            Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4, context: Self.preprandialBySelf),
            .emit(.info(TransmitterInfo(sensorState: "meter battery low"))),
        ])
    }

    /// The next record releases a held one without its context: the fingerstick is never lost.
    @Test func theNextRecordReleasesAHeldOne() {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(4, contextFollows: true)), at: Self.t0)
        #expect(driver.receive(value(Self.measurement, Self.record(5)), at: Self.t0) == [
            Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4),
            Self.meterReading(123, epoch: Self.baseEpoch, sequence: 5),
        ])
        // A context for a record no longer held joins nothing.
        #expect(driver.receive(value(Self.context, Self.context(4)), at: Self.t0) == [])
    }

    /// The RACP response ends the transfer: a held record comes out before the summary.
    @Test func theResponseReleasesAHeldRecord() {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(4, contextFollows: true)), at: Self.t0)
        #expect(driver.receive(value(Self.racp, Self.success), at: Self.t0) == [
            Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4),
            .emit(.info(TransmitterInfo(sensorState: "1 new record(s), last sequence number 4"))),
            Self.rest(at: Self.t0),
        ])
    }

    /// A context for another record does not join the held one, which keeps waiting.
    @Test func aContextForAnotherRecordIsNotJoined() {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(4, contextFollows: true)), at: Self.t0)
        #expect(driver.receive(value(Self.context, Self.context(3)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.context, Self.context(4)), at: Self.t0)
                == [Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4, context: Self.preprandialBySelf)])
    }

    /// Silence releases a held record at the procedure deadline, before the abort.
    @Test func theDeadlineReleasesAHeldRecord() throws {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(4, contextFollows: true)), at: Self.t0 + .seconds(1))
        let deadline = try #require(driver.nextDeadline)
        #expect(deadline == Self.t0 + .seconds(31))
        let actions = driver.handleDeadline(at: deadline)
        #expect(actions.first == Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4))
        #expect(actions.last == .write(Self.racp, [0x03, 0x00], withResponse: true))
    }

    /// Outside a procedure (a record the meter notifies while idle) the same wait applies.
    @Test func anIdleHeldRecordIsReleasedAfterTheSameWait() throws {
        var driver = transferring()
        _ = driver.receive(value(Self.racp, Self.success), at: Self.t0)
        #expect(driver.nextDeadline == nil)
        _ = driver.receive(value(Self.measurement, Self.record(1, contextFollows: true)), at: Self.t0)
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(29)) == [])
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(30)) == [Self.meterReading(123, epoch: Self.baseEpoch)])
        #expect(driver.nextDeadline == nil)
    }

    /// The link dropping releases a held record before the disconnection is reported.
    @Test func aDisconnectionReleasesAHeldRecord() {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(4, contextFollows: true)), at: Self.t0)
        #expect(driver.receive(.disconnected(reason: "meter off"), at: Self.t0) == [
            Self.meterReading(123, epoch: Self.baseEpoch, sequence: 4),
            .emit(.disconnected(reason: "meter off")),
        ])
    }

    /// The record looked at in the check is not held, and its context joins nothing.
    @Test func theCheckedRecordsContextJoinsNothing() {
        var driver = started()
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(driver.receive(value(Self.measurement, Self.record(9, contextFollows: true)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.context, Self.context(9)), at: Self.t0) == [])
        #expect(driver.receive(value(Self.racp, Self.success), at: Self.t0) == [.write(Self.racp, [0x01, 0x01], withResponse: true)])
    }

    // MARK: - Responses

    @Test func noRecordsFoundEndsTheTransferQuietly() {
        var driver = transferring(.init(lastSequenceNumber: 9))
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 06")), at: Self.t0)
                == [.emit(.info(TransmitterInfo(sensorState: "0 new record(s), last sequence number 9"))), Self.rest(at: Self.t0)])
        #expect(driver.phase == .running(.idle))
    }

    @Test(arguments: [
        ([UInt8](hex: "06 00 01 02"), "op code not supported"),
        ([UInt8](hex: "06 00 01 04"), "operator not supported"),
        ([UInt8](hex: "06 00 01 05"), "invalid operand"),
        ([UInt8](hex: "06 00 01 08"), "procedure not completed"),
        ([UInt8](hex: "06 00 01 09"), "operand not supported"),
    ])
    func anErrorResponseIsReported(bytes: [UInt8], name: String) {
        var driver = transferring()
        #expect(driver.receive(value(Self.racp, bytes), at: Self.t0)
                == [.emit(.operationFailed(.write(Self.racp), .other("RACP op 1 refused: \(name)")))])
        #expect(driver.phase == .running(.idle))
    }

    @Test func aResponseNobodyWaitsForIsIgnored() {
        var driver = transferring()
        _ = driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 01")), at: Self.t0)
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 01")), at: Self.t0) == [])
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "05 00 02 00")), at: Self.t0) == [])
    }

    @Test func newRecordsNotifiedWhileIdleAreTaken() {
        var driver = transferring()
        _ = driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 06")), at: Self.t0)
        #expect(driver.receive(value(Self.measurement, Self.record(1)), at: Self.t0) == [Self.meterReading(123, epoch: Self.baseEpoch)])
    }

    // MARK: - Timeout and abort

    @Test func aSilentProcedureIsAbortedAndTheAbortAnswered() throws {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(1)), at: Self.t0 + .seconds(5))
        let deadline = try #require(driver.nextDeadline)
        #expect(deadline == Self.t0 + .seconds(35))
        #expect(driver.handleDeadline(at: deadline - .milliseconds(1)) == [])
        #expect(driver.handleDeadline(at: deadline) == [
            .emit(.operationFailed(.write(Self.racp), .other("RACP reportStoredRecords: nothing for 30 s; aborting"))),
            .write(Self.racp, [0x03, 0x00], withResponse: true),
        ])
        #expect(driver.phase == .running(.abortingTransfer) && driver.session.deadline(of: .procedure) == deadline + .seconds(30))
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 03 01")), at: deadline + .seconds(1))
                == [.emit(.info(TransmitterInfo(sensorState: "record transfer aborted after 1 record(s), last sequence number 1")))])
        #expect(driver.phase == .running(.idle))
        #expect(driver.nextDeadline == nil)
    }

    @Test func contextNotificationsAlsoKeepTheProcedureAlive() {
        var driver = transferring()
        _ = driver.receive(value(Self.context, [UInt8](hex: "02 01 00 01")), at: Self.t0 + .seconds(20))
        #expect(driver.nextDeadline == Self.t0 + .seconds(50))
    }

    @Test func anUnansweredAbortDisconnects() throws {
        var driver = transferring()
        _ = driver.handleDeadline(at: try #require(driver.nextDeadline))
        let abortDeadline = try #require(driver.nextDeadline)
        #expect(driver.handleDeadline(at: abortDeadline) == [.disconnect(reason: "the meter answered neither the record transfer nor its abort")])
        #expect(driver.nextDeadline == nil)
        #expect(driver.receive(.disconnected(reason: "gone"), at: abortDeadline) == [.emit(.disconnected(reason: "gone"))])
    }

    @Test func anAbortRefusedIsReported() throws {
        var driver = transferring()
        _ = driver.handleDeadline(at: try #require(driver.nextDeadline))
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 03 07")), at: Self.t0 + .seconds(31))
                == [.emit(.operationFailed(.write(Self.racp), .other("RACP op 3 refused: abort unsuccessful")))])
    }

    // MARK: - Failures

    @Test(arguments: [GATTOperation.subscribe(measurement), .subscribe(racp), .write(racp)])
    func losingTheTransferPathDisconnects(operation: GATTOperation) {
        var driver = started()
        let actions = driver.receive(.operationFailed(operation, .attError(code: 0x0F)), at: Self.t0)
        #expect(actions.count == 2)
        #expect(actions.first == .emit(.operationFailed(operation, .attError(code: 0x0F))))
        guard case .disconnect = actions.last else {
            Issue.record("expected a disconnect, got \(actions)")
            return
        }
    }

    @Test func optionalCharacteristicsMayFail() {
        var driver = started()
        #expect(driver.receive(.operationFailed(.read(Self.feature), .timedOut), at: Self.t0) == [.emit(.operationFailed(.read(Self.feature), .timedOut))])
        #expect(driver.phase == .running(.subscribing))
    }

    @Test func theSequenceNumberSurvivesReconnection() {
        var driver = transferring()
        _ = driver.receive(value(Self.measurement, Self.record(17)), at: Self.t0)
        _ = driver.receive(.disconnected(reason: "meter done"), at: Self.t0)
        let later = Self.t0 + .seconds(600)
        _ = driver.start(Self.meter, at: later)
        #expect(driver.receive(.subscribed(Self.racp), at: later) == [Self.lastRecordRequest])
        _ = driver.receive(value(Self.measurement, Self.record(19)), at: later)
        #expect(driver.receive(value(Self.racp, Self.success), at: later) == [.write(Self.racp, [UInt8](hex: "01 03 01 12 00"), withResponse: true)])
    }

    // MARK: - Configuration

    @Test func registryBuildsTheDriver() throws {
        let driver = try #require(try TransmitterRegistry.builtIn.makeDriver(configurationLine: "glucose-meter meter last-sequence=300 racp-timeout=1m utc-offset=-05:30") as? GlucoseMeterDriver)
        #expect(driver.configuration == .init(lastSequenceNumber: 300, procedureTimeout: .seconds(60), meterUTCOffset: .seconds(-19800)))
        #expect(driver.lastSequenceNumber == 300)
        let plain = try #require(try TransmitterRegistry.builtIn.makeDriver(configurationLine: "glucose-meter") as? GlucoseMeterDriver)
        #expect(plain.configuration == .init())
    }

    @Test(arguments: ["glucose-meter m last-sequence=70000", "glucose-meter m utc-offset=5", "glucose-meter m utc-offset=+5:00",
                      "glucose-meter m utc-offset=+15:00", "glucose-meter m racp-timeout=0s", "glucose-meter m sequence=1"])
    func registryRejects(line: String) {
        #expect(throws: TransmitterConfigurationError.self) { try TransmitterRegistry.builtIn.makeDriver(configurationLine: line) }
    }
}
