import App
import Clocks

extension SoakReport {
    static func verdict(_ passed: Bool) -> String { passed ? "PASS" : "FAIL" }

    var cpuPerHour: Duration {
        samples.isEmpty ? .zero : samples.reduce(Duration.zero) { $0 + $1.cpu } / samples.count
    }

    func printSummary() {
        let first = samples.first { $0.hour == memoryFromHour }
        let last = samples.last
        print("  resident: \(first.map { Format.megabytes($0.residentBytes) } ?? "-") at hour \(memoryFromHour), "
              + "\(last.map { Format.megabytes($0.residentBytes) } ?? "-") at hour \(memoryToHour): growth \(Format.megabytes(memoryGrowth)) "
              + "(target < 1 MiB)  \(Self.verdict(memoryPassed))")
        print("  open file descriptors: \(samples.map { String($0.openFileDescriptors) }.joined(separator: " ")) "
              + "(target: the same every hour)  \(Self.verdict(fileDescriptorsPassed))")
        print("  CPU per simulated hour: \(Format.seconds(cpuPerHour)) mean, "
              + "\(Format.seconds(samples.map(\.cpu).max() ?? .zero)) worst; wall \(Format.seconds(wall)) for \(samples.count) h")
        print("  on the air: " + airFigures.map { "\($0.0) \(Format.grouped($0.1))" }.joined(separator: ", "))
        print("  readings (device, kind: stored / expected):")
        for check in readings {
            let expected = check.expected.map { Format.grouped($0) } ?? "-"
            let verdict = check.expected == nil ? "info" : Self.verdict(check.passed)
            print("    \(check.device) \(check.kind): \(Format.grouped(check.stored)) / \(expected)  \(verdict)  (\(check.note))")
        }
        print("  alarms (raised, cleared at simulated time; - = not required in this run):")
        for check in alarms {
            func at(_ t: Duration?, required: Bool) -> String { t.map { Self.clock($0) } ?? (required ? "MISSING" : "-") }
            print("    \(check.name) [\(check.kind)]: raised \(at(check.raisedAt, required: check.raiseRequired)), "
                  + "cleared \(at(check.clearedAt, required: check.clearRequired))  \(Self.verdict(check.passed))")
        }
        print("  unexpected alarms: " + (unexpectedAlarms.isEmpty ? "none" : unexpectedAlarms.joined(separator: "; ")))
        if !problems.isEmpty { print("  problems: " + problems.joined(separator: "; ")) }
        print("soak: \(Self.verdict(passed)) (memory \(Self.verdict(memoryPassed)), fds \(Self.verdict(fileDescriptorsPassed)), "
              + "readings \(Self.verdict(readingsPassed)), alarms \(Self.verdict(alarmsPassed)))")
    }

    /// One JSON document: the verdicts first, then the hourly samples, readings and alarms.
    var json: JSON {
        func seconds(_ d: Duration?) -> JSON { d.map { .double(($0.seconds * 1000).rounded() / 1000) } ?? .null }
        return .object([
            ("verdict", .string(Self.verdict(passed))),
            ("passed", .bool(passed)),
            ("hours", .int(Int64(hours))),
            ("hoursRun", .int(Int64(samples.count))),
            ("memory", .object([("passed", .bool(memoryPassed)), ("fromHour", .int(Int64(memoryFromHour))),
                                ("toHour", .int(Int64(memoryToHour))), ("growthBytes", .int(Int64(memoryGrowth)))])),
            ("fileDescriptors", .object([("passed", .bool(fileDescriptorsPassed)),
                                         ("counts", .array(samples.map { .int(Int64($0.openFileDescriptors)) }))])),
            ("readingsPassed", .bool(readingsPassed)),
            ("alarmsPassed", .bool(alarmsPassed)),
            ("cpuSecondsPerHour", seconds(cpuPerHour)),
            ("wallSeconds", seconds(wall)),
            ("hourly", .array(samples.map { sample in
                .object([("hour", .int(Int64(sample.hour))), ("residentBytes", .int(Int64(sample.residentBytes))),
                         ("openFileDescriptors", .int(Int64(sample.openFileDescriptors))), ("cpuSeconds", seconds(sample.cpu)),
                         ("readingsStored", .int(Int64(sample.readingsStored)))])
            })),
            ("air", .object(airFigures.map { ($0.0, .int(Int64($0.1))) })),
            ("readings", .array(readings.map { check in
                .object([("device", .string(check.device)), ("kind", .string(check.kind)), ("stored", .int(Int64(check.stored))),
                         ("expected", check.expected.map { .int(Int64($0)) } ?? .null), ("passed", .bool(check.passed)),
                         ("note", .string(check.note))])
            })),
            ("alarms", .array(alarms.map { check in
                .object([("name", .string(check.name)), ("kind", .string("\(check.kind)")),
                         ("raisedAt", seconds(check.raisedAt)), ("clearedAt", seconds(check.clearedAt)),
                         ("raiseRequired", .bool(check.raiseRequired)), ("clearRequired", .bool(check.clearRequired)),
                         ("passed", .bool(check.passed))])
            })),
            ("unexpectedAlarms", .array(unexpectedAlarms.map { .string($0) })),
            ("problems", .array(problems.map { .string($0) })),
        ])
    }
}
