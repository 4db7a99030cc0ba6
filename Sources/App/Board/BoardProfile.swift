/// What Vigil knows about one board's GPIO: which chip carries the header's lines, the default
/// lines for the buzzer, the LED and the button, and the lines that are safe to use. Read from
/// a `board/<name>.toml` file; the files are compiled in as
/// `builtInSources`, so the executable needs no data files at run time.
///
/// Line numbers are GPIO line offsets on the chip (on a Raspberry Pi, the BCM GPIO numbers);
/// `headerPin` is the physical pin on the 40-pin header, for people holding a jumper wire.
public struct BoardProfile: Hashable, Sendable {
    /// How to find the GPIO chip. The kernel names chips `gpiochipN` and gives each a label
    /// from its driver; the number can change between kernels (the Pi 5's RP1 was gpiochip4,
    /// then gpiochip0: raspberrypi/linux PR #6144), the label does not.
    public struct ChipSelector: Hashable, Sendable, CustomStringConvertible {
        /// When set, only a chip with exactly this label may be used, whatever its name.
        public var label: String?
        /// Chip names (or `/dev` paths) to try first, in order. With a `label`, a candidate
        /// whose label differs is skipped; without one, the first that opens is used.
        public var candidates: [String]

        public init(label: String?, candidates: [String]) {
            self.label = label
            self.candidates = candidates
        }

        public var description: String {
            let names = candidates.joined(separator: " or ")
            return label.map { "the chip labelled \"\($0)\" (\(names))" } ?? names
        }
    }

    /// One line of the chip.
    public struct Line: Hashable, Sendable, CustomStringConvertible {
        /// The line offset on the chip (BCM GPIO number on a Raspberry Pi).
        public var offset: Int
        /// The physical pin on the header, when the board has a standard one.
        public var headerPin: Int?

        public init(offset: Int, headerPin: Int? = nil) {
            self.offset = offset
            self.headerPin = headerPin
        }

        public var description: String { "GPIO \(offset)" + (headerPin.map { " (pin \($0))" } ?? "") }
    }

    /// `name`: what `board = "..."` in `[face]` says; lowercase letters, digits and hyphens.
    public var name: String
    /// `model`: the board's full name, for logs.
    public var model: String
    /// `chip-label` and `chip-names`.
    public var chip: ChipSelector
    /// `buzzer`, `led`, `button`: the default lines; nil when the configuration must give them.
    public var buzzer: Line?
    public var led: Line?
    public var button: Line?
    /// `safe-lines`: lines no common add-on, bus or firmware function claims. Empty means
    /// unknown (the generic board): no line is then reported as unsafe.
    public var safeLines: [Int]

    public init(
        name: String, model: String, chip: ChipSelector, buzzer: Line? = nil, led: Line? = nil,
        button: Line? = nil, safeLines: [Int] = []
    ) {
        self.name = name
        self.model = model
        self.chip = chip
        self.buzzer = buzzer
        self.led = led
        self.button = button
        self.safeLines = safeLines
    }

    /// True when the profile knows its safe lines and `offset` is not one of them.
    public func isOutsideSafeLines(_ offset: Int) -> Bool {
        !safeLines.isEmpty && !safeLines.contains(offset)
    }

    /// The highest line offset accepted: above every Raspberry Pi chip (the RP1 has 54 lines,
    /// the BCM2711 58) with room for other boards, and low enough to catch a pin number typed
    /// with an extra digit.
    public static let maximumLineOffset = 511

    /// The keys a board file may have, in the order the files write them.
    public static let keys = ["name", "model", "chip-label", "chip-names", "buzzer", "led", "button", "safe-lines"]
    /// The keys of `buzzer = { ... }`, `led` and `button`.
    public static let lineKeys = ["line", "pin"]

    /// The profiles compiled into the executable, parsed. The texts are the files in `board/`
    /// (BoardProfileTests checks both that they are identical and that each parses), so a
    /// failure here is a defect of the build, not of anything a user wrote.
    public static let builtIn: [BoardProfile] = builtInSources.map { source in
        do {
            return try BoardProfile(parsing: source.text)
        } catch {
            fatalError("built-in board profile \(source.name) does not parse: \(error)")
        }
    }

    /// The compiled-in profile called `name`.
    public static func builtIn(named name: String) -> BoardProfile? {
        builtIn.first { $0.name == name }
    }

    /// The names `board = "..."` accepts.
    public static var builtInNames: [String] { builtIn.map(\.name) }
}
