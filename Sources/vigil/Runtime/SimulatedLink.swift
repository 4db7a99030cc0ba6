import Clocks
import Platform
import Simulator

/// The in-process simulated controller as an HCI link, for `vigil demo`: packets go straight
/// into the simulator and come straight back; its radio timers join the loop's deadlines.
final class SimulatedLink: HCILink {
    private var controller: SimulatedController
    /// The simulated Dexcom answers its control writes with indications, which a
    /// `SimulatedPeripheral` cannot do by itself: it is serviced after every controller step.
    private var dexcom: SimulatedDexcom?
    private var inbox: [[UInt8]] = []
    let name = "simulated radio"

    init(controller: SimulatedController, dexcom: SimulatedDexcom? = nil) {
        self.controller = controller
        self.dexcom = dexcom
    }

    private func collect(at now: MonotonicInstant) {
        dexcom?.service(&controller.radio, at: now)
        inbox += controller.takePacketsForHost()
    }

    var fileDescriptor: Int32? { nil }
    var hasPendingInput: Bool { !inbox.isEmpty }
    var nextDeadline: MonotonicInstant? { earliest(controller.nextDeadline, dexcom?.nextDeadline) }

    func send(_ h4: [UInt8], at now: MonotonicInstant) throws(PlatformError) {
        controller.receive(fromHost: h4, at: now)
        collect(at: now)
    }

    func receive(at now: MonotonicInstant) throws(PlatformError) -> [[UInt8]]? {
        collect(at: now)
        defer { inbox.removeAll() }
        return inbox
    }

    func handleDeadline(at now: MonotonicInstant) {
        controller.handleDeadline(at: now)
        collect(at: now)
    }

    func close() {}
}
