import Testing
@testable import App
