import Testing
import Platform
