import Glibc
import Testing
import Platform

@Suite struct GPIOAvailabilityTests {
    /// Only gpiochip<number> entries count, in numeric (not string) order.
    @Test func listsChipNodesInNumericOrder() throws {
        try withTemporaryDirectory { directory in
            for name in ["gpiochip10", "gpiochip2", "gpiochip0", "gpiochip", "gpiochipX", "gpiomem", "tty0"] {
                let fd = open(directory + "/" + name, O_CREAT | O_WRONLY, 0o600)
                #expect(fd >= 0)
                close(fd)
            }
            #expect(GPIOAvailability.chips(inDirectory: directory)
                == [directory + "/gpiochip0", directory + "/gpiochip2", directory + "/gpiochip10"])
        }
    }

    @Test func missingDirectoryHasNoChips() {
        #expect(GPIOAvailability.chips(inDirectory: "/nonexistent-vigil-test-dir").isEmpty)
    }

    /// Whatever this machine has: every entry is a /dev/gpiochip node, and chipInfos describes each.
    @Test func infosDescribeEachChipListed() {
        let chips = GPIOAvailability.chips()
        #expect(chips.allSatisfy { $0.hasPrefix("/dev/gpiochip") })
        #expect(GPIOAvailability.chipInfos().map(\.path) == chips)
    }
}
