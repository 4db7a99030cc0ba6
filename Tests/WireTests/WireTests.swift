import Testing
@testable import Wire
