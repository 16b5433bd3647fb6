"""A reference reader of the Desktop Entry `Exec` key, written from the spec (not from our writer)."""

from __future__ import annotations


def desktop_argv(exec_value: str) -> list[str]:
    """Read an Exec value back as the Desktop Entry spec says: the string escapes first (`\\\\`),
    then the quoting (inside "...", a backslash escapes `"`, `` ` ``, `$` and `\\`), then `%%`."""
    text = exec_value.replace("\\\\", "\\")
    args: list[str] = []
    current: str | None = None
    quoted = False
    i = 0
    while i < len(text):
        char = text[i]
        if quoted and char == "\\" and i + 1 < len(text) and text[i + 1] in '"`$\\':
            current = (current or "") + text[i + 1]
            i += 2
            continue
        if char == '"':
            quoted = not quoted
            current = current or ""
        elif char == " " and not quoted:
            if current is not None:
                args.append(current)
            current = None
        else:
            current = (current or "") + char
        i += 1
    if current is not None:
        args.append(current)
    return [arg.replace("%%", "%") for arg in args]
