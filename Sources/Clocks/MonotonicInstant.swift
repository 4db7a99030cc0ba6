/// A point on the monotonic clock (CLOCK_MONOTONIC in the platform, a virtual clock in tests).
///
/// The sans-IO core never reads a clock: every `receive` and `handleDeadline` takes `now` as an
/// argument, and every state machine reports its `nextDeadline`. Tests jump straight to it, so a
/// 30-second ATT timeout costs microseconds.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary origin (boot, or the start of a test).
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MonotonicInstant(nanoseconds: 0)

    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }

    /// Saturating: a deadline "forever from now" must not wrap into the past.
    public static func + (a: Self, d: Duration) -> Self {
        let (sum, overflow) = a.nanoseconds.addingReportingOverflow(d.nanosecondsClamped)
        return Self(nanoseconds: overflow ? (d > .zero ? .max : .min) : sum)
    }
    public static func - (a: Self, d: Duration) -> Self {
        let (difference, overflow) = a.nanoseconds.subtractingReportingOverflow(d.nanosecondsClamped)
        return Self(nanoseconds: overflow ? (d > .zero ? .min : .max) : difference)
    }
    public static func - (a: Self, b: Self) -> Duration { .nanoseconds(a.nanoseconds &- b.nanoseconds) }
    public static func += (a: inout Self, d: Duration) { a = a + d }

    public var description: String {
        let ms = nanoseconds / 1_000_000
        let magnitude = ms.magnitude
        let fraction = String(magnitude % 1000 + 1000).dropFirst()
        return "t\(ms < 0 ? "-" : "+")\(magnitude / 1000).\(fraction)s"
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at the Int64 range (about 292 years).
    public var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (wide, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = wide.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? (seconds < 0 ? .min : .max) : sum
    }

    /// Milliseconds as a Double, for poll(2) timeouts and log lines.
    public var milliseconds: Double { Double(nanosecondsClamped) / 1e6 }
    public var seconds: Double { Double(nanosecondsClamped) / 1e9 }
}

/// The earliest of optional deadlines: how a composite state machine reports its `nextDeadline`.
public func earliest(_ deadlines: MonotonicInstant?...) -> MonotonicInstant? {
    earliest(deadlines)
}

public func earliest<S: Sequence>(_ deadlines: S) -> MonotonicInstant? where S.Element == MonotonicInstant? {
    var best: MonotonicInstant?
    for case let d? in deadlines where best.map({ d < $0 }) ?? true { best = d }
    return best
}
