import Testing
@testable import HCI
