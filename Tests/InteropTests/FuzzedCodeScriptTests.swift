import Foundation
import Testing

/// `scripts/fuzzed-code`, which names the code each fuzz target runs for the campaign's ledger
/// (Fuzz/README.md): run on a small repository made here, so each rule is seen to move an ID
/// or leave it alone. A count kept for code that changed would be a false claim of fuzzing;
/// one reset for code the target cannot reach costs hours of the machine.
@Suite struct FuzzedCodeScriptTests {
    /// A git repository shaped like Vigil's: three modules (Low, Mid imports Low, Top), a
    /// registry file and three target files in Sources/FuzzTargets.
    final class Repository {
        let directory: TemporaryDirectory
        var url: URL { URL(fileURLWithPath: directory.path) }

        init() throws {
            directory = try TemporaryDirectory()
            try write("Package.swift", "// swift-tools-version:6.0\n")
            try write("Sources/Fuzz/Main.swift", "import FuzzTargets\n")
            try write("Sources/Low/Low.swift", "public func low() {}\n")
            try write("Sources/Mid/Mid.swift", "@_exported import Low\npublic func mid() { low() }\n")
            try write("Sources/Top/Top.swift", "public func top() {}\n")
            try write("Sources/FuzzTargets/FuzzTarget.swift", "public struct FuzzTarget { let name: String }\n")
            try write("Sources/FuzzTargets/FuzzTarget+A.swift", """
                import Mid

                extension FuzzTarget {
                    static let a = FuzzTarget(name: "a")
                    static func helperOfA() { mid() }
                    private static func privateOfA() {}
                }

                """)
            // Mentions helperOfA and privateOfA only in prose and strings: no reference.
            try write("Sources/FuzzTargets/FuzzTarget+B.swift", """
                import Top

                extension FuzzTarget {
                    // like helperOfA, but for the top module
                    static let b = FuzzTarget(name: "b")
                    static let label = "helperOfA"
                    fileprivate static func privateOfA() { top() }
                }

                """)
            try write("Sources/FuzzTargets/FuzzTarget+C.swift", """
                internal import Top

                extension FuzzTarget {
                    static let c = FuzzTarget(name: "c")
                    static func run() { FuzzTarget.helperOfA() }
                }

                """)
            try git("init", "-q")
            try commit("start")
        }

        func write(_ path: String, _ text: String) throws {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }

        func commit(_ message: String) throws {
            try git("add", "-A")
            try git("-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "-q", "-m", message)
        }

        @discardableResult
        func git(_ arguments: String...) throws -> String {
            let result = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/git"), arguments: Array(arguments),
                                              currentDirectory: url, timeout: .seconds(30))
            guard result.exitCode == 0 else { throw HarnessError.malformedOutput("git \(arguments): \(result.summary)") }
            return result.stdoutText
        }

        /// Target name to ID, and the paths each ID covers.
        func ids() throws -> (ids: [String: String], covers: [String: [String]]) {
            let script = InteropEnvironment.repositoryRoot.appendingPathComponent("scripts/fuzzed-code")
            let result = try ChildProcess.run(executable: script, arguments: ["--verbose"], currentDirectory: url, timeout: .seconds(30))
            guard result.exitCode == 0 else { throw HarnessError.malformedOutput("scripts/fuzzed-code: \(result.summary)") }
            var ids: [String: String] = [:], covers: [String: [String]] = [:]
            for line in result.stdoutText.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 3 else { throw HarnessError.malformedOutput("not NAME, ID, PATHS: \(line)") }
                ids[fields[0]] = fields[1]
                covers[fields[0]] = fields[2].split(separator: " ").map(String.init)
            }
            return (ids, covers)
        }
    }

    @Test func eachTargetCoversItsFilesTheirImportsToTheEndOfTheChainAndTheSharedFiles() throws {
        let repository = try Repository()
        let (ids, covers) = try repository.ids()
        #expect(Set(ids.keys) == ["a", "b", "c"])
        #expect(ids.values.allSatisfy { $0.count == 12 && $0.allSatisfy(\.isHexDigit) }, "\(ids)")
        let always = ["Package.swift", "Fuzz"]
        #expect(covers["a"] == always + ["FuzzTargets/FuzzTarget+A.swift", "FuzzTargets/FuzzTarget.swift", "Low", "Mid"])
        // b names helperOfA only in a comment and a string, and declares its own privateOfA.
        #expect(covers["b"] == always + ["FuzzTargets/FuzzTarget+B.swift", "FuzzTargets/FuzzTarget.swift", "Top"])
        // c calls A's helper, so it runs what A's file imports.
        #expect(covers["c"] == always + ["FuzzTargets/FuzzTarget+A.swift", "FuzzTargets/FuzzTarget+C.swift",
                                                   "FuzzTargets/FuzzTarget.swift", "Low", "Mid", "Top"])
    }

    @Test func aChangeMovesTheIDsOfTheTargetsThatReachItAndNoOthers() throws {
        let repository = try Repository()
        let before = try repository.ids().ids

        try repository.write("Sources/Low/Low.swift", "public func low() { _ = 1 }\n")
        try repository.commit("low changed")
        let lowChanged = try repository.ids().ids
        #expect(lowChanged["a"] != before["a"] && lowChanged["c"] != before["c"], "Low is reached through Mid")
        #expect(lowChanged["b"] == before["b"], "b never reaches Low")

        try repository.write("Sources/Top/Top.swift", "public func top() { _ = 2 }\n")
        try repository.commit("top changed")
        let topChanged = try repository.ids().ids
        #expect(topChanged["a"] == lowChanged["a"])
        #expect(topChanged["b"] != lowChanged["b"] && topChanged["c"] != lowChanged["c"])

        try repository.write("Package.swift", "// swift-tools-version:6.1\n")
        try repository.commit("package changed")
        let packageChanged = try repository.ids().ids
        #expect(["a", "b", "c"].allSatisfy { packageChanged[$0] != topChanged[$0] }, "build settings reach every target")
    }

    @Test func uncommittedOrUntrackedCodeIsModifiedAndCountsForNothing() throws {
        let repository = try Repository()
        let clean = try repository.ids().ids
        #expect(clean.values.allSatisfy { !$0.hasSuffix("-modified") })

        try repository.write("Sources/Top/New.swift", "public func newer() {}\n")
        let untracked = try repository.ids().ids
        #expect(untracked["b"] == clean["b"]! + "-modified" && untracked["c"] == clean["c"]! + "-modified")
        #expect(untracked["a"] == clean["a"])

        try repository.git("add", "-A")
        try repository.write("Sources/Mid/Mid.swift", "@_exported import Low\npublic func mid() { low(); low() }\n")
        let edited = try repository.ids().ids
        #expect(edited["a"] == clean["a"]! + "-modified")
    }
}
