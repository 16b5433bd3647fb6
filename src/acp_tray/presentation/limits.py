"""Rate limits in a person's words, and when to tell them: one `warning` of acp-tray's own when an
agent's limit reaches the threshold (`[usage] warn_at`, a percentage), one `error` when the agent
is refused for a limit; each once per limit window (an agent repeats its report with every
message: the person hears it once until the limit resets). Pure: reports and a clock in, notices out.
"""

from __future__ import annotations

from datetime import datetime, tzinfo

from acp_tray.protocol.notice import Notice
from acp_tray.protocol.usage import REFUSED_STATUS, RateLimit

KIND_WORDS = {
    "five_hour": "the five-hour limit",
    "seven_day": "the seven-day limit",
    "seven_day_opus": "the seven-day Opus limit",
    "seven_day_sonnet": "the seven-day Sonnet limit",
    "overage": "the extra-usage limit",
}
WARNING_STATUS = "allowed_warning"
MAX_WINDOWS = 64  # limit windows remembered (per daemon): far more than agents have limits


def limit_words(limit: RateLimit) -> str:
    return KIND_WORDS.get(limit.kind, f"the {limit.kind.replace('_', ' ')} limit" if limit.kind else "its rate limit")


def reset_words(limit: RateLimit, now: datetime) -> str:
    """ "resets at 14:20" (today), "resets Tue 14:20" (another day), "" (not said)."""
    if limit.resets_at is None:
        return ""
    zone: tzinfo | None = now.tzinfo
    try:
        at = datetime.fromtimestamp(limit.resets_at, zone)
    except (OverflowError, OSError, ValueError):
        return ""
    return f"resets at {at:%H:%M}" if at.date() == now.date() else f"resets {at:%a %H:%M}"


def used_words(limit: RateLimit) -> str:
    """ "90 % of the five-hour limit used", or "near the five-hour limit" without a figure."""
    if limit.utilization is None:
        return f"near {limit_words(limit)}"
    return f"{round(limit.utilization * 100)} % of {limit_words(limit)} used"


def refused(limit: RateLimit) -> bool:
    return limit.status == REFUSED_STATUS


def _join(*parts: str) -> str:
    return "; ".join(part for part in parts if part)


def limit_line(limit: RateLimit, now: datetime) -> str:
    """ "90 % of the five-hour limit used; resets at 14:20", "the five-hour limit reached; ..."."""
    said = f"{limit_words(limit)} reached" if refused(limit) else used_words(limit)
    return _join(said, reset_words(limit, now))


class LimitWatch:
    """Decides which rate-limit reports become a notice: once per agent, limit and window."""

    def __init__(self) -> None:
        self._told: dict[tuple[str, str, float | None, str], None] = {}  # insertion-ordered, bounded

    def notice(self, agent: str, limit: RateLimit, warn_at: float, now: datetime) -> Notice | None:
        """The notice this report calls for, or None (under the threshold, or told already)."""
        if refused(limit):
            severity = "error"
            title = _join(f"Refused: {limit_words(limit)} reached", reset_words(limit, now))
        elif self._over(limit, warn_at):
            severity = "warning"
            title = _join(used_words(limit), reset_words(limit, now))
        else:
            return None
        key = (agent, limit.kind, limit.resets_at, severity)
        if key in self._told:
            return None
        self._told[key] = None
        if len(self._told) > MAX_WINDOWS:
            del self._told[next(iter(self._told))]
        return Notice(severity, title[:1].upper() + title[1:])

    @staticmethod
    def _over(limit: RateLimit, warn_at: float) -> bool:
        if limit.utilization is not None:
            return limit.utilization * 100 >= warn_at
        return limit.status == WARNING_STATUS
