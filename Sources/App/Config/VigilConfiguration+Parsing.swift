import Bluetooth

extension VigilConfiguration {
    /// The sections the file may have, in the order the packaged file lists them.
    static let sectionKeys: [(section: String, keys: [String])] = [
        ("bluetooth", ["hci", "btsnoop-log", "scan", "static-address"]),
        ("storage", ["state-dir"]),
        ("log", ["level"]),
        ("export", ["serial", "usb"]),
        ("status", ["socket"]),
        ("network", ["ca-file"]),
        ("face", faceKeys),
        ("alarms", alarmsKeys),
        ("web", webKeys),
        ("nightscout", nightscoutKeys),
        ("device", deviceKeys),
    ]

    /// The `[[device]]` keys every type shares; any other key goes to `Device.options`.
    public static let deviceKeys = ["type", "name", "address", "pair", "label"]

    /// Parses and validates the whole file: a complete configuration, or every error found
    /// (syntax errors alone if the TOML itself is broken, since schema errors about a
    /// half-read file would mislead). `knownDeviceTypes` are the transmitter type names the
    /// registry offers; `[[device]] type` must be one of them.
    public init(parsing text: String, knownDeviceTypes: [String]) throws(ConfigurationErrors) {
        try self.init(reading: TOML.parseForConfiguration(text), knownDeviceTypes: knownDeviceTypes)
    }

    /// Validates a parsed file against the schema: a complete configuration, or every error
    /// found. `init(parsing:knownDeviceTypes:)` is this after `TOML.parse`; the fuzz target
    /// parses once and reads the one table as both a configuration and a board file.
    public init(reading root: TOML.Table, knownDeviceTypes: [String]) throws(ConfigurationErrors) {
        var reader = SchemaReader(knownDeviceTypes: knownDeviceTypes)
        self = reader.read(root)
        if !reader.errors.isEmpty {
            throw ConfigurationErrors(reader.errors.sorted { $0.position < $1.position })
        }
    }
}

/// Walks the TOML tree against the schema, collecting every error rather than stopping at
/// the first, so one edit-and-retry round fixes them all.
struct SchemaReader {
    let knownDeviceTypes: [String]
    var errors: [ConfigurationError] = []
    var warnings: [ConfigurationError] = []

    /// The follower types are always known: they are Vigil's own, not the transmitter registry's.
    init(knownDeviceTypes: [String]) {
        self.knownDeviceTypes = knownDeviceTypes + FollowerSource.typeNames.filter { !knownDeviceTypes.contains($0) }
    }

    mutating func read(_ root: TOML.Table) -> VigilConfiguration {
        var config = VigilConfiguration()
        let sectionNames = VigilConfiguration.sectionKeys.map(\.section)
        for entry in root.entries {
            switch entry.key {
            case "bluetooth":
                if let table = sectionTable(entry) { config.bluetooth = readBluetooth(table) }
            case "storage":
                if let table = sectionTable(entry) { config.storage = readStorage(table) }
            case "log":
                if let table = sectionTable(entry) { config.log = readLog(table) }
            case "export":
                if let table = sectionTable(entry) { config.export = readExport(table) }
            case "status":
                if let table = sectionTable(entry) { config.status = readStatus(table) }
            case "network":
                if let table = sectionTable(entry) { config.network = readNetwork(table) }
            case "face":
                if let table = sectionTable(entry) { config.face = readFace(table, at: entry.value.position) }
            case "alarms":
                if let table = sectionTable(entry) { config.alarms = readAlarms(table) }
            case "web":
                if let table = sectionTable(entry) { config.web = readWeb(table, at: entry.value.position) }
            case "nightscout":
                if let table = sectionTable(entry) { config.nightscout = readNightscout(table, at: entry.value.position) }
            case "device":
                config.devices = readDevices(entry)
            default:
                if entry.value.type == .table {
                    let hint = Spelling.closest(to: entry.key, among: sectionNames).map(ConfigurationError.Hint.didYouMean)
                    fail(.unknownSection(name: entry.key, hint: hint), at: entry.keyPosition)
                } else {
                    // A key above the first header: say where it belongs if it is a real key.
                    let home = VigilConfiguration.sectionKeys.first { $0.keys.contains(entry.key) }?.section
                    let hint = home.map { ConfigurationError.Hint.belongsIn(section: $0 == "device" ? "[[device]]" : "[\($0)]") }
                    fail(.unknownKey(key: entry.key, section: "", hint: hint), at: entry.keyPosition)
                }
            }
        }
        checkDistinctAddresses(config.devices)
        config.warnings = warnings.sorted { $0.position < $1.position }
        return config
    }

    // MARK: Sections

    mutating func sectionTable(_ entry: TOML.Table.Entry) -> TOML.Table? {
        guard let table = entry.value.table else {
            let expected = entry.value.type == .array
                ? "a single table [\(entry.key)], not [[\(entry.key)]]"
                : "a table: write [\(entry.key)] on its own line with the keys below it"
            fail(.wrongType(key: entry.key, section: "", expected: expected, found: entry.value.type), at: entry.keyPosition)
            return nil
        }
        let keys = VigilConfiguration.sectionKeys.first { $0.section == entry.key }!.keys
        for unknown in table.entries where !keys.contains(unknown.key) {
            let hint = Spelling.closest(to: unknown.key, among: keys).map(ConfigurationError.Hint.didYouMean)
            fail(.unknownKey(key: unknown.key, section: "[\(entry.key)]", hint: hint), at: unknown.keyPosition)
        }
        return table
    }

    private mutating func readBluetooth(_ table: TOML.Table) -> VigilConfiguration.Bluetooth {
        var bluetooth = VigilConfiguration.Bluetooth()
        let section = "[bluetooth]"
        if let (text, value) = string("hci", in: table, section) {
            do throws(VigilConfiguration.Transport.ParseError) {
                bluetooth.transport = try VigilConfiguration.Transport(parsing: text)
            } catch {
                fail(.invalidValue(key: "hci", section: section, reason: error.description), at: value.position)
            }
        }
        if let (text, value) = string("btsnoop-log", in: table, section), !text.isEmpty {
            bluetooth.btsnoopLog = absolutePath(text, key: "btsnoop-log", section, at: value.position)
        }
        if let scan = choice("scan", VigilConfiguration.ScanMode.self, in: table, section) { bluetooth.scan = scan }
        if let (text, value) = string("static-address", in: table, section), !text.isEmpty {
            bluetooth.staticAddress = staticAddress(text, at: value.position)
        }
        return bluetooth
    }

    private mutating func readStorage(_ table: TOML.Table) -> VigilConfiguration.Storage {
        var storage = VigilConfiguration.Storage()
        if let (text, value) = string("state-dir", in: table, "[storage]"),
            let path = absolutePath(text, key: "state-dir", "[storage]", at: value.position)
        {
            storage.stateDirectory = path
        }
        return storage
    }

    private mutating func readExport(_ table: TOML.Table) -> VigilConfiguration.Export {
        var export = VigilConfiguration.Export()
        if let (text, value) = string("serial", in: table, "[export]") {
            if text.isEmpty {
                export.serialPort = nil
            } else {
                let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
                if let path = absolutePath(parts[0], key: "serial", "[export]", at: value.position) { export.serialPort = path }
                if parts.count == 2 {
                    if let baud = Int(parts[1]), baud > 0 {
                        export.serialBaud = baud
                    } else {
                        fail(.invalidValue(key: "serial", section: "[export]", reason: "the speed after @ must be a whole number of baud, as in \"/dev/ttyGS0@115200\""), at: value.position)
                    }
                }
            }
        }
        if let (text, value) = string("usb", in: table, "[export]") {
            export.usbMountPoint = text.isEmpty ? nil : absolutePath(text, key: "usb", "[export]", at: value.position)
        }
        return export
    }

    private mutating func readStatus(_ table: TOML.Table) -> VigilConfiguration.Status {
        var status = VigilConfiguration.Status()
        if let (text, value) = string("socket", in: table, "[status]") {
            status.socketPath = text.isEmpty ? nil : absolutePath(text, key: "socket", "[status]", at: value.position)
        }
        return status
    }

    private mutating func readNetwork(_ table: TOML.Table) -> VigilConfiguration.Network {
        var network = VigilConfiguration.Network()
        if let (text, value) = string("ca-file", in: table, "[network]"), !text.isEmpty {
            network.caFile = text
            network.caFilePosition = value.position
        }
        return network
    }

    private mutating func readLog(_ table: TOML.Table) -> VigilConfiguration.Log {
        var log = VigilConfiguration.Log()
        if let level = choice("level", VigilConfiguration.LogLevel.self, in: table, "[log]") { log.level = level }
        return log
    }

    // MARK: Devices

    private mutating func readDevices(_ entry: TOML.Table.Entry) -> [VigilConfiguration.Device] {
        // `[[device]]` and `device = [{...}, {...}]` are the same data in TOML; accept both.
        guard let elements = entry.value.array, elements.allSatisfy({ $0.type == .table }) else {
            let expected = entry.value.type == .table
                ? "an array of tables: write [[device]] (double brackets), not [device]"
                : "an array of tables: one [[device]] section per device"
            fail(.wrongType(key: "device", section: "", expected: expected, found: entry.value.type), at: entry.keyPosition)
            return []
        }
        return elements.compactMap { readDevice($0.table!, at: $0.position) }
    }

    private mutating func readDevice(_ table: TOML.Table, at position: TOML.Position) -> VigilConfiguration.Device? {
        let section = "[[device]]"
        let errorsBefore = errors.count
        var device = VigilConfiguration.Device(type: "", position: position)
        if let (name, value) = string("type", in: table, section) {
            if knownDeviceTypes.contains(name) {
                device.type = name
            } else {
                let hint = Spelling.closest(to: name, among: knownDeviceTypes).map(ConfigurationError.Hint.didYouMean)
                fail(.unknownDeviceType(name: name, known: knownDeviceTypes, hint: hint), at: value.position)
            }
        } else if table["type"] == nil {
            fail(.missingKey(key: "type", section: section), at: position)
        }
        if let (text, _) = string("name", in: table, section), !text.isEmpty { device.namePrefix = text }
        if let (text, value) = string("address", in: table, section), !text.isEmpty {
            if let address = Address(text) {
                device.address = address
            } else {
                fail(.invalidValue(key: "address", section: section,
                                   reason: "\(TOML.quoted(text)) is not a Bluetooth address like \"C0:11:22:33:44:55\""),
                     at: value.position)
            }
        }
        if let pair = table["pair"] {
            if let flag = pair.boolean {
                device.pair = flag
            } else {
                fail(.wrongType(key: "pair", section: section, expected: "a boolean (true or false)", found: pair.type), at: pair.position)
            }
        }
        if let (text, _) = string("label", in: table, section), !text.isEmpty { device.label = text }
        let followerKeys = Self.followerKeys[device.type] ?? []
        for entry in table.entries where !VigilConfiguration.deviceKeys.contains(entry.key) && !followerKeys.contains(entry.key) {
            // The type validates its own keys later, but a near miss of a shared key is a typo
            // now: `adress` would otherwise be silently ignored and match every device.
            if let near = VigilConfiguration.deviceKeys.first(where: { isTypo(entry.key, of: $0) }) {
                fail(.unknownKey(key: entry.key, section: section, hint: .didYouMean(near)), at: entry.keyPosition)
            } else {
                device.options[entry.key] = entry.value
                device.optionKeyPositions[entry.key] = entry.keyPosition
            }
        }
        if FollowerSource.typeNames.contains(device.type) { readFollower(&device, table, at: position) }
        return errors.count == errorsBefore ? device : nil
    }

    /// Stricter than `Spelling.closest`, because a per-type key may legitimately resemble a
    /// shared one: one edit for short keys, two for keys of six letters or more.
    private func isTypo(_ key: String, of known: String) -> Bool {
        let d = Spelling.distance(key, known)
        return d > 0 && d <= (known.count >= 6 ? 2 : 1)
    }

    /// Two devices on one address would fight over one connection.
    private mutating func checkDistinctAddresses(_ devices: [VigilConfiguration.Device]) {
        var seen: [Address: TOML.Position] = [:]
        for device in devices {
            guard let address = device.address else { continue }
            if let first = seen[address] {
                fail(.invalidValue(key: "address", section: "[[device]]",
                                   reason: "\(address) is already used by the device on line \(first.line)"),
                     at: device.position)
            } else {
                seen[address] = device.position
            }
        }
    }

    // MARK: Values

    mutating func string(_ key: String, in table: TOML.Table, _ section: String) -> (String, TOML.Value)? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            fail(.wrongType(key: key, section: section, expected: "a string (in quotes)", found: value.type), at: value.position)
            return nil
        }
        return (text, value)
    }

    mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String, _: Choice.Type, in table: TOML.Table, _ section: String
    ) -> Choice? where Choice.RawValue == String {
        guard let (text, value) = string(key, in: table, section) else { return nil }
        if let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map(\.rawValue)
        let hint = Spelling.closest(to: text, among: names).map { " (did you mean \(TOML.quoted($0))?)" } ?? ""
        fail(.invalidValue(key: key, section: section,
                           reason: "\(TOML.quoted(text)) is not one of \(names.joined(separator: ", "))\(hint)"),
             at: value.position)
        return nil
    }

    /// A daemon's working directory is `/`, so a relative path would silently land there.
    private mutating func absolutePath(_ text: String, key: String, _ section: String, at position: TOML.Position) -> String? {
        guard text.hasPrefix("/") else {
            let reason = text.isEmpty ? "must not be empty" : "path \(TOML.quoted(text)) must be absolute (start with /)"
            fail(.invalidValue(key: key, section: section, reason: reason), at: position)
            return nil
        }
        return text
    }

    /// A random static address: top two bits 1, and the other 46 bits neither all 0 nor all 1
    /// (Core v5.4 Vol 6 Part B §1.3.2.1).
    private mutating func staticAddress(_ text: String, at position: TOML.Position) -> Address? {
        let reason: String
        if let address = Address(text) {
            let random = address.value & 0x3FFF_FFFF_FFFF
            if !address.isRandomStatic {
                reason = "\(address) is not a random static address (the first digit must be C, D, E or F)"
            } else if random == 0 || random == 0x3FFF_FFFF_FFFF {
                reason = "\(address) is not usable: the bits after the first two must not be all 0 or all 1"
            } else {
                return address
            }
        } else {
            reason = "\(TOML.quoted(text)) is not a Bluetooth address like \"C0:11:22:33:44:55\" (or \"\" to generate one)"
        }
        fail(.invalidValue(key: "static-address", section: "[bluetooth]", reason: reason), at: position)
        return nil
    }

    mutating func fail(_ problem: ConfigurationError.Problem, at position: TOML.Position) {
        errors.append(ConfigurationError(problem, at: position))
    }
}
