"""Sign-in to a real agent: from start to a connected session, codex-acp with `openai-api-key`.

    python benchmarks/signin_codex.py [--quick] [--runs 5]

Needs the pinned real agents (`bash .ci/real-agents`) and GNOME Keyring (`.ci/system-deps`).
Each run gets a fresh, empty CODEX_HOME (so codex-acp needs a sign-in every time) and fake key
(there is no network: only the sign-in is measured, not a prompt). Interleaved, per run:
- peer: a stdlib JSON-RPC client driving codex-acp directly: spawn, `initialize`, `session/new`
  (refused: -32000), `authenticate` with `openai-api-key`, `session/new` (the key in its env);
- acp-tray as a person uses it: the key in the keyring (`acp-tray agents secret`, not timed),
  `acp-tray run --headless` started (fresh XDG dirs), its "needs sign-in" line awaited, then
  `acp-tray login codex openai-api-key` run to its end ("connected"). Both whole processes.
Reports medians: start to needs-sign-in, the login command, start to connected, and the ratio
of acp-tray's start-to-connected to the peer's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.desktop.keyring import secret_service  # noqa: E402
from tests.real_agents import npm_bin  # noqa: E402
from tests.support.daemons import DaemonProcess  # noqa: E402

KEY = "sk-fake-benchmark-0000000000000000"


def peer(codex: list[str], home: Path) -> float:
    """Seconds from spawn to a session, signed in, driving codex-acp directly."""
    env = {**os.environ, "CODEX_HOME": str(home), "OPENAI_API_KEY": KEY}
    started = time.perf_counter()
    process = subprocess.Popen(
        codex, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=home,
        start_new_session=True,  # its launcher starts the real binary: the whole group goes at the end
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None

    def call(n: int, method: str, params: dict[str, object]) -> dict[str, object]:
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        while True:
            message: dict[str, object] = json.loads(process.stdout.readline())  # type: ignore[union-attr]
            if message.get("id") == n:
                return message

    try:
        call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": True}}})
        refused = call(1, "session/new", {"cwd": str(home), "mcpServers": []})
        assert refused.get("error", {}).get("code") == -32000, refused  # type: ignore[union-attr]
        call(2, "authenticate", {"methodId": "openai-api-key"})
        session = call(3, "session/new", {"cwd": str(home), "mcpServers": []})
        assert "result" in session, session
        return time.perf_counter() - started
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def through_acp_tray(codex: list[str], base: Path) -> tuple[float, float, float]:
    """(start to needs sign-in, the login command, start to connected), in seconds."""
    env = dict(os.environ)
    base.mkdir()
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        (base / name.lower()).mkdir(mode=0o700)
        env[name] = str(base / name.lower())
    (base / "codex-home").mkdir()
    config = base / "xdg_config_home" / "acp-tray" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        f"[agents.codex]\ncommand = {json.dumps(codex)}\ncwd = {json.dumps(str(base))}\nprotocol = 1\n"
        f"env = {{ CODEX_HOME = {json.dumps(str(base / 'codex-home'))} }}\n",
        encoding="utf-8",
    )
    with secret_service(base / "keyring") as keyring:
        env.update(keyring, PYTHONUNBUFFERED="1")
        cli = [sys.executable, "-m", "acp_tray"]
        subprocess.run([*cli, "agents", "secret", "codex", "OPENAI_API_KEY"], input=KEY + "\n", env=env,
                       capture_output=True, text=True, check=True)  # fmt: skip
        started = time.perf_counter()
        daemon = DaemonProcess("run", "--headless", env=env, own_group=True)
        try:
            daemon.wait_for_line("codex  SIGN-IN", timeout=120)
            needs = time.perf_counter()
            login = subprocess.run([*cli, "login", "codex", "openai-api-key"], env=env, capture_output=True, text=True)
            done = time.perf_counter()
            if " · connected" not in login.stdout:
                raise RuntimeError(f"login did not connect: {login.stdout}{login.stderr}")
        finally:
            daemon.stop()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(daemon.proc.pid, signal.SIGKILL)  # what it started and left behind, if anything
    return needs - started, done - needs, done - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run: proves the benchmark runs")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    codex = npm_bin("codex-acp")
    peers, needs, logins, totals = [], [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="acp-tray-signin-") as temp:
            home = Path(temp, "peer-codex-home")
            home.mkdir()
            peers.append(peer(codex, home))
            need, login, total = through_acp_tray(codex, Path(temp, "tray"))
            needs.append(need)
            logins.append(login)
            totals.append(total)
    ms = lambda values: 1000 * statistics.median(values)  # noqa: E731
    print(f"codex-acp sign-in with openai-api-key, {runs} run(s) each, interleaved, medians:")
    print(f"  peer (direct JSON-RPC): spawn to signed-in session   {ms(peers):7.0f} ms")
    print(f"  acp-tray: start to needs sign-in                     {ms(needs):7.0f} ms")
    print(f"  acp-tray: `acp-tray login codex openai-api-key`      {ms(logins):7.0f} ms")
    print(f"  acp-tray: start to connected                         {ms(totals):7.0f} ms")
    ratio = statistics.median(totals) / statistics.median(peers)
    print(f"  ratio acp-tray / peer (start to connected)           {ratio:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
