import Testing
@testable import Wire

/// The descriptions end up in log lines, so they must name the field and the counts.
struct WireErrorTests {
    @Test func descriptionsNameWhatWasWrong() {
        #expect(WireError.truncated(field: "RSSI", needed: 1, available: 0).description
            == "truncated at RSSI: needed 1 byte(s), 0 left")
        #expect(WireError.trailingBytes(what: "event parameters", count: 2).description
            == "2 unexpected trailing byte(s) after event parameters")
        #expect(WireError.invalidValue(field: "Num_Reports", value: 0).description == "invalid Num_Reports: 0")
        #expect(WireError.malformed("length says 3").description == "length says 3")
    }

    @Test func equalityIncludesEveryAssociatedValue() {
        #expect(WireError.truncated(field: "a", needed: 2, available: 1) == .truncated(field: "a", needed: 2, available: 1))
        #expect(WireError.truncated(field: "a", needed: 2, available: 1) != .truncated(field: "b", needed: 2, available: 1))
        #expect(WireError.truncated(field: "a", needed: 2, available: 1) != .truncated(field: "a", needed: 2, available: 0))
        #expect(WireError.trailingBytes(what: "x", count: 1) != .trailingBytes(what: "x", count: 2))
    }
}
