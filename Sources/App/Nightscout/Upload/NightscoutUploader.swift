import Clocks
import Host
import Readings
import Web

extension Nightscout {
    /// Sends the history's upload queue to a Nightscout site, sans-IO (docs/nightscout-upload.md).
    ///
    /// Fed that the queue grew, the batches the runner loaded, the end of each exchange and of
    /// each acknowledgement, and the clocks; returns actions (load a batch, send a request,
    /// acknowledge rows, log) and a deadline. One request is in flight at a time: batches of
    /// at most `batchLimit` rows, oldest first, back to back while the queue has more; after a
    /// failure it waits (`UploadBackOff`) and loads the batch again, since the queue, not
    /// memory, is what is still to send.
    public struct Uploader {
        public struct Configuration: Sendable {
            /// The site; its path ("/" or "/ns") is where `/api/v1` goes.
            public var site: HTTP.URL
            public var credential: UploadCredential
            /// The offset written in `dateString`, `created_at` and `utcOffset`.
            public var utcOffset: Duration
            /// Rows per batch: 288 is a day of 5-minute readings, about 60 KB of entries.
            public var batchLimit = 288
            /// The queue's name in the history.
            public static let target = "nightscout"

            public init(site: HTTP.URL, credential: UploadCredential, utcOffset: Duration) {
                self.site = site
                self.credential = credential
                self.utcOffset = utcOffset
            }
        }

        public enum Action: Sendable {
            /// Answered with `batchLoaded`.
            case loadBatch(limit: Int)
            /// Answered with `exchangeEnded`.
            case send(UploadRequest)
            /// Remove `ids` from the queue; `success` (the wall clock now) is the target's last
            /// success, nil for rows dropped unsent. Answered with `acknowledged`.
            case acknowledge([UploadQueue.ItemID], success: WallClockTime?)
            case log(Host.LogLevel, String)
        }

        /// How an exchange ended, as the uploader needs it: the status code, or the client's
        /// line for a failure (which never holds the target or a secret). Bodies are not kept.
        public enum Outcome: Sendable, Equatable {
            case answered(status: Int)
            case failed(String)

            public init(_ result: Result<HTTP.ClientResponse, HTTP.ClientFailure>) {
                switch result {
                case let .success(response): self = .answered(status: response.status)
                case let .failure(failure): self = .failed(failure.description)
                }
            }
        }

        enum State {
            case idle
            case loading
            /// `current` is in flight; `rest` follow it.
            case sending(current: UploadRequest, rest: [UploadRequest])
            /// The rows of a request the site accepted (or of rows dropped) are being removed.
            case acknowledging(rest: [UploadRequest])
            case waiting(until: MonotonicInstant)
        }

        public let configuration: Configuration
        public private(set) var status = UploadStatus()
        var state = State.idle
        var backOff: UploadBackOff
        var actions: [Action] = []
        /// A batch was loaded in this run (the history's counts are known).
        var loadedOnce = false
        /// The queue grew while a batch was out: load again when it is done.
        var moreQueued = false
        /// Rows per batch now: halved while the site refuses a batch as malformed.
        var limit: Int
        /// The last batch was full: there is more right behind it.
        var batchWasFull = false
        /// A row refused alone is dropped only when the site accepted something since the
        /// last drop: a site that refuses everything is a site problem, not a row's.
        var acceptedSinceDrop = true

        public init(configuration: Configuration, seed: UInt64) {
            self.configuration = configuration
            backOff = UploadBackOff(seed: seed)
            limit = configuration.batchLimit
        }

        public mutating func takeActions() -> [Action] {
            defer { actions = [] }
            return actions
        }

        public var nextDeadline: MonotonicInstant? {
            if case let .waiting(until) = state { return until }
            return nil
        }

        /// At start: whatever an earlier run left queued is sent.
        public mutating func start(at now: MonotonicInstant) {
            load()
        }

        /// A commit stored rows the queue takes.
        public mutating func queueGrew(at now: MonotonicInstant) {
            switch state {
            case .idle: load()
            case .loading, .sending, .acknowledging: moreQueued = true
            case .waiting: break  // the wait's end loads
            }
        }

        public mutating func advance(to now: MonotonicInstant) {
            if case let .waiting(until) = state, now >= until { load() }
        }

        public mutating func batchLoaded(_ result: Result<UploadQueue.Batch, HistoryReadFailure>, at now: ClockReadings) {
            guard case .loading = state else { return }
            let batch: UploadQueue.Batch
            switch result {
            case let .failure(failure):
                return failed("the history could not be read: \(failure.line)", at: now)
            case let .success(loaded):
                batch = loaded
            }
            if !loadedOnce, batch.status.droppedUnsent > 0 {
                // Said when it happened, in an earlier run: a reminder, not news.
                actions.append(.log(.notice, "nightscout: \(batch.status.droppedUnsent) queued rows have reached the end of their "
                    + "retention unsent since the site was configured"))
            } else if batch.status.droppedUnsent > status.droppedUnsent {
                actions.append(.log(.error, "nightscout: \(batch.status.droppedUnsent - status.droppedUnsent) queued rows reached the end "
                    + "of their retention before the site took them, and are not sent"))
            }
            loadedOnce = true
            status.queued = batch.status.queued
            status.oldest = batch.status.oldest
            status.lastSuccess = batch.status.lastSuccess
            status.droppedUnsent = batch.status.droppedUnsent
            guard !batch.items.isEmpty else {
                state = .idle
                return loadIfMoreQueued()
            }
            batchWasFull = batch.items.count >= limit
            let plan = UploadPlan(batch.items, site: configuration.site, credential: configuration.credential,
                                  utcOffset: configuration.utcOffset)
            if !plan.skipped.isEmpty {
                for (_, reason) in plan.skipped { actions.append(.log(.warning, "nightscout: " + reason)) }
                state = .acknowledging(rest: plan.requests)
                actions.append(.acknowledge(plan.skipped.map(\.id), success: nil))
                return
            }
            sendNext(plan.requests)
        }

        public mutating func exchangeEnded(_ outcome: Outcome, at now: ClockReadings) {
            guard case let .sending(request, rest) = state else { return }
            let what = "POST /api/v1/\(request.collection.rawValue) (\(request.acknowledges.count) rows)"
            switch outcome {
            case let .answered(code) where (200...299).contains(code):
                if status.failingSince != nil || status.refused {
                    actions.append(.log(.notice, "nightscout: the site accepts uploads again"))
                }
                backOff.succeeded()
                status.failingSince = nil
                status.refused = false
                status.lastSuccess = now.wall
                acceptedSinceDrop = true
                limit = min(configuration.batchLimit, limit * 2)
                status.queued = max(0, status.queued - request.acknowledges.count)
                state = .acknowledging(rest: rest)
                actions.append(.acknowledge(request.acknowledges, success: now.wall))
            case let .answered(code) where code == 401 || code == 403:
                let first = !status.refused
                status.refused = true
                refusedCredential(code: code, first: first, at: now)
            case let .answered(code) where code == 400 || code == 413 || code == 422:
                refusedContent(request, code: code, what: what, at: now)
            case let .answered(code) where code == 429 || code >= 500:
                failed("\(what): the site answered HTTP \(code)", at: now)
            case let .answered(code):
                failed("\(what): the site answered HTTP \(code); is the url the Nightscout site's address?", at: now)
            case let .failed(line):
                failed("\(what): \(line)", at: now)
            }
        }

        /// The acknowledgement's end: the next request, the next batch, or a wait when the
        /// history could not take it (the rows are sent again later: Nightscout keeps one).
        public mutating func acknowledged(_ result: Result<Void, HistoryReadFailure>, at now: ClockReadings) {
            guard case let .acknowledging(rest) = state else { return }
            if case let .failure(failure) = result {
                return failed("the history could not mark sent rows: \(failure.line)", at: now)
            }
            sendNext(rest)
        }

        // MARK: Steps

        private mutating func load() {
            state = .loading
            moreQueued = false
            actions.append(.loadBatch(limit: limit))
        }

        private mutating func sendNext(_ requests: [UploadRequest]) {
            guard let next = requests.first else {
                state = .idle
                if batchWasFull { return load() }
                return loadIfMoreQueued()
            }
            state = .sending(current: next, rest: Array(requests.dropFirst()))
            actions.append(.send(next))
        }

        private mutating func loadIfMoreQueued() {
            if moreQueued { load() }
        }

        /// The first failure after a success is a warning; the rest of the outage is said at
        /// info, so a day offline is not 150 warnings in the journal.
        private mutating func failed(_ line: String, at now: ClockReadings) {
            wait(backOff.next(), after: line, level: status.failingSince == nil ? .warning : .info, at: now)
        }

        private mutating func refusedCredential(code: Int, first: Bool, at now: ClockReadings) {
            let line = "the Nightscout site refused \(configuration.credential) (HTTP \(code)); nothing is sent until it accepts it"
            wait(backOff.next(), after: line, level: first ? .error : .info, at: now)
        }

        /// The site refused a request as malformed: a smaller batch finds the row it refuses;
        /// refused alone, that row is dropped with an error line, once the site has shown it
        /// takes others (never a loop on one row, never a loss unsaid).
        private mutating func refusedContent(_ request: UploadRequest, code: Int, what: String, at now: ClockReadings) {
            if request.acknowledges.count > 1 {
                limit = max(1, min(limit, request.acknowledges.count) / 2)
                actions.append(.log(.warning, "nightscout: \(what): the site refused it (HTTP \(code)); trying \(limit) rows at a time"))
                return load()
            }
            guard acceptedSinceDrop else {
                return failed("\(what): the site refused it (HTTP \(code)), and has accepted nothing since it last refused a row", at: now)
            }
            acceptedSinceDrop = false
            status.rejected += request.acknowledges.count
            actions.append(.log(.error, "nightscout: \(what): the site refused \(request.acknowledges.map(\.description).joined()) "
                + "alone (HTTP \(code)); it is dropped from the queue and stays in the history"))
            state = .acknowledging(rest: [])
            actions.append(.acknowledge(request.acknowledges, success: nil))
            moreQueued = true
        }

        private mutating func wait(_ delay: Duration, after line: String, level: Host.LogLevel, at now: ClockReadings) {
            if status.failingSince == nil { status.failingSince = now.monotonic }
            status.lastFailure = line
            status.lastFailureAt = now.wall
            state = .waiting(until: now.monotonic + delay)
            actions.append(.log(level, "nightscout: \(line); trying again in \(Self.spoken(delay))"))
        }

        static func spoken(_ delay: Duration) -> String {
            let seconds = delay.nanosecondsClamped / 1_000_000_000
            return seconds >= 120 ? "\(seconds / 60) min" : "\(seconds) s"
        }
    }

    /// Why the history could not do what the uploader asked: its error's line.
    public struct HistoryReadFailure: Error, Equatable, Sendable {
        public var line: String
        public init(_ line: String) { self.line = line }
    }
}
