extension Website.Assets {
    /// `GET /app.css`: the page's style. The system font stack (no web fonts: the page works
    /// with no internet); light and dark palettes as custom properties, dark chosen by
    /// `prefers-color-scheme` unless the theme toggle set `data-theme` on the root. The dark
    /// palette is for a bedroom at night: no pure white, low glare. Every text colour keeps a
    /// contrast of at least 4.5:1 against its background (WCAG 2.2, 1.4.3).
    public static let style: String = #"""
:root {
  --bg: #f3f2ee; --card: #fbfaf7; --text: #1d232a; --muted: #4f5863; --line: #c9c6bd;
  --low: #a8211a; --high: #7d5200; --ok: #176a2f; --band: rgba(23, 106, 47, 0.10);
  --accent: #245d96; --accent-text: #fbfaf7; --fault-bg: #a8211a; --fault-text: #fbfaf7;
  --stale-bg: #f1dfb0; --stale-text: #3d2c00; --grid: #dedbd2;
  color-scheme: light;
}
:root[data-theme="dark"] {
  --bg: #0e1115; --card: #161b21; --text: #c9cfd6; --muted: #8f99a4; --line: #2c343d;
  --low: #f2837b; --high: #dcb046; --ok: #5cbf6e; --band: rgba(92, 191, 110, 0.10);
  --accent: #2f5d8c; --accent-text: #d4d9de; --fault-bg: #6e1a16; --fault-text: #e6d0ce;
  --stale-bg: #4a3a10; --stale-text: #efdcae; --grid: #222a32;
  color-scheme: dark;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --bg: #0e1115; --card: #161b21; --text: #c9cfd6; --muted: #8f99a4; --line: #2c343d;
    --low: #f2837b; --high: #dcb046; --ok: #5cbf6e; --band: rgba(92, 191, 110, 0.10);
    --accent: #2f5d8c; --accent-text: #d4d9de; --fault-bg: #6e1a16; --fault-text: #e6d0ce;
    --stale-bg: #4a3a10; --stale-text: #efdcae; --grid: #222a32;
    color-scheme: dark;
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; }
body {
  background: var(--bg); color: var(--text);
  font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
}
[hidden] { display: none !important; }
h1, h2 { margin: 0 0 .5rem; font-size: 1.05rem; font-weight: 600; }
ul { list-style: none; margin: 0; padding: 0; }
a { color: var(--accent); }
:root[data-theme="dark"] a { color: var(--text); }
button, select, input {
  font: inherit; color: var(--text); background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; padding: .45rem .8rem; min-height: 44px;
}
button { cursor: pointer; }
button:focus-visible, select:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button.primary, #chart-range button[aria-pressed="true"] { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
button:disabled { opacity: .55; cursor: default; }
.muted { color: var(--muted); }
.error { color: var(--low); font-weight: 600; margin: .5rem 0; }
.banner { padding: .6rem 1rem; font-weight: 600; }
.banner.fault { background: var(--fault-bg); color: var(--fault-text); }
.banner.fault p { margin: .15rem 0; }
.banner.stale, .banner.offline { background: var(--stale-bg); color: var(--stale-text); }
.top { display: flex; align-items: center; justify-content: space-between; padding: .35rem 1rem; }
.brand { display: flex; align-items: center; gap: .4rem; font-weight: 600; }
main { display: grid; gap: .75rem; padding: 0 .5rem .75rem; max-width: 1200px; margin: 0 auto; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: .75rem; }
.now { text-align: center; padding: .5rem 1rem .75rem; }
.reading { display: flex; align-items: baseline; justify-content: center; gap: .5rem; flex-wrap: wrap; }
.value { font-size: 5.5rem; line-height: 1; font-weight: 700; font-variant-numeric: tabular-nums; }
.arrow { font-size: 3.5rem; line-height: 1; }
.unit { font-size: 1.1rem; color: var(--muted); }
.age { margin: .35rem 0 0; font-size: 1.15rem; color: var(--muted); }
.in-range .value, .value.in-range { color: var(--ok); }
.value.low, .value.urgent-low { color: var(--low); }
.value.high, .value.urgent-high { color: var(--high); }
.value.stale { color: var(--muted); }
.alarms li { border-left: 6px solid var(--line); padding: .4rem .6rem; margin: 0 0 .5rem; background: var(--bg); border-radius: 6px; }
.alarms li.p-high { border-left-color: var(--low); }
.alarms li.p-medium { border-left-color: var(--high); }
.alarms .title { font-weight: 700; }
.alarms .status { color: var(--muted); }
.alarms .actions { display: flex; gap: .4rem; margin-top: .35rem; flex-wrap: wrap; }
.alarms .actions button { padding: .4rem .6rem; }
#theme-toggle[aria-pressed="true"] { border-color: var(--accent); }
.alarms .none { border: 0; background: none; padding: 0; color: var(--muted); }
.snooze-all { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; border-top: 1px solid var(--line); padding-top: .5rem; }
.snooze-all p { flex-basis: 100%; margin: 0; font-size: .9rem; }
.chart-head { display: flex; justify-content: space-between; align-items: center; gap: .5rem; flex-wrap: wrap; }
#chart-range { display: flex; gap: .25rem; }
#chart-range button { padding: .3rem .6rem; }
.chart { width: 100%; min-height: 200px; }
.chart svg { display: block; width: 100%; }
.chart .grid { stroke: var(--grid); stroke-width: 1; }
.chart .axis { fill: var(--muted); font-size: 12px; }
.chart .band { fill: var(--band); }
.chart .limit { stroke-width: 1.5; }
.chart .limit.low { stroke: var(--low); }
.chart .limit.high { stroke: var(--high); }
.chart .limit.urgent { stroke-dasharray: 6 4; }
.chart .pt.in-range { fill: var(--ok); }
.chart .pt.low, .chart .pt.urgent-low { fill: var(--low); }
.chart .pt.high, .chart .pt.urgent-high { fill: var(--high); }
.chart .meter { fill: var(--card); stroke: var(--text); stroke-width: 2; }
.chart .empty { fill: var(--muted); font-size: 14px; }
.legend { font-size: .85rem; margin: .35rem 0 0; }
.key { display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; margin-left: .5rem; vertical-align: -.05rem; }
.key.in-range { background: var(--ok); } .key.low { background: var(--low); } .key.high { background: var(--high); }
.key.meter { border-radius: 0; border: 2px solid var(--text); transform: rotate(45deg); }
.devices li, .others li { padding: .4rem 0; border-top: 1px solid var(--line); }
.devices li:first-child, .others li:first-child { border-top: 0; }
.devices .name, .others .name { font-weight: 600; }
.devices .facts { color: var(--muted); }
.foot { display: flex; gap: 1rem; align-items: center; justify-content: center; flex-wrap: wrap; padding: 1rem; }
.foot form { margin: 0; }
.sign-in-page main { display: block; }
.sign-in { max-width: 24rem; margin: 4rem auto; }
.sign-in h1 { display: flex; align-items: center; gap: .5rem; font-size: 1.5rem; }
.sign-in form { display: grid; gap: .6rem; }
.sign-in button { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
@media (min-width: 900px) {
  main { grid-template-columns: minmax(300px, 1fr) 2fr; align-items: start; }
  .now { grid-column: 1; grid-row: 1; }
  #alarms-card { grid-column: 1; grid-row: 2; }
  #chart-card { grid-column: 2; grid-row: 1 / span 2; }
  #devices-card { grid-column: 1; grid-row: 3; }
  #others-card { grid-column: 2; grid-row: 3; }
  .card { padding: .75rem 1rem; }
  .value { font-size: 7rem; }
}
"""#
}
