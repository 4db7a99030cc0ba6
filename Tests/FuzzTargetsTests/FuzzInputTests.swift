import Testing
@testable import FuzzTargets

@Suite struct FuzzInputTests {
    @Test func readsInOrderThenZerosPastTheEnd() {
        var input = FuzzInput([0x01, 0x34, 0x12])
        #expect(input.byte() == 0x01)
        #expect(input.uint16() == 0x1234)
        #expect(input.isAtEnd)
        #expect(input.byte() == 0)
        #expect(input.uint16() == 0)
        #expect(input.chunk() == [])
        #expect(input.rest() == [])
    }

    @Test func chunkIsLengthPrefixedAndClampedAtTheEnd() {
        var input = FuzzInput([0x02, 0xAA, 0xBB, 0x05, 0xCC])
        #expect(input.chunk() == [0xAA, 0xBB])
        #expect(input.chunk() == [0xCC])
        #expect(input.isAtEnd)
    }

    @Test func takeAndRestNeverOverrun() {
        var input = FuzzInput([1, 2, 3, 4])
        #expect(input.take(-1) == [])
        #expect(input.take(3) == [1, 2, 3])
        #expect(input.remainingCount == 1)
        #expect(input.take(10) == [4])
        #expect(input.rest() == [])
    }

    @Test func lossyTextRepairsInvalidUTF8() {
        #expect([0x48, 0x49].lossyText == "HI")
        #expect([0x48, 0xFF].lossyText == "H\u{FFFD}")
    }
}
