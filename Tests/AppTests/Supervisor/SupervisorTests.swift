import Alarms
import App
import Clocks
import Testing

/// The supervisor's systemd side on the virtual clock: READY once the radio answered, the
/// status line as it changes, and the watchdog fed from the loop's own deadlines only.
@Suite struct SupervisorTests {
    static func systemd(_ configuration: inout Supervisor.Configuration) {
        configuration.notifiesSystemd = true
        configuration.watchdogInterval = .seconds(15)
    }

    @Test func readyIsSentOnceTheControllerAnswersWithTheStatusLine() throws {
        var world = try SupervisorWorld(configure: Self.systemd)
        world.advance(by: .seconds(5))
        let ready = world.notifications.filter { $0.first == "READY=1" }
        #expect(ready.count == 1)
        #expect(ready.first?.count == 2 && ready.first?[1].hasPrefix("STATUS=") == true)
        #expect(world.supervisor.lastStatus != "")
    }

    /// Every deadline the loop serves feeds the watchdog when it is due: once per interval.
    @Test func theWatchdogIsFedEveryIntervalWhileDeadlinesAreServed() throws {
        var world = try SupervisorWorld(configure: Self.systemd)
        world.advance(by: .seconds(61))
        let feeds = world.notifications.filter { $0 == ["WATCHDOG=1"] }.count
        #expect(feeds == 5, "fed \(feeds) times in 61 s at 15 s")
    }

    /// A loop that stops serving deadlines (hung in a write, a job done in place) feeds
    /// nothing, whatever else it still hears: systemd then restarts Vigil. Serving resumes
    /// with one feed, not one per interval missed.
    @Test func theWatchdogIsFedOnlyFromTheLoopsDeadlines() throws {
        var world = try SupervisorWorld(configure: Self.systemd)
        world.advance(by: .seconds(1))
        let fed = world.notifications.filter { $0 == ["WATCHDOG=1"] }.count
        // Time passes; the loop hears results and ends turns, but serves no deadline.
        for _ in 0..<60 {
            world.now = world.now + .seconds(1)
            world.tell(.bondsSaved(succeeded: true))
            world.supervisor.endOfTurn(at: world.clocks)
            world.perform()
        }
        #expect(world.notifications.filter { $0 == ["WATCHDOG=1"] }.count == fed)
        world.supervisor.handleDeadline(host: &world.host, at: world.clocks)
        world.perform()
        #expect(world.notifications.filter { $0 == ["WATCHDOG=1"] }.count == fed + 1)
    }

    @Test func withoutSystemdNothingIsNotified() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(60))
        #expect(world.notifications.isEmpty)
        #expect(!(world.supervisor.nextDeadline.map { $0 <= world.now } ?? false), "a deadline left in the past spins the loop")
    }

    /// A notification that fails is said once, not once per watchdog tick.
    @Test func aFailedNotificationIsLoggedOnce() throws {
        var world = try SupervisorWorld(configure: Self.systemd)
        for _ in 0..<3 { world.tell(.notifyFailed("connection refused")) }
        #expect(world.logCount("systemd notification: connection refused") == 1)
    }
}
