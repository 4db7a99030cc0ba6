import Clocks
import Glibc
import Testing
@testable import Platform

@Suite struct PollLoopTests {
    // Rounding up: a wait of 1 ns must become 1 ms, or poll returns at once and the loop spins.
    @Test(arguments: [
        (Int64?.none, Int32(-1)),
        (-1_000_000, 0), (0, 0), (1, 1), (999_999, 1), (1_000_000, 1), (1_000_001, 2),
        (1_500_000, 2), (2_000_000, 2), (250_000_000, 250),
        (Int64(Int32.max) * 1_000_000, Int32.max), (Int64(Int32.max) * 1_000_000 + 1, Int32.max),
        (Int64.max - 10, Int32.max),
    ])
    func timeoutIsRoundedUp(waitNanoseconds: Int64?, expected: Int32) {
        let now = MonotonicInstant(nanoseconds: 10)
        let deadline = waitNanoseconds.map { MonotonicInstant(nanoseconds: 10 &+ $0) }
        #expect(PollLoop.timeoutMilliseconds(from: now, until: deadline) == expected)
    }

    @Test func timeoutFromFarPastNowDoesNotOverflow() {
        let now = MonotonicInstant(nanoseconds: .min)
        #expect(PollLoop.timeoutMilliseconds(from: now, until: MonotonicInstant(nanoseconds: .max)) == Int32.max)
    }

    /// Sub-millisecond and odd waits: never back before the deadline, and not grossly late.
    @Test(arguments: [300_000, 1_000_000, 7_300_000, 25_000_000] as [Int64])
    func waitNeverWakesBeforeTheDeadline(nanoseconds: Int64) throws {
        let pipe = makePipe()
        defer { close(pipe.read); close(pipe.write) }
        var loop = PollLoop()
        loop.register(pipe.read)  // never written: only the deadline can end the wait
        let deadline = SystemClock.monotonicNow() + .nanoseconds(nanoseconds)
        let events = try loop.wait(until: deadline)
        let woke = SystemClock.monotonicNow()
        #expect(events.isEmpty)
        #expect(woke >= deadline)
        // Generous: the machine is shared; this only catches a wait that ignores the deadline.
        #expect(woke - deadline < .milliseconds(250))
    }

    @Test func pastDeadlineReturnsAtOnce() throws {
        var loop = PollLoop()
        let start = SystemClock.monotonicNow()
        #expect(try loop.wait(until: start - .seconds(1)).isEmpty)
        #expect(SystemClock.monotonicNow() - start < .milliseconds(100))
    }

    @Test func readableDescriptorIsReportedWithoutDeadline() throws {
        let pipe = makePipe()
        defer { close(pipe.read); close(pipe.write) }
        var loop = PollLoop()
        loop.register(pipe.read)
        #expect(write(pipe.write, "x", 1) == 1)
        let events = try loop.wait(until: nil)
        #expect(events == [PollLoop.Event(fileDescriptor: pipe.read, isReadable: true)])
    }

    @Test func closedWriterIsReportedAsHangUp() throws {
        let pipe = makePipe()
        defer { close(pipe.read) }
        var loop = PollLoop()
        loop.register(pipe.read)
        close(pipe.write)
        let events = try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
        #expect(events.count == 1)
        #expect(events.first?.fileDescriptor == pipe.read)
        #expect(events.first?.isHangUp == true)
        #expect(events.first?.isError == false)
        #expect(events.first?.isInvalid == false)
    }

    @Test func writeInterestIsReportedOnlyWhileRegistered() throws {
        let pipe = makePipe()
        defer { close(pipe.read); close(pipe.write) }
        var loop = PollLoop()
        loop.register(pipe.write, readable: false, writable: true)
        #expect(try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
            == [PollLoop.Event(fileDescriptor: pipe.write, isWritable: true)])
        loop.setWriteInterest(pipe.write, false)
        #expect(try loop.wait(until: SystemClock.monotonicNow() + .milliseconds(5)).isEmpty)
        loop.setWriteInterest(pipe.write, true)
        #expect(try loop.wait(until: SystemClock.monotonicNow() + .seconds(5)).count == 1)
    }

    @Test func closedDescriptorIsReportedInvalid() throws {
        let pipe = makePipe()
        close(pipe.read)
        close(pipe.write)
        var loop = PollLoop()
        loop.register(pipe.read)
        let events = try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
        #expect(events == [PollLoop.Event(fileDescriptor: pipe.read, isInvalid: true)])
    }

    @Test func registrationIsUpdatedAndRemoved() {
        var loop = PollLoop()
        loop.register(5)
        loop.register(7, writable: true)
        loop.register(5, writable: true)
        #expect(loop.fileDescriptors == [5, 7])
        loop.unregister(5)
        #expect(loop.fileDescriptors == [7])
    }

    @Test func onlyReadyDescriptorsAreReported() throws {
        let quiet = makePipe()
        let busy = makePipe()
        defer { [quiet.read, quiet.write, busy.read, busy.write].forEach { close($0) } }
        var loop = PollLoop()
        loop.register(quiet.read)
        loop.register(busy.read)
        #expect(write(busy.write, "y", 1) == 1)
        #expect(try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
            == [PollLoop.Event(fileDescriptor: busy.read, isReadable: true)])
    }

    /// A signal with a handler interrupts poll (EINTR, never restarted: signal(7)); the loop must
    /// carry on to the deadline rather than throw or return early. Another thread sends SIGUSR1
    /// to this one 20 ms into a 150 ms wait.
    @Test func interruptedPollWaitsOutTheDeadline() throws {
        signal(SIGUSR1) { _ in }  // does nothing: its only effect is to interrupt poll
        // Test-runner worker threads (libdispatch) block most signals; let this one in here.
        var usr1 = sigset_t()
        var previous = sigset_t()
        sigemptyset(&usr1)
        sigaddset(&usr1, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &usr1, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let target = UnsafeMutablePointer<pthread_t>.allocate(capacity: 1)
        target.initialize(to: pthread_self())
        defer { target.deallocate() }
        var sender = pthread_t()
        let created = pthread_create(&sender, nil, { argument in
            let target = argument!.load(as: pthread_t.self)
            usleep(20_000)
            pthread_kill(target, SIGUSR1)
            return nil
        }, target)
        try #require(created == 0)
        var loop = PollLoop()
        let pipe = makePipe()
        defer { close(pipe.read); close(pipe.write) }
        loop.register(pipe.read)
        let deadline = SystemClock.monotonicNow() + .milliseconds(150)
        let events = try loop.wait(until: deadline)
        #expect(events.isEmpty)
        #expect(SystemClock.monotonicNow() >= deadline)
        pthread_join(sender, nil)
    }
}
