import Alarms
import App
import Clocks

/// The appliance's face as hardware the runner drives: lines out (`FaceBackend.apply`) and the
/// button in. The GPIO device (lines of a GPIO chip on a board) and the console device (the terminal
/// in `vigil demo`) implement it; tests use App's `MemoryFaceBackend` through `ApplianceFace`.
///
/// Input is event driven: the runner polls `descriptors` in its one poll(2) and calls
/// `readButton` when one is readable; edges a device makes up itself (a console key stands for
/// a press and, a moment later, a release) come due at `nextDeadline` through `dueEdges`.
protocol FaceDevice: FaceBackend {
    /// For logs: "gpio gpiochip0 (pinctrl-bcm2835) buzzer 17 led 27 button 22", "console".
    var name: String { get }
    /// Descriptors to poll for button input (the GPIO edge-event fd, the keyboard).
    var descriptors: [Int32] { get }
    /// Reads what is waiting on a readable descriptor. An empty result from a readable
    /// descriptor means it hung up; the device stops listing it.
    func readButton(_ descriptor: Int32, at now: MonotonicInstant) -> [TimedButtonEdge]
    /// When `dueEdges` next has something.
    var nextDeadline: MonotonicInstant? { get }
    /// Edges the device made up that are due by `now`, in time order.
    func dueEdges(at now: MonotonicInstant) -> [TimedButtonEdge]
    /// A person-readable line about the appliance (alarms, snoozes, the last button gesture):
    /// the console draws it, GPIO has nowhere to show it and ignores it.
    func show(status: String)
    /// Buzzer and LED off, lines released, terminal restored. Idempotent.
    func close()
    /// The button is held down as Vigil starts (a person asking for the full self-test).
    var isButtonPressedAtBoot: Bool { get }
    /// What of the device is broken now, for a person ("buzzer: ..."); nil while every part
    /// works. The session raises the face fault while it is set.
    var failure: String? { get }
}

extension FaceDevice {
    var isButtonPressedAtBoot: Bool { false }
    /// A device with nothing that can fail (the console draws on the terminal it runs in).
    var failure: String? { nil }
}

/// A button edge and when it happened (for GPIO, the kernel's timestamp of the edge).
struct TimedButtonEdge: Hashable, Sendable {
    var edge: ButtonEdge
    var at: MonotonicInstant
}
