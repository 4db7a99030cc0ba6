import Clocks
import Glibc
import Testing
@testable import Platform

@Suite struct ProcessStatsTests {
    @Test func residentBytesArePlausibleWholePages() throws {
        let resident = try ProcessStats.residentBytes()
        #expect(resident % Int(sysconf(Int32(_SC_PAGESIZE))) == 0)
        #expect(resident > 1 << 20)  // a Swift test process is megabytes
        #expect(resident < 8 << 30)
    }

    @Test func cpuTimeGrowsWithWork() throws {
        let before = try ProcessStats.cpuTime()
        var x: UInt64 = 1
        let start = SystemClock.monotonicNow()
        while SystemClock.monotonicNow() - start < .milliseconds(30) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
        let after = try ProcessStats.cpuTime()
        #expect(x != 0)
        #expect(after.total > before.total)
        #expect(after.user >= before.user)
        #expect(after.total == after.user + after.system)
    }

    /// Opening 32 pipes adds 64 descriptors. Other tests run in parallel and open and close a
    /// few of their own, so the check allows a small margin either way.
    @Test func openDescriptorsAreCounted() throws {
        let before = try ProcessStats.openFileDescriptorCount()
        let pipes = (0..<32).map { _ in makePipe() }
        let during = try ProcessStats.openFileDescriptorCount()
        pipes.forEach { close($0.read); close($0.write) }
        #expect(before > 2)  // at least stdin, stdout, stderr
        #expect(abs(during - before - 64) <= 12)
    }
}
