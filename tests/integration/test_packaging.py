"""Packaging: the sdist and the wheel as `python -m build` makes them from the repository's files, the
wheel installed into a fresh venv and run as a person would, and the one-file PyInstaller binary
from packaging/acp-tray.spec.

Slow (a build, a venv with acp-tray's dependencies from PyPI, a PyInstaller run): each happens once,
in a module-scoped fixture, in a temporary directory; nothing is written into the checkout. The
fixtures print how long each step took (`pytest -s` or `-rP` shows it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

from acp_tray import __version__
from acp_tray.demo.agent import DEMO_NOTICES
from tests.support.repo import ROOT

pytestmark = pytest.mark.timeout(900)

SPEC = Path("packaging") / "acp-tray.spec"
PNG = b"\x89PNG\r\n\x1a\n"
ASSETS = ROOT / "src" / "acp_tray" / "assets"
ICON_SIZES = sorted(int(p.stem.rsplit("-", 1)[1]) for p in ASSETS.glob("acp-tray-[0-9]*.png"))
SEVERITY_ICONS = sorted(p.name for p in ASSETS.glob("acp-tray-[a-z]*-*.png"))  # notifications, by severity
DEMO_TITLES = [notice["title"] for notice in DEMO_NOTICES]
# the window's vendored JavaScript and its licences (src/acp_tray/window/static/vendor), as package paths
VENDORED = sorted(
    path.relative_to(ROOT / "src").as_posix()
    for path in (ROOT / "src" / "acp_tray" / "window" / "static" / "vendor").iterdir()
)
# the child's environment must not point back at this checkout or this test's interpreter
LEAKY = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "__PYVENV_LAUNCHER__")
# nor at a desktop: the headless runs need none, and must not show anything on one
DESKTOP = ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS")


def _timed(label: str, timings: dict[str, float], argv: list[str | Path], cwd: Path | None = None) -> str:
    """Run a build step to its end; its output in the assertion message when it fails."""
    start = time.monotonic()
    result = subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        env=_clean_env(),
        cwd=cwd,
    )
    timings[label] = time.monotonic() - start
    print(f"packaging: {label} took {timings[label]:.1f} s")
    assert result.returncode == 0, f"{label} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _clean_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in LEAKY + DESKTOP}
    env.update(extra, PYTHONUNBUFFERED="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


@dataclass
class Dists:
    repo: Path  # a copy of the repository's tracked files
    sdist: Path
    wheel: Path
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class Venv:
    path: Path
    timings: dict[str, float]

    def bin(self, name: str) -> Path:
        return self.path / "bin" / name


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """`python -m build` (sdist, then the wheel from it) on a copy of the files git tracks."""
    base = tmp_path_factory.mktemp("packaging")
    repo = base / "repo"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # tracked but deleted in the working tree: not shipped
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name, follow_symlinks=False)
    out = base / "dist"
    timings: dict[str, float] = {}
    _timed("python -m build (sdist + wheel)", timings, [sys.executable, "-m", "build", "--outdir", out, repo])
    [sdist] = out.glob("*.tar.gz")
    [wheel] = out.glob("*.whl")
    return Dists(repo, sdist, wheel, timings)


@pytest.fixture(scope="module")
def venv(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A fresh venv (no system site packages) with the wheel installed; its dependencies from PyPI."""
    path = tmp_path_factory.mktemp("venv")
    timings = dists.timings
    _timed("python -m venv", timings, [sys.executable, "-m", "venv", path])
    _timed("pip install the wheel", timings, [path / "bin" / "python", "-m", "pip", "install", dists.wheel])
    return Venv(path, timings)


@pytest.fixture(scope="module")
def binary(venv: Venv, dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one-file binary: PyInstaller in the wheel's venv (acp-tray's dependencies are there)."""
    work = tmp_path_factory.mktemp("pyinstaller")
    timings = venv.timings
    _timed("pip install pyinstaller", timings, [venv.bin("python"), "-m", "pip", "install", "pyinstaller>=6.10,<7"])
    _timed(
        "pyinstaller packaging/acp-tray.spec",
        timings,
        [
            venv.bin("python"),
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--distpath",
            work / "dist",
            "--workpath",
            work / "build",
            dists.repo / SPEC,
        ],
        cwd=work,
    )
    executable = work / "dist" / "acp-tray"
    print(f"packaging: the binary is {executable.stat().st_size / 2**20:.1f} MiB")
    return executable


# a daemon as a person runs it ---------------------------------------------------------------------


class Running:
    """`acp-tray run --headless` in its own process group, its output read line by line."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,  # its agents too: one group to kill
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._pumps = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self.out), daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True),
        ]
        for pump in self._pumps:
            pump.start()

    @staticmethod
    def _pump(stream: IO[str], lines: list[str]) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    def wait_for(self, needles: list[str], timeout: float) -> None:
        """Every needle in some stdout line; gives up early when the agent failed or the daemon ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = list(self.out)
            if all(any(needle in line for line in seen) for needle in needles):
                return
            if any("  FAILED  " in line for line in seen) or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"not all of {needles!r} on stdout:\n{self.transcript()}")

    def transcript(self) -> str:
        return "stdout:\n" + "\n".join(self.out) + "\nstderr:\n" + "\n".join(self.err)

    def exited(self, timeout: float) -> int:
        """Its exit status, once it ended by itself; all its output read."""
        status = self.proc.wait(timeout)
        for pump in self._pumps:
            pump.join(5)
        return status

    def kill(self) -> None:
        """The daemon and whatever is left of its group (agents), however the test ended."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def _demo_env(base: Path) -> dict[str, str]:
    """Its own XDG dirs, and TMPDIR (where the one-file binary unpacks itself); short names: the
    control socket's path must fit a Unix socket address."""
    short = {"XDG_CONFIG_HOME": "c", "XDG_STATE_HOME": "s", "XDG_CACHE_HOME": "k", "XDG_DATA_HOME": "d"}
    dirs = {}
    for name, directory in {**short, "XDG_RUNTIME_DIR": "r", "TMPDIR": "t"}.items():
        path = base / directory
        path.mkdir(mode=0o700)
        dirs[name] = str(path)
    return _clean_env(ACP_TRAY_DEMO_INTERVAL="0.05", **dirs)


def _demo_run(command: list[str], base: Path) -> None:
    """Built-in defaults: the demo agent's 4 notices; `status` sees it connected; `quit` stops it."""
    env = _demo_env(base)
    daemon = Running([*command, "run", "--headless"], env, base)
    try:
        daemon.wait_for(DEMO_TITLES, timeout=90)

        def cli(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*command, *args], capture_output=True, text=True, env=env, cwd=base, timeout=60)

        status = cli("status")
        assert status.returncode == 0, status.stderr
        assert "1 connected" in status.stdout, status.stdout
        quit_ = cli("quit")
        assert quit_.returncode == 0, quit_.stdout + quit_.stderr
        assert daemon.exited(30) == 0, daemon.transcript()
        assert not any("Traceback" in line for line in daemon.err), daemon.transcript()
    finally:
        daemon.kill()


# the sdist and the wheel --------------------------------------------------------------------------


def test_sdist_has_readme_and_package_assets(dists: Dists) -> None:
    with tarfile.open(dists.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert "README.md" in names and "pyproject.toml" in names
    for size in ICON_SIZES:
        assert f"src/acp_tray/assets/acp-tray-{size}.png" in names
    assert {f"src/{name}" for name in VENDORED} <= names


def test_sdist_has_packaging_dir(dists: Dists) -> None:
    with tarfile.open(dists.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {str(SPEC), "packaging/acp-tray.desktop", "packaging/make_icons.py"} <= names
    for size in ICON_SIZES:
        assert f"packaging/icons/hicolor/{size}x{size}/apps/acp-tray.png" in names


def test_wheel_has_assets_py_typed_and_entry_points(dists: Dists) -> None:
    assert ICON_SIZES == [16, 22, 24, 32, 48, 64, 128, 256]
    with zipfile.ZipFile(dists.wheel) as wheel:
        names = set(wheel.namelist())
        for size in ICON_SIZES:
            name = f"acp_tray/assets/acp-tray-{size}.png"
            assert name in names
            assert wheel.read(name).startswith(PNG)
        assert len(SEVERITY_ICONS) == 12 and all(f"acp_tray/assets/{name}" in names for name in SEVERITY_ICONS)
        assert "acp_tray/py.typed" in names
        assert "acp_tray/window/static/vendor/htmx.min.js" in VENDORED
        for name in VENDORED:  # the window's pages load them from the installed package
            assert name in names and wheel.read(name) == (ROOT / "src" / name).read_bytes(), name
        [entry_points] = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
        text = wheel.read(entry_points).decode()
    sections: dict[str, dict[str, str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
            sections[section] = {}
        elif "=" in line:
            key, value = line.split("=", 1)
            sections[section][key.strip()] = value.strip()
    assert sections["console_scripts"] == {"acp-tray": "acp_tray.cli:main"}
    assert sections["gui_scripts"] == {"acp-tray-gui": "acp_tray.cli:main"}


# the wheel, installed -----------------------------------------------------------------------------


def test_installed_wheel_prints_its_version(venv: Venv) -> None:
    for script in ("acp-tray", "acp-tray-gui"):
        result = subprocess.run([venv.bin(script), "--version"], capture_output=True, text=True, env=_clean_env())
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"acp-tray {__version__}"


def test_installed_wheel_finds_its_icons(venv: Venv, tmp_path: Path) -> None:
    code = (
        "from acp_tray.assets import icon_path\n"
        f"for size in {ICON_SIZES!r}:\n"
        "    path = icon_path(size)\n"
        "    print(path, path.is_file() and path.read_bytes()[:8] == b'\\x89PNG\\r\\n\\x1a\\n')\n"
    )
    result = subprocess.run(
        [venv.bin("python"), "-c", code], capture_output=True, text=True, env=_clean_env(), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(ICON_SIZES)
    for line in lines:
        path, found = line.rsplit(" ", 1)
        assert Path(path).is_relative_to(venv.path), f"{path}: not the installed package"
        assert found == "True", f"{path}: missing or not a PNG"


def test_installed_wheel_runs_the_headless_demo(venv: Venv, tmp_path: Path) -> None:
    _demo_run([str(venv.bin("acp-tray"))], tmp_path)


# the PyInstaller binary ---------------------------------------------------------------------------


def test_binary_prints_its_version(binary: Path) -> None:
    result = subprocess.run([binary, "--version"], capture_output=True, text=True, env=_clean_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"acp-tray {__version__}"


def test_binary_bundles_icons_and_lazily_imported_modules(binary: Path, venv: Venv) -> None:
    """What the import scan alone would miss; acp_tray.assets finds the icons under sys._MEIPASS."""
    listing = _archive_listing(venv, binary)
    for size in ICON_SIZES:
        assert f"acp_tray/assets/acp-tray-{size}.png" in listing
    assert set(VENDORED) <= listing  # the window's pages, served by `acp-tray ui`
    for module in (
        "acp_tray.cli.run",
        "acp_tray.cli.status",
        "acp_tray.control.client",
        "acp_tray.demo.agent",
        "acp_tray.demo.ws",
        "acp.ws",
        "acp.stdio",
        "websockets.asyncio.server",
        "dbus_fast.aio",
        "pystray._xorg",
        "plyer.platforms.linux.notification",
        "tzlocal",
        "asyncinotify",  # the preferences watcher on Linux
    ):
        assert module in listing, module
    assert not any(name == "gi" or name.startswith("gi.") for name in listing), "PyGObject is left out"


def _archive_listing(venv: Venv, binary: Path) -> set[str]:
    result = subprocess.run(
        [venv.bin("pyi-archive_viewer"), "--recursive", "--brief", binary],
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return {line.strip() for line in result.stdout.splitlines()}


def test_binary_runs_the_headless_demo(binary: Path, tmp_path: Path) -> None:
    _demo_run([str(binary)], tmp_path)
    leftovers = list((tmp_path / "t").glob("_MEI*"))
    assert not leftovers, f"the one-file binary left its unpacked files behind: {leftovers}"
