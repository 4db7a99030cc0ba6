extension Nightscout {
    /// The resources served, by path (Nightscout's routes: `lib/api/entries/index.js`,
    /// `lib/api/treatments/index.js`, `lib/api/devicestatus/index.js`, `lib/api/status.js`, and
    /// `/pebble` from `lib/server/app.js`). A final `.json` (or no extension) asks for JSON, as
    /// Nightscout's `extensions` middleware reads it.
    enum Route: Equatable, Sendable {
        case entries(EntrySelection)
        case treatments
        case deviceStatus
        case status(StatusFormat)
        case pebble

        /// `/api/v1/entries/:spec`: Nightscout reads the spec as an id when it is 24 lowercase
        /// hex digits, as `current` for the newest entry, and otherwise as a type (`sgv`, `mbg`).
        enum EntrySelection: Equatable, Sendable {
            case all
            case current
            case type(String)
            case id(String)
        }

        /// `status.json`, `status.txt` ("STATUS OK"), `status.html` ("<h1>STATUS OK</h1>").
        enum StatusFormat: Equatable, Sendable {
            case json, text, html
        }

        /// The route for `path`, or why there is none (404, or 405 for an entries format
        /// Nightscout no longer serves).
        init(path: String) throws(Failure) {
            if path == "/pebble" || path == "/pebble/" {
                self = .pebble
                return
            }
            let prefix = "/api/v1/"
            guard path.hasPrefix(prefix) else { throw .notFound(path) }
            var segments = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if segments.count > 1, segments.last == "" { segments.removeLast() }  // `/devicestatus/`, as the swagger file writes it
            guard let last = segments.last, segments.count <= 2 else { throw .notFound(path) }
            let (name, format) = Self.splitExtension(last)
            segments[segments.count - 1] = name
            switch (segments[0], segments.count) {
            case ("entries", _):
                guard format == nil || format == "json" else {
                    guard ["csv", "tsv", "txt"].contains(format) else { throw .notFound(path) }
                    // The current `format_entries` answers these with 405 (docs/nightscout-api.md).
                    throw Failure(status: 405, message: "Method Not Allowed (only json is supported)", description: "entries are served as JSON")
                }
                guard segments.count == 2 else {
                    self = .entries(.all)
                    return
                }
                let spec = segments[1]
                if spec == "current" {
                    self = .entries(.current)
                } else if Self.isObjectID(spec) {
                    self = .entries(.id(spec))
                } else if (1...32).contains(spec.utf8.count), spec.utf8.allSatisfy(Self.isNameByte) {
                    self = .entries(.type(spec))
                } else {
                    throw .notFound(path)
                }
            case ("treatments", 1) where format == nil || format == "json": self = .treatments
            case ("devicestatus", 1) where format == nil || format == "json": self = .deviceStatus
            case ("status", 1):
                switch format {
                case nil, "json": self = .status(.json)
                case "txt": self = .status(.text)
                case "html": self = .status(.html)
                default: throw .notFound(path)
                }
            default:
                throw .notFound(path)
            }
        }

        /// `sgv.json` → ("sgv", "json"); `entries` → ("entries", nil).
        static func splitExtension(_ segment: String) -> (String, String?) {
            guard let dot = segment.lastIndex(of: "."), dot != segment.startIndex else { return (segment, nil) }
            return (String(segment[..<dot]), String(segment[segment.index(after: dot)...]))
        }

        /// Nightscout's `ID_PATTERN`: `^[a-f\d]{24}$`.
        static func isObjectID(_ text: String) -> Bool {
            text.utf8.count == 24 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F || byte == 0x2D
        }
    }
}
