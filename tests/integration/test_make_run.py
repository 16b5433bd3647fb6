"""`make run` as a newcomer meets it: it says what it is doing while it installs, and it notices
PyGObject's build dependencies installed after the first run (dry runs of the real Makefile)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.support.daemons import DaemonProcess, cli_env
from tests.support.repo import ROOT


def make_n(venv: Path, **env: str) -> str:
    result = subprocess.run(
        ["make", "-n", "run", f"VENV={venv}"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_first_run_says_what_it_installs(tmp_path: Path) -> None:
    plan = make_n(tmp_path / "venv")
    assert "make: creating" in plan and "make: installing acp-tray and its dependencies" in plan
    assert "building PyGObject for the tray menu" in plan


def test_the_long_steps_say_how_far_they_are(tmp_path: Path) -> None:
    """Installing the dependencies and building PyGObject (a minute or more on 2 busy cores) say
    every few seconds how long they have taken, and end with the step's exit status."""
    plan = make_n(tmp_path / "venv")
    assert 'scripts/progress.py "installing acp-tray\'s dependencies" -- ' in plan
    assert 'scripts/progress.py "building PyGObject" -- ' in plan
    progress = [sys.executable, str(ROOT / "scripts" / "progress.py"), "building PyGObject", "--", sys.executable, "-c"]
    env = {**os.environ, "PROGRESS_EVERY": "0.2"}
    slow = subprocess.run([*progress, "import time; time.sleep(3)"], env=env, capture_output=True, text=True)
    assert slow.returncode == 0 and "make: still building PyGObject (" in slow.stdout
    assert re.search(r"^make: done building PyGObject in \d+ s$", slow.stdout, re.MULTILINE)
    failed = subprocess.run([*progress, "import sys; sys.exit(3)"], env=env, capture_output=True, text=True)
    assert failed.returncode == 3 and "done" not in failed.stdout


def test_build_dependencies_installed_later_are_noticed(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to("/usr/bin/python3")
    no_deps = {"PKG_CONFIG_LIBDIR": str(tmp_path / "nothing")}  # pkg-config finds no GTK: the first run
    assert "note: the tray will have no menu without PyGObject: sudo apt-get install" in make_n(venv, **no_deps)
    assert "gir1.2-gtk-3.0 gir1.2-ayatanaappindicator3-0.1" in make_n(venv, **no_deps)
    (venv / ".gtk-build-deps-no").touch()  # what that first run left
    time.sleep(0.01)
    (venv / ".installed").touch()
    assert "pip install" not in make_n(venv, **no_deps)  # nothing changed: nothing to install
    assert "pip install --quiet -e '.[gtk]'" in make_n(venv)  # the build dependencies are there now


def _shape(line: str) -> str:
    """A start-up line without what differs between machines and runs: times, paths, the pid."""
    line = re.sub(r"\d\d:\d\d:\d\d", "TIME", line)
    line = re.sub(r"(?<![\w.])[~/][^\s·]*", "PATH", line)
    return line.rstrip()


def test_the_readme_start_up_sample_is_what_run_prints(tmp_path: Path) -> None:
    """The README's sample output of `make run` without a desktop, line for line (times and paths aside)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("`make run` with no preferences file starts the bundled demo agent", 1)[1]
    sample = block.split("```\n", 2)[1].splitlines()
    env = {k: v for k, v in cli_env(ACP_TRAY_DEMO_INTERVAL="0.05").items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    daemon = DaemonProcess("run", env=env)
    try:
        daemon.wait_for_line("_demo.tip")
        assert daemon.stop() == 0
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
    assert [_shape(line) for line in daemon.seen] == [_shape(line) for line in sample]
