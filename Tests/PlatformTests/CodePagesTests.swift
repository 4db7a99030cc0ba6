import Testing
@testable import Platform

/// `CodePages` on this machine's kernel: the executable's read-only segments are advised one by
/// one, so a gap the linker left between them (the aarch64 build has one) is never part of a
/// range, and the call succeeds where one range over the gap failed with ENOMEM.
@Suite struct CodePagesTests {
    @Test func droppingTheStartupCodeSucceedsAndTheCodeRunsOn() throws {
        try CodePages.dropStartupCode()
        // Every page of code and read-only data just lost its mapping: running code and reading
        // constants must map them again from the page cache, unchanged.
        let words = ["code", "pages", "come", "back"]
        #expect(words.joined(separator: " ").count == 20)
        try CodePages.dropStartupCode()
    }
}
