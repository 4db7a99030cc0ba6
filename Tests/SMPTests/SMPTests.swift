import Testing
@testable import SMP
