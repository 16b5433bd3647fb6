"""One line of `acp-tray doctor` (and of the window's diagnostics page): ✔ (works), ✖ (a problem,
with the fix) or · (a note), and the report and JSON made of them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Status = Literal["ok", "problem", "note"]
MARK = {"ok": "✔", "problem": "✖", "note": "·"}


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def line(self) -> str:
        fix = f" — {self.fix}" if self.fix else ""
        return f"{MARK[self.status]} {self.name}: {self.detail}{fix}"


def report(checks: list[Check]) -> str:
    return "\n".join(check.line() for check in checks)


def as_json(checks: list[Check]) -> list[dict[str, Any]]:
    return [asdict(check) for check in checks]
