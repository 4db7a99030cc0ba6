import App
import Testing

/// `text` is refused with exactly one error, at `position` ("line:column"), whose message
/// contains `words`: what every section's table of bad values checks.
func expectOneConfigurationError(parsing text: String, at position: String, saying words: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate"])
        Issue.record("accepted: \(text)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.errors.count == 1, "\(error.errors)", sourceLocation: sourceLocation)
        #expect(error.errors.first.map { "\($0.position.line):\($0.position.column)" } == position, "\(error.errors)",
                sourceLocation: sourceLocation)
        #expect(error.errors.first.map { "\($0)".contains(words) } == true, "\(error.errors)", sourceLocation: sourceLocation)
    }
}
