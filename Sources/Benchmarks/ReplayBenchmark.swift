import Clocks
import HCI
import Platform
import Wire

/// `vigil-bench replay`: the real `vigil scan --hci btsnoop:FILE` over the adverts benchmark's
/// capture of `count` reports, twice: once as taken from the controller's power-on (its
/// start-up answers first) and once as taken while the adapter was already up (none). Each run
/// must end by itself at the last record with exit 0, and both must print the same devices.
enum ReplayBenchmark {
    struct Options {
        var count = 1_000_000
        var vigil = ".build/release/vigil"
        /// A run still going after this has not ended by itself: it is stopped and fails.
        var timeout = Duration.seconds(300)
    }

    static let target = "ends by itself, exit 0"

    static func run(_ options: Options) -> [Figure] {
        print("== replay: vigil scan --hci btsnoop:FILE over \(Format.grouped(options.count)) advertising reports")
        let names = ["replay with start-up answers", "replay taken mid-session"]
        guard Subprocess.which(options.vigil) != nil else {
            let reason = "no vigil binary at \(options.vigil) (scripts/release builds it)"
            return names.map { Figure.skipped($0, target: target, reason: reason) } + [Figure.skipped("replay: same table from both", reason: reason)]
        }
        let directory: String
        do { directory = try FileSystem.makeTemporaryDirectory(prefix: "vigil-bench-replay") } catch {
            return [Figure.skipped("replay", target: target, reason: "no temporary directory: \(error)")]
        }
        defer { try? FileSystem.removeTree(path: directory) }

        let midSession = AdvertisingCapture.make(count: options.count).bytes
        var w = ByteWriter(capacity: midSession.count + 4096)
        w.write(contentsOf: midSession[..<16])
        let startUp = StartUpExchange.records()
        var timestamp = AdvertisingCapture.startMicroseconds - Int64(startUp.count) * 100
        for record in startUp {
            BTSnoop.encode(record.packet, direction: record.direction, timestampMicroseconds: timestamp, into: &w)
            timestamp += 100
        }
        w.write(contentsOf: midSession[16...])
        print("  start-up: \(startUp.count) records (\(startUp.filter { $0.direction == .received }.count) answers) before the reports")

        var figures: [Figure] = []
        var tables: [[UInt8]] = []
        for (name, capture) in zip(names, [w.bytes, midSession]) {
            let path = directory + "/\(name.split(separator: " ").last!).btsnoop"
            do { try AtomicFile.write(path: path, bytes: capture, mode: 0o644) } catch {
                figures.append(.skipped(name, target: target, reason: "cannot write \(path): \(error)"))
                continue
            }
            let stdout = path + ".out", stderr = path + ".err"
            let arguments = [options.vigil, "scan", "--hci", "btsnoop:\(path)", "--state-dir", directory + "/state"]
            let start = SystemClock.monotonicNow()
            let child: Subprocess
            do { child = try Subprocess.spawn(arguments, stdout: stdout, stderr: stderr) } catch {
                figures.append(.checked(name, "\(error)", target: target, passes: false))
                continue
            }
            guard let status = child.wait(timeout: options.timeout) else {
                child.terminate()
                child.wait()
                figures.append(.checked(name, "still running after \(Format.seconds(options.timeout)): stopped", target: target, passes: false))
                continue
            }
            let wall = SystemClock.monotonicNow() - start
            let log = (try? FileSystem.readFile(path: stderr)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let ended = log.split(separator: "\n").first { $0.contains("the capture ended") }
            print("  \(name): \(Format.grouped(capture.count)) bytes, exit \(status) after \(Format.seconds(wall)); "
                  + "\(ended.map(String.init) ?? "no end-of-capture line; log: \(log.suffix(400))")")
            figures.append(.checked(name, "\(Format.seconds(wall)), exit \(status), "
                                    + "\(Format.grouped(Int(Double(options.count) / wall.seconds))) reports/s",
                                    target: target, passes: status == 0 && ended != nil))
            tables.append((try? FileSystem.readFile(path: stdout)) ?? [])
        }
        if tables.count == 2 {
            // Rows are compared sorted and without their RSSI column: the table sorts by signal
            // strength alone, ties in hash order, which differs from run to run; and a device
            // whose data never changes shows the signal of its last report, which depends on
            // when the host's 256-device cap evicted it (ties in hash order too, even between
            // two runs of the same capture). Addresses, names, services and data must agree.
            let rows = tables.map { table in
                String(decoding: table, as: UTF8.self).split(separator: "\n").map { $0.prefix(30) + $0.dropFirst(36) }.sorted()
            }
            let same = rows[0] == rows[1]
            figures.append(.checked("replay: same table from both", same ? "same \(rows[0].count - 1) devices" : "different",
                                    target: "same devices", passes: same && rows[0].count > 1))
        }
        figures.forEach { print($0.line) }
        return figures
    }
}
