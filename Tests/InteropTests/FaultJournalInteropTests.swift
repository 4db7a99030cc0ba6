import Foundation
import Testing

extension Interop {
    /// A journal that stops taking lines: under systemd stderr is journald's socket,
    /// and a journald that stalls fills it. The real `vigil run` against the Bumble heart-rate
    /// rig, with stderr a one-page pipe nobody reads for 80 readings (info level logs every reading):
    /// readings go on being reported on stdout all along (a log write that blocked would stop
    /// the loop, alarms and watchdog with it), and once the pipe is read again every line
    /// logged meanwhile arrives, in order (the queue holds 256 KiB, minutes of this; what does
    /// not fit is dropped and counted, `QueuedLineWriterTests`).
    @Suite(bumbleRequired) struct FaultJournalInteropTests {
        @Test func aStalledJournalDoesNotStopTheAppliance() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let configDirectory = try StateDirectory()
            let journal = Pipe()
            // F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7): Glibc's Swift module leaves the GNU names out.
            let page = fcntl(journal.fileHandleForWriting.fileDescriptor, 1024 + 7, 4096)
            try #require(page > 0 && page < 65_536, "the pipe could not be made small: \(page)")
            let vigil = try FaultStorageInteropTests.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                                           standardError: journal.fileHandleForWriting)
            try journal.fileHandleForWriting.close()
            defer { vigil.stop() }
            let heartRates = { FaultStorageInteropTests.heartRateEvents(vigil.events) }
            #expect(vigil.wait(upTo: .seconds(20)) { heartRates().count >= 10 }, "\(vigil.stdoutText.suffix(2_000))")
            // A page of log lines is about 40 readings: the pipe is full within 5 s, and
            // readings must keep coming after, twice as many as filled it.
            let before = heartRates().count
            #expect(vigil.wait(upTo: .seconds(15)) { heartRates().count >= before + 80 },
                    "\(heartRates().count - before) readings in 15 s with the journal stalled")

            // The journal comes back; vigil stops, and the pipe is read to its end.
            vigil.send(SIGTERM)
            let log = String(decoding: journal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)")
            let reported = heartRates()
            let device = try #require(reported.first?.string("device"))
            let logged = log.split(separator: "\n").filter { $0.hasPrefix("<6>\(device): ") }
            #expect(logged.count == reported.count, "\(logged.count) readings logged, \(reported.count) reported\n\(log.suffix(2_000))")
            #expect(!log.contains("log lines were dropped"), "\(log.suffix(2_000))")
            #expect(log.contains("<5>received ") && log.contains("; stopping"), "the last lines are missing\n\(log.suffix(2_000))")
        }
    }
}
