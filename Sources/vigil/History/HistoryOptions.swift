import App
import ArgumentParser
import Clocks
import History
import Platform

/// Where `vigil export` and `vigil report` find the history and which local time they use:
/// `--database FILE`, else `<--state-dir>/history.sqlite`, else the configuration's state
/// directory (as `vigil run` finds it); `--utc-offset`, else the configuration's `[alarms]`
/// offset, else UTC.
struct HistoryOptions: ParsableArguments {
    @Option(help: "The configuration file (for its state directory and UTC offset).")
    var config: String?

    @Option(name: .customLong("state-dir"), help: "The state directory holding history.sqlite (overrides the configuration's).")
    var stateDirectory: String?

    @Option(help: "The history database file itself (overrides --state-dir).")
    var database: String?

    @Option(name: .customLong("utc-offset"), help: "Local time for dates and report days, as +HH:MM, -HH:MM or Z.")
    var utcOffset: String?

    func validate() throws {
        if let utcOffset, Self.parseOffset(utcOffset) == nil {
            throw ValidationError("--utc-offset must look like +01:00, -05:30 or Z, not \"\(utcOffset)\"")
        }
    }

    /// `+HH:MM`, `-HH:MM`, `+HHMM`, `+HH` or `Z`, within ±18 h (what ISO 8601 offsets can be).
    static func parseOffset(_ text: String) -> Duration? {
        if text == "Z" || text == "z" { return .zero }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits.count == 2 || digits.count == 4,
              text.dropFirst().filter({ $0 == ":" }).count <= (digits.count == 4 ? 1 : 0),
              let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : String(digits.dropFirst(2))),
              hours <= 18, minutes < 60 else { return nil }
        let seconds = Int64(hours * 3600 + minutes * 60)
        return .seconds(sign == "-" ? -seconds : seconds)
    }

    /// The configuration, read only when a path or the offset must come from it. A file named
    /// with --config must exist; the default one is used only if present. A bad file is exit 78.
    private func configuration() throws -> VigilConfiguration? {
        if let config { return try RunCommand.loadConfiguration(config) }
        if FileSystem.exists(path: VigilConfiguration.defaultPath) {
            return try RunCommand.loadConfiguration(VigilConfiguration.defaultPath)
        }
        return nil
    }

    /// The database path and the UTC offset.
    func resolve() throws -> (database: String, utcOffset: Duration) {
        let needsConfiguration = config != nil || (database == nil && stateDirectory == nil) || utcOffset == nil
        let configuration = needsConfiguration ? try self.configuration() : nil
        let path = database ?? ((stateDirectory ?? configuration?.storage.stateDirectory ?? VigilConfiguration.Storage().stateDirectory) + "/history.sqlite")
        let offset = utcOffset.flatMap(Self.parseOffset) ?? configuration?.alarms.utcOffset ?? .zero
        return (path, offset)
    }

    /// Opens an existing history only to read it (never creates one: an export from a wrong
    /// path must say so, not print an empty file; never migrates or moves it aside: the
    /// running appliance may be writing it, and only it decides what to do with a file it
    /// finds corrupt). Exit 1 when it is missing or cannot be opened.
    static func openStore(path: String, command: String) throws -> HistoryStore {
        guard FileSystem.exists(path: path) else {
            StandardError.write("vigil \(command): no history at \(path) (use --state-dir or --database)")
            throw ExitCode(1)
        }
        do {
            return try HistoryStore.openForReading(path: path)
        } catch {
            StandardError.write("vigil \(command): cannot open the history \(path): \(error)")
            throw ExitCode(1)
        }
    }
}
