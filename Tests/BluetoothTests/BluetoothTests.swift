import Testing
@testable import Bluetooth
