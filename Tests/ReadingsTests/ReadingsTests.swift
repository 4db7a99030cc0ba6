import Testing
@testable import Readings
