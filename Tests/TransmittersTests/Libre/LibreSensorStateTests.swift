import Testing
@testable import Transmitters

@Suite struct LibreSensorStateTests {
    /// The code reading of LibreTransmitter SensorState.swift (docs/protocols/libre-fram.md): 0x04
    /// expired, 0x05 shutdown, not its doc comment's 0x04 unknown / 0x05 expired.
    @Test(arguments: [
        (UInt8(1), LibreSensorState.notYetStarted, "not yet started"), (2, .starting, "warming up"), (3, .ready, "ready"),
        (4, .expired, "expired"), (5, .shutdown, "shut down"), (6, .failure, "failed"),
    ])
    func states(raw: UInt8, state: LibreSensorState, text: String) {
        #expect(LibreSensorState(rawValue: raw) == state)
        #expect(state.description == text)
        #expect(state.givesGlucose == (state == .ready))
    }

    @Test(arguments: [UInt8(0), 7, 0xFF])
    func unknownValues(raw: UInt8) {
        #expect(LibreSensorState(rawValue: raw) == nil)
    }
}
