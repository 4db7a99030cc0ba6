extension TOML {
    /// Turns a bare token (`true`, `-1_000`, `0xFF`, `6.5e-3`, `inf`) into a value, following the
    /// TOML v1.0.0 "Integer", "Float" and "Boolean" sections: underscores only between digits,
    /// no leading zeros, no sign on `0x`/`0o`/`0b`, 64-bit integers, finite floats unless written
    /// `inf`/`nan`.
    enum Scalar {
        static func value(from token: String, at position: Position) throws(SyntaxError) -> Value.Kind {
            func fail(_ problem: SyntaxError.Problem) -> SyntaxError { SyntaxError(problem, at: position) }
            switch token {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: break
            }
            if looksLikeDateOrTime(token) {
                throw fail(.unsupported("dates and times (write them as strings)"))
            }
            var rest = Substring(token)
            var sign = ""
            if let first = rest.first, first == "+" || first == "-" {
                sign = String(first)
                rest = rest.dropFirst()
            }
            switch rest {
            case "inf": return .float(sign == "-" ? -.infinity : .infinity)
            case "nan": return .float(.nan)
            default: break
            }
            guard let first = rest.first, first.isASCII, first.isNumber else {
                // A letter here is almost always a string without its quotes: `scan = active`.
                let expected = token.first.map { $0.isLetter } == true
                    ? "a value (text must be in quotes, like \(TOML.quoted(token)))"
                    : "a value"
                throw fail(.unexpected(found: token.isEmpty ? "nothing" : token, expected: expected))
            }
            let radixes: [(prefix: String, radix: Int, name: String)] = [
                ("0x", 16, "hexadecimal"), ("0o", 8, "octal"), ("0b", 2, "binary"),
            ]
            for (prefix, radix, name) in radixes where rest.hasPrefix(prefix) {
                if !sign.isEmpty {
                    throw fail(.invalidNumber(token, reason: "a sign is not allowed on \(name) integers"))
                }
                let digits = rest.dropFirst(2)
                guard underscoresValid(digits, isDigit: { $0.hexDigitValue.map { $0 < radix } ?? false }) else {
                    throw fail(.invalidNumber(token, reason: "not a valid \(name) integer"))
                }
                guard let v = Int64(digits.filter { $0 != "_" }, radix: radix) else {
                    throw fail(.integerOutOfRange(token))
                }
                return .integer(v)
            }
            if rest.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                return .float(try float(token, sign: sign, body: rest, at: position))
            }
            guard underscoresValid(rest, isDigit: isDecimalDigit) else {
                throw fail(.invalidNumber(token, reason: "not a valid integer"))
            }
            let digits = rest.filter { $0 != "_" }
            if digits.count > 1 && digits.first == "0" {
                throw fail(.invalidNumber(token, reason: "leading zeros are not allowed"))
            }
            guard let v = Int64(sign + digits) else { throw fail(.integerOutOfRange(token)) }
            return .integer(v)
        }

        private static func float(_ token: String, sign: String, body: Substring, at position: Position) throws(SyntaxError) -> Double {
            func fail(_ reason: String) -> SyntaxError { SyntaxError(.invalidNumber(token, reason: reason), at: position) }
            let parts = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "e" || $0 == "E" })
            guard parts.count <= 2 else { throw fail("more than one exponent") }
            let mantissa = parts[0]
            let fractionParts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
            guard fractionParts.count <= 2 else { throw fail("more than one decimal point") }
            let integerPart = fractionParts[0]
            guard underscoresValid(integerPart, isDigit: isDecimalDigit) else {
                throw fail("needs digits before the decimal point or exponent")
            }
            let integerDigits = integerPart.filter { $0 != "_" }
            if integerDigits.count > 1 && integerDigits.first == "0" { throw fail("leading zeros are not allowed") }
            if fractionParts.count == 2 && !underscoresValid(fractionParts[1], isDigit: isDecimalDigit) {
                throw fail("needs digits after the decimal point")
            }
            if parts.count == 2 {
                var exponent = parts[1]
                if let s = exponent.first, s == "+" || s == "-" { exponent = exponent.dropFirst() }
                guard underscoresValid(exponent, isDigit: isDecimalDigit) else { throw fail("needs digits in the exponent") }
            }
            guard let v = Double(sign + body.filter { $0 != "_" }) else { throw fail("not a valid float") }
            guard v.isFinite else { throw SyntaxError(.floatOutOfRange(token), at: position) }
            return v
        }

        /// Non-empty, digits only, each underscore between two digits.
        static func underscoresValid(_ s: Substring, isDigit: (Character) -> Bool) -> Bool {
            guard let first = s.first, let last = s.last, isDigit(first), isDigit(last) else { return false }
            var previousWasUnderscore = false
            for c in s {
                if c == "_" {
                    if previousWasUnderscore { return false }
                    previousWasUnderscore = true
                } else {
                    guard isDigit(c) else { return false }
                    previousWasUnderscore = false
                }
            }
            return true
        }

        static func isDecimalDigit(_ c: Character) -> Bool { c >= "0" && c <= "9" }

        /// `1979-05-27`, `07:32:00`, `1979-05-27T07:32:00Z`: TOML date/time shapes.
        static func looksLikeDateOrTime(_ token: String) -> Bool {
            let c = Array(token)
            func digits(_ range: Range<Int>) -> Bool { range.upperBound <= c.count && range.allSatisfy { isDecimalDigit(c[$0]) } }
            return (digits(0..<4) && c.count > 4 && c[4] == "-" && digits(5..<7))
                || (digits(0..<2) && c.count > 2 && c[2] == ":")
        }
    }
}
