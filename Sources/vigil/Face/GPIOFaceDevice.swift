import Alarms
import App
import Clocks
import Platform

/// The face on real lines through the kernel's GPIO character device (v2): the buzzer and LED as
/// outputs, the button as an input with edge events on the run loop (no polling), all released
/// on `close()`. A part whose line cannot be had is left out and stays in `failure`: the parts
/// that work are used, so a busy button line cannot silence a working buzzer.
///
/// `apply` never throws: the alarm loop must go on whatever a line does. A failed write is
/// logged at error level once per distinct failure (a pulsing buzzer would otherwise log ten
/// lines a second) and kept in `failure`, so the session can raise an appliance fault: the
/// one thing worse than a broken buzzer is a broken buzzer nobody hears about.
final class GPIOFaceDevice: FaceDevice {
    static let consumer = "vigil"

    let name: String
    private let chip: GPIOChip
    private let buzzer: GPIOOutput?
    /// Set for a passive buzzer: it owns `buzzer` and toggles it at the tone.
    private let tone: ToneGenerator?
    /// A passive buzzer's configured tone; nil: the tone each output asks for.
    private let fixedToneHertz: Int?
    private let led: GPIOOutput?
    private var button: GPIOButton?
    private let logger: Logger
    /// The parts, in the order `failure` and the log name them.
    private static let parts = ["buzzer", "LED", "button"]
    /// The current failure of each part, by part (one of `parts`).
    private var failures: [String: String] = [:]
    private var closed = false

    private init(name: String, chip: GPIOChip, buzzer: GPIOOutput?, tone: ToneGenerator?, fixedToneHertz: Int?,
                 led: GPIOOutput?, button: GPIOButton?, failures: [String: String], logger: Logger) {
        self.name = name
        self.chip = chip
        self.buzzer = buzzer
        self.tone = tone
        self.fixedToneHertz = fixedToneHertz
        self.led = led
        self.button = button
        self.failures = failures
        self.logger = logger
    }

    deinit { close() }

    /// Opens the board's chip and requests the three lines: buzzer and LED as outputs (off,
    /// honouring active-low), the button with the internal pull-up, pressed = low, both edges.
    /// A line that cannot be requested (another program holds it, a HAT's driver claimed it)
    /// is logged and left out, its part failing, as long as the buzzer or the LED opened: the
    /// whole face used to go with it, and the alarms with no sound or light at all. Throws
    /// when the chip cannot be opened or neither output can (the chip's close releases any
    /// line requested before).
    static func open(_ lines: FaceSetup.GPIOLines, drive: FaceSetup.BuzzerDrive, logger: Logger) throws(GPIOError) -> GPIOFaceDevice {
        let chip = try GPIOChip.open(GPIOChipSelector(candidates: lines.chip.candidates, label: lines.chip.label))
        var failures: [String: String] = [:]
        var firstError: GPIOError?
        func request<Line>(_ part: String, _ make: () throws(GPIOError) -> Line) -> Line? {
            do throws(GPIOError) {
                return try make()
            } catch {
                failures[part] = "\(error)"
                firstError = firstError ?? error
                return nil
            }
        }
        let buzzer = request("buzzer") { () throws(GPIOError) in
            try chip.requestOutput(offset: lines.buzzer.offset, consumer: consumer, activeLow: lines.buzzer.activeLow, initiallyOn: false)
        }
        let led = request("LED") { () throws(GPIOError) in
            try chip.requestOutput(offset: lines.led.offset, consumer: consumer, activeLow: lines.led.activeLow, initiallyOn: false)
        }
        let button = request("button") { () throws(GPIOError) in
            try chip.requestButton(offset: lines.button, consumer: consumer, activeLow: true, pullUp: true)
        }
        if buzzer == nil, led == nil, let firstError {
            chip.close()
            throw firstError
        }
        var tone: ToneGenerator?
        var fixedTone: Int?
        if let buzzer, case let .passive(toneHertz) = drive {
            tone = ToneGenerator(output: buzzer)
            fixedTone = toneHertz
        }
        let label = chip.label.isEmpty ? "" : " (\(chip.label))"
        let name = "gpio \(chip.name)\(label) buzzer \(lines.buzzer.offset) led \(lines.led.offset) button \(lines.button)"
        for part in parts {
            guard let failure = failures[part] else { continue }
            logger.log(.error, "face \(part): \(failure); \(name) runs without it")
        }
        return GPIOFaceDevice(name: name, chip: chip, buzzer: buzzer, tone: tone, fixedToneHertz: fixedTone,
                              led: led, button: button, failures: failures, logger: logger)
    }

    /// What is broken now ("buzzer: GPIO line 17 on gpiochip0 ..."), nil when every line works.
    /// A line that writes again clears its part.
    var failure: String? {
        let broken = Self.parts.compactMap { part in failures[part].map { "\(part): \($0)" } }
        return broken.isEmpty ? nil : broken.joined(separator: "; ")
    }

    var isButtonPressedAtBoot: Bool { isButtonPressed() }

    /// Whether the button is down now (read once at start: held at boot runs the self-test).
    /// False when it cannot be read, which is logged.
    func isButtonPressed() -> Bool {
        guard let button else { return false }
        do throws(GPIOError) {
            return try button.isPressed()
        } catch {
            record(error, part: "button")
            return false
        }
    }

    // MARK: FaceBackend

    func apply(_ output: FaceOutput, at: MonotonicInstant) {
        guard !closed else { return }
        switch output {
        case let .buzzer(level, toneHertz):
            do throws(GPIOError) {
                if let tone {
                    // A passive buzzer given no tone still must sound: the high priority's tone.
                    let hertz = fixedToneHertz ?? toneHertz ?? BuzzerRhythm.toneHertz(for: .high)
                    try tone.play(hertz: level == .high ? hertz : nil)
                    // The tone thread's writes: failing until one of its toggles works.
                    if let failure = tone.failure { throw failure }
                } else if let buzzer {
                    try buzzer.set(level == .high)
                } else {
                    return  // not opened: failing since open
                }
                recovered(part: "buzzer")
            } catch {
                record(error, part: "buzzer")
            }
        case let .led(level):
            guard let led else { return }  // not opened: failing since open
            do throws(GPIOError) {
                try led.set(level == .high)
                recovered(part: "LED")
            } catch {
                record(error, part: "LED")
            }
        case .gesture:
            break  // nowhere to show it: the session logs gestures
        }
    }

    // MARK: FaceDevice

    var descriptors: [Int32] {
        guard let button, button.isRequested else { return [] }
        return [button.fileDescriptor]
    }

    /// The kernel's edges, timed by the kernel: its timestamps are CLOCK_MONOTONIC (Linux 5.7
    /// and later), the same clock as `MonotonicInstant`, so debouncing sees the true spacing
    /// even when the loop woke late. A read error drops the button (listed in `failure`).
    func readButton(_ descriptor: Int32, at now: MonotonicInstant) -> [TimedButtonEdge] {
        guard let button, button.isRequested, descriptor == button.fileDescriptor else { return [] }
        do throws(GPIOError) {
            return try button.readEdges().map {
                TimedButtonEdge(edge: $0.pressed ? .pressed : .released,
                                at: MonotonicInstant(nanoseconds: Int64(clamping: $0.kernelTimestampNanoseconds)))
            }
        } catch {
            record(error, part: "button")
            button.release()
            self.button = nil
            return []
        }
    }

    /// The kernel makes every edge: nothing is ever scheduled here.
    var nextDeadline: MonotonicInstant? { nil }

    func dueEdges(at now: MonotonicInstant) -> [TimedButtonEdge] { [] }

    func show(status: String) {}

    /// Silences the buzzer (the tone thread joined first), switches the LED off and gives every
    /// line back to the kernel. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        tone?.stop()
        buzzer?.release()
        led?.release()
        button?.release()
        button = nil
        chip.close()
    }

    // MARK: Failures

    private func record(_ error: GPIOError, part: String) {
        let message = "\(error)"
        guard failures[part] != message else { return }
        failures[part] = message
        logger.log(.error, "face \(part): \(message)")
    }

    private func recovered(part: String) {
        guard failures.removeValue(forKey: part) != nil else { return }
        logger.log(.notice, "face \(part): writes work again")
    }
}
