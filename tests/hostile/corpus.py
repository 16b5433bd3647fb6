"""Hostile text for every surface: what an agent (or a JSON escape) can put in a title, description,
agent name, option name or id. Each entry is named, for test ids and failure messages.

The checks every surface must pass are here too (`unsafe_characters`), so each test asserts the
same thing: no control character (Unicode category Cc: C0, DEL, C1), no bidi control (the
Bidi_Control property: U+061C, U+200E/F, U+202A..E, U+2066..9), no line or paragraph separator
in one-line text, and no lone surrogate (it cannot be encoded as UTF-8: D-Bus, a pipe or a
terminal would fail).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from acp_tray.events import AgentState
from acp_tray.logs.text import DESCRIPTION_LIMIT, NAME_LIMIT, TITLE_LIMIT
from acp_tray.tray.menu import MENU_TEXT_LIMIT

MEGABYTE = 1024 * 1024
HOSTILE_AGENT = Path(__file__).resolve().parent / "hostile_agent.py"
NOW = datetime(2026, 11, 29, 12, 0)

# Bounds, in code points, from logs/text.py (TITLE_LIMIT 200, DESCRIPTION_LIMIT 1000,
# NAME_LIMIT 64, each with its ellipsis) and the fixed text each surface adds around them.
COUNT = 12  # the repeat count the tests use: " ×12"
SUMMARY = NAME_LIMIT + len(": ") + TITLE_LIMIT + len(f" ×{COUNT}")  # content.notification_of
STAMP = len("29 Nov 2025 12:00:00")  # acp-tray history: a record from another day says its date
SEVERITY_LABEL = 24  # console.severity_label: plain_line(severity, 24)
CONSOLE_LINE = STAMP + 2 + NAME_LIMIT + 2 + SEVERITY_LABEL + 1 + TITLE_LIMIT + len(" — ") + DESCRIPTION_LIMIT
OPTION_LABEL = len("✔ ") + MENU_TEXT_LIMIT  # menu.option_label: a mark, then the name
RECENT_LABEL = len("• ") + len("ℹ ") + len("25 Nov 2025 ") + MENU_TEXT_LIMIT + len(f" ×{COUNT}")  # menu.recent_label
AGENT_ROW = NAME_LIMIT + len(" — ") + max(len(state.value) for state in AgentState)  # menu._agents
MENU_LABEL = max(OPTION_LABEL, RECENT_LABEL, AGENT_ROW)  # any label of the tray menu
C1 = frozenset(chr(c) for c in range(0x80, 0xA0))

# The Unicode Bidi_Control property (PropList.txt): embeddings, overrides, isolates, marks.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


@dataclass(frozen=True)
class Hostile:
    name: str
    text: str
    tags: frozenset[str] = frozenset()

    def __repr__(self) -> str:  # a 1 MB entry must not flood a failure message
        return f"Hostile({self.name!r}, {len(self.text)} chars)"


def _h(name: str, text: str, *tags: str) -> Hostile:
    return Hostile(name, text, frozenset(tags))


ZWJ_FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man ZWJ woman ZWJ girl ZWJ boy
FLAGS = "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea\U0001f1ef\U0001f1f5"  # FR DE JP (regional indicator pairs)
SKIN_TONES = (
    "\U0001f44d\U0001f3fd\U0001f44b\U0001f3ff\U0001f9d1\U0001f3fb\u200d\U0001f4bb"  # thumbs, wave, technologist
)
KEYCAP = "1\ufe0f\u20e3#\ufe0f\u20e3"
TAG_FLAG = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # England: tag sequence
ZALGO = "Z" + "".join(chr(c) for c in range(0x0300, 0x036F)) + "algo"

CORPUS: tuple[Hostile, ...] = (
    # markup: Pango (dunst, GNOME, KDE), HTML, entities
    _h("markup-bold", "<b>bold</b> <i>italic</i> <u>under</u> <s>struck</s>", "markup"),
    _h("markup-link", '<a href="https://evil.example/steal?a=1&b=2">click to update</a> now', "markup"),
    _h(
        "markup-img",
        '<img src="/usr/share/icons/evil.png" alt="fake OK"/> and <img src=\'file:///etc/passwd\'>',
        "markup",
    ),
    _h("markup-entities", "&amp; &lt;b&gt; &#60;i&#62; &#x3c;u&#x3e; &nbsp; &bogus; & lone &", "markup"),
    _h("markup-pango-span", "<span foreground='red' size='xx-large' font='Monospace 40'>HUGE</span>", "markup"),
    _h("markup-script", "<script>alert(1)</script><style>*{display:none}</style><iframe src=x>", "markup"),
    _h("markup-broken", "<b>unclosed <i>crossed</b></i> <<>> </a> <", "markup"),
    _h("markup-cdata", "<![CDATA[<b>x</b>]]> <!-- comment --> <?xml version='1.0'?>", "markup"),
    # bidi: overrides, embeddings, isolates, marks
    _h("bidi-rlo-filename", "invoice_\u202egpj.exe", "bidi"),
    _h("bidi-all", "a\u202ab\u202bc\u202cd\u202de\u202ef\u2066g\u2067h\u2068i\u2069j\u200ek\u200fl\u061cm", "bidi"),
    _h("bidi-only", "\u202e\u2066\u2069\u200f", "bidi", "invisible-only"),
    _h("bidi-trojan-source", 'access = "user\u202e \u2066// admin\u2069 \u2066"', "bidi"),
    # control characters: C0, DEL, C1, NUL, escape sequences, carriage return
    _h("c0-all", "c0[" + "".join(chr(c) for c in range(0x20)) + "]", "control"),
    _h("del-c1-all", "c1[\x7f" + "".join(chr(c) for c in range(0x80, 0xA0)) + "]", "control"),
    _h("nul", "before\x00after\x00", "control"),
    _h("esc-sgr", "\x1b[31mred\x1b[0m \x1b[1;5;7mblink\x1b[m", "control", "escape"),
    _h("esc-osc-title-clipboard", "\x1b]0;pwned title\x07\x1b]52;c;cm0gLXJmIH4=\x07ok", "control", "escape"),
    _h("esc-osc8-hyperlink", "\x1b]8;;https://evil.example\x1b\\innocent\x1b]8;;\x1b\\", "control", "escape"),
    _h("esc-8bit-csi", "\x9b31mred\x9b0m \x9d0;title\x9c", "control", "escape"),
    _h("esc-cursor-erase", "safe\x1b[2K\x1b[1A\x1b[2Joverwritten", "control", "escape"),
    _h("carriage-return", "Build OK\rBuild FAILED: rm -rf ~", "control", "line-break"),
    _h("line-breaks-all", "one\ntwo\r\nthree\rfour\vfive\fsix\x85seven\u2028eight\u2029nine", "line-break"),
    _h("tabs-backspace", "col1\tcol2\t\tcol3\bX\b\b", "control"),
    # lengths
    _h("1mb-ascii", "A" * MEGABYTE, "huge"),
    _h("1mb-one-word", ("supercalifragilistic" * (MEGABYTE // 20 + 1))[:MEGABYTE], "huge", "long-word"),
    _h("1mb-multibyte", "\u00e9\u4e2d\U0001f600" * (MEGABYTE // 9), "huge"),
    _h("1mb-emoji-families", ZWJ_FAMILY * (MEGABYTE // 25), "huge", "emoji"),
    _h("1mb-invisible-then-text", "\u202e" * MEGABYTE + "visible", "huge", "bidi"),
    _h("1mb-lines", "line\n" * (MEGABYTE // 5), "huge", "line-break"),
    _h("long-word-500", "x" * 500, "long-word"),
    _h("long-url", "https://example.com/" + "a/" * 600 + "?q=" + "%41" * 300, "long-word"),
    # leading dashes: must never become a command-line option
    _h("dash-h", "-h", "dash"),
    _h("dash-version", "--version", "dash"),
    _h("dash-dash-rm", "-- rm -rf ~", "dash"),
    _h("dash-urgency", "-u critical", "dash"),
    _h("dash-app-name", "--app-name=evil -i /etc/passwd", "dash"),
    _h("dash-alone", "-", "dash"),
    _h("dash-hidden-behind-invisible", "\u202e\u200e\x1b-t 0", "dash", "bidi"),
    _h("dash-after-whitespace", " \t\n--help", "dash"),
    # invalid surrogates, as JSON escapes (\ud800) deliver them
    _h("lone-high-surrogate", "a\ud800b", "surrogate"),
    _h("lone-low-surrogate", "\udfff", "surrogate"),
    _h("reversed-pair", "x\udc00\ud800y", "surrogate"),
    _h("surrogates-in-emoji", "\U0001f600\ud83d\U0001f600", "surrogate"),
    # emoji sequences
    _h("emoji-zwj-family", ZWJ_FAMILY * 3, "emoji"),
    _h("emoji-flags", FLAGS, "emoji"),
    _h("emoji-skin-tones", SKIN_TONES, "emoji"),
    _h("emoji-keycap-tag-flag", KEYCAP + TAG_FLAG, "emoji"),
    # combining characters, RTL, zero-width
    _h("combining-zalgo", ZALGO, "combining"),
    _h("combining-1000-on-one-base", "e" + "\u0301" * 1000, "combining"),
    _h(
        "rtl-arabic-hebrew",
        "\u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd build 123 \u05e9\u05dc\u05d5\u05dd",
        "rtl",
    ),
    _h("zero-width", "Al\u200blow\u200c \u200dal\u2060l\ufeff", "zero-width"),
    _h("only-whitespace", " \t \n \u3000 ", "invisible-only"),
    # formats and quoting other layers might read
    _h("format-specifiers", "%s %b %a %p %I %n %x {0} {title} $HOME $(id) `id`", "format"),
    _h("quotes-backslashes", "it's \"quoted\" \\ back\\slash '<'x'>' \\u0041 \\x1b[31m", "format"),
    _h("dunst-menu-line", "] (spoof) [1,default] #Allow (x) [2,allow]", "format"),
    _h("approval-action-lookalike", "approval:1:allow_always", "format"),
)

BY_NAME = {entry.name: entry for entry in CORPUS}
assert len(BY_NAME) == len(CORPUS), "corpus names must be unique"

# Small enough to go through a real process, a pipe and D-Bus many times over (no 1 MB entries).
SMALL = tuple(entry for entry in CORPUS if "huge" not in entry.tags)


def unsafe_characters(text: str, *, one_line: bool = True) -> list[str]:
    """What must not survive into a surface, as readable code points ([] when the text is safe)."""
    found = []
    for char in dict.fromkeys(text):  # each distinct character once, in order
        if char == "\n" and not one_line:
            continue
        if (
            unicodedata.category(char) in ("Cc", "Cs")
            or char in BIDI_CONTROLS
            or (one_line and char in LINE_BREAKS | {"\u2028", "\u2029"})
        ):
            found.append(f"U+{ord(char):04X}")
    return found
