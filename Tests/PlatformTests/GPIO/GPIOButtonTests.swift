import Clocks
import Glibc
import Testing
@testable import Platform

/// Button lines on the kernel's GPIO simulator: the test presses the button by pulling the
/// simulated pin low (sim_gpioN/pull), as a button to ground does against the pull-up, and the
/// edges must arrive through the event descriptor and poll(2).
@Suite(.enabled(if: SimulatedGPIOChip.isAvailable, "no gpio-sim chip on this machine (needs configfs gpio-sim)"))
struct GPIOButtonTests {
    static let offset = 1

    /// Waits for the button's descriptor to become readable (at most 2 s) and reads what is queued.
    func edgesAfterWaiting(for button: GPIOButton) throws -> [GPIOEdge] {
        var loop = PollLoop()
        loop.register(button.fileDescriptor)
        let events = try loop.wait(until: SystemClock.monotonicNow() + .seconds(2))
        guard events.contains(where: { $0.fileDescriptor == button.fileDescriptor && $0.isReadable }) else {
            throw TestTimeout(description: "no edge event within 2 s")
        }
        return try button.readEdges()
    }

    func requestReleasedButton(_ sim: SimulatedGPIOChip) throws -> (GPIOChip, GPIOButton) {
        try sim.setPull(offset: Self.offset, up: true)
        let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
        let button = try chip.requestButton(offset: Self.offset, consumer: "vigil-test-button", activeLow: true, pullUp: true)
        return (chip, button)
    }

    @Test func nothingPendingReadsEmptyWithoutBlocking() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let (_, button) = try requestReleasedButton(sim)
            #expect(button.fileDescriptor >= 0)
            #expect(try button.isPressed() == false)
            let before = SystemClock.monotonicNow()
            #expect(try button.readEdges() == [])
            #expect(SystemClock.monotonicNow() - before < .milliseconds(100))
        }
    }

    @Test func pressAndReleaseArriveAsEdgesWithMonotonicTimestamps() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let (_, button) = try requestReleasedButton(sim)
            _ = try button.readEdges()  // anything the request itself caused

            let beforePress = SystemClock.monotonicNow()
            try sim.setPull(offset: Self.offset, up: false)
            let press = try edgesAfterWaiting(for: button)
            let afterPress = SystemClock.monotonicNow()
            #expect(press.map(\.pressed) == [true])
            #expect(try button.isPressed() == true)
            let pressedAt = try #require(press.first).kernelTimestampNanoseconds
            #expect(pressedAt >= UInt64(beforePress.nanoseconds))
            #expect(pressedAt <= UInt64(afterPress.nanoseconds))

            try sim.setPull(offset: Self.offset, up: true)
            let release = try edgesAfterWaiting(for: button)
            #expect(release.map(\.pressed) == [false])
            #expect(try button.isPressed() == false)
            #expect(try #require(release.first).kernelTimestampNanoseconds > pressedAt)
        }
    }

    /// Several edges queued before the loop reads: one drain returns them all, in order.
    /// The pauses let the kernel's threaded handler read each level before the next change (it
    /// reports the level it reads, so changes faster than that would merge, as bounces do).
    @Test func queuedEdgesAreDrainedInOrder() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let (_, button) = try requestReleasedButton(sim)
            _ = try button.readEdges()
            for _ in 0..<3 {
                try sim.setPull(offset: Self.offset, up: false)
                sleepFor(milliseconds: 20)
                try sim.setPull(offset: Self.offset, up: true)
                sleepFor(milliseconds: 20)
            }
            let edges = try edgesAfterWaiting(for: button)
            #expect(edges.map(\.pressed) == [true, false, true, false, true, false])
            #expect(zip(edges, edges.dropFirst()).allSatisfy { $0.kernelTimestampNanoseconds < $1.kernelTimestampNanoseconds })
            #expect(try button.readEdges() == [])
        }
    }

    /// The kernel keeps 16 events per line; a drain takes them all (one full read and one that
    /// finds the queue empty) and what overflowed is lost, not garbled.
    @Test func aFullQueueIsDrainedInOneCall() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let (_, button) = try requestReleasedButton(sim)
            _ = try button.readEdges()
            for _ in 0..<10 {
                try sim.setPull(offset: Self.offset, up: false)
                sleepFor(milliseconds: 10)
                try sim.setPull(offset: Self.offset, up: true)
                sleepFor(milliseconds: 10)
            }
            let edges = try edgesAfterWaiting(for: button)
            #expect(edges.count == 16)
            #expect(edges.map(\.pressed) == Array(repeating: [true, false], count: 8).flatMap { $0 })
            #expect(try button.readEdges() == [])
        }
    }

    @Test func activeHighButtonReportsTheHighLevelAsPressed() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            try sim.setPull(offset: Self.offset, up: false)
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let button = try chip.requestButton(offset: Self.offset, consumer: "vigil-test-button", activeLow: false, pullUp: false)
            #expect(try button.isPressed() == false)
            _ = try button.readEdges()
            try sim.setPull(offset: Self.offset, up: true)
            #expect(try edgesAfterWaiting(for: button).map(\.pressed) == [true])
            #expect(try button.isPressed() == true)
        }
    }

    @Test func releaseIsIdempotentAndFreesTheLine() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let (_, button) = try requestReleasedButton(sim)
            button.release()
            button.release()
            #expect(!button.isRequested)
            #expect(button.fileDescriptor == -1)
            #expect(throws: GPIOError.lineReleased(chip: sim.name, offset: Self.offset)) { try button.readEdges() }
            #expect(throws: GPIOError.lineReleased(chip: sim.name, offset: Self.offset)) { try button.isPressed() }
            let other = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let again = try other.requestButton(offset: Self.offset, consumer: "vigil-test-again", activeLow: true, pullUp: true)
            #expect(again.isRequested)
        }
    }
}

/// The event records the kernel writes to a line request's descriptor, decoded without a chip:
/// `struct gpio_v2_line_event` is 48 bytes, the CLOCK_MONOTONIC timestamp in the first eight,
/// the edge's id (1 rising, 2 falling) in the next four, then the offset and two sequence numbers.
@Suite struct GPIOEdgeDecodingTests {
    /// One record laid out as x86_64 and arm64 kernels write it (little-endian).
    static func record(timestamp: UInt64, id: UInt32, offset: UInt32 = 22, seqno: UInt32 = 1) -> [UInt8] {
        func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        return bytes(timestamp) + bytes(id) + bytes(offset) + bytes(seqno) + bytes(seqno) + [UInt8](repeating: 0, count: 24)
    }

    @Test func recordsDecodeToEdgesInOrder() {
        #expect(GPIOEdge.recordSize == 48)
        let bytes = Self.record(timestamp: 1_234_567_890_123, id: 1) + Self.record(timestamp: 1_234_600_000_000, id: 2, seqno: 2)
        #expect(bytes.withUnsafeBytes(GPIOEdge.decode(records:)) == [
            GPIOEdge(pressed: true, kernelTimestampNanoseconds: 1_234_567_890_123),
            GPIOEdge(pressed: false, kernelTimestampNanoseconds: 1_234_600_000_000),
        ])
    }

    /// An id the uAPI does not define is skipped, not taken for a release; a fragment shorter
    /// than a record (which the kernel never writes) is ignored.
    @Test func unknownIdsAndFragmentsAreSkipped() {
        let bytes = Self.record(timestamp: 5, id: 3) + Self.record(timestamp: 6, id: 2) + Array(Self.record(timestamp: 7, id: 1).prefix(40))
        #expect(bytes.withUnsafeBytes(GPIOEdge.decode(records:)) == [GPIOEdge(pressed: false, kernelTimestampNanoseconds: 6)])
        #expect([UInt8]().withUnsafeBytes(GPIOEdge.decode(records:)) == [])
    }
}
