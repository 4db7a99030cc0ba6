import Foundation

/// No GPIO character device on this machine: a GPIO face can only be checked for how it
/// fails (in the kernel VM, `scripts/kernel-test`, gpio-sim makes one and these skip).
let noGPIOChip: Bool = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
    return !names.contains { $0.hasPrefix("gpiochip") }
}()
