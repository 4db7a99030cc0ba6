import Bluetooth
import Foundation
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
        let example = keys(lines[exampleStart...].filter { $0.hasPrefix("# ") }.map { $0.dropFirst(2) })
        #expect(example == VigilConfiguration.deviceKeys)
    }

    @Test func packagedDeviceExampleIsValidWhenUncommented() throws {
        // A parent enables the example by removing "# "; it must then parse as documented.
        var text = ""
        var inExample = false
        for line in try Self.packagedFile.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "# [[device]]" { inExample = true }
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
}
