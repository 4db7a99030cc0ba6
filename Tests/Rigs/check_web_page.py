"""The page (docs/web.md) in a real browser, Debian's headless Chromium, against web_fixture.py:
the page's own files, served with the contract's routes and Content-Security-Policy, so the page
is checked without Vigil. One `CHECK ok|FAIL` line per check, `N passed, N failed`, exit 1 on any
failure. `--screenshots DIR` keeps PNGs of the page: light and dark, phone (360x740) and desktop
(1280x800).

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/check_web_page.py --screenshots /tmp/vigil-page
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from check_common import Checks
from web_browser import DESKTOP, PHONE, Browser, above_fold, attempt
from web_fixture import WRONG_TOKEN, WebFixture



def run(screenshots: str) -> int:
    checks = Checks()
    fixture = WebFixture()
    try:
        with Browser(*DESKTOP) as b:
            try:
                page_checks(checks, fixture, b, screenshots)
            except Exception as error:  # noqa: BLE001 (a step between checks failed: say so, end)
                checks.check(False, "the checks ran to the end", f"{type(error).__name__}: {error}")
    finally:
        if not fixture.down:
            fixture.stop()
    return checks.finish()


def page_checks(checks: Checks, fixture: WebFixture, b: Browser, screenshots: str) -> None:
    def value() -> str:
        return b.text("#glucose-value") or ""

    # Signing in.
    b.open(fixture.base_url)
    attempt(checks, "without the cookie / is the sign-in form", lambda: (
        b.wait_until(lambda: b.find("form#sign-in input[name=token]"), what="the sign-in form"), b.driver.title))
    b.sign_in("not-the-token-at-all")
    attempt(checks, "a wrong token shows the sign-in error", lambda: (
        b.wait_until(lambda: b.text("#sign-in-error") == WRONG_TOKEN, what="#sign-in-error"), b.text("#sign-in-error")))
    b.sign_in(fixture.token)
    attempt(checks, "the right token opens the page with the number, arrow and age", lambda: (
        b.wait_until(lambda: value() == "123", what="#glucose-value 123")
        and b.text("#glucose-arrow") == "\u2198" and b.text("#glucose-age") == "2 min ago"
        and b.text("#glucose-unit") == "mg/dL", b.glucose_text()))
    attempt(checks, "the page came over the event stream", lambda: (("GET", "/events") in fixture.requests, ""))

    # Live updates, no reload.
    b.script("window.vigilCheckMarker = 'still this page';")
    fixture.set_glucose(131, "Flat")
    attempt(checks, "a new state event updates the number without a reload", lambda: (
        b.wait_until(lambda: value() == "131" and b.text("#glucose-arrow") == "\u2192", what="131 \u2192")
        and b.script("return window.vigilCheckMarker;") == "still this page"
        and b.text("#glucose-age") == "just now", b.glucose_text()))

    # The chart.
    attempt(checks, "the chart draws the readings, thresholds and fingersticks", lambda: chart_facts(b))
    b.find('#chart-range button[data-hours="3"]').click()
    attempt(checks, "the 3 h button narrows the chart and is remembered", lambda: (
        b.wait_until(lambda: b.find('#chart-range button[data-hours="3"]').get_attribute("aria-pressed") == "true")
        and b.script("return localStorage.getItem('vigil.chartHours');") == "3"
        and len(b.driver.find_elements("css selector", "#chart svg circle.pt")) < 40,
        f'{len(b.driver.find_elements("css selector", "#chart svg circle.pt"))} points'))
    b.find('#chart-range button[data-hours="6"]').click()

    # Alarms: shown, loudest first, snoozed from the button; with a low reading to go with them.
    fixture.set_glucose(66, "FortyFiveDown")
    b.wait_until(lambda: value() == "66", what="66")
    fixture.raise_alarm("sensor-expiring:cgm", status="noted")
    fixture.raise_alarm("low")
    attempt(checks, "an alarm shows with Snooze and Acknowledge, loudest first", lambda: (
        b.wait_until(lambda: b.find('#alarms [data-alarm="low"] button[data-action="acknowledge"]'), what="the low alarm")
        and b.text('#alarms [data-alarm="low"] button[data-action="snooze"]') == "Snooze 15 min"
        and b.script("return [...document.querySelectorAll('#alarms [data-alarm]')].map(e => e.dataset.alarm);")
        == ["low", "sensor-expiring:cgm"], b.text("#alarms")))
    # Screenshots with a sounding alarm: what someone woken at night sees.
    for dark in (False, True):
        b.set_dark(dark)
        for name, (w, h) in (("phone", PHONE), ("desktop", DESKTOP)):
            b.set_viewport(w, h)
            b.script("window.scrollTo(0, 0); window.dispatchEvent(new Event('resize'));")
            b.wait_until(lambda: b.script("return Math.abs(document.querySelector('#chart svg').getAttribute('width') - document.getElementById('chart').clientWidth) <= 1;"), what="the chart redrawn at the new width")
            path = os.path.join(screenshots, f"page-{'dark' if dark else 'light'}-{name}-{w}x{h}.png")
            attempt(checks, f"screenshot {os.path.basename(path)}", lambda: (b.screenshot(path) or os.path.getsize(path) > 10_000, path))
    b.set_dark(False)
    b.set_viewport(*DESKTOP)
    before = len(fixture.posts)
    b.click_snooze("low")
    attempt(checks, "Snooze posts the alarm's name as a form from the page's origin", lambda: (
        b.wait_until(lambda: len(fixture.posts) > before, what="the POST")
        and fixture.posts[before][:2] == ("/alarms/snooze", {"alarm": ["low"]})
        and fixture.posts[before][2] == "application/x-www-form-urlencoded", fixture.posts[before:]))
    attempt(checks, "the answer's state shows the alarm snoozed", lambda: (
        b.wait_until(lambda: (b.text('#alarms [data-alarm="low"] .status') or "").startswith("Snoozed until "),
                     what="Snoozed until"), b.text('#alarms [data-alarm="low"] .status')))
    fixture.forget_alarm_quietly("low")
    b.click_alarm_action("low", "acknowledge")
    attempt(checks, "acting on an alarm that has ended says so", lambda: (
        b.wait_until(lambda: b.visible("#action-error") and b.text("#action-error") == "That alarm is no longer active.",
                     what="#action-error"), b.text("#action-error")))

    # The display unit and an arrow that cannot be computed.
    fixture.change(lambda s: (s.update(units="mmol/L"), s["glucose"].update(direction="NOT COMPUTABLE")))
    attempt(checks, "mmol/L shows one decimal and an unknown trend shows ?", lambda: (
        b.wait_until(lambda: value() == "3.7" and b.text("#glucose-unit") == "mmol/L" and b.text("#glucose-arrow") == "?",
                     what="3.7 ? mmol/L")
        and "4" in b.script("return [...document.querySelectorAll('#chart text.axis')].map(t => t.textContent);"),
        b.glucose_text()))
    fixture.change(lambda s: (s.update(units="mg/dL"), s["glucose"].update(direction="FortyFiveDown")))
    b.wait_until(lambda: value() == "66", what="back to mg/dL")

    # Devices and other sensors.
    attempt(checks, "devices show link, last seen, battery and sensor day", lambda: (
        "Connected" in (b.text('#devices [data-device="cgm"]') or "")
        and "battery 80%" in b.text('#devices [data-device="cgm"]')
        and "sensor day 5 of 10" in b.text('#devices [data-device="cgm"]')
        and "Waiting to reconnect" in (b.text('#devices [data-device="hr"]') or ""), b.text("#devices")))
    attempt(checks, "other sensors show heart rate and temperature", lambda: (
        "Heart rate 64 bpm" in (b.text("#others") or "") and "Temperature 4.5 \u00b0C" in b.text("#others"),
        b.text("#others")))
    attempt(checks, "the report link goes to /report", lambda: (
        (b.find("#report-link").get_attribute("href") or "").endswith("/report"), b.find("#report-link").get_attribute("href")))

    # Phone: the number above the fold.
    b.set_viewport(*PHONE)
    b.script("window.scrollTo(0, 0);")
    attempt(checks, "on a 360x740 phone the number, arrow and age are above the fold", lambda: above_fold(b, PHONE[0]))
    b.set_viewport(*DESKTOP)

    # Dark mode: the system's preference, and the toggle.
    b.set_dark(False)
    light = b.background()
    b.set_dark(True)
    attempt(checks, "prefers-color-scheme: dark changes the background", lambda: (
        b.wait_until(lambda: b.background() != light, what="a dark background") and True,
        f"{light} -> {b.background()}"))
    b.set_dark(False)
    b.find("#theme-toggle").click()
    attempt(checks, "the theme toggle turns dark mode on and remembers it", lambda: (
        b.wait_until(lambda: b.background() != light, what="a dark background")
        and b.script("return localStorage.getItem('vigil.theme');") == "dark"
        and b.find("#theme-toggle").get_attribute("aria-pressed") == "true", b.background()))
    b.find("#theme-toggle").click()
    attempt(checks, "toggling back to the system's choice follows the system again", lambda: (
        b.wait_until(lambda: b.background() == light, what="the light background again")
        and b.script("return localStorage.getItem('vigil.theme');") is None, b.background()))

    # A document from an appliance whose clock is an hour ahead of the browser's: ages are
    # counted on the appliance's clock. Then one with nothing in it yet: still a page.
    saved = fixture.state.copy()
    ahead = 3600_000
    skewed = dict(saved, glucose=dict(saved["glucose"], at=int(time.time() * 1000) + ahead - 3 * 60_000))
    fixture.replace(skewed, skew_ms=ahead)
    attempt(checks, "ages are counted on the appliance's clock, not the browser's", lambda: (
        b.wait_until(lambda: b.text("#glucose-age") == "3 min ago", what="3 min ago"), b.glucose_text()))
    fixture.replace({"version": "0.24.0", "now": None, "clockSet": False, "units": "mg/dL", "glucose": None,
                     "alarms": None, "devices": [], "readings": [[None, "x"], "junk"], "faults": None})
    attempt(checks, "a document with no reading, no clock and junk renders plainly", lambda: (
        b.wait_until(lambda: value() == "--" and b.text("#glucose-age") == "No reading yet", what="--")
        and "No alarm is active." in b.text("#alarms") and "No device is configured." in b.text("#devices")
        and "clock is not set" in b.text("#chart") and not b.visible("#fault-banner"), b.text("#now")))
    fixture.replace(saved)
    b.wait_until(lambda: value() == "66", what="the morning again")

    # Banners.
    fixture.make_stale(17)
    attempt(checks, "a stale reading shows the stale banner", lambda: (
        b.wait_until(lambda: b.visible("#stale-banner") and b.text("#stale-banner") == "No reading for 17 min",
                     what="#stale-banner"), b.text("#stale-banner")))
    fixture.add_fault("fault:storage-failing", "Storage failing", "The history database cannot be written.")
    attempt(checks, "a fault shows as a banner with its sentence", lambda: (
        b.wait_until(lambda: b.visible("#fault-banner")
                     and "Storage failing: The history database cannot be written." in b.text("#fault-banner"),
                     what="#fault-banner"), b.text("#fault-banner")))
    b.set_dark(True)
    b.set_viewport(*PHONE)
    path = os.path.join(screenshots, "page-dark-phone-360x740-fault-stale.png")
    attempt(checks, f"screenshot {os.path.basename(path)}", lambda: (b.screenshot(path) or os.path.getsize(path) > 10_000, path))
    b.set_viewport(*DESKTOP)
    b.set_dark(False)

    # Snooze all, then a token that no longer opens the page: back to the sign-in form.
    before = len(fixture.posts)
    b.find("#snooze-all").click()
    attempt(checks, "Snooze all posts its minutes and the page says until when", lambda: (
        b.wait_until(lambda: (b.text("#snooze-all-status") or "").startswith("Snoozed all until "), what="Snoozed all")
        and fixture.posts[before][:2] == ("/alarms/snooze-all", {"minutes": ["60"]})
        and "never covers urgent low, signal loss or faults" in b.text("#snooze-all-status"), b.text("#snooze-all-status")))
    fixture.token = "a-new-token-after-a-reinstall"
    b.find("#snooze-all").click()
    attempt(checks, "a 401 sends the browser to the sign-in page", lambda: (
        b.wait_until(lambda: b.find("form#sign-in input[name=token]"), what="the sign-in form"), b.driver.current_url))
    b.sign_in(fixture.token)
    b.wait_until(lambda: value() == "66", what="the page again")

    errors = [e for e in b.console_errors() if not expected_error(fixture, e)]
    attempt(checks, "no console errors (script, Content-Security-Policy, network)", lambda: (not errors, errors))

    # Offline: the fixture stops answering.
    fixture.stop()
    attempt(checks, "the offline banner appears when Vigil stops answering", lambda: (
        b.wait_until(lambda: b.visible("#offline-banner")
                     and b.text("#offline-banner").startswith("Vigil is not answering since "),
                     timeout=15, what="#offline-banner"), b.text("#offline-banner")))


def expected_error(fixture: WebFixture, entry: dict) -> bool:
    """The browser logs the answers the checks asked for: the wrong token's 401 and the ended
    alarm's 404, and the 401 of a token that stopped working. Nothing else may be logged as an
    error."""
    message = entry.get("message", "")
    return entry.get("source") == "network" and any(
        message.startswith(f"{fixture.base_url}{path} ") and f"status of {status} " in message
        for path, status in (("/login", 401), ("/alarms/acknowledge", 404), ("/alarms/snooze-all", 401)))


def chart_facts(b: Browser) -> tuple[bool, str]:
    facts = b.script("""
        var svg = document.querySelector('#chart svg');
        if (!svg) return null;
        return {points: svg.querySelectorAll('circle.pt').length, meter: svg.querySelectorAll('.meter').length,
                limits: svg.querySelectorAll('line.limit').length, band: svg.querySelectorAll('rect.band').length,
                labels: [...svg.querySelectorAll('text.axis')].map(t => t.textContent)};""")
    ok = bool(facts) and facts["points"] >= 60 and facts["meter"] == 1 and facts["limits"] >= 3 and facts["band"] == 1 \
        and any(":" in label for label in facts["labels"])
    return ok, str(facts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", help="directory for the PNGs (default: a temporary one)")
    arguments = parser.parse_args()
    directory = arguments.screenshots or tempfile.mkdtemp(prefix="vigil-page-")
    sys.exit(run(directory))


if __name__ == "__main__":
    main()
