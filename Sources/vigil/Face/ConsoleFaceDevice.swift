#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Alarms
import App
import Clocks
import Platform

/// The face drawn in the terminal (the console backend `vigil demo` uses, so the face can be seen without hardware): the
/// I/O half of `ConsoleFace`. Keys on stdin stand for the button when stdin is a terminal.
///
/// - stdout a terminal: one status line redrawn in place (`\r` and ANSI erase-line), and
///   `printAbove(_:)` for the session's event lines, so they scroll above it.
/// - stdout not a terminal (a pipe, a log): no redrawing and no line per buzzer pulse, which
///   would flood the log; only changes of pattern, status and gestures, one plain line each.
final class ConsoleFaceDevice: FaceDevice {
    let name = "console"
    private var face: ConsoleFace
    private var keyboard: KeyboardInput?
    private let output: Int32
    /// Whether the status line is redrawn in place (stdout is a terminal).
    let drawsInPlace: Bool
    /// The status line last drawn, nil when none is on screen.
    private var drawn: String?
    private var closed = false

    /// `input` and `output` are stdin and stdout but for tests.
    init(logger: Logger, input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.output = output
        drawsInPlace = Terminal.isTerminal(fd: output)
        do {
            keyboard = try KeyboardInput(fileDescriptor: input)
        } catch {
            logger.log(.warning, "console face: cannot read single keys from the terminal: \(error)")
        }
        face = ConsoleFace(unicode: Self.localeSpeaksUTF8(), hasKeyboard: keyboard != nil)
        if keyboard == nil { printAbove("no keyboard: the console button is off") }
        redraw()
    }

    deinit { close() }

    /// Prints `line` as its own line, above the status line when there is one.
    func printAbove(_ line: String) {
        guard !closed else { return emit(line + "\n") }
        if drawsInPlace {
            emit(Self.eraseLine + line + "\n" + (drawn ?? ""))
        } else {
            emit(line + "\n")
        }
    }

    /// Shows the pattern the face plays, in words: on the status line, and as a plain line
    /// when stdout is not a terminal (once per change, not per pulse).
    func show(pattern: AlarmPattern) {
        let line = face.show(pattern: pattern)
        if drawsInPlace { redraw() } else if let line { emit(line + "\n") }
    }

    // MARK: FaceBackend

    func apply(_ output: FaceOutput, at: MonotonicInstant) {
        guard !closed else { return }
        if let line = face.apply(output) { printAbove(line) }
        redraw()
    }

    // MARK: FaceDevice

    var descriptors: [Int32] { keyboard.map { [$0.fileDescriptor] } ?? [] }

    /// Keys become edges: the press is due now and comes back at once; releases (and a double
    /// press's second press) come due later through `nextDeadline` and `dueEdges`.
    func readButton(_ descriptor: Int32, at now: MonotonicInstant) -> [TimedButtonEdge] {
        guard let keyboard, descriptor == keyboard.fileDescriptor else { return [] }
        let keys = keyboard.readKeys()
        guard !keys.isEmpty else {
            // Readable with nothing to read: the terminal hung up.
            keyboard.restore()
            self.keyboard = nil
            face.hasKeyboard = false
            printAbove("the terminal hung up: the console button is off")
            return []
        }
        face.receive(keys: keys, at: now)
        return dueEdges(at: now)
    }

    var nextDeadline: MonotonicInstant? { face.nextDeadline }

    func dueEdges(at now: MonotonicInstant) -> [TimedButtonEdge] {
        face.dueEdges(at: now).map { TimedButtonEdge(edge: $0.edge, at: $0.at) }
    }

    func show(status: String) {
        let line = face.show(status: status)
        if drawsInPlace { redraw() } else if let line { emit(line + "\n") }
    }

    /// Buzzer and LED drawn off, the status line erased, the terminal's modes restored.
    func close() {
        guard !closed else { return }
        _ = face.apply(.buzzer(.low, toneHertz: nil))
        _ = face.apply(.led(.low))
        if drawsInPlace, drawn != nil { emit(Self.eraseLine) }
        drawn = nil
        keyboard?.restore()
        keyboard = nil
        closed = true
    }

    // MARK: Drawing

    /// Back to the line's start and erase it (ANSI EL 2: the whole line).
    static let eraseLine = "\r\u{1B}[2K"

    private func redraw() {
        guard drawsInPlace, !closed else { return }
        let line = face.statusLine(columns: terminalColumns())
        guard line != drawn else { return }
        drawn = line
        emit(Self.eraseLine + line)
    }

    /// The terminal's width now (it may have been resized), nil when it will not say.
    private func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    private func emit(_ text: String) {
        var bytes = Array(text.utf8)[...]
        var attempts = 0
        while !bytes.isEmpty, attempts < 100 {
            let written = bytes.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0, errno == EINTR {
                continue
            } else {
                // A stuck or closed terminal must not stall the alarm loop: drop the rest.
                attempts += 1
                if written == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { return }
                var entry = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 10)
            }
        }
    }

    /// Whether the locale asks for UTF-8 (the first of LC_ALL, LC_CTYPE, LANG that is set
    /// decides, as setlocale(3) does); otherwise the status line is plain ASCII.
    static func localeSpeaksUTF8() -> Bool {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            guard let value = Environment.value(name), !value.isEmpty else { continue }
            let lower = value.lowercased()
            return lower.contains("utf-8") || lower.contains("utf8")
        }
        return false
    }
}
