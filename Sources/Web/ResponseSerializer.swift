extension HTTP {
    /// Writes a response head and content as RFC 9112 §4 lays them out: status line, field
    /// lines, empty line, content. Framing is the serializer's alone (docs/http.md,
    /// "Responses"): `Content-Length` is computed from the body, `Connection` comes from the
    /// connection's decision, and the application's `Content-Length`, `Transfer-Encoding`,
    /// `Connection` and `Keep-Alive` fields are dropped. A field the application made that
    /// could not be sent as it is (a name that is not a token, a value holding CR, LF, NUL or
    /// another control) is dropped too: a CR LF in a value would let it write a field or a
    /// response of its own choosing (response splitting).
    public enum ResponseSerializer {
        /// What the `Connection` field says (RFC 9112 §9.3, §9.6).
        public enum Persistence: Hashable, Sendable {
            /// HTTP/1.1 and persistent: nothing to say, it is the default.
            case persistent
            /// Persistent for an HTTP/1.0 client, which must be told (`Connection: keep-alive`).
            case persistentForHTTP10
            /// The connection closes after this response (`Connection: close`).
            case closing
        }

        /// The whole response. `method`: the request's; a HEAD response gets the head GET
        /// would have, Content-Length included, and no content (RFC 9110 §9.3.2). `date`: the
        /// `Date` field's value (IMF-fixdate, RFC 9110 §5.6.7), added unless the response has
        /// one; nil sends none, which RFC 9110 §6.6.1 asks of a server without a reliable clock.
        public static func bytes(of response: Response, answering method: Method, persistence: Persistence, date: String?) -> [UInt8] {
            let forbidsContent = response.status.forbidsContent
            var out = statusLine(response.status)
            appendFields(response.headers, date: date, to: &out)
            // RFC 9110 §8.6: no Content-Length in a 1xx or 204; a 304's would describe a
            // representation this server did not select, so it has none either.
            if !forbidsContent { appendField("Content-Length", String(response.body.count), to: &out) }
            switch persistence {
            case .persistent: break
            case .persistentForHTTP10: appendField("Connection", "keep-alive", to: &out)
            case .closing: appendField("Connection", "close", to: &out)
            }
            out += [HTTP.cr, HTTP.lf]
            if method != .head && !forbidsContent { out += response.body }
            return out
        }

        /// An interim `100 Continue` (RFC 9110 §15.2.1): a status line and the empty line.
        public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

        /// The head of an event stream: 200, `text/event-stream`, never cached, and no
        /// Content-Length, so its content ends when the connection closes (RFC 9112 §6.3 (8)).
        public static func eventStreamHead(headers: Headers, date: String?) -> [UInt8] {
            var fields = headers
            fields.set("Content-Type", "text/event-stream")
            if !fields.contains("Cache-Control") { fields.append("Cache-Control", "no-store") }
            var out = statusLine(.ok)
            appendFields(fields, date: date, to: &out)
            appendField("Connection", "close", to: &out)
            out += [HTTP.cr, HTTP.lf]
            return out
        }

        private static func statusLine(_ status: Status) -> [UInt8] {
            // status-code is three digits (RFC 9112 §4); the phrase may not hold CR or LF.
            let code = min(999, max(100, status.code))
            let phrase = status.reasonPhrase.utf8.filter { isFieldValueCharacter($0) }
            return Array("HTTP/1.1 \(code) ".utf8) + phrase + [HTTP.cr, HTTP.lf]
        }

        private static let framingFields = ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive"]

        private static func appendFields(_ headers: Headers, date: String?, to out: inout [UInt8]) {
            for field in headers where !framingFields.contains(where: { Headers.sameName($0, field.name) }) {
                guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenCharacter),
                      field.value.utf8.allSatisfy(isFieldValueCharacter) else { continue }
                appendField(field.name, field.value, to: &out)
            }
            if let date, !headers.contains("Date"), date.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
                appendField("Date", date, to: &out)
            }
        }

        private static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
            out += name.utf8
            out += [UInt8(ascii: ":"), HTTP.space]
            out += value.utf8
            out += [HTTP.cr, HTTP.lf]
        }
    }
}
