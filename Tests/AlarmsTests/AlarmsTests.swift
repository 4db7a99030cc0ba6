import Testing
@testable import Alarms
