import Clocks
import Glibc
import Platform
import Synchronization
import Testing

/// A job on its own thread: its descriptor turns readable in the poll loop when it returns,
/// `finish()` hands the result over once, a stop request reaches it, and its thread blocks
/// every signal.
@Suite struct BackgroundJobTests {
    /// A gate the test opens, so the job is known to be running while the loop looks.
    final class Gate: Sendable {
        let open = Atomic<Bool>(false)
        func wait() { while !open.load(ordering: .acquiring) { usleep(1_000) } }
    }

    /// Polls `descriptor` for up to `seconds`; true when it was readable.
    static func readable(_ descriptor: Int32, within seconds: Int64) throws -> Bool {
        var loop = PollLoop()
        loop.register(descriptor)
        let events = try loop.wait(until: SystemClock.monotonicNow() + .seconds(seconds))
        return events.contains { $0.fileDescriptor == descriptor && $0.isReadable }
    }

    @Test func itsDescriptorIsReadableOnlyOnceTheJobReturnsAndTheResultIsHandedOverOnce() throws {
        let gate = Gate()
        let job = try BackgroundJob(name: "vigil-test-job") { _ in
            gate.wait()
            return "done"
        }
        #expect(try !Self.readable(job.descriptor, within: 0), "readable before the job returned")
        #expect(!job.isFinished)
        gate.open.store(true, ordering: .releasing)
        #expect(try Self.readable(job.descriptor, within: 10), "never readable")
        #expect(job.isFinished)
        #expect(job.finish() == "done")
        #expect(job.finish() == nil)
    }

    @Test func aStopRequestReachesTheJob() throws {
        let job = try BackgroundJob(name: "vigil-test-job") { stopRequested in
            var pieces = 0
            while !stopRequested() {
                pieces += 1
                usleep(1_000)
            }
            return pieces
        }
        usleep(20_000)
        #expect(!job.isFinished, "the job ended without being asked")
        job.requestStop()
        #expect(try Self.readable(job.descriptor, within: 10))
        #expect((job.finish() ?? 0) > 0)
    }

    /// Dropped while running: the owner waits for it (after asking it to stop), so the job's
    /// thread never outlives what it was working on.
    @Test func droppingARunningJobStopsItAndWaits() throws {
        let stopped = Gate()
        do {
            let job = try BackgroundJob(name: "vigil-test-job") { stopRequested in
                while !stopRequested() { usleep(1_000) }
                stopped.open.store(true, ordering: .releasing)
                return 0
            }
            #expect(!job.isFinished)
        }
        let stoppedBeforeTheOwnerWent = stopped.open.load(ordering: .acquiring)
        #expect(stoppedBeforeTheOwnerWent, "the job was still running after its owner went")
    }

    @Test func waitingIsBoundedAndSaysWhetherTheJobReturned() throws {
        let gate = Gate()
        let job = try BackgroundJob(name: "vigil-test-job") { _ in
            gate.wait()
            return 7
        }
        let start = SystemClock.monotonicNow()
        #expect(!job.wait(upTo: .milliseconds(200)), "a job still held at its gate said it had returned")
        #expect(SystemClock.monotonicNow() - start >= .milliseconds(200))
        gate.open.store(true, ordering: .releasing)
        #expect(job.wait(upTo: .seconds(10)))
        #expect(job.finish() == 7)
    }

    /// An abandoned job is neither stopped nor waited for when its owner goes: an owner that
    /// exits must not hang on a job stuck in a read.
    @Test func anAbandonedJobIsNotWaitedForWhenItsOwnerGoes() throws {
        let gate = Gate()
        let finished = Gate()
        let start = SystemClock.monotonicNow()
        do {
            let job = try BackgroundJob(name: "vigil-test-job") { _ in
                // Deaf to stop requests, as a stuck read is; at most 10 s, so an owner that
                // waits for it anyway fails the time check below instead of hanging the test.
                for _ in 0..<1000 where !gate.open.load(ordering: .acquiring) { usleep(10_000) }
                finished.open.store(true, ordering: .releasing)
                return 0
            }
            job.abandon()
            #expect(job.finish() == nil, "an abandoned job's result was handed over")
        }
        #expect(SystemClock.monotonicNow() - start < .seconds(5), "the owner waited for an abandoned job")
        let finishedWhileHeld = finished.open.load(ordering: .acquiring)
        #expect(!finishedWhileHeld)
        // Let it go: it signals its descriptor, which must still be its own (not closed).
        gate.open.store(true, ordering: .releasing)
        finished.wait()
    }

    /// Signals must reach the event loop's signalfd, never the job's thread (where SIGTERM
    /// would take its default action and end Vigil mid-export).
    @Test func theJobsThreadBlocksSignals() throws {
        let gate = Gate()
        let job = try BackgroundJob(name: "vigil-mask-job") { _ in
            gate.wait()
            return 0
        }
        defer {
            gate.open.store(true, ordering: .releasing)
            _ = job.finish()
        }
        // The thread names itself as it starts: look until it has (or 5 s have passed).
        var masks: [UInt64] = []
        for _ in 0..<500 where masks.isEmpty {
            masks = try blockedSignalMasks(ofThreadsNamed: "vigil-mask-job")
            if masks.isEmpty { usleep(10_000) }
        }
        #expect(masks.count == 1, "no thread named vigil-mask-job")
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1] {
            #expect(masks.allSatisfy { $0 & (1 << UInt64(signal - 1)) != 0 }, "signal \(signal) not blocked: \(masks)")
        }
    }
}
