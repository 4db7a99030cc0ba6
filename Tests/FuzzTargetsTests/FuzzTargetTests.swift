import Testing
import Transmitters
@testable import FuzzTargets

#if canImport(Glibc)
import Glibc
#endif

/// The committed seed corpus (Fuzz/corpus/NAME/), read with libc: the test needs no Foundation.
enum Corpus {
    static let root: String = {
        // Tests/FuzzTargetsTests/FuzzTargetTests.swift -> repository root.
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fuzz/corpus"
    }()

    static func entries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[0..<n]
            if n < chunk.count { return bytes }
        }
    }
}

@Suite struct FuzzTargetTests {
    @Test func targetNamesAreUniqueAndFindable() {
        let names = FuzzTarget.all.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names { #expect(FuzzTarget.named(name)?.name == name) }
        #expect(FuzzTarget.named("no-such-target") == nil)
    }

    /// scripts/fuzz takes the target list from the corpus folders: a target without seeds
    /// would never run, and a folder without a target would fail the run.
    /// A transmitter type whose declared target does not exist would have decoders no fuzzer
    /// reaches.
    @Test func everyTransmitterTypesDeclaredTargetExists() {
        #expect(!FuzzTarget.declaredByTransmitterTypes.isEmpty)
        for (type, target) in FuzzTarget.declaredByTransmitterTypes {
            #expect(FuzzTarget.named(target) != nil, "\(type) declares fuzz target \(target), which is not in FuzzTarget.all")
        }
    }

    /// The catalog's own target runs every type from its declaration's `fuzzOptions`: a type
    /// those options do not configure would be skipped there (and trap the fuzzer).
    @Test func everyCataloguedTypeIsMadeFromItsFuzzOptions() {
        #expect(FuzzTarget.named(TransmitterDeclaration.catalogFuzzTarget) != nil)
        for entry in TransmitterCatalog.builtIn.entries {
            #expect(entry.isFuzzable, "\(entry.name): its declaration's fuzzOptions do not make a driver or decoder")
        }
    }

    @Test func everyTargetHasSeedsAndEveryFolderATarget() {
        let folders = Corpus.entries(Corpus.root)
        #expect(Set(folders) == Set(FuzzTarget.all.map(\.name)), "corpus folders \(folders)")
        for target in FuzzTarget.all {
            #expect(!Corpus.entries(Corpus.root + "/" + target.name).isEmpty, "\(target.name) has no seeds")
        }
    }

    /// Every committed seed (and every reproducer of a fixed crash) runs through its target
    /// without trapping, so the normal test run replays the corpus.
    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusReplaysCleanly(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = Corpus.root + "/" + name
        let files = Corpus.entries(folder)
        #expect(!files.isEmpty)
        for file in files {
            let bytes = try #require(Corpus.read(folder + "/" + file), "cannot read \(file)")
            #expect(bytes.count <= 4096, "\(name)/\(file) exceeds the -max_len scripts/fuzz uses")
            target.run(bytes)
        }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func emptyAndTinyInputsAreHandled(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        target.run([])
        for byte in [UInt8(0x00), 0x01, 0x7F, 0xFF] {
            target.run([byte])
            target.run([UInt8](repeating: byte, count: 64))
        }
    }
}
