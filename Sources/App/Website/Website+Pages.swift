import Web

/// The page's files, served from the binary (no CDN, no web fonts: docs/web.md "Routes"). The
/// texts are `Website.Assets`; these are the answers made of them.
extension Website {
    static var pageHTML: String { Assets.page }
    static var scriptJS: String { Assets.script }
    static var styleCSS: String { Assets.style }
    static var iconSVG: String { Assets.icon }

    /// The sign-in page; with `error`, answered 401 (a wrong token).
    static func signIn(error: String? = nil) -> HTTP.Response {
        .html(Assets.signIn(error: error), status: error == nil ? .ok : .unauthorized)
    }

    /// The answer for one of the page's files, nil for another path.
    static func asset(at path: String) -> HTTP.Response? {
        switch path {
        case "/app.js": HTTP.Response(headers: ["Content-Type": "text/javascript; charset=utf-8"], body: Array(scriptJS.utf8))
        case "/app.css": HTTP.Response(headers: ["Content-Type": "text/css; charset=utf-8"], body: Array(styleCSS.utf8))
        // Browsers ask for /favicon.ico on their own; the SVG icon answers it (its type says so).
        case "/icon.svg", "/favicon.ico": HTTP.Response(headers: ["Content-Type": "image/svg+xml"], body: Array(iconSVG.utf8))
        default: nil
        }
    }

    /// The words a wrong token gets (docs/web.md "Access").
    static let wrongToken = "That token is not right."
}
