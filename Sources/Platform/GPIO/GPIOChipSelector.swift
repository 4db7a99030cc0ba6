#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which GPIO chip a board profile means, as a list of ways to find it.
///
/// A chip's number is not stable: the Raspberry Pi 5's header chip (label "pinctrl-rp1") is
/// gpiochip4 on kernels before about 6.6.45 and gpiochip0 after, when the RP1 chip was moved
/// to the front. Its label is stable, so labels are tried first and names and paths after, as a
/// fallback for kernels or boards whose label we do not know.
public struct GPIOChipSelector: Equatable, Sendable {
    /// Names ("gpiochip0"), paths ("/dev/gpiochip4") or labels ("pinctrl-rp1"), in the order the
    /// board profile prefers them. A string starting with "/" is a path, "gpiochip" followed by
    /// digits is a name, anything else a label.
    public var candidates: [String]
    /// The chip's label, tried before every candidate.
    public var label: String?

    public init(candidates: [String], label: String? = nil) {
        self.candidates = candidates
        self.label = label
    }

    /// One way of opening a chip.
    public enum Attempt: Equatable, Sendable, CustomStringConvertible {
        /// By the kernel's label: every chip under /dev is opened and its label compared.
        case label(String)
        /// By device name, /dev/<name>.
        case name(String)
        /// By device path.
        case path(String)

        /// How a candidate string is read: see `candidates`.
        public init(candidate: String) {
            if candidate.hasPrefix("/") {
                self = .path(candidate)
            } else if candidate.hasPrefix("gpiochip"), candidate.count > 8,
                      candidate.dropFirst(8).allSatisfy({ $0.isASCII && $0.isNumber }) {
                self = .name(candidate)
            } else {
                self = .label(candidate)
            }
        }

        public var isLabel: Bool {
            if case .label = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .label(let label): return "label \"\(label)\""
            case .name(let name): return "/dev/\(name)"
            case .path(let path): return path
            }
        }
    }

    /// The attempts in the order they are made: `label`, then labels among the candidates, then
    /// names and paths, each group in candidate order, without repeats.
    public var attempts: [Attempt] {
        let parsed = (label.map { [Attempt.label($0)] } ?? []) + candidates.map(Attempt.init(candidate:))
        var ordered: [Attempt] = []
        for attempt in parsed.filter(\.isLabel) + parsed.filter({ !$0.isLabel }) where !ordered.contains(attempt) {
            ordered.append(attempt)
        }
        return ordered
    }

    /// Why opening one attempt failed: the errno the opener reported.
    public struct OpenFailure: Error, Equatable, Sendable {
        public var errno: Int32
        public init(errno: Int32) { self.errno = errno }
    }

    /// Makes the attempts in order with `open` and returns the first handle it gives.
    ///
    /// Generic over the handle so the order can be tested with a fake opener; `GPIOChip.open`
    /// passes the kernel's (`OpenedChip.open`). When every attempt fails: a permission problem
    /// on any of them wins (it is the one a person can fix, and a chip we may not open is
    /// probably the right one); otherwise `.noChipFound` lists every attempt and, from
    /// `present`, what does exist.
    public func firstMatch<Handle>(
        open: (Attempt) -> Result<Handle, OpenFailure>,
        present: () -> [GPIOChipInfo] = GPIOAvailability.chipInfos
    ) throws(GPIOError) -> (handle: Handle, attempt: Attempt) {
        var failures: [GPIOChipAttemptFailure] = []
        for attempt in attempts {
            switch open(attempt) {
            case .success(let handle):
                return (handle, attempt)
            case .failure(let failure):
                failures.append(GPIOChipAttemptFailure(attempt: attempt, errno: failure.errno))
            }
        }
        if let denied = failures.first(where: { $0.errno == EACCES || $0.errno == EPERM }) {
            throw .permissionDenied(operation: "open GPIO chip \(denied.attempt)", errno: denied.errno)
        }
        throw .noChipFound(tried: failures, present: present())
    }
}
