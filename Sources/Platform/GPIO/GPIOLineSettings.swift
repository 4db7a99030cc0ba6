import CGPIO

/// How one line is requested through the kernel's GPIO uAPI v2: the flags and the initial
/// output value of its `struct gpio_v2_line_request` (docs/gpio-uapi.md, "The v2 structures
/// Vigil uses"). Pure, so the encoding is tested without a chip; `GPIOChip` hands the request
/// to GPIO_V2_GET_LINE_IOCTL.
struct GPIOLineSettings: Equatable, Sendable {
    enum Direction: Equatable, Sendable {
        /// Driven by Vigil, at `initiallyOn` from the request on (no glitch the other way first).
        case output(initiallyOn: Bool)
        /// Read by Vigil, with an event for each edge of the logical level, both directions.
        case inputWithBothEdges
    }

    var direction: Direction
    /// The line's logical "on" is the low level: the kernel inverts values and edges.
    var activeLow: Bool
    /// Asks the pin controller for its internal pull-up; otherwise the bias is left as it is.
    var pullUp: Bool

    /// A buzzer or LED.
    static func output(activeLow: Bool, initiallyOn: Bool) -> GPIOLineSettings {
        GPIOLineSettings(direction: .output(initiallyOn: initiallyOn), activeLow: activeLow, pullUp: false)
    }

    /// A button.
    static func button(activeLow: Bool, pullUp: Bool) -> GPIOLineSettings {
        GPIOLineSettings(direction: .inputWithBothEdges, activeLow: activeLow, pullUp: pullUp)
    }

    /// `gpio_v2_line_config.flags`: the `GPIO_V2_LINE_FLAG_*` bits, the same for every line of
    /// the request (Vigil requests one line per request). Events are timed on CLOCK_MONOTONIC,
    /// the v2 default (no `EVENT_CLOCK_*` flag).
    var flags: UInt64 {
        var flags: UInt64 = 0
        switch direction {
        case .output: flags |= Self.flag(GPIO_V2_LINE_FLAG_OUTPUT)
        case .inputWithBothEdges:
            flags |= Self.flag(GPIO_V2_LINE_FLAG_INPUT) | Self.flag(GPIO_V2_LINE_FLAG_EDGE_RISING)
                | Self.flag(GPIO_V2_LINE_FLAG_EDGE_FALLING)
        }
        if activeLow { flags |= Self.flag(GPIO_V2_LINE_FLAG_ACTIVE_LOW) }
        if pullUp { flags |= Self.flag(GPIO_V2_LINE_FLAG_BIAS_PULL_UP) }
        return flags
    }

    /// The OUTPUT_VALUES attribute's value for an output (logical: 1 is "on"); nil for an input.
    var initialOutputValue: Int32? {
        guard case let .output(initiallyOn) = direction else { return nil }
        return initiallyOn ? 1 : 0
    }

    /// The kernel's event queue for the request, in events: what one drain of `GPIOButton` reads.
    /// Zero would mean the kernel's default, 16 per line; said outright so the two stay equal.
    static let eventBufferSize = UInt32(GPIOButton.eventsPerRead)

    /// The whole request for line `offset` under `consumer` (the name `gpioinfo` and a busy
    /// error show; the kernel keeps at most 31 bytes of it).
    func request(offset: Int, consumer: String) -> gpio_v2_line_request {
        var request = gpio_v2_line_request()
        vigil_gpio_line_request_init(&request, UInt32(offset), consumer, flags, initialOutputValue ?? -1,
                                     direction == .inputWithBothEdges ? Self.eventBufferSize : 0)
        return request
    }

    private static func flag(_ flag: gpio_v2_line_flag) -> UInt64 { UInt64(flag.rawValue) }
}
