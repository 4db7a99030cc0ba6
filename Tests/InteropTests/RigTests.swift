import Foundation
import Testing

extension Interop {
    /// The rig and the harness around it, without the binary: proves that a red interop test
    /// is about vigil, not about the peer.
    @Suite(bumbleRequired) struct RigTests {
        @Test func heartRateRigAnswersHCIResetOverTCP() throws {
            let rig = try Rig.launch()
            defer { rig.stop() }
            #expect(rig.port > 0)
            let info = try rig.info()
            #expect(info.string("rig") == "heart-rate-monitor")
            #expect(info.string("name") == "Vigil HRM")
            #expect(info.string("address") == "C2:11:22:33:44:55")
            #expect(info.object("deviceInformation")?.string("manufacturer") == "Vigil Test Rigs Ltd")

            // H4: 0x01 command, opcode 0x0C03 (HCI_Reset, Core v5.4 Vol 4 Part E 7.3.2), no
            // parameters. Expected Command Complete: 04 0E 04 <credits> 03 0C 00 (success).
            let client = try TCPClient(port: rig.port)
            try client.send([0x01, 0x03, 0x0C, 0x00])
            let event = try client.receive(exactly: 7)
            #expect(event[0] == 0x04)  // H4 event
            #expect(event[1] == 0x0E)  // Command Complete
            #expect(event[2] == 0x04)  // parameter length
            #expect(event[3] >= 1)  // Num_HCI_Command_Packets
            #expect(Array(event[4...5]) == [0x03, 0x0C])  // opcode, little-endian
            #expect(event[6] == 0x00)  // status: success
            #expect(try rig.waitFor { $0.string("event") == "hci-client-connected" } != nil)
        }

        @Test func stopEndsTheRigCleanlyAndIsIdempotent() throws {
            let rig = try Rig.launch()
            #expect(rig.isRunning)
            #expect(rig.stop() == 0)
            #expect(rig.isRunning == false)
            #expect(rig.stop() == 0)
            #expect(try rig.records().last?.string("event") == "rig-stopping")
        }

        @Test func sigtermAloneEndsTheRigWithStatusZero() throws {
            let rig = try Rig.launch()
            #expect(kill(rig.processIdentifier, SIGTERM) == 0)
            // Died by the signal instead of handling it, terminationStatus would be 15.
            // Must stop on the signal itself: stop() below would also close stdin, so the
            // "rig-stopping" line has to appear before it.
            let stopping = try rig.waitFor(timeout: .seconds(5)) { $0.string("event") == "rig-stopping" }
            #expect(stopping != nil, "rig ignored SIGTERM; stderr: \(rig.stderrText)")
            #expect(rig.stop() == 0)
        }

        @Test func aRigThatCannotStartFailsFastWithItsStderr() throws {
            let clock = ContinuousClock()
            let start = clock.now
            do {
                _ = try Rig.launch(arguments: ["--no-such-flag"])
                Issue.record("launch with a bad flag must throw")
            } catch let error as HarnessError {
                #expect(String(describing: error).contains("--no-such-flag"))
            }
            #expect(clock.now - start < .seconds(10))
        }

        @Test func requireEncryptionFlagIsAnnounced() throws {
            let rig = try Rig.launch(arguments: ["--require-encryption", "--legacy-reports"])
            defer { rig.stop() }
            let info = try rig.info()
            #expect(info.bool("requireEncryption") == true)
            #expect(info.bool("legacyReports") == true)
        }
    }
}
