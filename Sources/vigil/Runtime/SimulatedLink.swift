import Clocks
import Platform
import Simulator

/// The in-process simulated controller as an HCI link, for `vigil demo`: packets go straight
/// into the simulator and come straight back; its radio timers join the loop's deadlines.
final class SimulatedLink: HCILink {
    private var controller: SimulatedController
    private var inbox: [[UInt8]] = []
    let name = "simulated radio"

    init(controller: SimulatedController) { self.controller = controller }

    var fileDescriptor: Int32? { nil }
    var hasPendingInput: Bool { !inbox.isEmpty }
    var nextDeadline: MonotonicInstant? { controller.nextDeadline }

    func send(_ h4: [UInt8], at now: MonotonicInstant) throws(PlatformError) {
        controller.receive(fromHost: h4, at: now)
        inbox += controller.takePacketsForHost()
    }

    func receive(at now: MonotonicInstant) throws(PlatformError) -> [[UInt8]]? {
        inbox += controller.takePacketsForHost()
        defer { inbox.removeAll() }
        return inbox
    }

    func handleDeadline(at now: MonotonicInstant) {
        controller.handleDeadline(at: now)
        inbox += controller.takePacketsForHost()
    }

    func close() {}
}
