import Alarms
import App
import Clocks
import Testing

/// The face fault on the virtual clock: hardware missing at start or failing later raises it,
/// is opened again every minute, and clears it once every line works; and the double press's
/// USB export, refused without a history.
@Suite struct SupervisorFaceTests {
    static func hardwareMissing(_ configuration: inout Supervisor.Configuration) {
        configuration.faceIsHardware = true
        configuration.faceDeviceOpened = false
    }

    @Test func faceHardwareMissingAtStartIsTheFaceFaultAndIsOpenedAgainEveryMinute() throws {
        var world = try SupervisorWorld(configure: Self.hardwareMissing)
        world.faceDevice.opens = false
        #expect(world.raisedAndCleared(.fault(.faceFailing)) == ["raised"])
        #expect(world.logged("face: the face hardware could not be opened"))
        world.advance(by: .seconds(150))
        #expect(world.faceReopenings == 2)
        world.faceDevice.opens = true
        world.advance(by: .seconds(60))
        #expect(world.faceReopenings == 3)
        #expect(world.logged("face: gpiochip0 opened"))
        #expect(world.raisedAndCleared(.fault(.faceFailing)) == ["raised", "cleared"])
        world.advance(by: .seconds(300))
        #expect(world.faceReopenings == 3, "working hardware is not opened again")
    }

    @Test func aLineThatFailsLaterRaisesTheFaultAndIsOpenedAgain() throws {
        var world = try SupervisorWorld(configure: { $0.faceIsHardware = true })
        world.advance(by: .seconds(5))
        world.tell(.faceDeviceFailure("LED line: write failed"))
        #expect(world.logged("face: LED line: write failed; the face fault is raised"))
        world.advance(by: .seconds(61))
        #expect(world.faceReopenings == 1)
        #expect(world.raisedAndCleared(.fault(.faceFailing)) == ["raised", "cleared"])
    }

    @Test func aDoublePressWithoutAHistoryExportsNothing() throws {
        var world = try SupervisorWorld(configure: { $0.usbMountPoint = "/media/vigil" }, historyOpens: false)
        for edge in [ButtonEdge.pressed, .released, .pressed, .released] {
            world.now = world.now + .milliseconds(100)
            world.tell(.button(edge, at: world.now))
        }
        world.advance(by: .seconds(2))
        #expect(world.usbExports.isEmpty)
        #expect(world.logged("button: double press, but the history is not open: nothing to export"))
    }

    @Test func aDoublePressStartsOneExportAndItsEndIsSaid() throws {
        var world = try SupervisorWorld(configure: { $0.usbMountPoint = "/media/vigil" })
        world.advance(by: .seconds(5))
        for edge in [ButtonEdge.pressed, .released, .pressed, .released] {
            world.now = world.now + .milliseconds(100)
            world.tell(.button(edge, at: world.now))
        }
        world.advance(by: .seconds(2))
        #expect(world.usbExports == ["/media/vigil"])
        #expect(world.statuses.contains("USB export: writing to /media/vigil"))
        world.tell(.usbExportEnded(succeeded: true, summary: "42 rows"))
        #expect(world.logged("USB export: 42 rows"))
        #expect(world.statuses.contains("USB export done: 42 rows"))
    }
}
