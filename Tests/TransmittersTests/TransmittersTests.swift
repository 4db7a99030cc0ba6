import Testing
@testable import Transmitters
