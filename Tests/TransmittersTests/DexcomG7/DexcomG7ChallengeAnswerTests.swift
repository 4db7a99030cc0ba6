import Testing
import Wire
@testable import Transmitters

struct DexcomG7ChallengeAnswerTests {
    // docs/protocols/dexcom-g7.md §AES challenge: the vector from `openssl enc -aes-128-ecb -nopad`.
    @Test func publishedVector() {
        let answer = DexcomG7.challengeAnswer(
            [UInt8](hex: "0011223344556677"), sessionKey: [UInt8](hex: "000102030405060708090a0b0c0d0e0f"))
        #expect(answer == [UInt8](hex: "28b454bdf4d00600"))
    }
}
