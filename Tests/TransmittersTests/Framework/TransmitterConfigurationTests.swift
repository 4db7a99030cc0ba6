import Testing
@testable import Transmitters

@Suite struct TransmitterConfigurationTests {
    @Test func parsesTypeNameAndOptions() throws {
        let configuration = try TransmitterConfiguration(parsing: "heart-rate  hr1\tno-data-timeout=45s  note=a=b")
        #expect(configuration.typeName == "heart-rate")
        #expect(configuration.device == "hr1")
        #expect(configuration.options == ["no-data-timeout": "45s", "note": "a=b"])
    }

    @Test func nameDefaultsToTheTypeName() throws {
        let configuration = try TransmitterConfiguration(parsing: "heart-rate no-data-timeout=45s")
        #expect(configuration.device == "heart-rate")
        #expect(configuration.options == ["no-data-timeout": "45s"])
        #expect(try TransmitterConfiguration(parsing: "heart-rate").options.isEmpty)
    }

    @Test(arguments: [
        ("", TransmitterConfigurationError.malformed("empty transmitter line")),
        ("   ", .malformed("empty transmitter line")),
        ("timeout=3 heart-rate", .malformed("the line must start with a transmitter type, not \"timeout=3\"")),
        ("heart-rate hr1 verbose", .malformed("expected key=value, found \"verbose\"")),
        ("heart-rate hr1 =3", .malformed("expected key=value, found \"=3\"")),
        ("heart-rate a=1 a=2", .malformed("option a given twice")),
    ])
    func rejectsMalformedLines(line: String, error: TransmitterConfigurationError) {
        #expect(throws: error) { try TransmitterConfiguration(parsing: line) }
    }

    @Test(arguments: [
        ("30s", Duration.seconds(30)), ("500ms", .milliseconds(500)), ("2m", .seconds(120)),
        ("1h", .seconds(3600)), ("45", .seconds(45)),
    ])
    func parsesDurations(text: String, duration: Duration) throws {
        let configuration = TransmitterConfiguration(typeName: "x", options: ["t": text])
        #expect(try configuration.duration("t", default: .seconds(1)) == duration)
    }

    @Test(arguments: ["", "0s", "-5s", "5 s", "fast", "1.5s", "5d", "ms", "9999999999999999h", "99999999999999999999"])
    func rejectsBadDurations(text: String) {
        let configuration = TransmitterConfiguration(typeName: "x", options: ["t": text])
        #expect(throws: TransmitterConfigurationError.invalidOption("t", value: text, expected: "a positive duration such as 30s, 500ms, 2m")) {
            try configuration.duration("t", default: .seconds(1))
        }
    }

    @Test func absentDurationTakesTheDefault() throws {
        #expect(try TransmitterConfiguration(typeName: "x").duration("t", default: .seconds(7)) == .seconds(7))
    }

    @Test func rejectsUnknownOptions() throws {
        let configuration = TransmitterConfiguration(typeName: "heart-rate", options: ["no-data-timeout": "3s", "no-data-timout": "3s"])
        #expect(throws: TransmitterConfigurationError.unknownOption("no-data-timout", type: "heart-rate")) {
            try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        }
        try configuration.rejectUnknownOptions(known: ["no-data-timeout", "no-data-timout"])
    }
}
