
/// Which GPIO chips this machine has, without claiming any line: for `vigil` diagnostics, for
/// `GPIOError.noChipFound`, and for tests that need a chip (and skip, saying so, without one).
public enum GPIOAvailability {
    /// The GPIO character devices, "/dev/gpiochip0", "/dev/gpiochip4", ..., in numeric order.
    /// Empty on a machine with no GPIO driver (a PC, a container) or when /dev cannot be read.
    public static func chips(inDirectory directory: String = "/dev") -> [String] {
        guard let names = try? FileSystem.contentsOfDirectory(path: directory) else { return [] }
        return names
            .compactMap { name -> (Int, String)? in
                guard name.hasPrefix("gpiochip"), let number = Int(name.dropFirst(8)), number >= 0 else { return nil }
                return (number, name)
            }
            .sorted { $0.0 < $1.0 }
            .map { directory + "/" + $0.1 }
    }

    /// Each chip with its label and line count; a chip that cannot be opened (permissions) is
    /// listed by path alone.
    public static func chipInfos() -> [GPIOChipInfo] {
        chips().map { path in
            guard case .success(let chip) = OpenedChip.open(path: path) else { return GPIOChipInfo(path: path) }
            defer { closeDescriptor(chip.fileDescriptor) }
            return GPIOChipInfo(path: path, label: chip.label, lineCount: chip.lineCount)
        }
    }
}
