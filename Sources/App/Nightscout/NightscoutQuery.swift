import Clocks

extension Nightscout {
    /// The query forms Nightscout's v1 reads take (`lib/server/query.js`, `lib/server/count.js`,
    /// docs/nightscout-api.md "Queries"): `count`, and `find[field]=value` or
    /// `find[field][$op]=value` conditions, all of which a document must meet.
    ///
    /// A condition is evaluated the way MongoDB evaluates it on the stored document: numbers
    /// compare with numbers, text with text (byte by byte, so ISO 8601 UTC times compare in time
    /// order), and a value of the other type matches nothing. Which fields are numbers is the
    /// collection's (`DocumentFields.operand`), as Nightscout's `walker` turns them into integers.
    struct Query: Sendable {
        var conditions: [Condition]
        var count: Count
        let collection: DocumentFields

        /// At most this many `find` conditions: a client needs two or three, and each costs a
        /// pass over the documents.
        static let maximumConditions = 16
        /// Longest field name and value taken: a field name is a word, a value a number or a date.
        static let maximumFieldLength = 64
        static let maximumValueLength = 128

        enum Count: Equatable, Sendable {
            /// No `count` (or an empty one): the endpoint's default.
            case unspecified
            /// `count=0`: Nightscout applies no limit (MongoDB's `limit(0)`); Vigil's cap still holds.
            case unlimited
            case atMost(Int)
        }

        enum Operator: String, CaseIterable, Sendable {
            case eq = "$eq", ne = "$ne", gt = "$gt", gte = "$gte", lt = "$lt", lte = "$lte", exists = "$exists"
        }

        enum Operand: Equatable, Sendable {
            case number(Double)
            case text(String)
            case flag(Bool)
        }

        struct Condition: Equatable, Sendable {
            var field: String
            var op: Operator
            var operand: Operand

            /// MongoDB's reading of this condition on one document.
            func isMet(by document: [(String, JSON)]) -> Bool {
                let value = document.first { $0.0 == field }?.1
                switch op {
                case .exists:
                    guard case let .flag(wanted) = operand else { return false }
                    return (value != nil) == wanted
                case .ne:
                    return !Self.compare(value, operand).map { $0 == 0 }.orFalse
                case .eq: return Self.compare(value, operand).map { $0 == 0 }.orFalse
                case .gt: return Self.compare(value, operand).map { $0 > 0 }.orFalse
                case .gte: return Self.compare(value, operand).map { $0 >= 0 }.orFalse
                case .lt: return Self.compare(value, operand).map { $0 < 0 }.orFalse
                case .lte: return Self.compare(value, operand).map { $0 <= 0 }.orFalse
                }
            }

            /// -1, 0 or 1 for a value of the operand's type; nil when absent or of another type.
            static func compare(_ value: JSON?, _ operand: Operand) -> Int? {
                switch (value, operand) {
                case let (.int(v)?, .number(n)): return Double(v) < n ? -1 : (Double(v) == n ? 0 : 1)
                case let (.double(v)?, .number(n)): return v < n ? -1 : (v == n ? 0 : 1)
                case let (.string(v)?, .text(t)):
                    let a = Array(v.utf8), b = Array(t.utf8)
                    return a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
                default: return nil
                }
            }
        }

        /// Reads `count` and the `find` conditions of `request`; other parameters (`token`,
        /// `units`, a cache-busting `_`) are not this type's. `collection` says which fields are
        /// numbers and which are dates.
        init(_ request: Request, collection: DocumentFields) throws(Failure) {
            self.collection = collection
            count = .unspecified
            conditions = []
            for (name, value) in request.query {
                if name == "count" {
                    count = try Self.count(value)
                } else if name.hasPrefix("find[") {
                    guard conditions.count < Self.maximumConditions else {
                        throw .badRequest("at most \(Self.maximumConditions) find conditions are taken")
                    }
                    let (field, op) = try Self.condition(name)
                    guard value.utf8.count <= Self.maximumValueLength else {
                        throw .badRequest("the value of find[\(field)] is longer than \(Self.maximumValueLength) bytes")
                    }
                    let operand: Operand
                    if op == .exists {
                        switch value {
                        case "true", "1": operand = .flag(true)
                        case "false", "0": operand = .flag(false)
                        default: throw .badRequest("find[\(field)][$exists] must be true or false")
                        }
                    } else {
                        operand = try collection.operand(field: field, value: value)
                    }
                    conditions.append(Condition(field: field, op: op, operand: operand))
                }
            }
        }

        /// The conditions a document must meet at `now`: Nightscout's `enforceDateFilter` holds
        /// a query that says nothing of the date (nor asks for an id) to the last 4 days.
        func conditions(at now: WallClockTime) -> [Condition] {
            let fields = Set(conditions.map(\.field))
            guard fields.isDisjoint(with: collection.dateFields + ["_id"]) else { return conditions }
            return conditions + [Condition(field: collection.dateFields[0], op: .gte, operand: collection.dateOperand(now - Self.defaultWindow))]
        }

        /// The documents of `documents` (newest first) that meet every condition at `now`, at most
        /// `limit` of them.
        func select(_ documents: [[(String, JSON)]], at now: WallClockTime, limit: Int) -> [[(String, JSON)]] {
            let all = conditions(at: now)
            var selected: [[(String, JSON)]] = []
            for document in documents where selected.count < limit && all.allSatisfy({ $0.isMet(by: document) }) {
                selected.append(document)
            }
            return selected
        }

        /// `TWO_DAYS * 2` in `lib/server/query.js`.
        static let defaultWindow = Duration.seconds(4 * 86_400)

        /// `lib/server/count.js`: a count is a whole number of digits; 0 means no limit. Anything
        /// else is refused here (Nightscout would silently apply no limit).
        static func count(_ value: String) throws(Failure) -> Count {
            let trimmed = value.trimmingASCIISpaces
            if trimmed.isEmpty { return .unspecified }
            guard trimmed.utf8.count <= 9, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(trimmed) else {
                throw .badRequest("count must be a whole number of documents")
            }
            return number == 0 ? .unlimited : .atMost(number)
        }

        /// `find[field]` or `find[field][$op]`.
        static func condition(_ name: String) throws(Failure) -> (String, Operator) {
            let inner = name.dropFirst("find[".count)
            guard let close = inner.firstIndex(of: "]") else { throw .badRequest("malformed query parameter \(String(name.prefix(80)))") }
            let field = String(inner[..<close])
            let rest = inner[inner.index(after: close)...]
            guard (1...maximumFieldLength).contains(field.utf8.count),
                  field.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F || $0 == 0x2E }) else {
                throw .badRequest("find takes a field name of letters, digits, _ and . (got \(String(field.prefix(maximumFieldLength))))")
            }
            if rest.isEmpty { return (field, .eq) }
            guard rest.hasPrefix("["), rest.hasSuffix("]"), rest.count > 2 else {
                throw .badRequest("malformed query parameter \(String(name.prefix(80)))")
            }
            let opName = String(rest.dropFirst().dropLast())
            guard let op = Operator(rawValue: opName) else {
                throw .badRequest("operator \(String(opName.prefix(16))) is not supported (supported: \(Operator.allCases.map(\.rawValue).joined(separator: " ")))")
            }
            return (field, op)
        }
    }

    /// A collection's field types, as Nightscout's `walker` and `dateField` give them.
    struct DocumentFields: Sendable {
        /// The date fields; the first is the one the default window constrains.
        var dateFields: [String]
        /// Fields Nightscout turns into integers (`parseInt`).
        var wholeNumberFields: Set<String>
        /// Fields Nightscout matches as regular expressions when written `/.../`.
        var patternFields: Set<String>
        /// The date field holds epoch milliseconds (entries' `date`) rather than ISO 8601 text.
        var datesAreEpochMilliseconds: Bool

        /// `lib/server/entries.js`: `date`, `sgv`, `filtered`, `unfiltered`, `rssi`, `noise`, `mbg`.
        static let entries = DocumentFields(dateFields: ["date", "dateString"],
                                        wholeNumberFields: ["date", "sgv", "filtered", "unfiltered", "rssi", "noise", "mbg"],
                                        patternFields: [], datesAreEpochMilliseconds: true)
        /// `lib/server/treatments.js`: `insulin`, `carbs`, `glucose`; `notes`, `eventType`,
        /// `enteredBy` as patterns; dates in `created_at`.
        static let treatments = DocumentFields(dateFields: ["created_at"], wholeNumberFields: ["insulin", "carbs", "glucose"],
                                           patternFields: ["notes", "eventType", "enteredBy"], datesAreEpochMilliseconds: false)
        /// `lib/server/devicestatus.js`: dates in `created_at`.
        static let deviceStatus = DocumentFields(dateFields: ["created_at"], wholeNumberFields: [], patternFields: [],
                                             datesAreEpochMilliseconds: false)

        func dateOperand(_ time: WallClockTime) -> Query.Operand {
            datesAreEpochMilliseconds ? .number(Double(time.millisecondsSinceEpoch)) : .text(time.iso8601)
        }

        /// The value of `find[field]` as the stored documents hold that field.
        func operand(field: String, value: String) throws(Failure) -> Query.Operand {
            if field == dateFields[0] {
                if datesAreEpochMilliseconds, let whole = Self.wholeNumber(value) { return .number(Double(whole)) }
                // `enforceDateFilter` reads a date that is not a number as ISO 8601 (a space where
                // a client did not escape the `+` of the offset is a `+`) and compares in UTC.
                let date = value.contains("T") ? value.replacing(" ", with: "+") : value
                guard let time = try? ISO8601.parse(date, defaultOffset: .zero) else {
                    throw .badRequest("find[\(field)] must be \(datesAreEpochMilliseconds ? "epoch milliseconds or " : "")an ISO 8601 date")
                }
                return dateOperand(time)
            }
            if wholeNumberFields.contains(field) {
                guard let whole = Self.wholeNumber(value) else { throw .badRequest("find[\(field)] must be a whole number") }
                return .number(Double(whole))
            }
            if patternFields.contains(field), value.hasPrefix("/") {
                throw .badRequest("find[\(field)] as a regular expression is not supported")
            }
            return .text(value)
        }

        static func wholeNumber(_ text: String) -> Int64? {
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard (1...15).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int64(text)
        }
    }
}

extension Optional<Bool> {
    fileprivate var orFalse: Bool { self ?? false }
}

extension String {
    fileprivate var trimmingASCIISpaces: String {
        var bytes = Substring(self)
        while bytes.first == " " || bytes.first == "\t" { bytes = bytes.dropFirst() }
        while bytes.last == " " || bytes.last == "\t" { bytes = bytes.dropLast() }
        return String(bytes)
    }
}
