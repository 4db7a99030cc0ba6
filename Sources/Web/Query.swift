extension HTTP {
    /// A request target's query, decoded as a form (`name=value&name=value`: the
    /// application/x-www-form-urlencoded parser of the WHATWG URL Standard §5.1, which is
    /// what browsers and HTTP client libraries write): pairs split at `&`, empty pieces
    /// skipped, name and value split at the first `=` (a piece without one has the value ""),
    /// `+` read as a space, then percent-decoded. Names are kept verbatim after decoding, so
    /// Nightscout's bracketed keys arrive whole: `find[date][$gte]=1700000000000` is one pair
    /// named `find[date][$gte]`. Order and repeated names are kept.
    public struct Query: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
        public struct Item: Hashable, Sendable {
            public var name: String
            public var value: String

            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        public private(set) var items: [Item] = []

        public init() {}
        public init(_ items: [Item]) { self.items = items }
        public init(dictionaryLiteral elements: (String, String)...) {
            items = elements.map { Item(name: $0.0, value: $0.1) }
        }

        public var isEmpty: Bool { items.isEmpty }
        public var count: Int { items.count }
        public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }

        /// The first value named exactly `name` (case-sensitive: query names are the
        /// application's); nil when absent.
        public subscript(name: String) -> String? {
            items.first { $0.name == name }?.value
        }

        /// Every value named `name`, in order.
        public func values(named name: String) -> [String] {
            items.filter { $0.name == name }.map(\.value)
        }

        /// Every pair whose name starts with `prefix` (`find[` for Nightscout's filters).
        public func items(withPrefix prefix: String) -> [Item] {
            items.filter { $0.name.hasPrefix(prefix) }
        }
    }
}
