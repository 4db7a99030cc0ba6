import Testing
@testable import Host
