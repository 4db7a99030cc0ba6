// TEMPORARY: stands in for the page's real assets until their branch is merged; the
// integrator drops this commit.
extension Website {
    public enum Assets {
        public static let page = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vigil</title>\
            <link rel="stylesheet" href="/app.css"><link rel="icon" href="/icon.svg"></head>\
            <body><main id="app">Vigil</main><script src="/app.js"></script></body></html>
            """
        public static let script = "document.getElementById('app').textContent = 'Vigil';\n"
        public static let style = "body { font-family: sans-serif; }\n"
        public static let icon = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7"/></svg>"#
        public static func signIn(error: String?) -> String {
            """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vigil: sign in</title></head><body>\
            \(error.map { "<p role=\"alert\">\($0)</p>" } ?? "")\
            <form method="post" action="/login"><input type="password" name="token" autocomplete="current-password">\
            <button>Sign in</button></form></body></html>
            """
        }
    }
}
