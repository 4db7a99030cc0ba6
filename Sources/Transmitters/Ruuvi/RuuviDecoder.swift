import Bluetooth
import Clocks
import Readings
import Wire

/// Reads a RuuviTag broadcasting data format 5 (`RuuviDataFormat5`) without connecting.
///
/// Readings: `temperature` and `humidity` at the format's resolution (0.005 °C, 0.0025 %; a
/// humidity above 100 % is refused as malformed rather than clamped, since it means a failed
/// sensor). Fields the tag marks "not available" produce no reading. A tag repeats each
/// measurement in several advertisements with the same measurement sequence number; repeats
/// yield nothing. Battery voltage is decoded but not reported: `TransmitterInfo` holds a
/// percentage, and Ruuvi documents no voltage-to-percent curve.
public struct RuuviDecoder: BroadcastDecoder {
    public struct Configuration: Hashable, Sendable {
        /// How long without a reading before `noData` (a RuuviTag advertises about once a second).
        public var noDataTimeout: Duration

        public init(noDataTimeout: Duration = .seconds(600)) { self.noDataTimeout = noDataTimeout }
    }

    public static let recognition = BroadcastRecognition.manufacturerData(company: RuuviDataFormat5.companyIdentifier)

    public let device: DeviceID
    public let configuration: Configuration
    /// The last measurement sequence number accepted, for de-duplication.
    public private(set) var lastSequence: UInt16?
    private var watchdog: NoDataWatchdog

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        watchdog = NoDataWatchdog(timeout: configuration.noDataTimeout)
    }

    public var nextDeadline: MonotonicInstant? { watchdog.deadline }

    public mutating func start(at now: MonotonicInstant) { watchdog.arm(at: now) }

    public mutating func decode(_ advertisement: AdvertisementSummary, at now: MonotonicInstant) -> [TransmitterEvent] {
        guard let payload = Self.recognition.payload(in: advertisement) else { return [] }
        let data: RuuviDataFormat5
        do throws(WireError) {
            data = try RuuviDataFormat5(decoding: payload)
        } catch {
            return [malformed("\(error) in \(payload.hexString)")]
        }
        if let sequence = data.measurementSequence {
            if sequence == lastSequence { return [] }
            lastSequence = sequence
        }
        var events: [TransmitterEvent] = []
        if let temperature = data.temperature {
            events.append(.reading(Reading(device: device, value: .temperature(temperature), time: .monotonic(now))))
        }
        if let humidity = data.humidityPercent {
            if let relative = RelativeHumidity(percent: humidity) {
                events.append(.reading(Reading(device: device, value: .humidity(relative), time: .monotonic(now))))
            } else {
                events.append(malformed("humidity \(humidity) % is out of range (failed sensor?)"))
            }
        }
        if events.containsReading { watchdog.arm(at: now) }
        return events
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [TransmitterEvent] {
        guard let since = watchdog.since, watchdog.expire(at: now) else { return [] }
        return [.noData(since: since, duration: now - since)]
    }

    private func malformed(_ reason: String) -> TransmitterEvent {
        .malformedValue(Self.recognition.eventUUID, reason: "Ruuvi data format 5: \(reason)")
    }
}

extension RuuviDecoder {
    /// The registry entry: `ruuvi [NAME] [no-data-timeout=10m]`.
    public static let broadcastType = BroadcastType(
        name: "ruuvi",
        summary: "RuuviTag thermometer broadcasting data format 5 (read without connecting)",
        declaration: TransmitterDeclaration(category: .thermometer, fuzzTarget: "advertising"),
        decoder: RuuviDecoder.self
    ) { (configuration) throws(TransmitterConfigurationError) -> RuuviDecoder in
        try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(600))
        return RuuviDecoder(device: configuration.device, configuration: Configuration(noDataTimeout: timeout))
    }
}
