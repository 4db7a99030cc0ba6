import Foundation
import Platform
import Testing

extension Interop {
    /// A controller whose TCP connect is never answered (a peer that drops SYNs; here
    /// a listener whose accept queue is full). Each attempt takes the whole 5 s connect
    /// timeout and is made again and again; the loop must keep turning meanwhile: the
    /// watchdog fed, the no-controller fault raised, SIGTERM answered without waiting it out.
    @Suite struct FaultControllerConnectInteropTests {
        @Test func aConnectThatIsNeverAnsweredDoesNotHoldTheLoop() throws {
            let listener = try TCPListener.listen(backlog: 0)
            let held = (0..<4).compactMap { _ in
                try? TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(200))
            }
            defer { held.forEach { $0.close() } }
            let state = try StateDirectory()
            let config = try state.writeConfig("[face]\nbackend = \"none\"\n")
            let notifications = try NotificationReceiver()
            var environment = notifications.vigilEnvironment
            environment["WATCHDOG_USEC"] = "1000000"  // a feed due every 0.5 s
            let target = "tcp:127.0.0.1:\(listener.port)"
            let start = ContinuousClock.now
            let run = try BackgroundVigil(["run", "--config", config.path, "--hci", target, "--state-dir", state.url.path,
                                           "--events-json", "--log-level", "info", "--seconds", "60"],
                                          environment: environment)
            defer { _ = run.stop() }

            // Longer than one attempt: a loop held by the connect would go 5 s unfed.
            var feeds = [start]
            while ContinuousClock.now - start < .seconds(8) {
                if notifications.receive(timeoutMilliseconds: 100)?.split(separator: "\n").contains("WATCHDOG=1") == true {
                    feeds.append(.now)
                }
            }
            let longestGap = zip(feeds, feeds.dropFirst()).map { $1 - $0 }.max() ?? .seconds(8)
            #expect(feeds.count > 5 && longestGap < .seconds(2.5),
                    "\(feeds.count - 1) feeds, the longest gap \(longestGap)\n\(run.summary)")
            // The attempt did hang for its whole timeout while the watchdog was fed.
            #expect(run.waitForLog("connecting to \(target)"), "\(run.summary)")
            #expect(run.waitForLog("127.0.0.1:\(listener.port) did not answer within 5.0 seconds"),
                    "connected past a full accept queue (held \(held.count))?\n\(run.summary)")
            let raised: (JSONObject) -> Bool = {
                $0.string("event") == "alarm" && $0.string("alarm") == "fault:no-controller" && $0.string("change") == "raised"
            }
            #expect(run.wait(upTo: .seconds(10)) { run.events.contains(where: raised) }, "no controller fault raised\n\(run.summary)")

            // SIGTERM while the next attempt hangs: the exit does not wait out its 5 s.
            let attempts = { run.stderrText.components(separatedBy: "connecting to \(target)").count - 1 }
            let before = attempts()
            #expect(run.wait(upTo: .seconds(10)) { attempts() > before }, "no further attempt\n\(run.summary)")
            let signalled = ContinuousClock.now
            run.send(SIGTERM)
            let exit = run.waitForExit(upTo: .seconds(20))
            let took = ContinuousClock.now - signalled
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(run.summary)")
            #expect(took < .seconds(3), "the exit took \(took): it waited for the connect\n\(run.summary)")
            #expect(!run.stderrText.contains("opened \(target)"), "\(run.summary)")
        }
    }
}
