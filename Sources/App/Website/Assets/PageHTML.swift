extension Website.Assets {
    /// `GET /`: the page (docs/web.md). Only structure lives here: the script fills every part
    /// from `/state.json` and `/events`, and the Content-Security-Policy (`default-src 'self'`)
    /// forbids inline script, inline style and event-handler attributes, so there are none.
    /// The element ids are the contract listed in docs/web.md "The page's element ids".
    public static let page: String = documentStart + "\n" + pageRest

    /// What the page and the sign-in page both open with: the document's head up to its title,
    /// with the page's style and icon (both served to anyone, so the sign-in page has them).
    static let documentStart: String = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/app.css">
"""#

    static let pageRest: String = #"""
<title>Vigil</title>
<script src="/app.js"></script>
</head>
<body>
<div id="fault-banner" class="banner fault" role="alert" hidden></div>
<div id="offline-banner" class="banner offline" role="status" hidden></div>
<div id="stale-banner" class="banner stale" role="status" hidden></div>
<header class="top">
<span class="brand"><img src="/icon.svg" alt="" width="22" height="22"> Vigil</span>
<button id="theme-toggle" type="button" aria-pressed="false">Dark mode</button>
</header>
<main>
<section id="now" class="card now" aria-label="Current glucose">
<div class="reading" aria-live="polite" aria-atomic="true">
<span id="glucose-value" class="value">--</span>
<span id="glucose-arrow" class="arrow" aria-label="trend unknown"></span>
<span id="glucose-unit" class="unit">mg/dL</span>
</div>
<p id="glucose-age" class="age">Waiting for Vigil</p>
</section>
<section id="alarms-card" class="card" aria-labelledby="alarms-title">
<h2 id="alarms-title">Alarms</h2>
<ul id="alarms" class="alarms"></ul>
<p id="action-error" class="error" role="alert" hidden></p>
<div class="snooze-all">
<label for="snooze-all-minutes">Snooze all for</label>
<select id="snooze-all-minutes">
<option value="30">30 min</option>
<option value="60" selected>1 hour</option>
<option value="120">2 hours</option>
<option value="240">4 hours</option>
<option value="480">8 hours</option>
</select>
<button id="snooze-all" type="button" data-action="snooze-all">Snooze all</button>
<p id="snooze-all-status" class="muted">Snooze all never covers urgent low, signal loss or faults.</p>
</div>
</section>
<section id="chart-card" class="card" aria-labelledby="chart-title">
<div class="chart-head">
<h2 id="chart-title">Glucose</h2>
<div id="chart-range" role="group" aria-label="Hours shown">
<button type="button" data-hours="3">3 h</button>
<button type="button" data-hours="6">6 h</button>
<button type="button" data-hours="12">12 h</button>
<button type="button" data-hours="24">24 h</button>
</div>
</div>
<div id="chart" class="chart"></div>
<p class="legend muted"><span class="key in-range"></span> in range <span class="key low"></span> low <span class="key high"></span> high <span class="key meter"></span> fingerstick</p>
</section>
<section id="devices-card" class="card" aria-labelledby="devices-title">
<h2 id="devices-title">Devices</h2>
<ul id="devices" class="devices"></ul>
<p id="upload" class="muted" hidden></p>
</section>
<section id="others-card" class="card" aria-labelledby="others-title">
<h2 id="others-title">Other sensors</h2>
<ul id="others" class="others"></ul>
</section>
</main>
<footer class="foot">
<a id="report-link" href="/report">Clinician's report (14 days)</a>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>
<span id="version" class="muted"></span>
</footer>
</body>
</html>
"""#
}
