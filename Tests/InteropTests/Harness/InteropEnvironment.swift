import Foundation

/// Where the interop tests find the repository, the `vigil` binary and Bumble's Python.
///
/// Interop tests are tier 6 of docs/ARCHITECTURE.md: the real binary against an independent
/// peer (Bumble's virtual controller and a simulated peripheral, `Tests/Rigs/*.py`).
/// Availability rule: when the Bumble venv is missing the tests are *disabled with a reason*,
/// unless `VIGIL_REQUIRE_INTEROP=1` (CI), in which case they run and fail loudly. A missing
/// `vigil` binary is always a failure: the tests exist to prove that binary.
enum InteropEnvironment {
    static let venvMissingReason = "Bumble venv not found: run scripts/bumble-env.sh"

    /// The repository root: the nearest ancestor of this source file holding Package.swift.
    static let repositoryRoot: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        // Tests/InteropTests/Harness/ is three levels below the root; a checkout without
        // Package.swift cannot have compiled this file, so this is only a fallback.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }()

    static var rigsDirectory: URL { repositoryRoot.appendingPathComponent("Tests/Rigs") }

    /// `VIGIL_REQUIRE_INTEROP=1`: CI must never turn a missing peer into a silent pass.
    static var interopRequired: Bool {
        ProcessInfo.processInfo.environment["VIGIL_REQUIRE_INTEROP"] == "1"
    }

    /// `VIGIL_INTEROP_CAP_SCALE=N` (a whole number, default 1) multiplies the cap of every run
    /// that ends on the events it waits for (`VigilRun`'s `until`). The caps are sized for the
    /// native binary; under qemu-user (`scripts/test --arm64`) every instruction of the binary
    /// is translated and a run needs several times as long to reach the same events. A run
    /// that proves something about a span of time keeps its span: only caps stretch.
    static var capScale: Int {
        guard let text = ProcessInfo.processInfo.environment["VIGIL_INTEROP_CAP_SCALE"], let scale = Int(text), scale >= 1
        else { return 1 }
        return scale
    }

    /// The venv's python: `$VIGIL_BUMBLE_PYTHON`, else `<root>/.venv-bumble/bin/python`.
    static var pythonPath: URL {
        if let override = ProcessInfo.processInfo.environment["VIGIL_BUMBLE_PYTHON"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return repositoryRoot.appendingPathComponent(".venv-bumble/bin/python")
    }

    /// True when the venv's python exists and can import bumble (checked once per run).
    static let bumbleAvailable: Bool = {
        let python = pythonPath
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return false }
        guard let result = try? ChildProcess.run(
            executable: python, arguments: ["-c", "import bumble"], timeout: .seconds(30))
        else { return false }
        return result.exitCode == 0
    }()

    /// The Swift Testing condition: run when Bumble is there, or when CI demands the tests.
    static var shouldRunInteropTests: Bool { bumbleAvailable || interopRequired }

    /// Throws (so the test fails) when Bumble is missing; only reached under
    /// `VIGIL_REQUIRE_INTEROP=1`, as otherwise the test is disabled.
    static func requireBumble() throws {
        guard bumbleAvailable else { throw HarnessError.bumbleMissing(venvMissingReason + " (python: \(pythonPath.path))") }
    }

    /// The `vigil` binary: `$VIGIL_BINARY`, else the one built next to this test bundle (same
    /// build configuration and triple), else `<root>/.build/debug/vigil`.
    ///
    /// `dynamic`: skip `$VIGIL_BINARY` for the build next to the tests, which is dynamically
    /// linked. A preloaded library (`FakeWallClock`) only reaches a dynamic executable, and
    /// scripts/test points `$VIGIL_BINARY` at the static release build.
    static func vigilBinary(dynamic: Bool = false) throws -> URL {
        let fileManager = FileManager.default
        if !dynamic, let override = ProcessInfo.processInfo.environment["VIGIL_BINARY"], !override.isEmpty {
            guard fileManager.isExecutableFile(atPath: override) else {
                throw HarnessError.binaryMissing("VIGIL_BINARY=\(override) is not an executable file")
            }
            return URL(fileURLWithPath: override)
        }
        var candidates: [URL] = []
        if let testExecutable = Bundle.main.executableURL {
            // .build/<triple>/debug/vigilPackageTests.xctest -> .build/<triple>/debug/vigil
            candidates.append(testExecutable.deletingLastPathComponent().appendingPathComponent("vigil"))
        }
        candidates.append(repositoryRoot.appendingPathComponent(".build/debug/vigil"))
        for candidate in candidates where fileManager.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw HarnessError.binaryMissing(
            "vigil binary not found (looked at \(candidates.map(\.path).joined(separator: ", "))): run swift build or set VIGIL_BINARY")
    }
}

/// What went wrong in the harness itself, as opposed to in the binary under test.
enum HarnessError: Error, CustomStringConvertible {
    case bumbleMissing(String)
    case binaryMissing(String)
    case launchFailed(String)
    case rigNotReady(String)
    case malformedOutput(String)

    var description: String {
        switch self {
        case .bumbleMissing(let text), .binaryMissing(let text), .launchFailed(let text),
            .rigNotReady(let text), .malformedOutput(let text):
            return text
        }
    }
}
