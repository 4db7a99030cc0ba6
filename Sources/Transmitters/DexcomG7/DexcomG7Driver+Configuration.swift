extension DexcomG7Driver {
    /// The registry entry: `dexcom-g7 [NAME] pairing-code=1234 credentials=/etc/vigil/dexcom-g7.pem
    /// [display=phone|watch|receiver|pump] [backfill-hours=3] [calibrate-from-meter=false]
    /// [sensor-days=10|15] [reading-interval=5m]`.
    public static let transmitterType = TransmitterType(
        name: "dexcom-g7",
        summary: "Dexcom G7, ONE+ or Stelo sensor, paired with its 4-digit code (advertised as DXCM…, DX02…, DX01…)",
        declaration: DexcomG7Driver.declaration,
        driver: DexcomG7Driver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> DexcomG7Driver in
        try DexcomG7Driver(configuration)
    }

    /// A continuous glucose sensor whose session lasts 10 days (15 for the 15-day G7) plus the
    /// 12-hour grace period (docs/protocols/dexcom-g7.md §Family and names): "sensor expiring"
    /// warns ahead of the true end, when the sensor stops giving glucose.
    static let declaration = TransmitterDeclaration(category: .continuousGlucose,
                                                    fuzzOptions: ["pairing-code": "1234", "credentials": "fuzz-credentials.pem"],
                                                    fileOptions: ["credentials"]) { options in
        let days = options["sensor-days"].flatMap(Int64.init) == 15 ? 15 : 10
        return .seconds(days * 24 * 3600 + 12 * 3600)
    }

    /// The options this type knows.
    static let knownOptions: Set<String> = ["pairing-code", "credentials", "display", "backfill-hours", "calibrate-from-meter",
                                            "sensor-days", "reading-interval"]

    /// Builds a driver from a configuration line's options and the credentials file it names,
    /// rejecting what cannot work with a message that says what to fix.
    public init(_ configuration: TransmitterConfiguration) throws(TransmitterConfigurationError) {
        try configuration.rejectUnknownOptions(known: Self.knownOptions)
        let options = configuration.options
        guard let code = options["pairing-code"] else {
            throw .invalidOption("pairing-code", value: "", expected: "the 4-digit pairing code printed on the sensor's applicator")
        }
        guard code.utf8.count == 4, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidOption("pairing-code", value: code, expected: "4 digits, as printed on the sensor's applicator")
        }
        guard let path = options["credentials"] else {
            throw .invalidOption("credentials", value: "",
                                 expected: "the path of the Dexcom display credentials file (two certificates and a private key, PEM); Vigil does not ship it: see the README, \"Dexcom G7 credentials\"")
        }
        let credentials: DexcomG7.Credentials
        switch configuration.files["credentials"] {
        case nil:
            throw .invalidOption("credentials", value: path, expected: "a credentials file that was read (none was)")
        case let .unreadable(reason)?:
            throw .invalidOption("credentials", value: path, expected: "a readable credentials file: \(reason)")
        case let .contents(bytes)?:
            do throws(DexcomG7.CredentialsError) {
                credentials = try DexcomG7.Credentials(pem: bytes)
            } catch {
                throw .invalidOption("credentials", value: path, expected: "a usable credentials file: \(error)")
            }
        }
        var display = DexcomG7.DisplayType.phone
        if let text = options["display"] {
            guard let chosen = DexcomG7.DisplayType(name: text) else {
                throw .invalidOption("display", value: text,
                                     expected: "phone (the default, the slot the Dexcom app uses), watch, receiver or pump")
            }
            display = chosen
        }
        var hours = 3
        if let text = options["backfill-hours"] {
            guard let value = Int(text), (0...24).contains(value) else {
                throw .invalidOption("backfill-hours", value: text, expected: "a whole number of hours from 0 to 24")
            }
            hours = value
        }
        var calibrate = false
        switch options["calibrate-from-meter"] {
        case nil, "false", "no", "0": break
        case "true", "yes", "1": calibrate = true
        case let text?: throw .invalidOption("calibrate-from-meter", value: text, expected: "true or false")
        }
        if let text = options["sensor-days"], text != "10", text != "15" {
            throw .invalidOption("sensor-days", value: text, expected: "10 (G7, ONE+, Stelo) or 15 (the 15-day G7)")
        }
        let interval = try configuration.duration("reading-interval", default: .seconds(300))
        guard interval >= .seconds(5), interval <= .seconds(900) else {
            throw .invalidOption("reading-interval", value: options["reading-interval"] ?? "",
                                 expected: "a duration from 5s to 15m (the sensor measures every 5m, the default)")
        }
        self.init(device: configuration.device,
                  configuration: Configuration(pairingCode: code, credentials: credentials, displayType: display, backfillHours: hours,
                                               calibrateFromMeter: calibrate, readingInterval: interval))
    }
}
