import Clocks

/// One thing the face does to the outside world: a buzzer or LED line write, or a recognised
/// button gesture. A backend (GPIO, console, memory) renders it.
public enum FaceOutput: Hashable, Sendable, CustomStringConvertible {
    /// The buzzer line; `toneHertz` is set only for a passive buzzer going high.
    case buzzer(LineLevel, toneHertz: Int?)
    case led(LineLevel)
    case gesture(ButtonEvent)

    public var description: String {
        switch self {
        case let .buzzer(level, tone): "buzzer \(level)" + (tone.map { " \($0)Hz" } ?? "")
        case let .led(level): "led \(level)"
        case let .gesture(event): "button \(event.gesture)"
        }
    }
}

/// A `FaceOutput` and the instant it is due: the scheduled instant of an edge, which is `now`
/// when the loop wakes on time and earlier when it wakes late.
public struct TimedFaceOutput: Hashable, Sendable, CustomStringConvertible {
    public var output: FaceOutput
    public var at: MonotonicInstant

    public init(_ output: FaceOutput, at: MonotonicInstant) {
        self.output = output
        self.at = at
    }

    public var description: String { "\(at) \(output)" }
}
