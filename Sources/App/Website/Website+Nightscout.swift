import Web

/// The Nightscout read API on the page's server (docs/nightscout-api.md "Wiring to the HTTP
/// core"): the HTTP request becomes the module's own, and its answer an HTTP response.
extension Website {
    func answerNightscout(_ request: HTTP.Request, snapshot: () -> Nightscout.Snapshot) -> HTTP.Response {
        let asked = Nightscout.Request(method: request.method.rawValue, path: request.path,
                                       query: request.query.items.map { ($0.name, $0.value) },
                                       headers: request.headers.fields.map { ($0.name, $0.value) })
        let answer = nightscout.respond(to: asked, snapshot: snapshot)
        var response = HTTP.Response(status: Self.status(answer.status), headers: ["Content-Type": answer.contentType], body: answer.body)
        // RFC 9110 §15.5.6: a 405 names what the resource takes.
        if answer.status == 405 { response.headers.set("Allow", "GET, HEAD") }
        return response
    }

    /// The codes the API answers with, each a named status.
    static func status(_ code: Int) -> HTTP.Status {
        switch code {
        case 200: .ok
        case 400: .badRequest
        case 401: .unauthorized
        case 404: .notFound
        case 405: .methodNotAllowed
        default: HTTP.Status(code: code, reasonPhrase: code < 500 ? "Client Error" : "Server Error")
        }
    }
}
