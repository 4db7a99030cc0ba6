import Testing
@testable import App

/// The style's palettes: readable (WCAG 2.2 contrast), dark for the bedroom, and one dark
/// palette whichever way it was chosen (the system's preference or the page's toggle).
@Suite struct StyleCSSTests {
    let style = Website.Assets.style

    /// The custom properties declared in the block that opens with `selector {`.
    func palette(_ selector: String) -> [String: String] {
        guard let start = style.range(of: selector + " {") else {
            Issue.record("no block \(selector)")
            return [:]
        }
        let block = style[start.upperBound...].prefix { $0 != "}" }
        var colours: [String: String] = [:]
        for declaration in block.split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1).map { $0.trimmingWhitespace() }
            if parts.count == 2, parts[0].hasPrefix("--") { colours[parts[0]] = parts[1] }
        }
        return colours
    }

    var light: [String: String] { palette(":root") }
    var dark: [String: String] { palette(#":root[data-theme="dark"]"#) }

    @Test func theSystemsDarkAndTheTogglesDarkAreOnePalette() {
        #expect(dark.count >= 15)
        #expect(palette(#":root:not([data-theme="light"])"#) == dark)
        #expect(Set(light.keys) == Set(dark.keys))
        #expect(style.contains("@media (prefers-color-scheme: dark)"))
    }

    @Test(arguments: [
        ("--text", "--bg"), ("--text", "--card"), ("--muted", "--bg"), ("--muted", "--card"), ("--low", "--card"),
        ("--low", "--bg"), ("--high", "--card"), ("--ok", "--card"), ("--accent-text", "--accent"),
        ("--fault-text", "--fault-bg"), ("--stale-text", "--stale-bg"), ("--accent", "--card"),
    ])
    func textIsReadableInBothPalettes(_ foreground: String, _ background: String) throws {
        for (name, colours) in [("light", light), ("dark", dark)] where !(name == "dark" && foreground == "--accent") {
            let ratio = try Self.contrast(#require(colours[foreground]), #require(colours[background]))
            #expect(ratio >= 4.5, "\(name) \(foreground) on \(background): \(ratio)")
        }
    }

    @Test func theDarkPaletteHasNoPureWhiteAndIsDark() throws {
        for (property, value) in dark where value.hasPrefix("#") {
            #expect(try Self.luminance(value) < 0.75, "\(property) \(value)")
        }
        #expect(try Self.luminance(#require(dark["--bg"])) < 0.01)
        #expect(!style.lowercased().contains("#fff") && !style.contains("white"))
    }

    @Test func fetchesNothingAndUsesTheSystemsFonts() {
        #expect(!style.contains("@import") && !style.contains("url(") && !style.contains("@font-face"))
        #expect(style.contains("font: 16px/1.4 system-ui"))
    }

    @Test func allTheAssetsStaySmall() {
        let bytes = AssetScan.served.reduce(0) { $0 + $1.1.utf8.count }
        #expect(bytes < 60 * 1024, "\(bytes) bytes")
    }

    // WCAG 2.2 "relative luminance" and "contrast ratio" (its Definitions), for `#rrggbb`.
    static func luminance(_ hex: String) throws -> Double {
        let digits = Array(hex.dropFirst())
        try #require(hex.hasPrefix("#") && digits.count == 6, "\(hex)")
        let channels = try stride(from: 0, to: 6, by: 2).map { index in
            try Double(#require(Int(String(digits[index ..< index + 2]), radix: 16))) / 255
        }
        let linear = channels.map { c in c <= 0.04045 ? c / 12.92 : power24((c + 0.055) / 1.055) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    static func contrast(_ a: String, _ b: String) throws -> Double {
        let (x, y) = try (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// x^2.4 for 0 < x <= 1 without a math library: x² times the fifth root of x², by Newton.
    static func power24(_ x: Double) -> Double {
        let square = x * x
        var root = 1.0
        for _ in 0 ..< 60 { root = (4 * root + square / (root * root * root * root)) / 5 }
        return square * root
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
