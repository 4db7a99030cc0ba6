import Testing
@testable import Clocks
