import Alarms
import Bluetooth
import Foundation
import Readings
import Testing
@testable import App

/// The configuration's defaults, and the packaged `packaging/vigil.conf` that documents them.
@Suite struct VigilConfigurationTests {
    static let knownTypes = ["heart-rate", "dexcom-g6", "miaomiao"]

    @Test func defaults() {
        let config = VigilConfiguration()
        #expect(config.bluetooth.transport == .userChannel(index: 0))
        #expect(config.bluetooth.btsnoopLog == nil)
        #expect(config.bluetooth.scan == .passive)
        #expect(config.bluetooth.staticAddress == nil)
        #expect(config.storage.stateDirectory == "/var/lib/vigil")
        #expect(config.log.level == .info)
        #expect(config.devices.isEmpty)
        #expect(config.face == VigilConfiguration.Face(board: "pi-zero-2w", backend: .gpio))
        #expect(config.alarms.thresholds == .standard && config.alarms.night == nil)
        #expect(config.warnings.isEmpty)
        #expect(VigilConfiguration.defaultPath == "/etc/vigil/vigil.conf")
    }

    @Test func deviceDefaultsAndDisplayName() {
        let device = VigilConfiguration.Device(type: "heart-rate")
        #expect(device.namePrefix == nil && device.address == nil && device.pair == false && device.label == nil)
        #expect(device.options.isEmpty)
        #expect(device.displayName == "heart-rate")
        #expect(VigilConfiguration.Device(type: "heart-rate", label: "Dad").displayName == "Dad")
    }

    @Test func logLevelsOrderBySeverity() {
        typealias L = VigilConfiguration.LogLevel
        #expect(L.allCases == [.debug, .info, .notice, .warning, .error])
        #expect(L.debug < L.info && L.info < L.notice && L.notice < L.warning && L.warning < L.error)
        #expect(!(L.error < L.warning))
    }

    static var packagedFile: String {
        get throws {
            // Tests/AppTests/Config/<this file> -> the repository root.
            let root = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("packaging/vigil.conf"), encoding: .utf8)
        }
    }

    @Test func packagedFileParsesToExactlyTheDefaults() throws {
        let config = try VigilConfiguration(parsing: try Self.packagedFile, knownDeviceTypes: Self.knownTypes)
        #expect(config == VigilConfiguration())
    }

    @Test func packagedFileWritesEveryKeyOnce() throws {
        // "Every key present": the live keys of each section, and the device keys in the example.
        let lines = try Self.packagedFile.split(separator: "\n", omittingEmptySubsequences: false)
        func keys(_ lines: [Substring]) -> [String] {
            lines.compactMap { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                return parts[0].trimmingCharacters(in: .whitespaces)
            }
        }
        let live = keys(lines.filter { !$0.hasPrefix("#") })
        #expect(live == ["hci", "btsnoop-log", "scan", "static-address", "state-dir", "level"])
        let exampleStart = try #require(lines.firstIndex(of: "# [[device]]"))
        let followersStart = try #require(lines.firstIndex { $0.hasPrefix("# Followers:") })
        let example = keys(lines[exampleStart..<followersStart].filter { $0.hasPrefix("# ") }.map { $0.dropFirst(2) })
        #expect(example == VigilConfiguration.deviceKeys)
    }

    /// The follower examples, uncommented, are three followers with every key of their types.
    @Test func packagedFollowerExamplesParse() throws {
        let lines = try Self.packagedFile.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.hasPrefix("# Followers:") })
        let examples = lines[start...].drop { $0 != "# [[device]]" }.map { $0.dropFirst(2) }.joined(separator: "\n")
        let config = try VigilConfiguration(parsing: examples, knownDeviceTypes: Self.knownTypes)
        #expect(config.followers.map(\.source.typeName) == FollowerSource.typeNames)
        // Each key shown (api-secret as the commented alternative to token).
        for key in SchemaReader.followerKeys.values.joined() { #expect(examples.contains("\n\(key) = ") || examples.contains("# \(key) = "), "\(key)") }
    }

    @Test func packagedFileDocumentsEveryDeviceAlarmOption() throws {
        let text = try Self.packagedFile
        let types = ["dexcom", "miaomiao", "bubble", "xbridge", "cgm-service", "glucose-meter", "heart-rate", "bthome", "ruuvi", "sensortag"]
        let keys = Set(types.flatMap { DeviceAlarmOptions.keys(for: $0) })
        #expect(keys.contains("heart-rate-high") && keys.contains("temperature-low"))
        for key in keys.sorted() {
            #expect(text.contains("#   \(key) = "), "\(key) is not documented in packaging/vigil.conf")
        }
    }

    @Test func packagedDeviceExampleIsValidWhenUncommented() throws {
        // A parent enables the example by removing "# "; it must then parse as documented.
        var text = ""
        var inExample = false, followers = false
        for line in try Self.packagedFile.split(separator: "\n", omittingEmptySubsequences: false) {
            // The follower examples after it have their own test.
            if line.hasPrefix("# Followers:") { followers = true }
            inExample = !followers && (inExample || line == "# [[device]]")
            text += (inExample && line.hasPrefix("# ") ? String(line.dropFirst(2)) : String(line)) + "\n"
        }
        let config = try VigilConfiguration(parsing: text, knownDeviceTypes: Self.knownTypes)
        #expect(config.devices.count == 1)
        let device = try #require(config.devices.first)
        #expect(device.type == "heart-rate")
        #expect(device.namePrefix == "Polar")
        #expect(device.address == Address("C0:11:22:33:44:55"))
        #expect(device.pair == false)
        #expect(device.label == "Dad's chest strap")
        #expect(device.options.isEmpty)
        var withoutDevices = config
        withoutDevices.devices = []
        #expect(withoutDevices == VigilConfiguration())
    }

    /// The packaged file with the settings between the line `first` and the line `end`
    /// uncommented: `# [section]` headers and `# key = value` lines lose their "# ", the
    /// explanations (which never start with a lowercase word and " = ") stay comments.
    static func uncommenting(from first: String, to end: String) throws -> (text: String, keys: [String]) {
        var text = ""
        var keys: [String] = []
        var inside = false
        for line in try packagedFile.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == first { inside = true }
            if line == end { inside = false }
            let body = line.dropFirst(2)
            let words = body.split(separator: " ", maxSplits: 2)
            let isKey = words.count >= 2 && words[1] == "=" && words[0].allSatisfy { $0.isLowercase || $0 == "-" }
            let isSetting = line.hasPrefix("# ") && (body.hasPrefix("[") || isKey)
            if inside && isSetting {
                text += body + "\n"
                if let key = body.split(separator: " ").first, !body.hasPrefix("[") { keys.append(String(key)) }
            } else {
                text += line + "\n"
            }
        }
        return (text, keys)
    }

    @Test func packagedFaceAndAlarmsAreTheDefaultsWhenUncommented() throws {
        let (text, keys) = try Self.uncommenting(from: "# [face]", to: "# [alarms.night]")
        #expect(keys == VigilConfiguration.faceKeys + VigilConfiguration.alarmsKeys.filter { $0 != "night" })
        let config = try VigilConfiguration(parsing: text, knownDeviceTypes: Self.knownTypes)
        // The line keys show the Pi boards' defaults, so the face they give is the default one.
        #expect(try config.face.setup() == VigilConfiguration.Face().setup())
        #expect(config.face.board == "pi-zero-2w")
        #expect(config.alarms == VigilConfiguration.Alarms())
        #expect(config.warnings.isEmpty)
    }

    @Test func packagedNightExampleIsValidWhenUncommented() throws {
        let (text, keys) = try Self.uncommenting(from: "# [alarms.night]", to: "# Devices: one [[device]] section per transmitter or monitor. There are none by default.")
        #expect(keys == VigilConfiguration.nightKeys)
        let config = try VigilConfiguration(parsing: text, knownDeviceTypes: Self.knownTypes)
        let night = try #require(config.alarms.night)
        #expect(night.from == TimeOfDay(hour: 22) && night.to == TimeOfDay(hour: 7))
        #expect(night.low == GlucoseConcentration(milligramsPerDeciliter: 65))
        #expect(night.high == GlucoseConcentration(milligramsPerDeciliter: 280))
        #expect(config.alarms.thresholds == .standard)
    }
}
