import Foundation
import HCI
import Testing
import Wire

extension Interop {
    /// Commands on `--hci btsnoop:FILE`, with captures written here in the btsnoop format
    /// (datalink 1002): one taken from the controller's power-on, its start-up answers first,
    /// and one taken while the adapter was already up, which holds none. Contract: every
    /// command ends by itself at the last record; `vigil scan --json` with exit 0 and the same
    /// devices from both captures.
    @Suite struct ReplayInteropTests {
        static let deviceCount = 24
        static let reportCount = 20_000
        /// btsnoop time of the first record: 2026-01-01 in microseconds since the Unix epoch.
        static let startMicroseconds: Int64 = 1_767_225_600_000_000

        /// One advertiser: even ones random static (top bits 11, Core v5.4 Vol 6 Part B
        /// §1.3.2.1), odd ones public.
        struct Device {
            var index: Int
            var isRandom: Bool { index % 2 == 0 }
            var addressBytes: [UInt8] { isRandom ? [0xC0, 0x5E, 0, 0, 0, UInt8(index)] : [0x00, 0x1B, 0xDC, 0, 0, UInt8(index)] }
            var addressText: String { addressBytes.map { String(format: "%02X", $0) }.joined(separator: ":") }
            var name: String { "Replay \(index)" }
            /// Every third device changes its data half-way through: one more line for it.
            var changes: Bool { index % 3 == 0 }

            /// AD structures (Core Specification Supplement Part A §1.3 Flags, §1.2 Local Name,
            /// §1.4 Manufacturer Specific Data with the reserved test company 0xFFFF).
            func advertisingData(version: UInt8) -> [UInt8] {
                let name = Array(name.utf8)
                return [0x02, 0x01, 0x06, UInt8(1 + name.count), 0x09] + name + [0x05, 0xFF, 0xFF, 0xFF, 0x01, version]
            }
        }

        static let devices = (0..<deviceCount).map(Device.init(index:))

        /// HCI_LE_Advertising_Report, one report (Core v5.4 Vol 4 Part E §7.7.65.2), as H4:
        /// subevent 0x02, Num_Reports, Event_Type (0x00 ADV_IND, 0x03 ADV_NONCONN_IND),
        /// Address_Type, Address (least significant byte first), Data_Length, Data, RSSI.
        static func report(_ device: Device, version: UInt8, rssi: Int8) -> [UInt8] {
            let data = device.advertisingData(version: version)
            let parameters: [UInt8] = [0x02, 0x01, device.isRandom ? 0x03 : 0x00, device.isRandom ? 0x01 : 0x00]
                + device.addressBytes.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
            return [HCI.PacketType.event.rawValue, 0x3E, UInt8(parameters.count)] + parameters
        }

        /// A command as the host sent it (§5.4.1): opcode (OGF << 10 | OCF), length, parameters.
        static func command(ogf: UInt16, ocf: UInt16, _ parameters: [UInt8] = []) -> [UInt8] {
            let opcode = ogf << 10 | ocf
            return [HCI.PacketType.command.rawValue, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
        }

        /// HCI_Command_Complete (§7.7.14) for it: one credit, the opcode, the return parameters.
        static func commandComplete(to command: [UInt8], _ returnParameters: [UInt8] = [0x00]) -> [UInt8] {
            [HCI.PacketType.event.rawValue, 0x0E, UInt8(3 + returnParameters.count), 0x01, command[1], command[2]] + returnParameters
        }

        /// A power-on as BlueZ runs it, which is not Vigil's order, each command with its
        /// answer: Reset (§7.3.2), Read Local Supported Features (§7.4.3), Read Local Version
        /// Information (§7.4.1), Read BD_ADDR (§7.4.6), Read Buffer Size (§7.4.5), Set Event
        /// Mask (§7.3.1), LE Read Buffer Size (§7.8.2), LE Read Local Supported Features
        /// (§7.8.3), LE Set Event Mask (§7.8.1), Write LE Host Support (§7.3.79), LE Set Scan
        /// Parameters (§7.8.10) and LE Set Scan Enable (§7.8.11).
        static let startUp: [(sent: [UInt8], answer: [UInt8])] = {
            let exchanges: [([UInt8], [UInt8])] = [
                (command(ogf: 0x03, ocf: 0x0003), [0x00]),
                (command(ogf: 0x04, ocf: 0x0003), [0x00, 0xFF, 0xFE, 0x8F, 0xFE, 0xD8, 0x3F, 0x5B, 0x87]),
                (command(ogf: 0x04, ocf: 0x0001), [0x00, 0x0B, 0x00, 0x00, 0x0B, 0x1D, 0x00, 0x00, 0x00]),
                (command(ogf: 0x04, ocf: 0x0009), [0x00, 0x0A, 0x51, 0x07, 0xDC, 0x1B, 0x00]),
                (command(ogf: 0x04, ocf: 0x0005), [0x00, 0xFD, 0x03, 0x40, 0x08, 0x00, 0x01, 0x00]),
                (command(ogf: 0x03, ocf: 0x0001, [0xFF, 0xFF, 0xFB, 0xFF, 0x07, 0xF8, 0xBF, 0x3D]), [0x00]),
                (command(ogf: 0x08, ocf: 0x0002), [0x00, 0xFB, 0x00, 0x0F]),
                (command(ogf: 0x08, ocf: 0x0003), [0x00, 0xFF, 0x79, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]),
                (command(ogf: 0x08, ocf: 0x0001, [0x1F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]), [0x00]),
                (command(ogf: 0x03, ocf: 0x006D, [0x01, 0x00]), [0x00]),
                (command(ogf: 0x08, ocf: 0x000B, [0x01, 0x60, 0x00, 0x30, 0x00, 0x00, 0x00]), [0x00]),
                (command(ogf: 0x08, ocf: 0x000C, [0x01, 0x00]), [0x00]),
            ]
            return exchanges.map { (sent: $0.0, answer: commandComplete(to: $0.0, $0.1)) }
        }()

        /// The capture: the start-up exchange if asked for, then `reportCount` reports in an
        /// order every run repeats (a linear congruential walk over the devices).
        static func capture(withStartUp: Bool) -> [UInt8] {
            var w = ByteWriter(capacity: 16 + reportCount * 60)
            w.write(contentsOf: BTSnoop.fileHeader())
            var timestamp = startMicroseconds
            func record(_ packet: [UInt8], _ direction: BTSnoop.Direction) {
                BTSnoop.encode(packet, direction: direction, timestampMicroseconds: timestamp, into: &w)
                timestamp += 250
            }
            if withStartUp {
                for exchange in startUp {
                    record(exchange.sent, .sent)
                    record(exchange.answer, .received)
                }
            }
            var state: UInt32 = 7
            for n in 0..<reportCount {
                state = state &* 1_103_515_245 &+ 12_345
                let device = devices[Int(state >> 16) % deviceCount]
                let version: UInt8 = device.changes && n >= reportCount / 2 ? 2 : 1
                record(report(device, version: version, rssi: -40 - Int8(n % 50)), .received)
            }
            return w.bytes
        }

        /// Runs `vigil ARGUMENTS --hci btsnoop:CAPTURE --state-dir …`, the capture and the state
        /// in a directory of their own.
        static func replay(_ capture: [UInt8], _ arguments: [String]) throws -> ChildProcessResult {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-replay-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("capture.btsnoop").path
            try Data(capture).write(to: URL(fileURLWithPath: path))
            // Generous: a debug build takes a second or two; the timeout only catches a run
            // that does not end by itself.
            return try VigilProcess().run(
                arguments + ["--hci", "btsnoop:\(path)", "--state-dir", directory.appendingPathComponent("state").path],
                timeout: .seconds(120))
        }

        static func scan(_ capture: [UInt8], arguments: [String] = []) throws -> ChildProcessResult {
            try replay(capture, ["scan", "--json"] + arguments)
        }

        @Test func bothCapturesEndAtTheLastRecordAndPrintTheSameDevices() throws {
            var outputs: [String] = []
            for withStartUp in [true, false] {
                let result = try Self.scan(Self.capture(withStartUp: withStartUp))
                let which = withStartUp ? "capture with start-up answers" : "capture taken mid-session"
                try #require(!result.timedOut && result.exitCode == 0, "\(which): \(result.summary)")
                let records = Self.reportCount + (withStartUp ? 2 * Self.startUp.count : 0)
                let packets = Self.reportCount + (withStartUp ? Self.startUp.count : 0)
                #expect(result.stderrText.contains("the capture ended after \(records) records (\(packets) from the controller)"),
                        "\(which): \(result.stderrText.suffix(2_000))")
                #expect(!result.stderrText.contains("did not answer"), "\(which): \(result.stderrText.suffix(2_000))")

                let objects = try result.ndjson()
                // One line when a device is first seen, one more when its data changed.
                #expect(objects.count == Self.deviceCount + Self.devices.filter(\.changes).count, "\(which)")
                for device in Self.devices {
                    let lines = objects.filter { $0.string("address") == device.addressText }
                    #expect(lines.map { $0.string("name") } == Array(repeating: device.name, count: device.changes ? 2 : 1),
                            "\(which): \(device.addressText): \(lines)")
                    #expect(lines.map { $0.object("manufacturerData")?.string("0xFFFF") } == (device.changes ? ["0101", "0102"] : ["0101"]),
                            "\(which): \(device.addressText): \(lines)")
                    #expect(lines.allSatisfy { $0.string("addressType") == (device.isRandom ? "random" : "public") }, "\(which): \(lines)")
                }
                outputs.append(result.stdoutText)
            }
            // Line for line: same devices, same data, same order, same signal strengths.
            #expect(outputs[0] == outputs[1])
        }

        @Test func secondsStillStopsTheReplayEarlier() throws {
            let result = try Self.scan(Self.capture(withStartUp: false), arguments: ["--seconds", "0"])
            try #require(!result.timedOut && result.exitCode == 0, "\(result.summary)")
            // Stopped before the first batch was read: nothing decoded, no end of capture.
            #expect(result.stdoutText.isEmpty)
            #expect(!result.stderrText.contains("the capture ended"), "\(result.stderrText)")
        }

        @Test func theApplianceEndsAtTheLastRecordToo() throws {
            let capture = Self.capture(withStartUp: false)
            let config = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-replay-\(UUID().uuidString).conf")
            try "[face]\nbackend = \"none\"\n\n[[device]]\ntype = \"heart-rate\"\n".write(to: config, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: config) }
            let result = try Self.replay(capture, ["run", "--config", config.path, "--status-socket", ""])
            try #require(!result.timedOut && result.exitCode == 0, "\(result.summary)")
            #expect(result.stderrText.contains("the capture ended after \(Self.reportCount) records"), "\(result.stderrText.suffix(2_000))")
        }

        @Test func gattSaysTheCaptureEndedRatherThanThatItGaveUp() throws {
            // The devices advertise, but the capture holds no connection to any of them.
            let device = Self.devices[1]
            let result = try Self.replay(Self.capture(withStartUp: true), ["gatt", device.addressText, "--timeout", "100"])
            try #require(!result.timedOut, "\(result.summary)")
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("vigil gatt: the capture ended before the database was read"), "\(result.stderrText.suffix(2_000))")
            #expect(!result.stderrText.contains("gave up"), "\(result.stderrText.suffix(2_000))")
        }
    }
}
