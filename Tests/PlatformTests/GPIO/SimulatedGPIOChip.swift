import Clocks
import Glibc
import Platform

/// A chip of the kernel's GPIO simulator (Linux drivers/gpio/gpio-sim.c, set up through configfs;
/// Documentation/admin-guide/gpio/gpio-sim.rst), which lets a test see what an output drives
/// and play the part of the button: each line has sysfs attributes `sim_gpioN/value` (the level
/// the line has) and `sim_gpioN/pull` ("pull-up"/"pull-down": the level an input sees).
///
/// Tests that drive lines only ever use a simulated chip: on a real Raspberry Pi an arbitrary
/// line may be wired to something.
struct SimulatedGPIOChip {
    /// "/dev/gpiochip3".
    var path: String
    /// "gpiochip3".
    var name: String
    var sysfsDirectory: String

    /// The first gpio-sim chip with at least two lines, if this machine has one.
    static func find() -> SimulatedGPIOChip? {
        for path in GPIOAvailability.chips() {
            let name = String(path.split(separator: "/").last ?? "")
            let directory = "/sys/bus/gpio/devices/\(name)"
            if FileSystem.exists(path: directory + "/sim_gpio1/pull") {
                return SimulatedGPIOChip(path: path, name: name, sysfsDirectory: directory)
            }
        }
        return nil
    }

    static var isAvailable: Bool { find() != nil }

    /// What the simulated input sees on `offset` when nothing drives it.
    func setPull(offset: Int, up: Bool) throws {
        try writeAttribute("sim_gpio\(offset)/pull", up ? "pull-up" : "pull-down")
    }

    /// The physical level of `offset` (for an output: what it drives).
    func level(offset: Int) throws -> Bool {
        let text = String(decoding: try FileSystem.readFile(path: "\(sysfsDirectory)/sim_gpio\(offset)/value"), as: UTF8.self)
        switch text.filter({ !$0.isWhitespace }) {
        case "1": return true
        case "0": return false
        default: throw TestTimeout(description: "unexpected sim_gpio\(offset)/value \(text.debugDescription)")
        }
    }

    private func writeAttribute(_ attribute: String, _ value: String) throws {
        let path = "\(sysfsDirectory)/\(attribute)"
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw TestTimeout(description: "open(\(path)) failed: errno \(errno)") }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw TestTimeout(description: "write(\(path), \(value)) failed: errno \(errno)")
        }
    }
}

/// Sleeps the test thread for real (only the tests of real threads and real kernels need it).
func sleepFor(milliseconds: Int) {
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

/// Waits, for at most `timeout`, until `condition` holds; returns whether it did.
func eventually(within timeout: Duration = .seconds(2), _ condition: () -> Bool) -> Bool {
    let deadline = SystemClock.monotonicNow() + timeout
    while SystemClock.monotonicNow() < deadline {
        if condition() { return true }
        sleepFor(milliseconds: 1)
    }
    return condition()
}
