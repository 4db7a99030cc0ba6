"""A small library over Selenium for driving Vigil's page (docs/web.md) in Debian's Chromium.

Headless `/usr/bin/chromium` through `/usr/bin/chromedriver`, both given by path so Selenium
Manager never looks for (or downloads) a driver or a browser: this machine has no internet.
Every wait polls the DOM until a predicate holds or a deadline passes; nothing sleeps a fixed
time. Used by check_web_page.py against web_fixture.py, and against a real `vigil run`.

    with Browser() as b:
        b.open("http://127.0.0.1:8080")
        b.sign_in(token)
        b.wait_until(lambda: b.glucose_text() != "--")
"""

from __future__ import annotations

import os
import time
from typing import Callable, TypeVar

# Set before Selenium is imported: Selenium Manager must stay offline whatever happens.
os.environ.setdefault("SE_OFFLINE", "true")
os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

CHROMIUM = os.environ.get("VIGIL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("VIGIL_CHROMEDRIVER", "/usr/bin/chromedriver")

T = TypeVar("T")
# The two sizes every check looks at: a phone at the bedside, a laptop.
PHONE = (360, 740)
DESKTOP = (1280, 800)


class WaitTimedOut(AssertionError):
    pass


class Browser:
    def __init__(self, width: int = 1280, height: int = 800) -> None:
        for path in (CHROMIUM, CHROMEDRIVER):
            if not os.access(path, os.X_OK):
                raise FileNotFoundError(f"{path} is missing: apt-get install chromium chromium-driver")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-extensions", "--disable-background-networking",
                         "--hide-scrollbars", f"--window-size={width},{height}"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        self.base_url = ""
        self.set_viewport(width, height)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.driver.quit()
        except WebDriverException:
            pass

    # ----- navigation

    def open(self, base_url: str, path: str = "/") -> None:
        self.base_url = base_url.rstrip("/")
        self.driver.get(self.base_url + path)

    def sign_in(self, token: str) -> None:
        """Types the token into the sign-in form and submits it (the browser follows the 303)."""
        field = self.wait_until(lambda: self.find("form#sign-in input[name=token]"))
        field.clear()
        field.send_keys(token)
        self.find("form#sign-in").submit()

    def find(self, selector: str):
        found = self.driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0] if found else None

    def text(self, selector: str) -> str | None:
        element = self.find(selector)
        return element.text if element is not None else None

    def glucose_text(self) -> str:
        """The number, arrow and age as the page shows them, e.g. "123 ↘ 3 min ago"."""
        parts = [self.text(s) or "" for s in ("#glucose-value", "#glucose-arrow", "#glucose-age")]
        return " ".join(p for p in parts if p)

    def visible(self, selector: str) -> bool:
        element = self.find(selector)
        return element is not None and element.is_displayed()

    def script(self, source: str, *args):
        return self.driver.execute_script(source, *args)

    # ----- waiting

    def wait_until(self, predicate: Callable[[], T], timeout: float = 10.0, what: str = "") -> T:
        """Polls `predicate` every 50 ms until it returns something truthy, which is returned."""
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while True:
            try:
                value = predicate()
                if value:
                    return value
            except WebDriverException as error:  # a stale element between two renders
                last_error = error
            if time.monotonic() >= deadline:
                raise WaitTimedOut(f"waited {timeout:g} s for {what or predicate}" + (f" ({last_error})" if last_error else ""))
            time.sleep(0.05)

    # ----- actions

    def click_snooze(self, alarm_name: str) -> None:
        self.click_alarm_action(alarm_name, "snooze")

    def click_alarm_action(self, alarm_name: str, action: str) -> None:
        selector = f'#alarms [data-alarm="{alarm_name}"] button[data-action="{action}"]'
        button = self.wait_until(lambda: self.find(selector), what=selector)
        button.click()

    # ----- how it looks

    def set_viewport(self, width: int, height: int) -> None:
        """The layout viewport (CSS pixels), whatever the window's decorations."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600,
        })

    def set_dark(self, dark: bool) -> None:
        """Emulates the system's `prefers-color-scheme`."""
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}],
        })

    def screenshot(self, path: str) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if not self.driver.save_screenshot(path):
            raise RuntimeError(f"no screenshot written to {path}")

    def rect(self, selector: str) -> dict | None:
        """The element's bounding box in the viewport, CSS pixels."""
        return self.script(
            "var e = document.querySelector(arguments[0]); if (!e) return null;"
            "var r = e.getBoundingClientRect();"
            "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,"
            " width: window.innerWidth, height: window.innerHeight};", selector)

    def background(self) -> str:
        return self.script("return getComputedStyle(document.body).backgroundColor;")

    def console_errors(self) -> list[dict]:
        """The SEVERE entries of the browser log since the last call (reading it empties it)."""
        return [entry for entry in self.driver.get_log("browser") if entry.get("level") == "SEVERE"]


def attempt(checks, what: str, step) -> object:
    """Runs one step of a check script; a wait that times out or a browser error is that
    check's failure (`checks` is check_common.Checks)."""
    try:
        ok, detail = step()
    except (WaitTimedOut, AssertionError) as error:
        ok, detail = False, str(error)
    except Exception as error:  # noqa: BLE001 (a browser error fails the check, not the run)
        ok, detail = False, f"{type(error).__name__}: {error}"
    return checks.check(bool(ok), what, " / ".join(str(detail).splitlines()))


def above_fold(b: Browser, width: int) -> tuple[bool, str]:
    """Whether the number, its arrow and its age are all inside a viewport `width` wide,
    without scrolling: what a phone at the bedside must show first."""
    rects = {s: b.rect(s) for s in ("#glucose-value", "#glucose-arrow", "#glucose-age")}
    ok = all(r and r["top"] >= 0 and r["bottom"] <= r["height"] and r["right"] <= r["width"] and r["width"] == width
             for r in rects.values())
    return ok, ", ".join(f"{s} bottom {r['bottom']:.0f} of {r['height']}" for s, r in rects.items() if r)
