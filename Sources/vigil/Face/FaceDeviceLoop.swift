import Clocks
import Platform

/// The poll loop of a command that drives the face with no radio: `vigil alarm test`, and the
/// configuration fault sounding in place of `vigil run`. It sleeps until a deadline, a button
/// edge or a stop signal (SIGINT, SIGTERM, SIGHUP) and says which woke it.
struct FaceDeviceLoop {
    /// What ended a wait, read at `woke`.
    struct Wake {
        /// A stop signal arrived: the command ends.
        var signal: SignalWatcher.Signal?
        /// Button edges read from the device, then the ones it made up that are due.
        var edges: [TimedButtonEdge]
        var woke: MonotonicInstant
    }

    private let device: any FaceDevice
    private var poll = PollLoop()
    private let signals: SignalWatcher?

    init(device: any FaceDevice) {
        self.device = device
        signals = try? SignalWatcher(signals: [.interrupt, .terminate, .hangUp])
        if let signals { poll.register(signals.fileDescriptor) }
        for descriptor in device.descriptors { poll.register(descriptor) }
    }

    func close() { signals?.close() }

    mutating func wait(until deadline: MonotonicInstant?) throws(PlatformError) -> Wake {
        let events = try poll.wait(until: earliest(deadline, device.nextDeadline))
        let woke = SystemClock.monotonicNow()
        var edges: [TimedButtonEdge] = []
        for event in events {
            if event.fileDescriptor == signals?.fileDescriptor {
                if let signal = try? signals?.nextSignal() { return Wake(signal: signal, edges: [], woke: woke) }
                continue
            }
            let read = device.readButton(event.fileDescriptor, at: woke)
            // An empty read from a readable descriptor is a hang-up: the device has dropped it.
            if read.isEmpty, !device.descriptors.contains(event.fileDescriptor) { poll.unregister(event.fileDescriptor) }
            edges += read
        }
        return Wake(signal: nil, edges: edges + device.dueEdges(at: woke), woke: woke)
    }
}

extension FaceDevice {
    /// A line for the person at the terminal: above the console's status line, or on stdout.
    func say(_ line: String) {
        if let console = self as? ConsoleFaceDevice {
            console.printAbove(line)
        } else {
            print(line)
            StandardOutput.flush()
        }
    }
}
