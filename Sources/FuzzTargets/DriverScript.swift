import Bluetooth
import Clocks
import Readings
import Transmitters

/// Plays a fuzz input against a transmitter driver as the appliance would: `start` with what
/// discovery found, then values, completions, failures, link events, calibrations and
/// deadlines in the order the input says, on a virtual clock.
///
/// Input: a discovery octet (which characteristic properties the peer declares), then a
/// script. Values dominate the script, since they carry the wire formats under test.
struct DriverScript {
    /// Runs `input` against a fresh driver made from a configuration line (as in vigil.toml).
    /// Repairs a value the way only a genuine device could make it (a CRC, an authentication
    /// hash), so the fuzzer reaches what lies behind the check. Called for half the values.
    typealias Fixup = (BluetoothUUID, [UInt8]) -> [UInt8]

    static func run(configurationLine line: String, _ input: inout FuzzInput, fixup: Fixup? = nil) {
        guard let driver = try? TransmitterRegistry.builtIn.makeDriver(configurationLine: line) else {
            fatalError("fuzz driver configuration \"\(line)\" is rejected")
        }
        run(driver, &input, fixup: fixup)
    }

    static func run(_ driver: any TransmitterDriver, _ input: inout FuzzInput, fixup: Fixup? = nil) {
        var driver = driver
        let profile = driver.profile
        let everything: CharacteristicProperties = [.read, .write, .writeWithoutResponse, .notify, .indicate]
        let declared = input.byte()
        // Mostly a well-behaved peer; sometimes one that lacks properties the driver needs.
        let properties = declared < 0xE0 ? everything : CharacteristicProperties(rawValue: declared & 0x3E)
        var uuids = [profile.receiveCharacteristic] + (profile.writeCharacteristic.map { [$0] } ?? [])
        var services: [BluetoothUUID: [DiscoveredCharacteristic]] = [:]
        services[profile.service] = uuids.map { DiscoveredCharacteristic($0, properties: properties) }
        for other in profile.otherCharacteristics where !(other.isOptional && declared & 1 != 0) {
            services[other.service, default: []].append(DiscoveredCharacteristic(other.characteristic, properties: properties))
            uuids.append(other.characteristic)
        }
        let discovered = DiscoveredServices(services)
        var now = MonotonicInstant.zero + .seconds(60)
        _ = driver.start(discovered, at: now)
        while !input.isAtEnd {
            let op = input.byte()
            // Half the selectors pick the receive characteristic, where the readings arrive.
            let selector = input.byte()
            let uuid = selector < 0x80 ? profile.receiveCharacteristic : uuids[Int(selector) % uuids.count]
            now = now + .milliseconds(Int64(op >> 3) * 50)
            func value() -> [UInt8] {
                let raw = input.chunk()
                guard let fixup, selector & 0x40 != 0 else { return raw }
                return fixup(uuid, raw)
            }
            switch op % 8 {
            case 0: _ = driver.receive(.value(uuid, value(), origin: .notification), at: now)
            case 1: _ = driver.receive(.value(uuid, value(), origin: .read), at: now)
            case 2: _ = driver.receive(.value(uuid, value(), origin: .indication), at: now)
            case 3: _ = driver.receive(.writeCompleted(uuid), at: now)
            case 4: _ = driver.receive(.subscribed(uuid), at: now)
            case 5:
                let operation: GATTOperation = switch selector % 3 {
                case 0: .read(uuid)
                case 1: .write(uuid)
                default: .subscribe(uuid)
                }
                let code = input.byte()
                let failure: OperationFailure = code < 0x40 ? .attError(code: code) : code < 0x80 ? .timedOut : .unsupported("fuzz")
                _ = driver.receive(.operationFailed(operation, failure), at: now)
            case 6:
                switch selector % 5 {
                case 0: _ = driver.receive(.encrypted, at: now)
                case 1: _ = driver.receive(.pairingFailed(reason: "fuzz"), at: now)
                case 2:
                    let reference = GlucoseConcentration(milligramsPerDeciliter: Double(input.uint16() % 700))
                    _ = driver.receive(.calibration(reference, takenAt: now - .seconds(Int64(input.byte()))), at: now)
                case 3:
                    _ = driver.receive(.disconnected(reason: "fuzz"), at: now)
                    now = now + .seconds(Int64(input.byte()))
                    _ = driver.start(discovered, at: now)
                default:
                    now = now + .seconds(Int64(input.uint16()))
                }
            default:
                if let deadline = driver.nextDeadline {
                    now = max(now, deadline)
                    _ = driver.handleDeadline(at: now)
                    fuzzCheck(driver.nextDeadline.map { $0 > now } ?? true, "\(type(of: driver)) deadline still due after handling it")
                }
            }
        }
        _ = driver.receive(.disconnected(reason: "end of input"), at: now)
        fuzzCheck(driver.nextDeadline == nil, "\(type(of: driver)) keeps a deadline after disconnection")
    }
}
