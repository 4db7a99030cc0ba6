import Glibc
import Testing
import Platform

/// Output lines on the kernel's GPIO simulator, read back both through the v2 uAPI and through
/// gpio-sim's own view of the pin (sim_gpioN/value: the physical level).
@Suite(.enabled(if: SimulatedGPIOChip.isAvailable, "no gpio-sim chip on this machine (needs configfs gpio-sim)"))
struct GPIOOutputTests {
    @Test func setDrivesThePinAndReadsBack() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let output = try chip.requestOutput(offset: 0, consumer: "vigil-test-buzzer", activeLow: false, initiallyOn: true)
            #expect(output.isOn)
            #expect(try sim.level(offset: 0) == true)
            #expect(try output.readBack() == true)

            try output.set(false)
            #expect(!output.isOn)
            #expect(try sim.level(offset: 0) == false)
            #expect(try output.readBack() == false)

            try output.set(true)
            #expect(try sim.level(offset: 0) == true)
            #expect(try output.readBack() == true)
        }
    }

    /// Active-low: "on" is the low level, and the first level is set with the request.
    @Test func activeLowInvertsThePhysicalLevel() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let led = try chip.requestOutput(offset: 1, consumer: "vigil-test-led", activeLow: true, initiallyOn: true)
            #expect(try sim.level(offset: 1) == false)
            #expect(try led.readBack() == true)
            try led.set(false)
            #expect(try sim.level(offset: 1) == true)
            #expect(try led.readBack() == false)
        }
    }

    @Test func initiallyOffMeansOffFromTheStart() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let output = try chip.requestOutput(offset: 0, consumer: "vigil-test-buzzer", activeLow: false, initiallyOn: false)
            #expect(!output.isOn)
            #expect(try sim.level(offset: 0) == false)
        }
    }

    @Test func releaseIsIdempotentAndFreesTheLine() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let output = try chip.requestOutput(offset: 0, consumer: "vigil-test-buzzer", activeLow: false, initiallyOn: true)
            #expect(output.isRequested)
            output.release()
            output.release()
            #expect(!output.isRequested)
            #expect(!output.isOn)
            #expect(throws: GPIOError.lineReleased(chip: sim.name, offset: 0)) { try output.set(true) }
            #expect(throws: GPIOError.lineReleased(chip: sim.name, offset: 0)) { try output.readBack() }

            // Released for real: another open of the chip may take it.
            let other = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let next = try other.requestOutput(offset: 0, consumer: "vigil-test-next", activeLow: false, initiallyOn: false)
            #expect(next.isRequested)
        }
    }

    @Test func deinitReleasesTheLine() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            do {
                let output = try chip.requestOutput(offset: 0, consumer: "vigil-test-scoped", activeLow: false, initiallyOn: true)
                #expect(output.isRequested)
            }
            let other = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let next = try other.requestOutput(offset: 0, consumer: "vigil-test-next", activeLow: false, initiallyOn: false)
            #expect(next.isRequested)
        }
    }
}
