import Glibc
import Testing
@testable import Platform

@Suite struct StandardErrorTests {
    private func written(_ line: String) -> [UInt8] {
        let pipe = makePipe()
        defer { close(pipe.read) }
        StandardError.write(line, to: pipe.write)
        close(pipe.write)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(pipe.read, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    @Test(arguments: [
        ("vigil: started", "vigil: started\n"),
        ("already ends\n", "already ends\n"),
        ("", "\n"),
        ("glucose 5.4 mmol/L ↘", "glucose 5.4 mmol/L ↘\n"),
    ])
    func lineGetsExactlyOneNewline(line: String, expected: String) {
        #expect(written(line) == Array(expected.utf8))
    }

    @Test func longLineIsWrittenWhole() {
        let line = String(repeating: "x", count: 20_000)
        #expect(written(line).count == 20_001)
    }
}
