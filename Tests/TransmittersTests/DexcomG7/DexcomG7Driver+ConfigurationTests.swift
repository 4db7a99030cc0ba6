import Testing
@testable import Transmitters

/// A `dexcom-g7` configuration line: what makes a driver, and what is refused with what to fix.
struct DexcomG7DriverConfigurationTests {
    static let pem = Array([DexcomG7CredentialFixtures.leafKeyPKCS8, DexcomG7CredentialFixtures.leaf, DexcomG7CredentialFixtures.intermediate]
        .joined(separator: "\n").utf8)

    static func configuration(_ options: [String: String], file: AttachedFile? = .contents(pem)) -> TransmitterConfiguration {
        TransmitterConfiguration(typeName: "dexcom-g7", device: "g7", options: options, files: file.map { ["credentials": $0] } ?? [:])
    }

    static let good = ["pairing-code": "0427", "credentials": "/etc/vigil/dexcom-g7.pem"]

    @Test func aGoodLineMakesADriver() throws {
        let driver = try DexcomG7Driver(Self.configuration(Self.good.merging(["display": "watch", "backfill-hours": "6", "reading-interval": "5s"]) { $1 }))
        #expect(driver.configuration.pairingCode == "0427")
        #expect(driver.configuration.displayType == .watch)
        #expect(driver.configuration.backfillHours == 6)
        #expect(driver.configuration.readingInterval == .seconds(5))
        #expect(driver.configuration.credentials.certificates.count == 2)
        #expect(!driver.configuration.calibrateFromMeter)
    }

    @Test(arguments: [
        (["credentials": "/x.pem"], "pairing-code", "the 4-digit pairing code"),
        (["pairing-code": "123", "credentials": "/x.pem"], "pairing-code", "4 digits"),
        (["pairing-code": "12a4", "credentials": "/x.pem"], "pairing-code", "4 digits"),
        (["pairing-code": "1234"], "credentials", "Vigil does not ship it"),
        (["pairing-code": "1234", "credentials": "/x.pem", "display": "tablet"], "display", "phone (the default"),
        (["pairing-code": "1234", "credentials": "/x.pem", "sensor-days": "14"], "sensor-days", "10 (G7, ONE+, Stelo) or 15"),
        (["pairing-code": "1234", "credentials": "/x.pem", "backfill-hours": "25"], "backfill-hours", "0 to 24"),
        (["pairing-code": "1234", "credentials": "/x.pem", "calibrate-from-meter": "maybe"], "calibrate-from-meter", "true or false"),
    ])
    func aBadOptionIsRefusedWithWhatToFix(_ options: [String: String], _ key: String, _ words: String) {
        #expect {
            _ = try DexcomG7Driver(Self.configuration(options))
        } throws: { error in
            guard case let .invalidOption(option, _, expected) = error as? TransmitterConfigurationError else { return false }
            return option == key && expected.contains(words)
        }
    }

    @Test func anUnknownOptionIsRefused() {
        #expect(throws: TransmitterConfigurationError.unknownOption("transmitter-id", type: "dexcom-g7")) {
            _ = try DexcomG7Driver(Self.configuration(Self.good.merging(["transmitter-id": "8112AB"]) { $1 }))
        }
    }

    @Test func theCredentialsFileMustBeReadAndUsable() {
        func refusal(_ file: AttachedFile?) -> String? {
            do {
                _ = try DexcomG7Driver(Self.configuration(Self.good, file: file))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(nil)?.contains("none was") == true)
        #expect(refusal(.unreadable(reason: "Permission denied"))?.contains("Permission denied") == true)
        #expect(refusal(.contents(Array(DexcomG7CredentialFixtures.leaf.utf8)))?.contains("a usable credentials file") == true)
    }

    @Test func theSensorLifeIsTenOrFifteenDaysPlusTheGracePeriod() {
        let declaration = DexcomG7Driver.declaration
        #expect(declaration.defaultSensorLife(options: [:]) == .seconds(10 * 86_400 + 12 * 3_600))
        #expect(declaration.defaultSensorLife(options: ["sensor-days": "15"]) == .seconds(15 * 86_400 + 12 * 3_600))
        #expect(declaration.fileOptions == ["credentials"])
    }
}
