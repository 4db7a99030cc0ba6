import Glibc
import Testing
@testable import Platform

@Suite struct GPIOChipTests {
    /// Through the kernel: names and labels that exist nowhere, each reported.
    @Test func missingChipNamesEveryCandidateTried() {
        let selector = GPIOChipSelector(candidates: ["gpiochip999", "/dev/gpiochip998"], label: "vigil-test-no-such-label")
        do {
            _ = try GPIOChip.open(selector)
            Issue.record("opened a chip that does not exist")
        } catch {
            #expect(error == .noChipFound(
                tried: [GPIOChipAttemptFailure(attempt: .label("vigil-test-no-such-label"), errno: ENOENT),
                        GPIOChipAttemptFailure(attempt: .name("gpiochip999"), errno: ENOENT),
                        GPIOChipAttemptFailure(attempt: .path("/dev/gpiochip998"), errno: ENOENT)],
                present: GPIOAvailability.chipInfos()))
            #expect(error.description.contains("label \"vigil-test-no-such-label\" (no chip has that label)"))
            #expect(error.description.contains("/dev/gpiochip999 (does not exist)"))
            #expect(error.description.contains("/dev/gpiochip998 (does not exist)"))
        }
    }

    /// A path to something that is not a GPIO chip is refused as such before anything else
    /// happens: a regular file and a directory by their type, a character device that is not
    /// a chip (/dev/null) by its answer to GPIO_GET_CHIPINFO_IOCTL.
    @Test func pathsThatAreNotChipsAreSaidToBeNotChips() throws {
        try withTemporaryDirectory { directory in
            let file = directory + "/gpiochip0"
            let fd = open(file, O_CREAT | O_WRONLY, 0o600)
            #expect(fd >= 0)
            close(fd)
            for path in [file, directory, "/dev/null"] {
                #expect(throws: GPIOError.noChipFound(tried: [GPIOChipAttemptFailure(attempt: .path(path), errno: ENOTTY)],
                                                      present: GPIOAvailability.chipInfos())) {
                    try GPIOChip.open(GPIOChipSelector(candidates: [path]))
                }
                #expect(GPIOChipAttemptFailure(attempt: .path(path), errno: ENOTTY).description == "\(path) (not a GPIO chip)")
            }
        }
    }

    /// The kernel's fixed-size names: up to the first NUL, or the whole array when it has none.
    @Test func kernelNamesEndAtTheirFirstNul() {
        let name: (CChar, CChar, CChar, CChar) = (0x72, 0x70, 0x00, 0x31)
        #expect(String(nulTerminated: name) == "rp")
        let full: (CChar, CChar, CChar) = (0x72, 0x70, 0x31)
        #expect(String(nulTerminated: full) == "rp1")
    }

    @Test(.enabled(if: GPIOAvailability.chips().isEmpty, "this machine has GPIO chips"))
    func missingChipSaysTheMachineHasNone() {
        #expect(throws: GPIOError.self) { try GPIOChip.open(GPIOChipSelector(candidates: ["gpiochip0", "gpiochip4"], label: "pinctrl-rp1")) }
        do {
            _ = try GPIOChip.open(GPIOChipSelector(candidates: ["gpiochip0"]))
        } catch {
            #expect(error.description == "no GPIO chip found: tried /dev/gpiochip0 (does not exist). "
                + "no /dev/gpiochip* on this machine (not a Raspberry Pi, or its GPIO driver is not loaded)")
        }
    }

    /// Opening touches no line, so this runs on any chip, a real Raspberry Pi's included.
    @Test(.enabled(if: !GPIOAvailability.chips().isEmpty, "no /dev/gpiochip* on this machine"))
    func opensByPathThenByNameAndLabel() throws {
        let path = try #require(GPIOAvailability.chips().first)
        let byPath = try GPIOChip.open(GPIOChipSelector(candidates: [path]))
        #expect("/dev/" + byPath.name == path)
        #expect(byPath.lineCount > 0)
        #expect(byPath.openedBy == .path(path))
        #expect(!byPath.label.isEmpty)

        let byName = try GPIOChip.open(GPIOChipSelector(candidates: ["gpiochip999", byPath.name]))
        #expect(byName.name == byPath.name)
        #expect(byName.openedBy == .name(byPath.name))

        // Labels need not be unique, so only check that the label found a chip with that label.
        let byLabel = try GPIOChip.open(GPIOChipSelector(candidates: ["gpiochip999"], label: byPath.label))
        #expect(byLabel.label == byPath.label)
        #expect(byLabel.openedBy == .label(byPath.label))
        #expect(GPIOAvailability.chipInfos().contains(GPIOChipInfo(path: path, label: byPath.label, lineCount: byPath.lineCount)))
    }

    @Test(.enabled(if: !GPIOAvailability.chips().isEmpty, "no /dev/gpiochip* on this machine"))
    func offsetsOutsideTheChipAreRefusedBeforeTheKernel() throws {
        let chip = try GPIOChip.open(GPIOChipSelector(candidates: [try #require(GPIOAvailability.chips().first)]))
        let expected = GPIOError.lineOutOfRange(chip: chip.name, offset: chip.lineCount, lineCount: chip.lineCount)
        #expect(throws: expected) {
            try chip.requestOutput(offset: chip.lineCount, consumer: "vigil-test", activeLow: false, initiallyOn: false)
        }
        #expect(throws: GPIOError.lineOutOfRange(chip: chip.name, offset: -1, lineCount: chip.lineCount)) {
            try chip.requestButton(offset: -1, consumer: "vigil-test", activeLow: true, pullUp: true)
        }
    }

    @Test(.enabled(if: !GPIOAvailability.chips().isEmpty, "no /dev/gpiochip* on this machine"))
    func closeIsIdempotentAndLaterRequestsFail() throws {
        let chip = try GPIOChip.open(GPIOChipSelector(candidates: [try #require(GPIOAvailability.chips().first)]))
        chip.close()
        chip.close()
        #expect(throws: GPIOError.lineReleased(chip: chip.name, offset: 0)) {
            try chip.requestOutput(offset: 0, consumer: "vigil-test", activeLow: false, initiallyOn: false)
        }
    }

    /// A line held through another open of the chip is reported as busy with the holder's
    /// consumer name, which GPIO_V2_GET_LINEINFO_IOCTL reads after the refusal.
    @Test(.enabled(if: SimulatedGPIOChip.isAvailable, "no gpio-sim chip on this machine (needs configfs gpio-sim)"))
    func busyLineNamesTheHolder() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let holderChip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let held = try holderChip.requestOutput(offset: 0, consumer: "vigil-test-holder", activeLow: false, initiallyOn: false)
            let other = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let busy = GPIOError.lineBusy(chip: sim.name, offset: 0, consumer: "vigil-test-holder")
            #expect(throws: busy) { try other.requestButton(offset: 0, consumer: "vigil-test-second", activeLow: true, pullUp: true) }
            #expect(throws: busy) { try other.requestOutput(offset: 0, consumer: "vigil-test-second", activeLow: false, initiallyOn: false) }
            // The same chip object: each request is its own, so the kernel refuses this one too.
            #expect(throws: busy) { try holderChip.requestOutput(offset: 0, consumer: "vigil-test-again", activeLow: false, initiallyOn: false) }

            held.release()
            let after = try other.requestOutput(offset: 0, consumer: "vigil-test-second", activeLow: false, initiallyOn: false)
            #expect(after.isRequested)
        }
    }

    /// Closing a chip switches its outputs off and makes them unusable.
    @Test(.enabled(if: SimulatedGPIOChip.isAvailable, "no gpio-sim chip on this machine (needs configfs gpio-sim)"))
    func closingTheChipReleasesItsLines() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let output = try chip.requestOutput(offset: 0, consumer: "vigil-test", activeLow: false, initiallyOn: true)
            let button = try chip.requestButton(offset: 1, consumer: "vigil-test", activeLow: true, pullUp: true)
            #expect(try sim.level(offset: 0) == true)
            #expect(button.fileDescriptor >= 0)
            chip.close()
            #expect(!button.isRequested)
            #expect(button.fileDescriptor == -1)
            #expect(throws: GPIOError.lineReleased(chip: sim.name, offset: 1)) { try button.readEdges() }
            button.release()  // harmless after the chip closed
            #expect(!output.isRequested)
            #expect(output.isOn == false)
            #expect(throws: GPIOError.lineReleased(chip: sim.name, offset: 0)) { try output.set(true) }
            output.release()  // harmless after the chip closed

            let again = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let reclaimed = try again.requestOutput(offset: 0, consumer: "vigil-test", activeLow: false, initiallyOn: false)
            #expect(reclaimed.isRequested)
        }
    }
}
