#!/usr/bin/env python3
"""The checks scripts/kernel-test runs inside its VM, against real kernel interfaces.

a. Bluetooth: Bumble's controller behind /dev/vhci (hci_vhci makes it hciN) carrying the
   heart-rate rig; `vigil scan` and `vigil run` over the real HCI_CHANNEL_USER socket; the
   controller killed (vhci closed, the hci device unregistered) and brought back.
b. GPIO: a gpio-sim chip shaped like a board profile's header chip; the GPIO platform tests
   (which skip without such a chip); `vigil alarm test` seen on the simulated lines; a button
   press made by pulling the simulated line, seen by `vigil run` as edges and a gesture.

Each check writes one line, `PASS|FAIL|SKIP name: reason`, to the results file and to the
console. Every wait is bounded. The values compared come from the peers' own logs (the rig's
{"sent":...} lines, the simulator's sysfs), never from constants.

Facts used: Linux net/bluetooth/hci_sock.c (HCIGETDEVINFO, HCIDEVDOWN, HCI_CHANNEL_USER needs
the device down); Documentation/admin-guide/gpio/gpio-sim.rst (configfs layout, sim_gpioN/
value and pull); Tests/Rigs/README.md for the rig's log.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import tomllib
from typing import Callable

# include/net/bluetooth/hci_sock.h: _IOR('H', 211, int) and _IOW('H', 202, int).
HCIGETDEVINFO = 0x800448D3
HCIDEVDOWN = 0x400448CA
AF_BLUETOOTH = 31
BTPROTO_HCI = 1
HCI_UP = 1 << 0  # hdev->flags bit HCI_UP (include/net/bluetooth/hci.h)

# AlarmKind.fault(.controllerLost) in --events-json (Sources/App/Output/ApplianceEvent+JSON.swift).
LOST_ALARM = "fault:controller-lost"
RIG_ADDRESS = "C2:11:22:33:44:55"
RIG_NAME = "Vigil HRM"
# What `vigil run` may keep resident on a Pi Zero 2 W (512 MB shared with the GPU and the OS).
RESIDENT_GOAL_MIB = 10


class Report:
    def __init__(self, path: str) -> None:
        self.path = path
        self.failures = 0

    def line(self, status: str, name: str, reason: str) -> None:
        text = f"{status} {name}: {reason}"
        if status == "FAIL":
            self.failures += 1
        print(text, flush=True)
        with open(self.path, "a") as handle:
            handle.write(text + "\n")
            # The share is cached in the guest: a VM killed by the timeout keeps what was synced.
            handle.flush()
            os.fsync(handle.fileno())

    def info(self, text: str) -> None:
        print(f"INFO {text}", flush=True)
        with open(self.path, "a") as handle:
            handle.write(f"INFO {text}\n")

    def check(self, name: str, ok: bool, good: str, bad: str) -> bool:
        self.line("PASS" if ok else "FAIL", name, good if ok else bad)
        return ok


def wait_for(condition: Callable[[], object], timeout: float, step: float = 0.05):
    """Polls `condition` until it returns something truthy or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


class Child:
    """A child process whose stdout (and optionally stderr) lines are collected with times."""

    def __init__(self, argv: list[str], name: str, stderr_lines: bool = False) -> None:
        self.name = name
        self.argv = argv
        self.started = time.monotonic()
        # stdin is a pipe we hold: the rigs stop when it closes, so none outlives the checks.
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: list[tuple[float, str]] = []
        self.errors: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self.pumps = [threading.Thread(target=self._pump, args=(stream, into), daemon=True)
                      for stream, into in ((self.process.stdout, self.lines), (self.process.stderr, self.errors))]
        for pump in self.pumps:
            pump.start()

    def _pump(self, stream, into: list) -> None:
        for line in stream:
            with self.lock:
                into.append((time.monotonic(), line.rstrip("\n")))

    def json_lines(self, since: float = 0.0) -> list[dict]:
        with self.lock:
            lines = [(t, l) for t, l in self.lines if t >= since]
        out = []
        for t, line in lines:
            if line.startswith("{"):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                record["_t"] = t
                out.append(record)
        return out

    def stderr_text(self) -> str:
        with self.lock:
            return "\n".join(l for _, l in self.errors)

    def has_line(self, text: str) -> bool:
        with self.lock:
            return any(l == text for _, l in self.lines)

    def alive(self) -> bool:
        return self.process.poll() is None

    def drained(self, timeout: float = 10.0) -> None:
        """After the process exited: waits until its last lines are collected."""
        for pump in self.pumps:
            pump.join(timeout)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int | None:
        if self.alive():
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def tail(self, count: int = 8) -> str:
        with self.lock:
            lines = [l for _, l in self.lines[-count:]] + [l for _, l in self.errors[-count:]]
        return " | ".join(lines)[-1500:]


# ---------------------------------------------------------------------------------------------
# a. Bluetooth through hci_vhci
# ---------------------------------------------------------------------------------------------

def hci_devices() -> list[str]:
    try:
        return sorted(os.listdir("/sys/class/bluetooth"))
    except FileNotFoundError:
        return []


def hci_flags(index: int) -> int:
    """hdev->flags of hciN through HCIGETDEVINFO (struct hci_dev_info: flags at offset 16).
    Raises OSError (ENODEV once the device is gone)."""
    sock = socket.socket(AF_BLUETOOTH, socket.SOCK_RAW, BTPROTO_HCI)
    try:
        buffer = bytearray(128)
        struct.pack_into("<H", buffer, 0, index)
        fcntl.ioctl(sock.fileno(), HCIGETDEVINFO, buffer, True)
        return struct.unpack_from("<I", buffer, 16)[0]
    finally:
        sock.close()


def hci_down(index: int) -> None:
    sock = socket.socket(AF_BLUETOOTH, socket.SOCK_RAW, BTPROTO_HCI)
    try:
        fcntl.ioctl(sock.fileno(), HCIDEVDOWN, index)
    finally:
        sock.close()


class ResidentMemory:
    """A process's resident set from /proc/PID/status (VmRSS now, VmHWM its peak, and the last
    sample's split into anonymous memory and file pages, i.e. mostly the executable's code)."""

    def __init__(self, pid: int) -> None:
        self.path = f"/proc/{pid}/status"
        self.samples = 0
        self.max_rss = 0
        self.last_rss = 0
        self.hwm = 0
        self.anon = 0
        self.file = 0

    def sample(self) -> None:
        try:
            with open(self.path) as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
            rss, hwm, anon, file = (int(fields[name].split()[0]) * 1024
                                    for name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"))
        except (OSError, KeyError, ValueError):
            return  # exited between two samples (a zombie has no VmRSS)
        self.samples += 1
        self.last_rss, self.anon, self.file = rss, anon, file
        self.max_rss = max(self.max_rss, rss)
        self.hwm = max(self.hwm, hwm)


class Bluetooth:
    def __init__(self, args: argparse.Namespace, report: Report) -> None:
        self.args = args
        self.report = report
        self.vigil = args.vigil
        self.rig_script = os.path.join(args.repo, "Tests/Kernel/vhci_heart_rate_monitor.py")

    def start_rig(self, before: list[str], bring_down: bool = True) -> tuple[Child | None, str | None, float]:
        """Starts the vhci rig; returns it, the hci device it made, and how long the kernel took.

        `bring_down` false: a running vigil is waiting to reopen the device, and does it itself.
        """
        rig = Child([self.args.python, self.rig_script, "--rate-hz", "2"], "rig")
        # Importing Bumble under TCG, over 9p, on a shared host: tens of seconds, minutes when busy.
        ready = wait_for(lambda: rig.has_line("READY vhci") or not rig.alive(), 300)
        if not rig.alive() or not ready:
            return None, f"rig did not start: {rig.tail()}", 0
        started = time.monotonic()
        device = wait_for(lambda: next((d for d in hci_devices() if d not in before), None), 30)
        if device is None:
            rig.stop()
            return None, "no hci device appeared after opening /dev/vhci", 0
        index = int(device[3:])
        if not bring_down:
            return rig, device, time.monotonic() - started
        # The kernel powers a new controller up for its setup (Reset, Read Local Features, ...)
        # and, with no mgmt user, powers it off about 2 s later; HCI_CHANNEL_USER refuses it
        # while the setup runs (EBUSY). HCIGETDEVINFO cannot tell (it hides HCI_UP while
        # HCI_AUTO_OFF is set), but HCIDEVDOWN waits for the setup work to finish before closing
        # (hci_dev_close: cancel_work_sync(&hdev->power_on)). The pause covers the instant
        # between the sysfs entry and the work being queued (both in hci_register_dev).
        time.sleep(1.0)
        try:
            hci_down(index)
        except OSError as error:
            rig.stop()
            return None, f"HCIDEVDOWN {device}: {error} {rig.tail()}", time.monotonic() - started
        setup = time.monotonic() - started
        try:
            flags: int | str = hci_flags(index)
        except OSError as error:
            flags = f"HCIGETDEVINFO: {error}"
        if not isinstance(flags, int) or flags & HCI_UP:
            rig.stop()
            return None, f"{device} is not down after HCIDEVDOWN (flags {flags})", setup
        return rig, device, setup

    def run(self) -> None:
        report = self.report
        if not os.path.exists("/dev/vhci"):
            report.line("FAIL", "bt.vhci", "/dev/vhci missing (hci_vhci not loaded)")
            return
        rig, device, setup = self.start_rig(hci_devices())
        if rig is None:
            report.line("FAIL", "bt.vhci", device or "rig failed")
            return
        report.line("PASS", "bt.vhci", f"Bumble's controller on /dev/vhci is {device}; the kernel's setup was over "
                                       f"and the device down for the user channel {setup:.1f} s after it appeared")
        try:
            self.scan(rig, device)
            self.run_readings(rig, device)
            rig = self.controller_lost(rig, device)
        finally:
            if rig is not None:
                rig.stop()

    def scan(self, rig: Child, device: str) -> None:
        started = time.monotonic()
        scan = subprocess.run([self.vigil, "scan", "--hci", device, "--json", "--seconds", "10",
                               "--state-dir", "/tmp/vigil-scan"], capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - started
        seen = []
        for line in scan.stdout.splitlines():
            try:
                seen.append(json.loads(line))
            except json.JSONDecodeError:
                pass
        ours = [s for s in seen if s.get("address") == RIG_ADDRESS]
        named = [s for s in ours if s.get("name") == RIG_NAME and "180D" in " ".join(s.get("services", [])).upper()]
        self.report.check(
            "bt.scan", scan.returncode == 0 and bool(named),
            f"vigil scan --hci {device} found {RIG_ADDRESS} \"{RIG_NAME}\" with 180D "
            f"({len(seen)} JSON lines, {elapsed:.1f} s, exit 0)",
            f"exit {scan.returncode}, {len(seen)} lines, ours {ours[:1]}; stderr: {scan.stderr[-800:]}")

    def config(self, path: str, device: str) -> str:
        with open(path, "w") as handle:
            handle.write(f'[bluetooth]\nhci = "{device}"\n\n[face]\nbackend = "none"\n\n'
                         f'[[device]]\ntype = "heart-rate"\nname = "{RIG_NAME}"\npair = false\n')
        return path

    def run_readings(self, rig: Child, device: str) -> None:
        config = self.config("/tmp/vigil-run.conf", device)
        seconds = 25
        since = time.monotonic()
        vigil = Child([self.vigil, "run", "--config", config, "--state-dir", "/tmp/vigil-run",
                       "--events-json", "--seconds", str(seconds)], "vigil-run")
        memory = ResidentMemory(vigil.process.pid)

        def sampled_until_exit() -> bool:
            # Measured only once readings flow: a peer connected, notifications decoded.
            if any(e.get("event") == "reading" for e in vigil.json_lines()):
                memory.sample()
            return not vigil.alive()

        if not wait_for(sampled_until_exit, seconds + 120, step=0.5):
            vigil.stop()
        vigil.drained()
        events = vigil.json_lines()
        code = vigil.process.returncode
        readings = [e for e in events if e.get("event") == "reading" and e.get("kind") == "heart-rate"]
        sent = [r for r in rig.json_lines(since) if r.get("sent") == "hrm"]
        connected = [e for e in events if e.get("event") == "connected"]
        problems = []
        if code != 0:
            problems.append(f"exit {code}")
        if not connected:
            problems.append("no connected event")
        if len(readings) < 5:
            problems.append(f"only {len(readings)} readings")
        # The rig logs a value once it left; the last may still be in flight at --seconds.
        if not 0 <= len(sent) - len(readings) <= 1:
            problems.append(f"rig sent {len(sent)}, vigil reported {len(readings)}")
        for index, (reading, expected) in enumerate(zip(readings, sent)):
            if reading.get("bpm") != expected.get("bpm") or reading.get("contact") != expected.get("contact") \
                    or reading.get("address") != RIG_ADDRESS:
                problems.append(f"reading {index} {reading} differs from sent {expected}")
                break
        self.report.check(
            "bt.run", not problems,
            f"vigil run over {device} connected and reported {len(readings)} heart-rate readings, one for one "
            f"with the {len(sent)} the rig sent (bpm and contact equal, in order)",
            "; ".join(problems) + f"; vigil stderr: {vigil.stderr_text()[-600:]}; rig: {rig.tail()}")
        self.resident_memory(memory, len(readings), vigil.stderr_text())

    def resident_memory(self, memory: "ResidentMemory", readings: int, log: str) -> None:
        if not memory.samples:
            self.report.line("FAIL", "bt.memory", "no sample of vigil run's memory while readings flowed")
            return
        mib = 1024 * 1024
        figures = (f"VmRSS {memory.max_rss / mib:.2f} MiB at most over {memory.samples} samples of /proc/PID/status "
                   f"(last {memory.last_rss / mib:.2f} MiB: RssAnon {memory.anon / mib:.2f}, RssFile "
                   f"{memory.file / mib:.2f}), VmHWM {memory.hwm / mib:.2f} MiB; goal under {RESIDENT_GOAL_MIB} MiB")
        if "/.build/debug/" in self.vigil:
            # Unoptimised and linked against the toolchain's shared libraries: not the appliance.
            self.report.line("SKIP", "bt.memory", f"{self.vigil} is a debug build, not held to the goal "
                                                  f"(--binary out/vigil measures the release one): {figures}")
            return
        # The figure rests on code kept in small pages; on a real kernel asking for that must work
        # (it failed with ENOMEM on arm64 while one madvise range spanned a gap between segments).
        refused = [line for line in log.splitlines() if "keeping code in small pages" in line]
        self.report.check(
            "bt.memory", memory.max_rss < RESIDENT_GOAL_MIB * mib and not refused,
            f"vigil run with the heart-rate rig connected ({readings} readings), code in small pages: {figures}",
            f"over the goal or code pages refused ({refused[:1]}), with the heart-rate rig connected "
            f"({readings} readings): {figures}")

    def controller_lost(self, rig: Child, device: str) -> Child | None:
        report = self.report
        config = self.config("/tmp/vigil-lost.conf", device)
        vigil = Child([self.vigil, "run", "--config", config, "--state-dir", "/tmp/vigil-lost",
                       "--events-json", "--seconds", "240"], "vigil")
        try:
            def readings(since: float = 0.0) -> list[dict]:
                return [e for e in vigil.json_lines(since) if e.get("event") == "reading"]

            if not wait_for(lambda: readings(), 180):
                report.line("FAIL", "bt.lost", f"no reading before killing the controller: {vigil.tail()}")
                return rig
            killed_at = time.monotonic()
            rig.stop(signal.SIGKILL)  # the controller dies: /dev/vhci closes, the kernel unregisters it
            gone = wait_for(lambda: device not in hci_devices(), 15)

            def lost_events() -> list[dict]:
                return [e for e in vigil.json_lines(killed_at)
                        if (e.get("event") == "alarm" and e.get("alarm") == LOST_ALARM and e.get("change") == "raised")
                        or (e.get("event") == "bluetooth" and e.get("state") == "unavailable")]

            wait_for(lambda: len({e.get("event") for e in lost_events()}) == 2, 20)
            lost = lost_events()
            time.sleep(2)  # still running a moment later: not crashed, not exited
            report.check(
                "bt.lost", gone is not None and len({e.get("event") for e in lost}) == 2 and vigil.alive(),
                f"SIGKILL of Bumble removed {device}; vigil reported bluetooth unavailable "
                f"({next((e.get('reason') for e in lost if e.get('event') == 'bluetooth'), '')!s:.80}) and raised "
                f"controller-lost, and kept running",
                f"device gone {gone is not None}, events {lost}, vigil alive {vigil.alive()}: {vigil.tail()}")
            if not vigil.alive():
                return None

            # Bring the controller back; Vigil reopens hciN with backoff (1, 2, 4 ... 30 s).
            back_at = time.monotonic()
            rig, new_device, _ = self.start_rig(hci_devices(), bring_down=False)
            if rig is None:
                report.line("FAIL", "bt.recover", f"the rig could not be restarted: {new_device}")
                return None
            if new_device != device:
                report.line("FAIL", "bt.recover", f"the controller came back as {new_device}, vigil holds to {device}")
                return rig

            def recovered() -> bool:
                cleared = any(e.get("event") == "alarm" and e.get("alarm") == LOST_ALARM
                              and e.get("change") == "cleared" for e in vigil.json_lines(back_at))
                return cleared and bool(readings(back_at))

            ok = wait_for(recovered, 120)
            report.check(
                "bt.recover", bool(ok),
                f"{device} came back; vigil reopened it, cleared controller-lost and had readings again "
                f"{time.monotonic() - back_at:.1f} s after the restart",
                f"no recovery within 120 s: {vigil.tail()}")
            return rig
        finally:
            code = vigil.stop(signal.SIGTERM, 20)
            report.check("bt.exit", code == 0, "vigil run exited 0 on SIGTERM after all that",
                         f"vigil run ended with {code}: {vigil.tail()}")


# ---------------------------------------------------------------------------------------------
# b. GPIO through gpio-sim
# ---------------------------------------------------------------------------------------------

class SimulatedChip:
    """A gpio-sim device made through configfs with one bank shaped like a board's chip."""

    root = "/sys/kernel/config/gpio-sim"

    def __init__(self, name: str, label: str, lines: int, names: dict[int, str]) -> None:
        self.directory = os.path.join(self.root, name)
        bank = os.path.join(self.directory, "bank0")
        os.makedirs(bank)
        self._write(os.path.join(bank, "num_lines"), str(lines))
        self._write(os.path.join(bank, "label"), label)
        for offset, line_name in names.items():
            os.mkdir(os.path.join(bank, f"line{offset}"))
            self._write(os.path.join(bank, f"line{offset}", "name"), line_name)
        self.set_live(True)

    def set_live(self, live: bool) -> None:
        """Registers the chip with the kernel, or removes it (even with lines requested: their
        holders' ioctls then fail with ENODEV); it comes back as a new gpiochip."""
        self._write(os.path.join(self.directory, "live"), "1" if live else "0")
        if live:
            self.device = self._read(os.path.join(self.directory, "dev_name"))
            self.chip = self._read(os.path.join(self.directory, "bank0", "chip_name"))
            self.sysfs = f"/sys/devices/platform/{self.device}/{self.chip}"

    @staticmethod
    def _write(path: str, value: str) -> None:
        with open(path, "w") as handle:
            handle.write(value)

    @staticmethod
    def _read(path: str) -> str:
        with open(path) as handle:
            return handle.read().strip()

    def value(self, offset: int) -> int:
        return int(self._read(f"{self.sysfs}/sim_gpio{offset}/value"))

    def hog(self, offset: int, held: bool) -> None:
        """Has the kernel hold line `offset` as an input (gpio-sim's hog: requests of it then
        fail with EBUSY, as when another program or a HAT's driver has the line), or lets it
        go. Hogs are set while the chip is down: it comes back as a new gpiochip."""
        hog = os.path.join(self.directory, "bank0", f"line{offset}", "hog")
        self.set_live(False)
        if held:
            os.mkdir(hog)
            self._write(os.path.join(hog, "name"), "kernel-test-holder")
            self._write(os.path.join(hog, "direction"), "input")
        else:
            os.rmdir(hog)
        self.set_live(True)

    def pull(self, offset: int, up: bool) -> None:
        self._write(f"{self.sysfs}/sim_gpio{offset}/pull", "pull-up" if up else "pull-down")


class LineSampler:
    """Reads output lines' levels from gpio-sim's sysfs as fast as it can, counting rises."""

    def __init__(self, chip: SimulatedChip, offsets: list[int]) -> None:
        self.chip = chip
        self.offsets = offsets
        self.rises = {o: 0 for o in offsets}
        self.highs = {o: 0 for o in offsets}
        self.samples = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        files = {o: os.open(f"{self.chip.sysfs}/sim_gpio{o}/value", os.O_RDONLY) for o in self.offsets}
        last = {o: 0 for o in self.offsets}
        try:
            while not self.stopping.is_set():
                for o, fd in files.items():
                    level = int(os.pread(fd, 8, 0).strip() or b"0")
                    if level and not last[o]:
                        self.rises[o] += 1
                    self.highs[o] += level
                    last[o] = level
                self.samples += 1
        finally:
            for fd in files.values():
                os.close(fd)

    def __enter__(self) -> "LineSampler":
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        self.thread.join()


class LineTrace:
    """Every value written to some lines, from the kernel's gpio:gpio_value tracepoint
    (include/trace/events/gpio.h: "<global number> set|get <value>")."""

    tracing = "/sys/kernel/tracing"

    def __init__(self, chip: SimulatedChip, offsets: list[int]) -> None:
        # The chip's global base, from the legacy sysfs class (CONFIG_GPIO_SYSFS in Debian).
        base = None
        for entry in os.listdir("/sys/class/gpio"):
            if entry.startswith("gpiochip") and os.path.exists(f"/sys/class/gpio/{entry}/device") \
                    and os.path.realpath(f"/sys/class/gpio/{entry}/device").endswith("/" + chip.device):
                base = int(SimulatedChip._read(f"/sys/class/gpio/{entry}/base"))
        if base is None:
            raise OSError(f"no /sys/class/gpio/gpiochip* for {chip.device}")
        self.numbers = {base + o: o for o in offsets}
        self.offsets = offsets
        self.text = ""

    def __enter__(self) -> "LineTrace":
        SimulatedChip._write(f"{self.tracing}/trace", "")
        SimulatedChip._write(f"{self.tracing}/events/gpio/gpio_value/enable", "1")
        return self

    def __exit__(self, *_: object) -> None:
        SimulatedChip._write(f"{self.tracing}/events/gpio/gpio_value/enable", "0")
        with open(f"{self.tracing}/trace") as handle:
            self.text = handle.read()

    def pulses(self) -> dict[int, int]:
        """Rising edges written to each offset (a write of 1 after a 0, from an initial 0)."""
        last = {o: 0 for o in self.offsets}
        rises = {o: 0 for o in self.offsets}
        for number, value in re.findall(r"gpio_value: (\d+) set (\d+)", self.text):
            offset = self.numbers.get(int(number))
            if offset is None:
                continue
            if int(value) and not last[offset]:
                rises[offset] += 1
            last[offset] = int(value)
        return rises


class GPIO:
    def __init__(self, args: argparse.Namespace, report: Report) -> None:
        self.args = args
        self.report = report
        self.vigil = args.vigil

    def run(self) -> None:
        report = self.report
        board_file = os.path.join(self.args.repo, "board", f"{self.args.board}.toml")
        with open(board_file, "rb") as handle:
            board = tomllib.load(handle)
        self.buzzer, self.led, self.button = board["buzzer"]["line"], board["led"]["line"], board["button"]["line"]
        # The BCM283x header chip has 54 lines, named GPIO0..GPIO53 by the Pi's device tree.
        lines = 54
        waiting = self.face_missing()
        try:
            chip = SimulatedChip("vigil", board["chip-label"], lines, {o: f"GPIO{o}" for o in range(lines)})
        except OSError as error:
            report.line("FAIL", "gpio.sim", f"cannot create a gpio-sim chip through configfs: {error}")
            if waiting:
                waiting.stop()
            return
        made = time.monotonic()
        present = os.path.exists(f"/dev/{chip.chip}") and os.path.isdir(chip.sysfs)
        if not report.check("gpio.sim", present,
                            f"gpio-sim {chip.device}: /dev/{chip.chip} labelled \"{board['chip-label']}\" "
                            f"({lines} lines) as board {self.args.board}",
                            f"/dev/{chip.chip} or {chip.sysfs} missing"):
            return
        if waiting:
            self.face_arrives(waiting, made)
            self.face_vanishes(chip, waiting)
        self.platform_tests()
        self.alarm_test(chip)
        self.button_press(chip)
        self.face_partial(chip)

    def platform_tests(self) -> None:
        # The tests of Tests/PlatformTests/GPIO that need a chip, and the one ToneGenerator test
        # on a real line. The other ToneGenerator tests time a software tone thread against the
        # wall clock: they touch no kernel interface, pass on the host, and fail under TCG's
        # emulated CPU (a 2.7 kHz tone on a CPU tens of times slower), so they are not run here.
        if self.args.arch != "x86_64":
            self.report.line("SKIP", "gpio.platform-tests", f"no test bundle for {self.args.arch}: the arm64 SDK's "
                                                           "Swift runtime (Debian's static one) has neither Testing nor "
                                                           "XCTest, so the platform tests cannot be cross-built")
            return
        binary = os.path.join(self.args.repo, ".build/debug/vigilPackageTests.xctest")
        started = time.monotonic()
        run = subprocess.run([binary, "--testing-library", "swift-testing", "--filter", "GPIO|drivesARealLineAndLeavesItLow"],
                             capture_output=True, text=True, timeout=600)
        output = run.stdout + run.stderr
        with open(os.path.join(os.path.dirname(self.args.results), "gpio-platform-tests.log"), "w") as handle:
            handle.write(output)
        # Swift Testing's console lines: "✔ Test x() passed after ...", "✘ Test x() recorded an
        # issue ..." / "✘ Test x() failed after ...", "➜ Test x() skipped: "reason"".
        passed = len(re.findall(r"^✔ Test \S.* passed after", output, re.M))
        failed = re.findall(r"^✘ Test (\S.*?) (?:failed|recorded an issue)", output, re.M)
        skipped = re.findall(r'^\S+ (?:Test|Suite) (\S.*?) skipped(?:: "(.*)")?$', output, re.M)
        # Only the test that needs a machine *without* chips may skip here.
        wrong_skips = [s for s in skipped if "this machine has GPIO chips" not in (s[1] or "")]
        summary = next((l for l in output.splitlines() if "Test run with" in l), "no summary line")
        self.report.check(
            "gpio.platform-tests", run.returncode == 0 and passed > 0 and not failed and not wrong_skips,
            f"{passed} GPIO platform tests passed on the gpio-sim chip, {len(skipped)} skipped as designed "
            f"({time.monotonic() - started:.0f} s): {summary.strip()}",
            f"exit {run.returncode}, {passed} passed, failed {failed[:5]}, unexpected skips {wrong_skips[:5]}; "
            f"{summary.strip()} (log: results/gpio-platform-tests.log)")

    def face_config(self, path: str, hci: str) -> str:
        with open(path, "w") as handle:
            handle.write(f'[bluetooth]\nhci = "{hci}"\n\n[face]\nboard = "{self.args.board}"\nbuzzer = "active"\n')
        return path

    @staticmethod
    def face_fault(vigil: Child, change: str, since: float = 0.0) -> bool:
        return any(e.get("event") == "alarm" and e.get("alarm") == "fault:face-failing" and e.get("change") == change
                   for e in vigil.json_lines(since))

    def face_missing(self) -> Child | None:
        # vigil run started before the board's chip exists (udev late at boot, a HAT driver not
        # loaded yet): it must run, raise the face fault and keep trying the chip. No
        # controller (nothing on port 1): that fault sounds too, and does not hide this one.
        config = self.face_config("/tmp/vigil-late.conf", "tcp:127.0.0.1:1")
        vigil = Child([self.vigil, "run", "--config", config, "--state-dir", "/tmp/vigil-late", "--events-json",
                       "--log-level", "info", "--seconds", "300"], "vigil-late")
        raised = wait_for(lambda: self.face_fault(vigil, "raised") or not vigil.alive(), 60)
        ok = bool(raised) and vigil.alive() and "cannot open the GPIO face" in vigil.stderr_text()
        if not self.report.check("gpio.face-missing", ok,
                                 "vigil run with the GPIO face and no chip yet: running, fault:face-failing raised, "
                                 "the reason logged",
                                 f"no face fault from a running vigil: {vigil.tail()}"):
            vigil.stop()
            return None
        return vigil

    def face_arrives(self, vigil: Child, made: float) -> None:
        # The chip appears: within the retry interval (60 s) vigil takes the lines and clears
        # the fault, without a restart.
        cleared = wait_for(lambda: self.face_fault(vigil, "cleared") or not vigil.alive(), 90)
        opened = [l for l in vigil.stderr_text().splitlines() if "face: gpio" in l and l.endswith(" opened")]
        ok = bool(cleared) and vigil.alive() and len(opened) == 1
        self.report.check(
            "gpio.face-late", ok,
            f"the chip made {time.monotonic() - made:.0f} s before: vigil opened it and cleared the fault "
            f"({opened[0][-90:] if opened else ''})",
            f"cleared={bool(cleared)} alive={vigil.alive()} opened={opened}; {vigil.tail()}")

    def face_vanishes(self, chip: SimulatedChip, vigil: Child) -> None:
        # The chip goes away under the running vigil, lines held (the LED is blinking the
        # no-controller fault, so writes go on): the face fault is raised. It comes back as a
        # new gpiochip: vigil closes the old lines and opens the new ones within the retry.
        gone = time.monotonic()
        chip.set_live(False)
        raised = wait_for(lambda: self.face_fault(vigil, "raised", gone) or not vigil.alive(), 30)
        raised_after = time.monotonic() - gone
        chip.set_live(True)
        back = time.monotonic()
        cleared = wait_for(lambda: self.face_fault(vigil, "cleared", back) or not vigil.alive(), 100)
        log = vigil.stderr_text().splitlines()
        again = [l for l in log if "face: opening gpio" in l and l.endswith(" again")]
        opened = [l for l in log if "face: gpio" in l and l.endswith(" opened")]
        ok = self.face_fault(vigil, "raised", gone) and self.face_fault(vigil, "cleared", back) and vigil.alive() \
            and len(again) >= 1 and len(opened) >= 2
        self.report.check(
            "gpio.face-vanished", ok,
            f"the chip removed under vigil: fault:face-failing raised {raised_after:.1f} s later; back as "
            f"/dev/{chip.chip}: lines opened again and the fault cleared {time.monotonic() - back:.0f} s later "
            f"({again[-1][-60:] if again else ''})",
            f"raised={bool(raised)} cleared={bool(cleared)} alive={vigil.alive()} again={again} opened={opened}; "
            f"{vigil.tail()}")
        # Its lines must be free for the checks that follow.
        vigil.stop(signal.SIGTERM, 20)

    def face_partial(self, chip: SimulatedChip) -> None:
        # The button's line is held by another (a hog): vigil run must still take the buzzer
        # and LED and show its faults on them (no controller: the no-controller fault blinks
        # the LED), and raise the face fault for the button. It used to give the whole face up.
        chip.hog(self.button, True)
        try:
            config = self.face_config("/tmp/vigil-partial.conf", "tcp:127.0.0.1:1")
            trace = LineTrace(chip, [self.buzzer, self.led])
            with trace:
                vigil = Child([self.vigil, "run", "--config", config, "--state-dir", "/tmp/vigil-partial", "--events-json",
                               "--log-level", "info", "--seconds", "120"], "vigil-partial")
                try:
                    raised = wait_for(lambda: self.face_fault(vigil, "raised") or not vigil.alive(), 60)
                    time.sleep(5)
                    alive = vigil.alive()
                finally:
                    vigil.stop(signal.SIGTERM, 20)
            pulses = trace.pulses()
            log = vigil.stderr_text()
            said = [l for l in log.splitlines() if "face button:" in l]
            ok = bool(raised) and alive and pulses[self.led] >= 1 and bool(said) and "cannot open the GPIO face" not in log
            self.report.check(
                "gpio.face-partial", ok,
                f"GPIO{self.button} held by a hog: vigil run drove the LED through {pulses[self.led]} blinks "
                f"(kernel gpio_value trace) and raised fault:face-failing for the button ({said[0][-80:] if said else ''})",
                f"raised={bool(raised)} alive={alive} traced pulses {pulses} said={said}; {vigil.tail()}")
        finally:
            chip.hog(self.button, False)

    def alarm_test(self, chip: SimulatedChip) -> None:
        config = self.face_config("/tmp/vigil-alarm.conf", "hci0")
        # Two witnesses: the kernel's gpio_value tracepoint records every line write (exact
        # counts), and gpio-sim's sysfs is sampled for the levels themselves. The sampler is a
        # Python thread on an emulated, shared CPU: it can miss a 150 ms pulse, so its count is
        # only required to be non-zero.
        trace = LineTrace(chip, [self.buzzer, self.led])
        with trace, LineSampler(chip, [self.buzzer, self.led]) as sampler:
            run = subprocess.run([self.vigil, "alarm", "test", "high", "--config", config],
                                 capture_output=True, text=True, timeout=120)
        after = {o: chip.value(o) for o in (self.buzzer, self.led)}
        pulses = trace.pulses()
        # High priority is one burst of ten pulses (BuzzerRhythm, IEC 60601-1-8 table 4).
        ok = run.returncode == 0 and pulses[self.buzzer] == 10 and pulses[self.led] >= 1 \
            and sampler.rises[self.buzzer] >= 1 and sampler.rises[self.led] >= 1 \
            and after == {self.buzzer: 0, self.led: 0}
        self.report.check(
            "gpio.alarm-test", ok,
            f"vigil alarm test high found the chip by label and drove GPIO{self.buzzer} (buzzer) through "
            f"{pulses[self.buzzer]} pulses and GPIO{self.led} (LED) through {pulses[self.led]} (kernel gpio_value "
            f"trace); sysfs read back {sampler.rises[self.buzzer]} and {sampler.rises[self.led]} of them in "
            f"{sampler.samples} samples; both low after exit",
            f"exit {run.returncode}, traced pulses {pulses}, sysfs rises {sampler.rises}, after {after}; "
            f"{run.stdout[-300:]} {run.stderr[-500:]}")

    def button_press(self, chip: SimulatedChip) -> None:
        # A controller is needed, or vigil run sounds the no-controller fault and a press would
        # silence that instead: the TCP heart-rate rig is one, independent of part a.
        rig = Child([self.args.python, os.path.join(self.args.repo, "Tests/Rigs/heart_rate_monitor.py"),
                     "--port", "0"], "tcp-rig")
        port = None
        try:
            ready = wait_for(lambda: next((l for _, l in list(rig.lines) if l.startswith("READY ")), None)
                             or not rig.alive(), 300)
            if not isinstance(ready, str):
                self.report.line("FAIL", "gpio.button", f"the TCP rig did not start: {rig.tail()}")
                return
            port = ready.split()[1]
            config = self.face_config("/tmp/vigil-button.conf", f"tcp:127.0.0.1:{port}")
            vigil = Child([self.vigil, "run", "--config", config, "--state-dir", "/tmp/vigil-button",
                           "--log-level", "debug", "--seconds", "120"], "vigil")
            try:
                self._press(chip, vigil)
            finally:
                vigil.stop(signal.SIGTERM, 20)
        finally:
            rig.stop()

    def _press(self, chip: SimulatedChip, vigil: Child) -> None:
        # The controller up and the start-up chirp over (60 ms beep, 300 ms blink) before pressing.
        if not wait_for(lambda: "controller ready" in vigil.stderr_text().lower()
                        or "opened tcp" in vigil.stderr_text(), 60):
            self.report.line("FAIL", "gpio.button", f"vigil run never opened the controller: {vigil.tail()}")
            return
        time.sleep(3)
        if chip.value(self.button) != 1:
            self.report.line("FAIL", "gpio.button", "the button line does not read high (the pull-up vigil asked for)")
            return
        chip.pull(self.button, up=False)  # pressed: the contact pulls the line to ground
        time.sleep(0.4)
        chip.pull(self.button, up=True)   # released

        def lines() -> list[str]:
            return [l for l in vigil.stderr_text().splitlines() if "button" in l]

        ok = wait_for(lambda: any("short press" in l for l in lines()), 10)
        seen = lines()
        pressed = [l for l in seen if re.search(r"button pressed at", l)]
        released = [l for l in seen if re.search(r"button released at", l)]
        self.report.check(
            "gpio.button", bool(ok) and len(pressed) == 1 and len(released) == 1,
            f"pulling GPIO{self.button} low for 0.4 s gave vigil run one pressed and one released edge and a short "
            f"press: {' / '.join(l[-70:] for l in seen[-3:])}",
            f"button log lines: {seen[-6:]}; {vigil.tail()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--python", required=True, help="the venv's python (Bumble) for the rigs")
    parser.add_argument("--only", choices=["bluetooth", "gpio"])
    parser.add_argument("--vigil", required=True, help="the vigil executable under test")
    parser.add_argument("--arch", default="x86_64", choices=["x86_64", "arm64"])
    parser.add_argument("--board", default="pi-zero-2w", help="board profile whose chip gpio-sim imitates")
    args = parser.parse_args()
    report = Report(args.results)
    for part, runner in (("bluetooth", Bluetooth), ("gpio", GPIO)):
        if args.only and args.only != part:
            report.line("SKIP", part, "--only " + args.only)
            continue
        started = time.monotonic()
        try:
            runner(args, report).run()
        except Exception as error:  # a broken check is a FAIL with its reason, never a hang
            report.line("FAIL", part, f"check crashed: {error!r}")
        report.info(f"{part} checks took {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
