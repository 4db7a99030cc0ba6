import Bluetooth
import Clocks
import HCI
import Platform
import Wire
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `vigil-bench adverts`: decode rate of LE advertising reports from a btsnoop capture through
/// the host's own path — `BTSnoop.Reader` → `HCI.Event` → `.le(.advertisingReports)` →
/// `AdvertisingData` — on one core. Target (the issue): ≥ 5,000,000 reports/s.
enum AdvertsBenchmark {
    static let target = 5_000_000.0
    static let runs = 5

    struct Options {
        var count = 1_000_000
        var file: String?
        /// How many records Bumble decodes (it manages ~50 k/s: the whole file would take 20 s).
        var bumbleLimit = 100_000
        var repoRoot = "."
    }

    /// What decoding produced. Every field feeds `checksum`, which is printed, so the optimiser
    /// cannot drop any part of the decode; the counts are checked against the generator's.
    struct Tally: Equatable {
        var reports = 0
        var extended = 0
        var structures = 0
        var nameBytes = 0
        var uuids = 0
        var serviceData = 0
        var manufacturerData = 0
        var checksum: UInt64 = 0

        mutating func add(_ report: HCI.AdvertisingReport, _ ad: AdvertisingData) {
            reports += 1
            if report.isExtended { extended += 1 }
            // Parsing decoded every structure (the counts and scalars below come out of it);
            // consumers that need the UUIDs or payloads visit `ad.structures` on demand.
            structures += ad.structureCount
            if let name = ad.nameRange { nameBytes += name.count }
            uuids += ad.serviceUUIDCount
            serviceData += ad.serviceDataCount
            manufacturerData += ad.manufacturerDataCount
            if let name = ad.nameRange, !name.isEmpty { checksum &+= UInt64(ad.bytes[name.lowerBound]) }
            checksum &+= report.address.address.value ^ UInt64(report.kind.rawValue)
            checksum &+= UInt64(UInt8(bitPattern: report.rssi ?? 0)) &+ UInt64(ad.flags ?? 0)
            checksum &+= UInt64(UInt8(bitPattern: ad.txPower ?? 0)) &+ UInt64(ad.appearance ?? 0)
        }

        func matches(_ e: AdvertisingCapture.Expected) -> Bool {
            reports == e.reports && extended == e.extended && structures == e.structures && nameBytes == e.nameBytes
                && uuids == e.uuids && serviceData == e.serviceData && manufacturerData == e.manufacturerData
        }

        var summary: String {
            "\(Format.grouped(reports)) reports (\(Format.grouped(extended)) extended), \(Format.grouped(structures)) AD structures, "
                + "\(Format.grouped(nameBytes)) name bytes, \(Format.grouped(uuids)) UUIDs, \(Format.grouped(serviceData)) service data, "
                + "\(Format.grouped(manufacturerData)) manufacturer data; checksum \(String(checksum, radix: 16))"
        }
    }

    enum DecodeFailure: Error, CustomStringConvertible {
        case capture(BTSnoop.ReadError)
        case event(offset: Int, WireError)
        case advertisingData(offset: Int, AdvertisingData.ParseError)
        case notAnAdvertisingReport(offset: Int)
        var description: String {
            switch self {
            case .capture(let e): "capture: \(e)"
            case let .event(offset, e): "record at byte \(offset): \(e)"
            case let .advertisingData(offset, e): "record at byte \(offset): \(e)"
            case .notAnAdvertisingReport(let offset): "record at byte \(offset) is not an LE advertising report event"
            }
        }
    }

    /// One pass over the capture, the way `Host.receive` sees each packet.
    static func decode(_ file: [UInt8]) throws(DecodeFailure) -> Tally {
        var tally = Tally()
        var reader: BTSnoop.Reader
        do { reader = try BTSnoop.Reader(file) } catch { throw .capture(error) }
        while true {
            let next: (BTSnoop.Direction, Range<Int>, Int64)?
            do { next = try reader.nextRange() } catch { throw .capture(error) }
            guard let (_, range, _) = next else { break }
            guard range.count > 1, file[range.lowerBound] == HCI.PacketType.event.rawValue else {
                throw .notAnAdvertisingReport(offset: range.lowerBound)
            }
            let event: HCI.Event
            do { event = try HCI.Event(bytes: file, range: (range.lowerBound + 1)..<range.upperBound) } catch {
                throw .event(offset: range.lowerBound, error)
            }
            guard case .le(.advertisingReports(let reports)) = event else { throw .notAnAdvertisingReport(offset: range.lowerBound) }
            for report in reports {
                let ad: AdvertisingData
                do { ad = try AdvertisingData(report.data) } catch { throw .advertisingData(offset: range.lowerBound, error) }
                tally.add(report, ad)
            }
        }
        return tally
    }

    static func run(_ options: Options) -> [Figure] {
        print("== adverts: decode \(Format.grouped(options.count)) LE advertising reports from btsnoop")
        let path = options.file ?? "/tmp/vigil-bench-adverts-\(options.count).btsnoop"
        let generated = SystemClock.monotonicNow()
        let (bytes, expected) = AdvertisingCapture.make(count: options.count)
        do {
            try AtomicFile.write(path: path, bytes: bytes, mode: 0o644)
        } catch {
            return [Figure.skipped("adverts decode rate", target: "≥ 5,000,000 reports/s", reason: "cannot write \(path): \(error)")]
        }
        print("  capture: \(path), \(Format.grouped(bytes.count)) bytes, \(Format.grouped(expected.reports)) reports "
              + "(\(Format.grouped(expected.extended)) extended, subevent 0x0D), generated in \(Format.seconds(SystemClock.monotonicNow() - generated))")

        // Decode what is on disk, not what is in memory: the figure is for the file's bytes.
        let file: [UInt8]
        do { file = try FileSystem.readFile(path: path) } catch {
            return [Figure.skipped("adverts decode rate", target: "≥ 5,000,000 reports/s", reason: "cannot read \(path): \(error)")]
        }
        // Rates are reports per second of this thread's CPU time (user + system,
        // CLOCK_THREAD_CPUTIME_ID): the machine is shared, and time spent descheduled is not
        // decoding. Wall time is printed beside it.
        var rates: [Double] = []
        var wallRates: [Double] = []
        var last = Tally()
        for run in 1...runs {
            let start = SystemClock.monotonicNow()
            let startCPU = threadCPUTime()
            let tally: Tally
            do { tally = try decode(file) } catch {
                return [Figure.checked("adverts decode rate", "decode failed: \(error)", target: "≥ 5,000,000 reports/s", passes: false)]
            }
            let cpu = threadCPUTime() - startCPU
            let wall = SystemClock.monotonicNow() - start
            rates.append(Double(tally.reports) / cpu.seconds)
            wallRates.append(Double(tally.reports) / wall.seconds)
            print("  run \(run): \(Format.seconds(cpu)) CPU, \(Format.grouped(Int(rates.last!))) reports/s; "
                  + "\(Format.seconds(wall)) wall, \(Format.grouped(Int(wallRates.last!))) reports/s")
            last = tally
        }
        print("  decoded: \(last.summary)")
        let consistent = last.matches(expected)
        if !consistent { print("  MISMATCH with the generator: expected \(expected)") }
        let sorted = rates.sorted()
        let best = sorted.last!
        let median = sorted[sorted.count / 2]
        let wallSorted = wallRates.sorted()
        var figures = [
            Figure.checked("adverts decode rate, best of \(runs) (CPU time)", "\(Format.grouped(Int(best))) reports/s", target: "≥ 5,000,000 reports/s",
                           passes: consistent && best >= target),
            Figure.info("adverts decode rate, median of \(runs) (CPU time)", "\(Format.grouped(Int(median))) reports/s"),
            Figure.info("adverts decode rate, wall: best / median", "\(Format.grouped(Int(wallSorted.last!))) / \(Format.grouped(Int(wallSorted[wallSorted.count / 2]))) reports/s"),
        ]
        figures.forEach { print($0.line) }
        let reference = ReferenceDecoders(repoRoot: options.repoRoot)
        let others = [reference.bumble(path: path, limit: options.bumbleLimit), reference.btmon(path: path, reports: expected.reports)]
        others.forEach { print($0.line) }
        figures += others
        return figures
    }
}

/// CPU time of the calling thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID)).
func threadCPUTime() -> Duration {
    var t = timespec()
    _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return .seconds(t.tv_sec) + .nanoseconds(t.tv_nsec)
}
