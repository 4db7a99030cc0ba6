import Testing
@testable import Platform
