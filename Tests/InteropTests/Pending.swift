// Replaced by the interop suite when it lands.
import Testing
