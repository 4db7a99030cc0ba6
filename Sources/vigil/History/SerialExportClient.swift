import App
import Clocks
import Platform

/// The laptop side of the serial export (`vigil export --serial /dev/ttyACM0 ...`):
/// sends one `EXPORT` request, parses the framed answer with `SerialResponseParser`, and saves
/// the body as it arrives (to a file that appears only once the answer ended with `.`).
struct SerialExportClient {
    var target: SerialTarget
    /// How long the line may stay silent before giving up (before the answer and within it).
    var timeout: Duration

    /// The request line: times sent with their offset, so the appliance's own offset cannot
    /// shift the window.
    static func request(format: ExportFormat, filter: ExportFilter, utcOffset: Duration) -> String {
        let since = filter.since.map { ISO8601.string($0, utcOffset: utcOffset) } ?? "-"
        let until = filter.until.map { ISO8601.string($0, utcOffset: utcOffset) } ?? "-"
        return "EXPORT \(format.rawValue) \(since) \(until)"
    }

    /// Runs the exchange; the exit code (0 saved, 1 anything else, said on stderr).
    func fetch(format: ExportFormat, filter: ExportFilter, utcOffset: Duration, output: String?) -> Int32 {
        let port: any ByteTransport
        do { port = try SerialPort.open(path: target.path, baud: target.baud, flowControl: false) } catch {
            StandardError.write("vigil export --serial: \(error)")
            return 1
        }
        defer { port.close() }
        let sink: ExportSink
        do { sink = try ExportSink(path: output) } catch {
            StandardError.write("vigil export: \(error)")
            return 1
        }
        var buffer: [UInt8] = []
        // Whatever waits already (the tail of an earlier, abandoned answer) is not ours.
        for _ in 0..<64 {
            guard let n = try? port.read(into: &buffer, maxCount: 4096), n > 0 else { break }
        }
        let line = Self.request(format: format, filter: filter, utcOffset: utcOffset)
        do { try port.write(SerialResponseParser.request(line)) } catch {
            StandardError.write("vigil export --serial: sending the request: \(error)")
            return 1
        }
        var parser = SerialResponseParser()
        var loop = PollLoop()
        loop.register(port.fileDescriptor)
        var started = false
        var deadline = SystemClock.monotonicNow() + timeout
        func fail(_ message: String) -> Int32 {
            sink.abandon()
            StandardError.write("vigil export --serial: \(message)" + (output.map { " (\($0) was left unchanged)" } ?? ""))
            return 1
        }
        while true {
            do { _ = try loop.wait(until: deadline) } catch { return fail("\(error)") }
            let count: Int
            do {
                count = try port.read(into: &buffer, maxCount: 64 * 1024)
            } catch where error.isWouldBlock {
                if SystemClock.monotonicNow() >= deadline {
                    return fail(started ? "the answer stopped for \(timeout) before it ended" : "no answer from \(target.path) within \(timeout): is it an appliance's serial export port, at \(target.baud) baud?")
                }
                continue
            } catch {
                return fail("\(error)")
            }
            if count == 0 { return fail("\(target.path) hung up before the answer ended") }
            deadline = SystemClock.monotonicNow() + timeout
            for event in parser.receive(buffer) {
                switch event {
                case .started:
                    started = true
                case let .body(bytes):
                    do { try sink.write(bytes) } catch { return fail("\(error)") }
                case .finished:
                    do { try sink.finish() } catch { return fail("\(error)") }
                    return 0
                case let .failed(reason):
                    return fail("the appliance answered: \(reason)")
                }
            }
        }
    }
}
