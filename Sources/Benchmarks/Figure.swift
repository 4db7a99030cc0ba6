/// One measured figure and its verdict against the target, for the summary table.
///
/// A figure that could not be measured (a tool missing, the binary not built) is `.skipped`
/// with the reason: the summary must never show a number that was not measured.
struct Figure {
    enum Verdict: Equatable {
        case pass
        case fail
        /// Printed for information only (reference figures from other tools).
        case info
        case skipped(reason: String)

        var word: String {
            switch self {
            case .pass: "PASS"
            case .fail: "FAIL"
            case .info: "info"
            case .skipped: "SKIP"
            }
        }
    }

    var name: String
    var value: String
    var target: String
    var verdict: Verdict

    static func checked(_ name: String, _ value: String, target: String, passes: Bool) -> Figure {
        Figure(name: name, value: value, target: target, verdict: passes ? .pass : .fail)
    }

    static func info(_ name: String, _ value: String) -> Figure {
        Figure(name: name, value: value, target: "-", verdict: .info)
    }

    static func skipped(_ name: String, target: String = "-", reason: String) -> Figure {
        Figure(name: name, value: "not measured", target: target, verdict: .skipped(reason: reason))
    }

    /// One tab-separated line, for a child benchmark process to hand its figures to the parent.
    var record: String {
        let reason: String = if case .skipped(let r) = verdict { r } else { "" }
        return [name, value, target, verdict.word, reason]
            .map { String($0.map { $0 == "\t" || $0 == "\n" ? " " : $0 }) }
            .joined(separator: "\t")
    }

    init(name: String, value: String, target: String, verdict: Verdict) {
        self.name = name
        self.value = value
        self.target = target
        self.verdict = verdict
    }

    init?(record: Substring) {
        let f = record.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard f.count == 5 else { return nil }
        let verdict: Verdict = switch f[3] {
        case "PASS": .pass
        case "FAIL": .fail
        case "info": .info
        default: .skipped(reason: f[4])
        }
        self.init(name: f[0], value: f[1], target: f[2], verdict: verdict)
    }

    /// The line printed as soon as the figure is known.
    var line: String {
        if case .skipped(let reason) = verdict { return "  \(name): SKIP (\(reason))" }
        if verdict == .info { return "  \(name): \(value)" }
        return "  \(name): \(value) (target \(target)) \(verdict.word)"
    }
}

enum Summary {
    /// Prints an aligned table of every figure; returns false if any checked figure failed.
    static func printTable(_ figures: [Figure]) -> Bool {
        let headers = ["figure", "measured", "target", "result"]
        let rows = figures.map { [$0.name, $0.value, $0.target, $0.verdict.word] }
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in c + String(repeating: " ", count: widths[i] - c.count) }
                .joined(separator: "  ")
        }
        print("")
        print("== summary")
        print(render(headers))
        print(render(widths.map { String(repeating: "-", count: $0) }))
        for row in rows { print(render(row)) }
        for figure in figures {
            if case .skipped(let reason) = figure.verdict { print("skipped \(figure.name): \(reason)") }
        }
        return !figures.contains { $0.verdict == .fail }
    }
}

/// Number formatting without Foundation (the benchmark stays as small as the appliance).
enum Format {
    /// `5234123` -> `5,234,123`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return value < 0 ? "-" + out : out
    }

    /// Fixed-point with `places` decimals, rounded half away from zero.
    static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        let f = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: places - f.count) + f
    }

    static func megabytes(_ bytes: Int) -> String { fixed(Double(bytes) / 1_048_576, places: 2) + " MiB" }

    static func seconds(_ d: Duration) -> String { fixed(d.seconds, places: 3) + " s" }
}
