import Bluetooth
import Clocks
import Readings
import Transmitters
import Wire

// One target per transmitter family. Each input's first octet chooses between the driver
// session (DriverScript: values in the order a peer could send them, with the driver's state
// machine in the loop) and the family's decoders applied directly to the rest of the input.

extension FuzzTarget {
    /// Dexcom G5/G6 (docs/protocols/dexcom-g5-g6.md): authentication messages,
    /// Control messages with their CRC-16/XMODEM, backfill frames, and the driver session.
    static let dexcom = FuzzTarget(name: "dexcom", summary: "Dexcom auth/control/backfill messages and DexcomDriver (full session and listen-only)") { buffer in
        var input = FuzzInput(buffer)
        let mode = input.byte()
        if mode & 1 == 0 {
            let configuration = DexcomDriver.Configuration(transmitterID: dexcomID, backfillHours: Int(mode >> 2) % 25, listenOnly: mode & 2 != 0)
            let driver = DexcomDriver(device: DeviceID("dexcom"), configuration: configuration, makeToken: { dexcomToken })
            DriverScript.run(driver, &input, fixup: dexcomFixup)
            return
        }
        let bytes = input.rest()
        for candidate in [bytes, dexcomFixup(DexcomProfile.control, bytes)] {
            _ = try? Dexcom.AuthRequestTx(decoding: candidate)
            _ = try? Dexcom.AuthChallengeRx(decoding: candidate)
            _ = try? Dexcom.AuthChallengeTx(decoding: candidate)
            _ = try? Dexcom.AuthStatusRx(decoding: candidate)
            _ = try? Dexcom.KeepAliveTx(decoding: candidate)
            _ = try? Dexcom.BondRequestTx(decoding: candidate)
            _ = try? Dexcom.BondRequestRx(decoding: candidate)
            _ = try? Dexcom.DisconnectTx(decoding: candidate)
            _ = try? Dexcom.TransmitterTimeRx(decoding: candidate)
            _ = try? Dexcom.GlucoseRx(decoding: candidate)
            _ = try? Dexcom.SensorRx(decoding: candidate)
            _ = try? Dexcom.BatteryStatusRx(decoding: candidate)
            _ = try? Dexcom.VersionRx(decoding: candidate)
            _ = try? Dexcom.TransmitterVersionRx(decoding: candidate)
            _ = try? Dexcom.CalibrationDataRx(decoding: candidate)
            _ = try? Dexcom.BackfillTx(decoding: candidate)
            if let completion = try? Dexcom.BackfillRx(decoding: candidate) {
                // The frames that would precede this completion: the input cut into 20-byte notifications.
                var buffer = Dexcom.BackfillBuffer()
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + 20)
                    if (try? buffer.append(Array(bytes[offset..<end]))) == nil { break }
                    offset = end
                }
                _ = try? buffer.records()
                _ = try? buffer.validate(against: completion)
            }
        }
    }

    static let dexcomID = try! Dexcom.TransmitterID("811234")
    static let dexcomToken: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]

    /// What only the genuine transmitter can send: the hash of our token in AuthChallengeRx, and
    /// a correct CRC on Control messages.
    static func dexcomFixup(_ uuid: BluetoothUUID, _ bytes: [UInt8]) -> [UInt8] {
        if uuid == DexcomProfile.authentication, bytes.first == Dexcom.AuthChallengeRx.opcode, bytes.count >= 9 {
            return [bytes[0]] + dexcomID.hash(dexcomToken) + bytes.dropFirst(9)
        }
        guard bytes.count >= 3 else { return bytes }
        let body = Array(bytes.dropLast(2))
        let crc = CRC16.xmodem(body)
        return body + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// FreeStyle Libre 1 through a MiaoMiao or Bubble bridge (docs/protocols/miaomiao-bubble.md, docs/protocols/libre-fram.md): the bridges'
    /// framing and messages, the 344-byte FRAM with its three block CRCs, patchInfo, and the
    /// sensor session that turns FRAM into readings.
    static let libre = FuzzTarget(name: "libre", summary: "MiaoMiao/Bubble drivers and messages, MiaoMiaoPacketAssembler, LibreFRAM (CRC-repaired), LibrePatchInfo, LibreSensorSession") { buffer in
        var input = FuzzInput(buffer)
        let mode = input.byte()
        switch mode % 4 {
        case 0: DriverScript.run(configurationLine: "miaomiao", &input)
        case 1: DriverScript.run(configurationLine: "bubble", &input)
        case 2:
            // A FRAM image with its CRCs repaired, so the fuzzer explores its contents.
            var fram = input.take(LibreFRAM.byteCount)
            fram += [UInt8](repeating: 0, count: LibreFRAM.byteCount - fram.count)
            for region in LibreFRAM.Region.allCases {
                let crc = LibreBlockCRC.compute(fram[region.range])
                fram[region.range.lowerBound] = UInt8(crc & 0xFF)
                fram[region.range.lowerBound + 1] = UInt8(crc >> 8)
            }
            guard let decoded = try? LibreFRAM(decoding: fram) else { return }
            var session = LibreSensorSession(device: DeviceID("libre"), source: NordicUART.service)
            var now = MonotonicInstant.zero + .seconds(3600)
            _ = session.process(decoded, sensorUID: Array(fram[0..<8]), at: now)
            _ = session.calibrate(GlucoseConcentration(milligramsPerDeciliter: Double(input.byte()) * 2), takenAt: now, at: now)
            now = now + .seconds(60 * Int64(input.byte()))
            _ = session.process(decoded, sensorUID: Array(fram[0..<8]), at: now)
        default:
            let bytes = input.rest()
            _ = try? LibreFRAM(decoding: bytes)
            _ = try? LibrePatchInfo(bytes)
            _ = LibreBlockCRC.compute(bytes[...])
            _ = try? MiaoMiaoPacket(decoding: bytes)
            if let message = try? Bubble.Message(decoding: bytes), case .patchInfo(let whole) = message {
                _ = try? Bubble.patchInfo(in: whole, firmware: nil)
                _ = try? Bubble.patchInfo(in: whole, firmware: Bubble.Version(major: 1, minor: 0))
            }
            // The assembler across notifications of the sizes a bridge sends, with gaps.
            var assembler = MiaoMiaoPacketAssembler()
            var now = MonotonicInstant.zero
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + 20 + Int(bytes[offset] % 8) * 20)
                now = now + .milliseconds(Int64(bytes[offset]) * 20)
                if let deadline = assembler.deadline, deadline <= now { _ = assembler.handleDeadline(at: now) }
                _ = assembler.receive(Array(bytes[offset..<end]), at: now)
                offset = end
            }
        }
    }

    /// xDrip/xBridge Wixel over the HM-10 serial characteristic (docs/protocols/xbridge.md): data
    /// packets, beacons, ASCII packets, and the driver with calibration.
    static let xbridge = FuzzTarget(name: "xbridge", summary: "XBridgePacket/DataPacket/Beacon/ASCIIPacket and XBridgeDriver") { buffer in
        var input = FuzzInput(buffer)
        if input.byte() & 1 == 0 {
            DriverScript.run(configurationLine: "xbridge g4 transmitter-id=6ABCD", &input)
            return
        }
        let bytes = input.rest()
        _ = try? XBridgePacket(decoding: bytes)
        _ = try? XBridgeDataPacket(decoding: bytes)
        _ = try? XBridgeBeacon(decoding: bytes)
        _ = try? XBridgeASCIIPacket(decoding: bytes)
        _ = try? XBridgeTransmitterID(bytes.lossyText)
    }

    /// Bluetooth Glucose Service meters (GLS v1.0.1; docs/protocols/sig-glucose.md): Glucose Measurement,
    /// Measurement Context, Feature, Record Access Control Point, and the RACP-driven driver.
    static let glucoseMeter = FuzzTarget(name: "glucose-meter", summary: "GlucoseMeasurement, GlucoseMeasurementContext, GlucoseFeature, RACP.Response and GlucoseMeterDriver") { buffer in
        var input = FuzzInput(buffer)
        if input.byte() & 1 == 0 {
            DriverScript.run(configurationLine: "glucose-meter", &input)
            return
        }
        let bytes = input.rest()
        _ = try? GlucoseMeasurement(decoding: bytes)
        _ = try? GlucoseMeasurementContext(decoding: bytes)
        _ = try? GlucoseFeature(decoding: bytes)
        _ = try? RACP.Response(decoding: bytes)
    }

    /// Bluetooth Continuous Glucose Monitoring Service (CGMS v1.0.1; docs/protocols/sig-cgm.md): records
    /// with and without E2E-CRC, status, session times, control points, and the driver.
    static let cgmService = FuzzTarget(name: "cgm-service", summary: "CGMMeasurement, CGMFeature, CGMStatus, session times, SOCP/RACP and CGMServiceDriver (E2E-CRC repaired)") { buffer in
        var input = FuzzInput(buffer)
        let mode = input.byte()
        if mode & 1 == 0 {
            let line = mode & 2 == 0 ? "cgm-service" : "cgm-service start-session=true last-time-offset=10"
            // Half the values get a correct E2E-CRC, as a sensor with the feature sends them.
            DriverScript.run(configurationLine: line, &input, fixup: { _, bytes in
                bytes.count >= 2 ? CGME2ECRC.appending(to: Array(bytes.dropLast(2))) : bytes
            })
            return
        }
        let raw = input.rest()
        for bytes in [raw, raw.count >= 2 ? CGME2ECRC.appending(to: Array(raw.dropLast(2))) : raw] {
            for crc in [false, true] {
                _ = try? CGMMeasurement.records(decoding: bytes, crcRequired: crc)
                _ = try? CGMStatus(decoding: bytes, crcRequired: crc)
                _ = try? CGMSessionRunTime(decoding: bytes, crcRequired: crc)
                _ = try? CGMSessionStartTime(decoding: bytes, crcRequired: crc)
                _ = try? CGMSpecificOpsControlPoint.Response(decoding: bytes, crcRequired: crc)
            }
            _ = try? CGMFeature(decoding: bytes)
            _ = try? CGMMeasurement.split(bytes)
        }
    }

    /// Heart Rate Service (HRS v1.0; docs/protocols/sig-heart-rate.md, docs/protocols/sig-common.md) and the Device Information/Battery
    /// values every connectable driver reads.
    static let heartRate = FuzzTarget(name: "heart-rate", summary: "HeartRateMeasurement, BodySensorLocation, Battery Level, DIS strings/PnP ID/System ID and HeartRateDriver") { buffer in
        var input = FuzzInput(buffer)
        if input.byte() & 1 == 0 {
            DriverScript.run(configurationLine: "heart-rate", &input)
            return
        }
        let bytes = input.rest()
        if let measurement = try? HeartRateMeasurement(decoding: bytes) {
            // What we decode we can encode, and the encoding decodes to the same measurement.
            fuzzCheck((try? HeartRateMeasurement(decoding: measurement.encode())) == measurement, "Heart Rate Measurement does not survive a round trip")
        }
        _ = try? BodySensorLocation(decoding: bytes)
        _ = try? BatteryLevel.decode(bytes)
        _ = DeviceInformationString.decode(bytes)
        _ = try? PnPID(decoding: bytes)
        _ = try? SystemID(decoding: bytes)
        var reader = ByteReader(bytes)
        _ = try? DateTime(from: &reader)
        _ = try? reader.readSFloat()
        _ = try? reader.readFloat11073()
    }

    /// TI SensorTag CC2541 (docs/protocols/sensortag.md): SHT21 humidity and TMP006 IR temperature
    /// values, and the driver that enables and polls them.
    static let sensorTag = FuzzTarget(name: "sensortag", summary: "SensorTagHumidity, SensorTagIRTemperature and SensorTagDriver") { buffer in
        var input = FuzzInput(buffer)
        if input.byte() & 1 == 0 {
            DriverScript.run(configurationLine: "sensortag", &input)
            return
        }
        let bytes = input.rest()
        _ = try? SensorTagHumidity(decoding: bytes)
        if let ir = try? SensorTagIRTemperature(decoding: bytes) {
            _ = ir.object()
        }
    }
}
