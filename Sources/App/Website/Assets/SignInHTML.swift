extension Website.Assets {
    /// The sign-in page (docs/web.md "Access"): one password field posted to `/login`. A wrong
    /// token comes back with `error` ("That token is not right."), shown as `#sign-in-error`;
    /// the sentence is escaped because the page must never carry markup it did not write.
    public static func signIn(error: String?) -> String {
        let notice = error.map { #"<p id="sign-in-error" class="error" role="alert">"# + SVGBuilder.escape($0) + "</p>" } ?? ""
        return documentStart + "\n" + signInRest.replacing(signInErrorMarker, with: notice)
    }

    /// Where `signIn(error:)` puts the error sentence.
    static let signInErrorMarker = "<!--sign-in-error-->"

    static let signInRest: String = #"""
<title>Vigil: sign in</title>
</head>
<body class="sign-in-page">
<main class="card sign-in">
<h1><img src="/icon.svg" alt="" width="28" height="28"> Vigil</h1>
<form id="sign-in" method="post" action="/login">
<label for="token">Access token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<!--sign-in-error-->
<button type="submit">Sign in</button>
</form>
<p class="muted">The token is in the appliance's token file, or made anew with <code>vigil web token</code>.</p>
</main>
</body>
</html>
"""#
}
