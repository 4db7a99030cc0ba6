import Clocks
import History
import Platform

/// `vigil-bench soak [--hours N] [--json]`: the scripted day of `SoakSchedule` run
/// on `SoakRig` as fast as the CPU allows, N simulated hours (24 by default).
///
/// Each simulated hour it samples resident memory, open file descriptors (/proc/self/fd), the
/// process CPU time used in that hour and the readings stored so far; at the end `SoakReport`
/// compares the history with what the simulators sent and the alarm events with the schedule.
/// PASS needs: resident growth under 1 MiB from hour 2 to the last hour (hour 1 when the run
/// is shorter than 3 hours: the history's page cache and the host's tables fill in the first
/// hour), the same fd count at every hour after hour 1, every expected reading and alarm, and
/// no unexpected alarm. Exit status 1 on FAIL.
enum SoakBenchmark {
    struct Options {
        var hours = 24
        var json = false
        var crowd = 40
    }

    struct HourSample {
        var hour: Int
        var residentBytes: Int
        var openFileDescriptors: Int
        var cpu: Duration
        var readingsStored: Int
        var wall: Duration
    }

    static let growthLimitBytes = 1_048_576

    /// Runs the soak and prints the table (or the JSON document); true when it passes.
    static func run(_ options: Options) -> Bool {
        let directory: String
        do { directory = try FileSystem.makeTemporaryDirectory(prefix: "vigil-soak") } catch {
            StandardError.write("vigil-bench soak: cannot make a temporary directory: \(error)\n")
            return false
        }
        defer { try? FileSystem.removeTree(path: directory) }
        var rig: SoakRig
        do { rig = try SoakRig(directory: directory, crowdSize: options.crowd) } catch {
            StandardError.write("vigil-bench soak: cannot build the appliance: \(error)\n")
            return false
        }
        if !options.json {
            print("== soak: \(options.hours) simulated hours, in process on a virtual clock: Dexcom G6 (scripted day), heart-rate "
                  + "strap at 1 Hz, BTHome fridge thermometer, \(options.crowd) noisy advertisers; history in \(directory)")
            print("  hour  resident     fds  CPU this hour  readings stored  wall")
        }
        let wallStart = SystemClock.monotonicNow()
        var lastCPU = (try? ProcessStats.cpuTime().total) ?? .zero
        var samples: [HourSample] = []
        let end = MonotonicInstant.zero + .seconds(Int64(options.hours) * 3600)
        rig.start()
        var stalled = false
        for hour in 1...options.hours {
            let hourEnd = MonotonicInstant.zero + .seconds(Int64(hour) * 3600)
            while rig.now < hourEnd {
                guard rig.step() else {
                    stalled = true
                    break
                }
            }
            if stalled { break }
            let cpu = (try? ProcessStats.cpuTime().total) ?? .zero
            let stored = (try? rig.history.counts().readings.values.reduce(0, +)) ?? -1
            let sample = HourSample(hour: hour, residentBytes: (try? ProcessStats.residentBytes()) ?? -1,
                                    openFileDescriptors: (try? ProcessStats.openFileDescriptorCount()) ?? -1,
                                    cpu: cpu - lastCPU, readingsStored: stored, wall: SystemClock.monotonicNow() - wallStart)
            lastCPU = cpu
            samples.append(sample)
            if !options.json {
                print("  " + pad(String(hour), 4) + "  " + pad(Format.megabytes(sample.residentBytes), 10) + "  "
                      + pad(String(sample.openFileDescriptors), 4) + "  " + pad(Format.seconds(sample.cpu), 13) + "  "
                      + pad(Format.grouped(sample.readingsStored), 15) + "  " + Format.seconds(sample.wall))
                StandardOutput.flush()
            }
        }
        if stalled { rig.problems.append("\(rig.now): nothing scheduled: the rig stalled") }
        let report = SoakReport(rig: rig, samples: samples, hours: options.hours, end: end,
                                wall: SystemClock.monotonicNow() - wallStart)
        if options.json {
            print(report.json.rendered)
        } else {
            report.printSummary()
        }
        StandardOutput.flush()
        return report.passed
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
