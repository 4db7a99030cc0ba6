"""Vigil's page in Debian's Chromium, served by a running `vigil run` that reads a Bumble Dexcom.

The interop test (Tests/InteropTests/WebPageInteropTests.swift) starts the rig and Vigil with
`[web]` and `--events-json`, then runs this against them. Every expected value comes from
Vigil's own event stream (the NDJSON file given by --events), never from constants here: the
number the page shows is the newest glucose Vigil reported, and a snooze pressed on the page is
the snooze Vigil's alarm engine reports.

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/check_web_vigil.py --url http://127.0.0.1:8080 --token TOKEN \
        --events vigil-stdout.ndjson --alarm high [--screenshots DIR]

One `CHECK ok|FAIL` line per check, then `N passed, M failed`; exit 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from check_common import Checks
from web_browser import DESKTOP, PHONE, Browser, above_fold, attempt



class Events:
    """Vigil's `--events-json` stdout, read again on every call (it grows as Vigil runs)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def all(self) -> list[dict]:
        events = []
        with open(self.path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.endswith("\n"):
                    break  # a line still being written
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return events

    def glucose(self) -> list[int]:
        """The sensor glucose values Vigil reported, oldest first by their own time (a backfill
        is reported after the live reading it precedes)."""
        readings = [e for e in self.all() if e.get("event") == "reading" and e.get("kind") == "glucose" and "mgdl" in e]
        return [round(e["mgdl"]) for e in sorted(readings, key=lambda e: e.get("time", ""))]

    def alarm_changes(self, alarm: str) -> list[dict]:
        return [e for e in self.all() if e.get("event") == "alarm" and e.get("alarm") == alarm]


def page_value(b: Browser) -> int | None:
    text = (b.text("#glucose-value") or "").strip()
    return int(text) if text.isdigit() else None


def run(url: str, token: str, events: Events, alarm: str, screenshots: str) -> int:
    checks = Checks()
    with Browser(*DESKTOP) as b:
        try:
            checks_against_vigil(checks, b, url, token, events, alarm, screenshots)
        except Exception as error:  # noqa: BLE001 (a step between checks failed: say so, end)
            checks.check(False, "the checks ran to the end", f"{type(error).__name__}: {error}")
        errors = [e for e in b.console_errors() if "/login" not in e.get("message", "")]
        checks.check(not errors, "no errors in the browser's console (the refused sign-in aside)", errors)
    return checks.finish()


def checks_against_vigil(checks: Checks, b: Browser, url: str, token: str, events: Events, alarm: str, screenshots: str) -> None:
    b.open(url)
    b.sign_in(token + "-not-it")
    attempt(checks, "a wrong token is refused with the sign-in page's error, and no glucose is shown", lambda: (
        b.wait_until(lambda: b.visible("#sign-in-error"), what="the sign-in error")
        and b.find("#glucose-value") is None, b.text("#sign-in-error")))

    b.sign_in(token)
    attempt(checks, "signed in, the page shows the newest glucose Vigil reported", lambda: (
        b.wait_until(lambda: (v := page_value(b)) is not None and events.glucose() and v == events.glucose()[-1],
                     timeout=30, what="the page's number to be Vigil's newest reading"),
        (page_value(b), events.glucose()[-3:])))
    attempt(checks, "the trend arrow and the age are shown with it", lambda: (
        bool((b.text("#glucose-arrow") or "").strip()) and any(w in (b.text("#glucose-age") or "") for w in ("ago", "now")),
        (b.text("#glucose-arrow"), b.text("#glucose-age"))))

    # The next reading arrives through the event stream: the same document, no reload.
    b.script("window.vigilCheckMarker = 42;")
    seen = len(events.glucose())
    attempt(checks, "the next reading updates the page by itself, without a reload", lambda: (
        b.wait_until(lambda: len(events.glucose()) > seen and page_value(b) == events.glucose()[-1],
                     timeout=30, what="a newer reading on the page")
        and b.script("return window.vigilCheckMarker;") == 42,
        (page_value(b), events.glucose()[seen - 1:])))

    # An alarm Vigil raised, snoozed from the page's button: Vigil's engine reports the snooze.
    selector = f'#alarms [data-alarm="{alarm}"] button[data-action="snooze"]'
    attempt(checks, f"the {alarm} alarm Vigil raised is shown with its Snooze button", lambda: (
        b.wait_until(lambda: b.find(selector) is not None and any(e.get("change") == "raised" for e in events.alarm_changes(alarm)),
                     timeout=30, what=f"the {alarm} alarm"), b.text(selector)))
    os.makedirs(screenshots, exist_ok=True)
    b.screenshot(os.path.join(screenshots, "vigil-desktop-light-alarm.png"))
    b.click_snooze(alarm)
    attempt(checks, "Snooze on the page snoozes the alarm in Vigil (its own alarm event) and the page says so", lambda: (
        b.wait_until(lambda: any(e.get("change") == "snoozed" for e in events.alarm_changes(alarm))
                     and (b.text(f'#alarms [data-alarm="{alarm}"] .status') or "").startswith("Snoozed until "),
                     timeout=10, what="the snooze in Vigil's events and on the page"),
        [e for e in events.alarm_changes(alarm) if e.get("change") == "snoozed"]))

    # The clinician's report, made from Vigil's history on a thread of its own.
    b.find("#report-link").click()
    attempt(checks, "the report link opens the clinician's report from the history", lambda: (
        b.wait_until(lambda: "Time in ranges" in (b.script("return document.documentElement.outerHTML;") or ""),
                     timeout=20, what="the report"), b.driver.title))
    b.open(url)
    b.wait_until(lambda: page_value(b) is not None, timeout=20, what="the page again")

    # A phone at the bedside: the number, arrow and age without scrolling; light and dark.
    b.set_viewport(*PHONE)
    attempt(checks, "on a 360x740 phone the number, arrow and age are above the fold", lambda: above_fold(b, PHONE[0]))
    for dark in (False, True):
        b.set_dark(dark)
        for (width, height), name in ((PHONE, "phone"), (DESKTOP, "desktop")):
            b.set_viewport(width, height)
            path = os.path.join(screenshots, f"vigil-{name}-{'dark' if dark else 'light'}.png")
            b.screenshot(path)
            checks.check(os.path.getsize(path) > 10_000, f"screenshot {os.path.basename(path)}", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the page's address, http://127.0.0.1:PORT")
    parser.add_argument("--token", required=True, help="the web token Vigil reads")
    parser.add_argument("--events", required=True, help="Vigil's --events-json stdout, as a file")
    parser.add_argument("--alarm", default="high", help="the alarm Vigil is expected to raise (its name)")
    parser.add_argument("--screenshots", help="directory for the PNGs (default: a temporary one)")
    arguments = parser.parse_args()
    directory = arguments.screenshots or tempfile.mkdtemp(prefix="vigil-web-")
    sys.exit(run(arguments.url.rstrip("/"), arguments.token, Events(arguments.events), arguments.alarm, directory))


if __name__ == "__main__":
    main()
