import Glibc
import Testing
import Platform

/// The selector's order and reporting, with a fake opener standing in for the kernel.
@Suite struct GPIOChipSelectorTests {
    @Test(arguments: [
        ("/dev/gpiochip4", GPIOChipSelector.Attempt.path("/dev/gpiochip4")),
        ("gpiochip0", .name("gpiochip0")),
        ("gpiochip12", .name("gpiochip12")),
        ("pinctrl-rp1", .label("pinctrl-rp1")),
        ("pinctrl-bcm2835", .label("pinctrl-bcm2835")),
        ("gpiochip", .label("gpiochip")),
        ("gpiochipA", .label("gpiochipA")),
        ("gpiochip4x", .label("gpiochip4x")),
    ])
    func candidateIsReadAsPathNameOrLabel(candidate: String, expected: GPIOChipSelector.Attempt) {
        #expect(GPIOChipSelector.Attempt(candidate: candidate) == expected)
    }

    @Test func labelsComeBeforeNamesAndPathsWithoutRepeats() {
        let selector = GPIOChipSelector(candidates: ["gpiochip4", "/dev/gpiochip0", "pinctrl-rp1", "gpiochip4", "other-label"],
                                        label: "pinctrl-rp1")
        #expect(selector.attempts == [.label("pinctrl-rp1"), .label("other-label"), .name("gpiochip4"), .path("/dev/gpiochip0")])
    }

    /// The Pi 5 case: the label finds the chip even though gpiochip4 (an older kernel's name)
    /// would also open, on the newer kernel as some other chip.
    @Test func labelIsTriedFirstAndWins() throws {
        let selector = GPIOChipSelector(candidates: ["gpiochip4", "gpiochip0"], label: "pinctrl-rp1")
        var asked: [GPIOChipSelector.Attempt] = []
        let found = try selector.firstMatch(open: { attempt in
            asked.append(attempt)
            return .success("chip for \(attempt)")
        }, present: { Issue.record("present is only listed on failure"); return [] })
        #expect(asked == [.label("pinctrl-rp1")])
        #expect(found.handle == "chip for label \"pinctrl-rp1\"")
        #expect(found.attempt == .label("pinctrl-rp1"))
    }

    @Test func namesAreTriedInOrderWhenTheLabelIsMissing() throws {
        let selector = GPIOChipSelector(candidates: ["gpiochip4", "gpiochip0"], label: "pinctrl-rp1")
        var asked: [GPIOChipSelector.Attempt] = []
        let found = try selector.firstMatch(open: { attempt -> Result<Int, GPIOChipSelector.OpenFailure> in
            asked.append(attempt)
            return attempt == .name("gpiochip0") ? .success(0) : .failure(.init(errno: ENOENT))
        }, present: { [] })
        #expect(asked == [.label("pinctrl-rp1"), .name("gpiochip4"), .name("gpiochip0")])
        #expect(found.handle == 0)
        #expect(found.attempt == .name("gpiochip0"))
    }

    @Test func noChipReportsEveryAttemptAndWhatIsPresent() {
        let selector = GPIOChipSelector(candidates: ["gpiochip4", "/dev/gpiochip0"], label: "pinctrl-rp1")
        let present = [GPIOChipInfo(path: "/dev/gpiochip1", label: "gpio-sim.0-node0", lineCount: 8)]
        #expect(throws: GPIOError.noChipFound(
            tried: [GPIOChipAttemptFailure(attempt: .label("pinctrl-rp1"), errno: ENOENT),
                    GPIOChipAttemptFailure(attempt: .name("gpiochip4"), errno: ENOENT),
                    GPIOChipAttemptFailure(attempt: .path("/dev/gpiochip0"), errno: ENOTTY)],
            present: present)) {
            try selector.firstMatch(open: { attempt -> Result<Int, GPIOChipSelector.OpenFailure> in
                .failure(.init(errno: attempt == .path("/dev/gpiochip0") ? ENOTTY : ENOENT))
            }, present: { present })
        }
    }

    /// A chip we may not open is the one to fix, whatever else was missing.
    @Test(arguments: [EACCES, EPERM])
    func permissionProblemWinsOverNotFound(code: Int32) {
        let selector = GPIOChipSelector(candidates: ["gpiochip4", "gpiochip0"], label: "pinctrl-rp1")
        #expect(throws: GPIOError.permissionDenied(operation: "open GPIO chip /dev/gpiochip0", errno: code)) {
            try selector.firstMatch(open: { attempt -> Result<Int, GPIOChipSelector.OpenFailure> in
                .failure(.init(errno: attempt == .name("gpiochip0") ? code : ENOENT))
            }, present: { [] })
        }
    }

    @Test func emptySelectorTriesNothing() {
        #expect(throws: GPIOError.noChipFound(tried: [], present: [])) {
            try GPIOChipSelector(candidates: []).firstMatch(open: { _ -> Result<Int, GPIOChipSelector.OpenFailure> in
                Issue.record("nothing to try")
                return .success(0)
            }, present: { [] })
        }
    }
}
