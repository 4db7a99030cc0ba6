import Bluetooth
import Clocks
import Platform
import SMP

/// Files Vigil keeps between runs (mode 0600, written atomically): our static address, the
/// bonds, and the appliance's own (StateDirectory+Appliance).
///
/// A file that is there but cannot be read, or does not hold what Vigil writes there, is
/// never taken for "none yet": its next save would replace it, and with it a bond (pairing
/// again by hand) or the address every bond was made with. It is moved aside for a person to
/// look at (`setAside`), said in the log, and kept in `problems` until the session takes them
/// (`takeProblems`) and sounds the storage fault for the run.
final class StateDirectory {
    let path: String
    let logger: Logger
    /// Files found unreadable, not yet taken by the session.
    private var problems: [String] = []
    /// The static address made in this run when it could not be saved at once: saved with
    /// the first bonds, which are worth nothing after a restart without it.
    private var staticAddressToSave: Address?

    /// Made if missing. One that cannot be made is logged, not fatal: `vigil run` goes on
    /// without its files, its history cannot open, and the storage fault sounds (an exit
    /// here would only have systemd restart it every few seconds, silently).
    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
        do {
            try FileSystem.createDirectories(path: path, mode: 0o700)
        } catch {
            logger.log(.error, "cannot use the state directory \(path): \(error); nothing can be saved until it can")
        }
    }

    /// The names of the files found unreadable since the last call.
    func takeProblems() -> [String] {
        defer { problems = [] }
        return problems
    }

    /// The text of the state file `name`; nil when there is none yet. One that is there but
    /// cannot be read (an I/O error, a symlink loop) is set aside. A directory in its place
    /// holds nothing to lose: it is said, and left to make every save fail (the storage
    /// fault, until it goes).
    func text(of name: String, lost: String) -> String? {
        do {
            return String(decoding: try FileSystem.readFile(path: path + "/" + name), as: UTF8.self)
        } catch where error.isNoSuchFile {
            return nil
        } catch where error.isDirectoryInTheWay {
            logger.log(.error, "\(path)/\(name) is a directory: nothing can be saved there until it is removed")
            return nil
        } catch {
            setAside(name, because: "\(error)", lost: lost)
            return nil
        }
    }

    /// Moves `name` to `NAME.unreadable-<UTC time>`, out of the way of the next save and kept
    /// byte for byte; says why and what this run is without (`lost`), and keeps it for the
    /// session. A file that cannot even be moved is said too: the next save replaces it.
    func setAside(_ name: String, because reason: String, lost: String) {
        let file = path + "/" + name
        let stamp = SystemClock.wallNow().iso8601.filter { $0 != "-" && $0 != ":" }.prefix { $0 != "." } + "Z"
        let target = "\(file).unreadable-\(stamp)"
        do {
            try FileSystem.move(path: file, to: target)
            logger.log(.error, "\(file): \(reason); moved to \(target) for a person to look at; \(lost)")
        } catch {
            logger.log(.error, "\(file): \(reason); \(lost); it could not be moved aside (\(error)), so the next save replaces it")
        }
        problems.append(name)
    }

    /// `text` written atomically (mode 0600) to `name` in the directory; false after logging
    /// "`what`: why" when it could not be, which the session turns into the storage fault.
    func save(_ name: String, _ text: String, what: String) -> Bool {
        do {
            try AtomicFile.write(path: path + "/" + name, bytes: Array(text.utf8), mode: 0o600)
            return true
        } catch {
            logger.log(.error, "\(what): \(error)")
            return false
        }
    }

    /// A random static address, generated once and kept: peers remember bonds by it. A file
    /// that is there but cannot be read, or does not hold an address, is left as it is for a
    /// person to look at (it may be the address every bond was made with; a new one is never
    /// saved over it): this run uses a new address, and the storage fault sounds. A new one
    /// that cannot be saved yet is saved with the first bonds (`saveBonds`).
    func staticAddress() -> Address {
        let name = "static-address", file = path + "/" + name
        let lost = "bonded devices will not know this run's address"
        do {
            let text = String(decoding: try FileSystem.readFile(path: file), as: UTF8.self).trimmingWhitespace()
            if let address = Address(text) { return address }
            logger.log(.error, "\(file) holds no address (\"\(text.prefix(40))\"); \(lost)")
            problems.append(name)
            return Self.randomStaticAddress()
        } catch where !error.isNoSuchFile {
            logger.log(.error, "cannot read \(file): \(error); \(lost)")
            problems.append(name)
            return Self.randomStaticAddress()
        } catch {
            // None yet: the first run makes one.
        }
        let address = Self.randomStaticAddress()
        if !save(name, "\(address)\n", what: "could not save the static address (tried again with the first bonds)") {
            staticAddressToSave = address
        }
        return address
    }

    private static func randomStaticAddress() -> Address {
        var random = SMP.SystemRandom()
        let bytes = random.bytes(6)
        var value: UInt64 = 0
        for b in bytes { value = value << 8 | UInt64(b) }
        return Address(value: value | 0xC000_0000_0000)  // two top bits set: static (Vol 6 Part B §1.3.2.1)
    }

    /// The bonds; a file with any bond that does not parse is set aside whole (the bonds
    /// that parse are kept and saved anew at the next change).
    func loadBonds() -> SMP.BondStore {
        let lost = "devices will need to pair again"
        guard let text = text(of: "bonds", lost: lost) else { return SMP.BondStore() }
        let (store, errors) = SMP.BondStore.parse(text)
        if !errors.isEmpty {
            setAside("bonds", because: errors.map { "\($0)" }.joined(separator: "; "),
                     lost: "the \(store.bonds.count) bonds that parse are kept; \(lost) for the others")
            // Saved at once: a restart before the next change must still find them.
            if !store.bonds.isEmpty { _ = saveBonds(store) }
        }
        return store
    }

    /// The bonds, and first the static address if it could not be saved at start: a bond
    /// kept without the address it was made with is no bond after a restart.
    func saveBonds(_ store: SMP.BondStore) -> Bool {
        let retry = "tried again in \(HostRunner.bondsRetryInterval)"
        if let address = staticAddressToSave {
            guard save("static-address", "\(address)\n", what: "cannot save the static address the bonds need (\(retry))") else { return false }
            staticAddressToSave = nil
        }
        return save("bonds", store.serialized(), what: "cannot save bonds (\(retry))")
    }
}
