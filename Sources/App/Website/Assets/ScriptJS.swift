extension Website.Assets {
    /// `GET /app.js`: everything the page does, in plain JavaScript with no library. It reads
    /// the state document (docs/web.md "The page's data"), keeps it live through `/events`
    /// with `/state.json` polling as the fallback, and posts the alarm actions. Loaded without
    /// `defer` so the stored theme is set before the first paint; the rest waits for the DOM.
    /// Text from the appliance goes in through `textContent` only; the chart's SVG markup is
    /// built from numbers and the browser's own time labels.
    public static let script: String = #"""
"use strict";
(function () {
  var HOURS = [3, 6, 12, 24];
  var ARROWS = {
    DoubleUp: ["\u2191\u2191", "rising fast"], SingleUp: ["\u2191", "rising"],
    FortyFiveUp: ["\u2197", "rising slowly"], Flat: ["\u2192", "steady"],
    FortyFiveDown: ["\u2198", "falling slowly"], SingleDown: ["\u2193", "falling"],
    DoubleDown: ["\u2193\u2193", "falling fast"]
  };
  var LINKS = {
    searching: "Searching", waiting: "Waiting to reconnect", connecting: "Connecting",
    securing: "Securing the link", discovering: "Reading its services", connected: "Connected",
    listening: "Listening to its broadcasts", reachable: "Reachable", unreachable: "Unreachable",
    refused: "Refused"
  };
  var STATUS = {
    sounding: "Sounding", escalated: "Sounding louder", snoozed: "Snoozed",
    "waiting-for-fresh-data": "Snooze over, waiting for a fresh reading", noted: "Noted"
  };
  var KINDS = { "heart-rate": "Heart rate", temperature: "Temperature" };
  var POLL_MS = 30000, TICK_MS = 10000, RECONNECT_MS = 5000, ERROR_MS = 60000;

  var state = null;        // the last state document
  var offsetMs = 0;        // the server's clock minus the browser's, when the document came
  var lastHeardAt = Date.now();
  var source = null, pollTimer = null, streamUp = false, drawnMinute = -1;
  var hours = Number(load("vigil.chartHours")) || 6;
  if (HOURS.indexOf(hours) < 0) hours = 6;

  applyTheme(load("vigil.theme"));
  document.addEventListener("DOMContentLoaded", start);

  function load(key) { try { return window.localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key); else window.localStorage.setItem(key, value);
    } catch (e) { /* private mode: not remembered */ }
  }
  function $(id) { return document.getElementById(id); }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }
  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function isNumber(x) { return typeof x === "number" && isFinite(x); }
  function serverNow() { return Date.now() + offsetMs; }

  // ----- words for numbers and times

  function mmol() { return state && state.units === "mmol/L"; }
  function glucoseText(mgdl) {
    if (!isNumber(mgdl)) return "--";
    if (mmol()) return (mgdl / (state.mgdlPerMmol || 18.0182)).toFixed(1);
    return String(Math.round(mgdl));
  }
  function rangeOf(mgdl) {
    var t = (state && state.thresholds) || {};
    if (isNumber(t.urgentLow) && mgdl < t.urgentLow) return "urgent-low";
    if (isNumber(t.low) && mgdl < t.low) return "low";
    if (isNumber(t.urgentHigh) && mgdl > t.urgentHigh) return "urgent-high";
    if (isNumber(t.high) && mgdl > t.high) return "high";
    return "in-range";
  }
  function span(ms) {
    var minutes = Math.floor(Math.max(0, ms) / 60000);
    if (minutes < 60) return minutes + " min";
    var h = Math.floor(minutes / 60);
    if (h < 48) return h + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
    return Math.floor(h / 24) + " days";
  }
  function ago(at) {
    if (!isNumber(at)) return "time unknown";
    var ms = serverNow() - at;
    return ms < 60000 ? "just now" : span(ms) + " ago";
  }
  function clock(at) {
    return new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  }
  function dayAndClock(at) {
    return new Date(at).toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" });
  }
  function words(name) { return String(name).replace(/-/g, " "); }

  // ----- receiving the state

  function accept(doc) {
    if (!doc || typeof doc !== "object") return;
    state = doc;
    offsetMs = isNumber(doc.now) ? doc.now - Date.now() : 0;
    lastHeardAt = Date.now();
    $("offline-banner").hidden = true;
    render();
  }

  function signInAgain() { window.location.assign("/"); }

  function connect() {
    if (source) source.close();
    source = new EventSource("/events");
    source.addEventListener("state", function (event) {
      var doc;
      try { doc = JSON.parse(event.data); } catch (e) { console.warn("Vigil sent a state that is not JSON"); return; }
      streamUp = true;
      stopPolling();
      accept(doc);
    });
    source.addEventListener("error", function () {
      streamUp = false;
      startPolling();
      // A refused stream (a 401, a wrong type) is not retried by the browser: retry it here.
      if (source && source.readyState === EventSource.CLOSED) {
        source = null;
        window.setTimeout(connect, RECONNECT_MS);
      }
    });
  }
  function startPolling() {
    if (pollTimer !== null) return;
    poll();
    pollTimer = window.setInterval(poll, POLL_MS);
  }
  function stopPolling() {
    if (pollTimer === null) return;
    window.clearInterval(pollTimer);
    pollTimer = null;
  }
  function poll() {
    fetch("/state.json", { credentials: "same-origin", cache: "no-store" }).then(function (response) {
      if (response.status === 401) { signInAgain(); return null; }
      if (!response.ok) throw new Error("status " + response.status);
      return response.json();
    }).then(function (doc) {
      if (doc) accept(doc);
    }).catch(function () {
      if (!streamUp) showOffline();
    });
  }
  function showOffline() {
    var banner = $("offline-banner");
    banner.textContent = "Vigil is not answering since " + clock(lastHeardAt) + ". The page shows what it said last.";
    banner.hidden = false;
  }

  // ----- actions

  function post(path, fields, button) {
    var error = $("action-error");
    error.hidden = true;
    if (button) button.disabled = true;
    fetch(path, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString()
    }).then(function (response) {
      if (response.status === 401) { signInAgain(); return null; }
      if (response.status === 404) throw new Error("That alarm is no longer active.");
      if (!response.ok) throw new Error("Vigil refused that (status " + response.status + ").");
      return response.json();
    }).then(function (doc) {
      if (doc) accept(doc);
    }).catch(function (failure) {
      error.textContent = failure instanceof TypeError ? "Vigil did not answer; try again." : failure.message;
      error.hidden = false;
      window.setTimeout(function () { if (error.textContent === failure.message || failure instanceof TypeError) error.hidden = true; }, ERROR_MS);
      poll();
    }).finally(function () {
      if (button) button.disabled = false;
    });
  }

  // ----- drawing

  function render() {
    if (!state) return;
    renderFaults();
    drawChart();
    renderGlucose();
    renderAlarms();
    renderDevices();
    renderUpload();
    renderOthers();
    $("version").textContent = state.version ? "Vigil " + state.version : "";
  }

  function renderFaults() {
    var banner = $("fault-banner"), faults = Array.isArray(state.faults) ? state.faults : [];
    banner.textContent = "";
    faults.forEach(function (fault) {
      var line = el("p", "", null);
      line.appendChild(el("strong", "", fault.title || words(fault.name || "fault")));
      if (fault.detail) line.appendChild(document.createTextNode(": " + fault.detail));
      banner.appendChild(line);
    });
    banner.hidden = faults.length === 0;
  }

  function renderGlucose() {
    var g = state.glucose, value = $("glucose-value"), arrow = $("glucose-arrow");
    $("glucose-unit").textContent = mmol() ? "mmol/L" : "mg/dL";
    if (!g || !isNumber(g.value)) {
      value.textContent = "--";
      value.className = "value";
      arrow.textContent = "";
      arrow.setAttribute("aria-label", "no trend");
      document.title = "Vigil";
    } else {
      var trend = ARROWS[g.direction] || ["?", "trend unknown"];
      value.textContent = glucoseText(g.value);
      arrow.textContent = trend[0];
      arrow.setAttribute("aria-label", trend[1]);
      value.className = "value " + rangeOf(g.value);
      document.title = value.textContent + " " + trend[0] + " \u00b7 Vigil";
    }
    tick();
  }

  function isStale(g) {
    if (!g) return false;
    if (g.stale) return true;
    return isNumber(g.at) && isNumber(g.staleAfterSeconds) && serverNow() - g.at > g.staleAfterSeconds * 1000;
  }

  // What changes with the clock alone: ages, the stale banner, the chart's window.
  function tick() {
    if (!state) return;
    var g = state.glucose, banner = $("stale-banner"), stale = isStale(g);
    $("glucose-age").textContent = !g ? "No reading yet" : ago(g.at);
    if (stale) {
      banner.textContent = isNumber(g.at) ? "No reading for " + span(serverNow() - g.at) : "No recent reading";
      $("glucose-value").classList.add("stale");
    } else if (g) {
      $("glucose-value").classList.remove("stale");
    }
    banner.hidden = !stale;
    Array.prototype.forEach.call(document.querySelectorAll("[data-at]"), function (node) {
      node.textContent = ago(Number(node.getAttribute("data-at")));
    });
    if (Math.floor(serverNow() / 60000) !== drawnMinute) drawChart();
  }

  function agoSpan(at) {
    var node = el("span", "", ago(at));
    if (isNumber(at)) node.setAttribute("data-at", String(at));
    return node;
  }

  function renderAlarms() {
    var list = $("alarms"), alarms = Array.isArray(state.alarms) ? state.alarms : [];
    var focused = document.activeElement, refocus = null;
    if (focused && list.contains(focused) && focused.closest("[data-alarm]")) {
      refocus = [focused.closest("[data-alarm]").getAttribute("data-alarm"), focused.getAttribute("data-action")];
    }
    list.textContent = "";
    if (alarms.length === 0) list.appendChild(el("li", "none", "No alarm is active."));
    alarms.forEach(function (alarm) {
      var item = el("li", "p-" + (alarm.priority || "low"), null);
      item.setAttribute("data-alarm", alarm.name);
      var head = el("div", "", null);
      head.appendChild(el("span", "title", alarm.title || words(alarm.name)));
      if (alarm.device) head.appendChild(el("span", "muted", " \u00b7 " + alarm.device));
      item.appendChild(head);
      item.appendChild(el("div", "status", statusText(alarm)));
      var actions = el("div", "actions", null);
      var snooze = el("button", "", isNumber(alarm.snoozeMinutes) ? "Snooze " + alarm.snoozeMinutes + " min" : "Snooze");
      snooze.type = "button";
      snooze.setAttribute("data-action", "snooze");
      snooze.disabled = !isNumber(alarm.snoozeMinutes) || alarm.snoozeMinutes <= 0;
      var acknowledge = el("button", "", "Acknowledge");
      acknowledge.type = "button";
      acknowledge.setAttribute("data-action", "acknowledge");
      acknowledge.disabled = !alarm.canAcknowledge;
      actions.appendChild(snooze);
      actions.appendChild(acknowledge);
      item.appendChild(actions);
      list.appendChild(item);
    });
    if (refocus) {
      var again = list.querySelector('[data-alarm="' + CSS.escape(refocus[0]) + '"] [data-action="' + refocus[1] + '"]');
      if (again && !again.disabled) again.focus();
    }
    var until = state.snoozeAllUntil, note = "Snooze all never covers urgent low, signal loss or faults.";
    $("snooze-all-status").textContent = isNumber(until) && until > serverNow() ? "Snoozed all until " + clock(until) + ". " + note : note;
  }

  function statusText(alarm) {
    var text = STATUS[alarm.status] || words(alarm.status || "active");
    if (alarm.status === "snoozed" && isNumber(alarm.snoozedUntil)) text += " until " + clock(alarm.snoozedUntil);
    else if ((alarm.status === "sounding" || alarm.status === "escalated") && isNumber(alarm.raisedAt)) text += " since " + clock(alarm.raisedAt);
    if (alarm.coveredBySnoozeAll === false) text += " \u00b7 not covered by snooze all";
    return text;
  }

  // One `li` per entry of a list of the state, marked with `attribute` = its key.
  function renderList(id, entries, empty, attribute, key, fill) {
    var list = $(id);
    list.textContent = "";
    if (!Array.isArray(entries) || entries.length === 0) { list.appendChild(el("li", "muted", empty)); return; }
    entries.forEach(function (entry) {
      var item = el("li", "", null);
      item.setAttribute(attribute, String(entry[key]));
      fill(item, entry);
      list.appendChild(item);
    });
  }

  function renderDevices() {
    renderList("devices", state.devices, "No device is configured.", "data-device", "id", function (item, device) {
      item.appendChild(el("div", "name", device.id + (device.type ? " \u00b7 " + device.type : "")));
      var facts = el("div", "facts", null);
      facts.appendChild(document.createTextNode((LINKS[device.link] || words(device.link || "unknown")) +
        (device.linkDetail ? " (" + device.linkDetail + ")" : "") + " \u00b7 seen "));
      facts.appendChild(isNumber(device.lastSeen) ? agoSpan(device.lastSeen) : el("span", "", "never"));
      var more = [];
      if (isNumber(device.battery)) more.push("battery " + Math.round(device.battery) + "%");
      var sensor = sensorText(device);
      if (sensor) more.push(sensor);
      if (more.length) facts.appendChild(document.createTextNode(" \u00b7 " + more.join(" \u00b7 ")));
      item.appendChild(facts);
    });
  }

  // The Nightscout upload: what waits, since when, the last success, the failure while failing.
  function renderUpload() {
    var line = $("upload"), u = state.upload;
    line.hidden = !u;
    line.textContent = "";
    if (!u) return;
    line.appendChild(document.createTextNode("Nightscout: " + (u.queued || 0) + " waiting"));
    if (u.queued > 0 && isNumber(u.oldest)) {
      line.appendChild(document.createTextNode(", the oldest from "));
      line.appendChild(agoSpan(u.oldest));
    }
    line.appendChild(document.createTextNode(" \u00b7 last sent "));
    line.appendChild(isNumber(u.lastSuccess) ? agoSpan(u.lastSuccess) : el("span", "", "never"));
    if (u.failing && u.lastFailure) line.appendChild(document.createTextNode(" \u00b7 " + u.lastFailure));
  }

  function sensorText(device) {
    var parts = [];
    if (device.sensorState && device.sensorState !== "ok") parts.push("sensor " + words(device.sensorState));
    if (isNumber(device.sensorAgeSeconds)) {
      var day = "sensor day " + (Math.floor(device.sensorAgeSeconds / 86400) + 1);
      if (isNumber(device.sensorEnds) && isNumber(state.now)) {
        var started = state.now - device.sensorAgeSeconds * 1000;
        day += " of " + Math.round((device.sensorEnds - started) / 86400000);
      }
      parts.push(day);
    }
    if (isNumber(device.warmUpEnds) && device.warmUpEnds > serverNow()) parts.push("warm-up ends " + clock(device.warmUpEnds));
    if (isNumber(device.sensorEnds)) parts.push((device.sensorEnds > serverNow() ? "ends " : "ended ") + dayAndClock(device.sensorEnds));
    return parts.join(", ");
  }

  function renderOthers() {
    renderList("others", state.others, "No other sensor.", "data-other", "device", function (item, other) {
      item.appendChild(el("span", "name", KINDS[other.kind] || words(other.kind || "reading")));
      var value = isNumber(other.value) ? (other.kind === "heart-rate" ? String(Math.round(other.value)) : other.value.toFixed(1)) : "--";
      item.appendChild(document.createTextNode(" " + value + (other.unit ? " " + other.unit : "") + " "));
      var where = el("span", "muted", "\u00b7 " + other.device + " \u00b7 ");
      where.appendChild(agoSpan(other.at));
      item.appendChild(where);
    });
  }

  // ----- the chart: inline SVG, redrawn on a new state, a new minute, a resize or a range

  function drawChart() {
    var box = $("chart");
    if (!state || !box) return;
    drawnMinute = Math.floor(serverNow() / 60000);
    Array.prototype.forEach.call(document.querySelectorAll("#chart-range button"), function (button) {
      button.setAttribute("aria-pressed", String(Number(button.getAttribute("data-hours")) === hours));
    });
    var width = Math.max(260, Math.floor(box.clientWidth || 600));
    var height = width < 560 ? 220 : 300;
    var left = 44, right = 10, top = 10, bottom = 26;
    var end = serverNow(), start = end - hours * 3600000;
    var inWindow = function (pair) { return Array.isArray(pair) && isNumber(pair[0]) && isNumber(pair[1]) && pair[0] >= start && pair[0] <= end + 60000; };
    var readings = (state.readings || []).filter(inWindow), meter = (state.meter || []).filter(inWindow);
    var t = state.thresholds || {}, values = readings.concat(meter).map(function (p) { return p[1]; });
    var lo = Math.min.apply(null, [40].concat(values.map(function (v) { return v - 10; })));
    var hi = Math.max.apply(null, [isNumber(t.urgentHigh) ? t.urgentHigh + 30 : 280].concat(values.map(function (v) { return v + 15; })));
    lo = Math.max(0, lo); hi = Math.min(600, hi);
    var x = function (time) { return left + (time - start) / (end - start) * (width - left - right); };
    var y = function (mgdl) { return top + (hi - mgdl) / (hi - lo) * (height - top - bottom); };
    var f = function (n) { return n.toFixed(1); };
    var out = [];
    out.push('<svg width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " + height + '" role="img" aria-label="Glucose, the last ' + hours + ' hours">');
    if (isNumber(t.low) && isNumber(t.high)) {
      out.push('<rect class="band" x="' + left + '" y="' + f(y(t.high)) + '" width="' + (width - left - right) + '" height="' + f(y(t.low) - y(t.high)) + '"/>');
    }
    // The y axis, in the display unit.
    var step = mmol() ? 2 * (state.mgdlPerMmol || 18.0182) : 50;
    for (var v = Math.ceil(lo / step) * step; v <= hi; v += step) {
      out.push('<line class="grid" x1="' + left + '" x2="' + (width - right) + '" y1="' + f(y(v)) + '" y2="' + f(y(v)) + '"/>');
      out.push('<text class="axis" x="' + (left - 6) + '" y="' + f(y(v) + 4) + '" text-anchor="end">' + esc(mmol() ? String(Math.round(v / (state.mgdlPerMmol || 18.0182))) : String(v)) + "</text>");
    }
    // The time axis, at whole local hours.
    var every = hours <= 6 ? 1 : hours <= 12 ? 2 : 4, mark = new Date(start);
    mark.setMinutes(0, 0, 0);
    for (var guard = 0; guard < 60 && mark.getTime() <= end; guard++, mark.setHours(mark.getHours() + 1)) {
      if (mark.getTime() < start || mark.getHours() % every) continue;
      var at = x(mark.getTime());
      out.push('<line class="grid" x1="' + f(at) + '" x2="' + f(at) + '" y1="' + top + '" y2="' + (height - bottom) + '"/>');
      // A label too near an edge would be cut off: its line alone marks the hour.
      if (at < left + 30 || at > width - right - 30) continue;
      out.push('<text class="axis" x="' + f(at) + '" y="' + (height - 8) + '" text-anchor="middle">' + esc(clock(mark.getTime())) + "</text>");
    }
    [["low", t.low, ""], ["high", t.high, ""], ["low", t.urgentLow, " urgent"], ["high", t.urgentHigh, " urgent"]].forEach(function (line) {
      if (!isNumber(line[1]) || line[1] < lo || line[1] > hi) return;
      out.push('<line class="limit ' + line[0] + line[2] + '" x1="' + left + '" x2="' + (width - right) + '" y1="' + f(y(line[1])) + '" y2="' + f(y(line[1])) + '"/>');
    });
    var r = hours <= 3 ? 3.5 : hours <= 6 ? 3 : hours <= 12 ? 2.5 : 2;
    readings.forEach(function (p) {
      out.push('<circle class="pt ' + rangeOf(p[1]) + '" cx="' + f(x(p[0])) + '" cy="' + f(y(p[1])) + '" r="' + r + '"/>');
    });
    meter.forEach(function (p) {
      var cx = x(p[0]), cy = y(p[1]), d = 6;
      out.push('<path class="meter" d="M' + f(cx) + " " + f(cy - d) + "L" + f(cx + d) + " " + f(cy) + "L" + f(cx) + " " + f(cy + d) + "L" + f(cx - d) + " " + f(cy) + 'Z"/>');
    });
    if (!isNumber(state.now)) {
      out.push('<text class="empty" x="' + (width / 2) + '" y="' + (height / 2) + '" text-anchor="middle">The appliance\u2019s clock is not set yet</text>');
    } else if (readings.length === 0) {
      out.push('<text class="empty" x="' + (width / 2) + '" y="' + (height / 2) + '" text-anchor="middle">No reading in these ' + hours + " hours</text>");
    }
    out.push("</svg>");
    box.innerHTML = out.join("");
  }

  // ----- theme

  function prefersDark() { return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches; }
  function applyTheme(theme) {
    if (theme === "dark" || theme === "light") document.documentElement.setAttribute("data-theme", theme);
    else document.documentElement.removeAttribute("data-theme");
    var toggle = $("theme-toggle");
    if (toggle) toggle.setAttribute("aria-pressed", String(isDark()));
  }
  function isDark() {
    var theme = document.documentElement.getAttribute("data-theme");
    return theme ? theme === "dark" : prefersDark();
  }

  // ----- start

  function start() {
    applyTheme(load("vigil.theme"));
    $("theme-toggle").addEventListener("click", function () {
      // Back to what the system prefers is no choice at all: the page follows the system again.
      var next = isDark() ? "light" : "dark";
      if (next === (prefersDark() ? "dark" : "light")) next = null;
      store("vigil.theme", next);
      applyTheme(next);
    });
    if (window.matchMedia) {
      window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function () { applyTheme(load("vigil.theme")); });
    }
    $("chart-range").addEventListener("click", function (event) {
      var button = event.target.closest("button[data-hours]");
      if (!button) return;
      hours = Number(button.getAttribute("data-hours"));
      store("vigil.chartHours", String(hours));
      drawChart();
    });
    $("alarms").addEventListener("click", function (event) {
      var button = event.target.closest("button[data-action]"), item = event.target.closest("[data-alarm]");
      if (!button || !item || button.disabled) return;
      var path = button.getAttribute("data-action") === "acknowledge" ? "/alarms/acknowledge" : "/alarms/snooze";
      post(path, { alarm: item.getAttribute("data-alarm") }, button);
    });
    $("snooze-all").addEventListener("click", function (event) {
      post("/alarms/snooze-all", { minutes: $("snooze-all-minutes").value }, event.currentTarget);
    });
    var pending = false;
    window.addEventListener("resize", function () {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; drawChart(); });
    });
    window.setInterval(tick, TICK_MS);
    if (window.EventSource) connect(); else startPolling();
  }
})();
"""#
}
