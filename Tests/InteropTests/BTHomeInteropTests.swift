import Foundation
import Testing

extension Interop {
    /// `vigil run` with a `type = "bthome"` device against `Tests/Rigs/bthome_thermometer.py`, a
    /// BTHome v2 fridge thermometer that only broadcasts (plain, or AES-CCM encrypted with a bind
    /// key by Python `cryptography`, independently of Vigil's AES-CCM). Each temperature and
    /// humidity vigil reports must be one of the measurements the rig logged as
    /// `{"sent":"bthome",...}`, in the order the rig advertised them.
    @Suite(bumbleRequired) struct BTHomeInteropTests {
        /// A new measurement every second; vigil runs until it heard several.
        static let every = "1"
        static let seconds = 7
        /// A bind key for the encrypted rig (any 16 bytes: the test shares it with the rig).
        static let key = "231d39c1d7cc1ab1aee224cd096db932"

        static func config(address: String, key: String?) -> String {
            var text = "[[device]]\ntype = \"bthome\"\nlabel = \"fridge\"\naddress = \"\(address)\"\n"
            if let key { text += "key = \"\(key)\"\n" }
            return text
        }

        @Test func plainAdvertisementsGiveTheRigsTemperatureAndHumidity() throws {
            let rig = try Rig.launch("bthome_thermometer.py", arguments: ["--every", Self.every])
            defer { rig.stop() }
            try Self.expectReadingsMatch(rig: rig, key: nil)
        }

        @Test func encryptedAdvertisementsAreDecryptedWithTheConfiguredKey() throws {
            let rig = try Rig.launch("bthome_thermometer.py", arguments: ["--every", Self.every, "--key", Self.key])
            defer { rig.stop() }
            #expect(try rig.info().bool("encrypted") == true)
            try Self.expectReadingsMatch(rig: rig, key: Self.key)
        }

        // MARK: - Comparison with the rig's log

        struct Measurement: Equatable, CustomStringConvertible {
            var celsius: Double
            var humidity: Double
            var description: String { "\(celsius) °C \(humidity) %" }
        }

        static func expectReadingsMatch(rig: Rig, key: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let address = try #require(try rig.info().string("address"))
            // Measurements advertised before the run are still on air when it starts.
            let before = try rig.records().filter { $0.string("sent") == "bthome" }
            let state = try StateDirectory()
            let config = try state.writeConfig(Self.config(address: address, key: key))
            // Several measurements (each advertised many times over its second) and a battery
            // level end the run; `seconds` is the cap.
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: Self.seconds, waitForClientClose: true) { run in
                let readings = run.events(named: "reading").filter { $0.string("address") == address }
                return readings.filter { $0.has("celsius") }.count >= 4 && !run.events(named: "battery").isEmpty
            }
            try run.expectCleanExit(sourceLocation: sourceLocation)

            let sentLines = (before.suffix(1) + run.rigRecords.filter { $0.string("sent") == "bthome" })
            #expect(sentLines.allSatisfy { $0.bool("encrypted") == (key != nil) }, sourceLocation: sourceLocation)
            let sent = sentLines.compactMap { line -> Measurement? in
                guard let celsius = line.double("temperature"), let humidity = line.double("humidity") else { return nil }
                // The rig's values as sent, in 0.01 steps: vigil keeps that resolution.
                return Measurement(celsius: celsius, humidity: humidity)
            }
            // One advertisement carries temperature and humidity (and battery); vigil may
            // report them as one reading event or as one per quantity, so pair them up in order.
            let readings = run.events(named: "reading").filter { $0.string("address") == address }
            var reported: [Measurement] = []
            var pendingCelsius: Double?
            var pendingHumidity: Double?
            for reading in readings {
                if let celsius = reading.double("celsius") { pendingCelsius = celsius }
                if let humidity = reading.double("humidity") { pendingHumidity = humidity }
                if let celsius = pendingCelsius, let humidity = pendingHumidity {
                    reported.append(Measurement(celsius: celsius, humidity: humidity))
                    pendingCelsius = nil
                    pendingHumidity = nil
                }
            }
            try #require(!reported.isEmpty, "no temperature + humidity readings from \(address)\n\(run.diagnostics)",
                         sourceLocation: sourceLocation)

            // Each reported measurement equals a sent one, never going back in the rig's order
            // (an advertisement is heard many times, so repeats of the same one are fine).
            // Exactly: the rig logs centi-values / 100 and vigil divides the wire integer by 100,
            // both the Double nearest the decimal, which JSON carries in its shortest form.
            func matches(_ a: Measurement, _ b: Measurement) -> Bool { a == b }
            var cursor = 0
            var matched = Set<Int>()
            for measurement in reported {
                guard let index = sent[cursor...].firstIndex(where: { matches($0, measurement) }) else {
                    Issue.record("vigil reported \(measurement), not among the rig's \(Array(sent[cursor...]))",
                                 sourceLocation: sourceLocation)
                    break
                }
                cursor = index
                matched.insert(index)
            }
            // Each advertisement repeats its packet id; a measurement is reported once.
            #expect(reported.count == matched.count, "repeated measurements in \(reported)", sourceLocation: sourceLocation)
            // Battery as advertised.
            let batteries = Set(sentLines.compactMap { $0.int("battery") })
            let battery = run.events(named: "battery").filter { $0.string("address") == address }
            #expect(!battery.isEmpty && battery.allSatisfy { $0.int("percent").map(batteries.contains) == true },
                    "battery \(battery) vs sent \(batteries.sorted())", sourceLocation: sourceLocation)
            // Vigil heard every measurement from its start to its last report, none missed between.
            // The rig's log runs on until it sees the client close, and on a loaded machine it
            // advertises two or three more after Vigil stopped listening: those are not counted
            // (comparing with the log's length failed on them), but a gap in the middle is.
            if let first = matched.min(), let last = matched.max() {
                #expect(first <= 2, "vigil's first measurement is the rig's \(first + 1)th\n\(reported)\n\(sent)", sourceLocation: sourceLocation)
                #expect(matched.count == last - first + 1,
                        "vigil missed measurements between: heard \(matched.sorted()) of the rig's \(sent.count)\n\(reported)\n\(sent)",
                        sourceLocation: sourceLocation)
            }
        }
    }
}
