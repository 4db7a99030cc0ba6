import Clocks
import Glibc
import Testing
@testable import Platform

@Suite struct SignalWatcherTests {
    /// SIGHUP raised in this thread (blocked by the watcher) arrives through the signalfd, the
    /// poll loop sees it, and the default action (terminate) never runs. Synchronous on purpose:
    /// blocking is per thread, so the test must not hop threads between block and raise.
    @Test func raisedSIGHUPArrivesThroughThePollLoop() throws {
        let watcher = try SignalWatcher(signals: [.hangUp])
        #expect(try watcher.nextSignal() == nil)
        try SignalWatcher.raiseInCurrentThread(.hangUp)
        var loop = PollLoop()
        loop.register(watcher.fileDescriptor)
        let events = try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
        #expect(events == [PollLoop.Event(fileDescriptor: watcher.fileDescriptor, isReadable: true)])
        #expect(try watcher.nextSignal() == .hangUp)
        #expect(try watcher.nextSignal() == nil)
        watcher.close()
    }

    @Test func severalSignalsAreReadInTurn() throws {
        let watcher = try SignalWatcher()
        #expect(watcher.signals == [.interrupt, .terminate, .hangUp])
        try SignalWatcher.raiseInCurrentThread(.terminate)
        try SignalWatcher.raiseInCurrentThread(.interrupt)
        var seen: Set<SignalWatcher.Signal> = []
        while let signal = try watcher.nextSignal() { seen.insert(signal) }
        #expect(seen == [.interrupt, .terminate])
    }

    @Test(arguments: [(SignalWatcher.Signal.hangUp, SIGHUP, "SIGHUP"),
                      (.interrupt, SIGINT, "SIGINT"), (.terminate, SIGTERM, "SIGTERM")])
    func signalNumbersMatchTheCLibrary(signal: SignalWatcher.Signal, number: Int32, name: String) {
        #expect(signal.rawValue == number)
        #expect(signal.description == name)
    }

    @Test func closedWatcherSaysSo() throws {
        let watcher = try SignalWatcher(signals: [.hangUp])
        watcher.close()
        #expect(watcher.fileDescriptor == -1)
        #expect(throws: PlatformError.system("read(signalfd)", errno: EBADF, hint: "the watcher is closed")) {
            try watcher.nextSignal()
        }
    }
}
