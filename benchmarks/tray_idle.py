"""Tray start-up and idle cost, against a bare pystray icon measured in the same run.

    python benchmarks/tray_idle.py [--idle 60] [--agents 3]

Under Xvfb + a private session bus + dunst + trayer (all started here), measures for
`acp-tray run` with N demo agents and for a bare pystray icon (same backend, same image):
time from process start to the icon being visible in the tray (screenshots), CPU seconds
used while idle over `--idle` seconds (the daemon process only, agents excluded), and RSS.
Targets: visible < 1 s, idle CPU < 0.3 s per 60 s, RSS < 80 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.desktop.session import DesktopSession  # noqa: E402

BARE = """
import pystray, sys
sys.path.insert(0, {src!r})
from acp_tray.tray.icon import render
pystray.Icon("bare", render(size=64), "bare", pystray.Menu(pystray.MenuItem("Quit", lambda i, it: i.stop()))).run()
"""


def icon_visible(env: dict[str, str], shot: Path) -> bool:
    subprocess.run(["import", "-window", "root", str(shot)], env=env, check=True)
    image = Image.open(shot).convert("RGB")
    for y in range(0, 40, 2):
        for x in range(image.width - 120, image.width, 2):
            if image.getpixel((x, y)) == (43, 58, 85):
                return True
    return False


def measure(command: list[str], env: dict[str, str], idle: float, shot: Path) -> tuple[float, float, float]:
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not icon_visible(env, shot):
        if time.monotonic() - start > 30:
            raise RuntimeError("icon never appeared")
    visible = time.monotonic() - start
    time.sleep(3)  # let agents connect and the demo notices pass
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before = cpu()
    time.sleep(idle)
    used = cpu() - before
    rss = (
        next(
            int(line.split()[1])
            for line in Path(f"/proc/{process.pid}/status").read_text().splitlines()
            if line.startswith("VmRSS")
        )
        / 1024
    )
    process.terminate()
    process.wait(20)
    return visible, used, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--agents", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, DesktopSession() as desktop:
        env = {**os.environ, **desktop.env, "NO_AT_BRIDGE": "1", "XDG_CONFIG_HOME": tmp, "XDG_STATE_HOME": tmp}
        host = subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(0.5)
        config = Path(tmp) / "config.toml"
        config.write_text(
            "".join(f'[agents.demo{i}]\ncommand = ["acp-tray", "demo-agent"]\n' for i in range(args.agents)),
            encoding="utf-8",
        )
        shot = Path(tmp) / "shot.png"
        try:
            bare = measure([sys.executable, "-c", BARE.format(src=str(ROOT / "src"))], env, args.idle, shot)
            ours = measure([sys.executable, "-m", "acp_tray", "run", "--config", str(config)], env, args.idle, shot)
        finally:
            host.terminate()
    ratio = ours[0] / bare[0]
    print(f"start to icon visible: acp-tray {ours[0]:.2f} s · bare pystray {bare[0]:.2f} s · ratio {ratio:.1f}x")
    print(f"idle CPU over {args.idle:.0f} s: acp-tray {ours[1]:.2f} s · bare pystray {bare[1]:.2f} s")
    print(f"RSS: acp-tray {ours[2]:.0f} MB · bare pystray {bare[2]:.0f} MB · ratio {ours[2] / bare[2]:.1f}x")


if __name__ == "__main__":
    main()
