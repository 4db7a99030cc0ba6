import Clocks
import Glibc
import Platform
import Synchronization

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
            // gpio-sim adds its attributes to the gpiochipN device, which the gpio bus lists;
            // /sys/dev/char/<major>:<minor> reaches the same directory from the device node.
            for directory in ["/sys/bus/gpio/devices/\(name)", characterDeviceDirectory(path)].compactMap({ $0 })
            where FileSystem.exists(path: directory + "/sim_gpio1/pull") {
                return SimulatedGPIOChip(path: path, name: name, sysfsDirectory: directory)
            }
        }
        return nil
    }

    static var isAvailable: Bool { find() != nil }

    /// Tests of every suite run in parallel, and all of them use lines 0 and 1 of the same
    /// simulated chip: each holds this lock for its whole body.
    private static let exclusiveUse = Mutex(())

    /// Runs `body` with the simulated chip to itself.
    static func withExclusiveUse<R>(_ body: (SimulatedGPIOChip) throws -> R) throws -> R {
        guard let chip = find() else { throw TestTimeout(description: "no gpio-sim chip") }
        return try exclusiveUse.withLock { _ in try body(chip) }
    }

    private static func characterDeviceDirectory(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        // glibc's gnu_dev_major / gnu_dev_minor, which Swift does not import (they are macros).
        let device = UInt64(info.st_rdev)
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        return "/sys/dev/char/\(major):\(minor)"
    }

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
