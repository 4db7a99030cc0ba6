import Glibc
import Testing
import Platform

/// The error texts are the user interface of a failed start: each case must say what was asked,
/// what went wrong and what to do. Expected strings are written out in full on purpose.
@Suite struct GPIOErrorTests {
    @Test func busyLineNamesItsConsumerAndWhatToDo() {
        let error = GPIOError.lineBusy(chip: "gpiochip0", offset: 17, consumer: "gpio-shutdown")
        #expect(error.errno == EBUSY)
        #expect(error.description == "GPIO line 17 on gpiochip0 is busy: \"gpio-shutdown\" holds it. "
            + "Another program (another vigil, gpioset, gpiomon, a script) or a dtoverlay in /boot/firmware/config.txt "
            + "(gpio-shutdown, gpio-key, w1-gpio, a HAT's driver) has claimed it: stop that program, remove the overlay, "
            + "or choose another pin in the board profile")
    }

    @Test func busyLineWithoutAConsumerNameSaysSo() {
        let error = GPIOError.lineBusy(chip: "gpiochip4", offset: 27, consumer: nil)
        #expect(error.description.hasPrefix("GPIO line 27 on gpiochip4 is busy: an unnamed consumer holds it. "))
    }

    @Test func permissionDeniedPointsAtTheGpioGroup() {
        let error = GPIOError.permissionDenied(operation: "open GPIO chip /dev/gpiochip0", errno: EACCES)
        #expect(error.errno == EACCES)
        #expect(error.description == "open GPIO chip /dev/gpiochip0 failed: Permission denied (EACCES): "
            + "add the user to the gpio group (sudo usermod -aG gpio $USER, then log in again), or run as the vigil service user")
    }

    @Test func outOfRangeGivesTheValidOffsets() {
        let error = GPIOError.lineOutOfRange(chip: "gpiochip0", offset: 54, lineCount: 54)
        #expect(error.errno == EINVAL)
        #expect(error.description == "GPIO line 54 does not exist on gpiochip0, which has 54 lines (0...53): "
            + "check the line offsets in the board profile (they are BCM GPIO numbers, not header pin numbers)")
        #expect(GPIOError.lineOutOfRange(chip: "gpiochip9", offset: 0, lineCount: 0).description
            .hasPrefix("GPIO line 0 does not exist on gpiochip9, which has 0 lines (none): "))
    }

    @Test func noChipListsEveryAttemptAndSaysNoneExist() {
        let error = GPIOError.noChipFound(
            tried: [
                GPIOChipAttemptFailure(attempt: .label("pinctrl-rp1"), errno: ENOENT),
                GPIOChipAttemptFailure(attempt: .name("gpiochip4"), errno: ENOENT),
                GPIOChipAttemptFailure(attempt: .path("/dev/gpiochip0"), errno: ENOTTY),
                GPIOChipAttemptFailure(attempt: .path("/dev/null"), errno: EIO),
            ],
            present: [])
        #expect(error.errno == EIO)
        #expect(error.description == "no GPIO chip found: tried label \"pinctrl-rp1\" (no chip has that label); "
            + "/dev/gpiochip4 (does not exist); /dev/gpiochip0 (not a GPIO chip); /dev/null (Input/output error (EIO)). "
            + "no /dev/gpiochip* on this machine (not a Raspberry Pi, or its GPIO driver is not loaded)")
    }

    @Test func noChipListsWhatExists() {
        let error = GPIOError.noChipFound(
            tried: [GPIOChipAttemptFailure(attempt: .label("pinctrl-rp1"), errno: ENOENT)],
            present: [GPIOChipInfo(path: "/dev/gpiochip0", label: "pinctrl-bcm2711", lineCount: 58),
                      GPIOChipInfo(path: "/dev/gpiochip1", label: "raspberrypi-exp-gpio"),
                      GPIOChipInfo(path: "/dev/gpiochip2")])
        #expect(error.errno == ENOENT)
        #expect(error.description == "no GPIO chip found: tried label \"pinctrl-rp1\" (no chip has that label). "
            + "present: /dev/gpiochip0 (\"pinctrl-bcm2711\", 58 lines), /dev/gpiochip1 (\"raspberrypi-exp-gpio\"), /dev/gpiochip2; "
            + "set the chip in the board profile to one of these")
    }

    @Test func emptySelectorIsReportedAsSuch() {
        #expect(GPIOError.noChipFound(tried: [], present: []).description.hasPrefix(
            "no GPIO chip found: tried nothing (the selector is empty). "))
    }

    @Test func otherErrnoNamesTheCall() {
        let error = GPIOError.system(operation: "GPIO_V2_LINE_SET_VALUES_IOCTL(gpiochip0 line 18, 1)", errno: EIO)
        #expect(error.errno == EIO)
        #expect(error.description == "GPIO_V2_LINE_SET_VALUES_IOCTL(gpiochip0 line 18, 1) failed: Input/output error (EIO)")
    }

    @Test func releasedAndInvalidArgumentRead() {
        #expect(GPIOError.lineReleased(chip: "gpiochip0", offset: 18).description
            == "GPIO line 18 on gpiochip0 was used after it was released (or after its chip was closed)")
        #expect(GPIOError.lineReleased(chip: "gpiochip0", offset: 18).errno == EBADF)
        #expect(GPIOError.invalidArgument(operation: "ToneGenerator.play(hertz: 5)", reason: "too low").description
            == "ToneGenerator.play(hertz: 5): too low")
    }

    /// errno from a line request -> the case a person can act on.
    @Test(arguments: [
        (EBUSY, GPIOError.lineBusy(chip: "gpiochip0", offset: 17, consumer: "other")),
        (EACCES, .permissionDenied(operation: "request", errno: EACCES)),
        (EPERM, .permissionDenied(operation: "request", errno: EPERM)),
        (EINVAL, .system(operation: "request", errno: EINVAL)),
        (EIO, .system(operation: "request", errno: EIO)),
        (ENODEV, .system(operation: "request", errno: ENODEV)),
    ])
    func lineRequestErrnoIsClassified(code: Int32, expected: GPIOError) {
        #expect(GPIOError.classify(errno: code, operation: "request", chip: "gpiochip0", offset: 17, consumer: { "other" }) == expected)
    }

    /// The consumer is looked up (an ioctl) only when the line is busy.
    @Test(arguments: [EACCES, EPERM, EINVAL, EIO])
    func consumerIsOnlyAskedForWhenBusy(code: Int32) {
        var asked = false
        _ = GPIOError.classify(errno: code, operation: "request", chip: "gpiochip0", offset: 17, consumer: { asked = true; return nil })
        #expect(!asked)
    }

    @Test(arguments: [
        (EACCES, GPIOError.permissionDenied(operation: "open", errno: EACCES)),
        (EPERM, .permissionDenied(operation: "open", errno: EPERM)),
        (EBUSY, .system(operation: "open", errno: EBUSY)),
        (ENOENT, .system(operation: "open", errno: ENOENT)),
    ])
    func chipErrnoIsClassified(code: Int32, expected: GPIOError) {
        #expect(GPIOError.classify(errno: code, operation: "open") == expected)
    }
}
