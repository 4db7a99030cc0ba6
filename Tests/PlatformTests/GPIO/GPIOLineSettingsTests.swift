import CGPIO
import Testing
@testable import Platform

/// The v2 line request each part of the face sends, checked byte for byte against the uAPI's
/// numbers (include/uapi/linux/gpio.h; docs/gpio-uapi.md) rather than against the header's own
/// names, so a wrong flag or a misplaced attribute shows here, without a chip.
@Suite struct GPIOLineSettingsTests {
    // The uAPI's flag bits, as the kernel defines them.
    static let activeLow: UInt64 = 1 << 1
    static let input: UInt64 = 1 << 2
    static let output: UInt64 = 1 << 3
    static let edgeRising: UInt64 = 1 << 4
    static let edgeFalling: UInt64 = 1 << 5
    static let biasPullUp: UInt64 = 1 << 8
    /// `GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES`.
    static let outputValuesAttribute: UInt32 = 2

    /// A board profile's buzzer and LED: both outputs, requested off; the LED of a board wired
    /// active-low inverts.
    @Test func outputsAreRequestedOffWithTheirLevelInTheRequest() {
        let buzzer = GPIOLineSettings.output(activeLow: false, initiallyOn: false)
        #expect(buzzer.flags == Self.output)
        let request = buzzer.request(offset: 17, consumer: "vigil")
        #expect(request.num_lines == 1)
        #expect(request.offsets.0 == 17)
        #expect(request.offsets.1 == 0)
        #expect(String(nulTerminated: request.consumer) == "vigil")
        #expect(request.config.flags == Self.output)
        #expect(request.config.num_attrs == 1)
        #expect(request.config.attrs.0.attr.id == Self.outputValuesAttribute)
        #expect(request.config.attrs.0.attr.values == 0)
        #expect(request.config.attrs.0.mask == 1)
        #expect(request.event_buffer_size == 0)
        #expect(request.fd == 0)

        let led = GPIOLineSettings.output(activeLow: true, initiallyOn: true).request(offset: 27, consumer: "vigil")
        #expect(led.offsets.0 == 27)
        #expect(led.config.flags == Self.output | Self.activeLow)
        #expect(led.config.attrs.0.attr.values == 1)  // logical on: the kernel drives the pin low
    }

    /// The button: input, both edges, pressed = low with the internal pull-up (every built-in
    /// board profile), and an event queue as deep as one drain reads.
    @Test func buttonAsksForBothEdgesTheBiasAndNoOutputValue() {
        let settings = GPIOLineSettings.button(activeLow: true, pullUp: true)
        #expect(settings.initialOutputValue == nil)
        let request = settings.request(offset: 22, consumer: "vigil")
        #expect(request.offsets.0 == 22)
        #expect(request.config.flags == Self.input | Self.edgeRising | Self.edgeFalling | Self.activeLow | Self.biasPullUp)
        #expect(request.config.num_attrs == 0)
        #expect(request.config.attrs.0.attr.id == 0)
        #expect(request.event_buffer_size == 16)

        // Active-high without a pull: the bias is left as the board has it.
        #expect(GPIOLineSettings.button(activeLow: false, pullUp: false).flags == Self.input | Self.edgeRising | Self.edgeFalling)
    }

    /// The kernel keeps 31 bytes of a consumer name and rejects a request whose padding is not
    /// zero: a long name is cut and terminated, and nothing else is left set.
    @Test func longConsumerIsCutAndEveryOtherByteIsZero() {
        let name = String(repeating: "v", count: 40)
        let request = GPIOLineSettings.button(activeLow: true, pullUp: true).request(offset: 3, consumer: name)
        #expect(String(nulTerminated: request.consumer) == String(repeating: "v", count: 31))
        #expect(withUnsafeBytes(of: request.config.padding) { $0.allSatisfy { $0 == 0 } })
        #expect(withUnsafeBytes(of: request.padding) { $0.allSatisfy { $0 == 0 } })
        #expect(withUnsafeBytes(of: request.config.attrs) { $0.allSatisfy { $0 == 0 } })
        #expect(MemoryLayout<gpio_v2_line_request>.size == 592)
    }
}
