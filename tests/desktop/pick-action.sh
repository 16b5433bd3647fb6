#!/bin/sh
# dunst's `dmenu` in the tests (see dunstrc). For its context menu (`dunstctl context`) dunst
# writes one line per action of every notification on screen, "#LABEL (SUMMARY) [ID,KEY]"
# (ID: dunst's notification id, KEY: the action key sent in Notify), and one per URL, then
# invokes whatever line it reads back. The test picks: this prints the first line containing
# the text in "$ACP_TRAY_TEST_DMENU/pick" (a fixed string, not a pattern), and nothing when
# that file or such a line is missing. What dunst offered is copied to "$ACP_TRAY_TEST_DMENU/menu".
menu=$(cat)
dir=${ACP_TRAY_TEST_DMENU:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    exit 0
fi
printf '%s\n' "$menu" >"$dir/menu"
if [ -f "$dir/pick" ]; then
    printf '%s\n' "$menu" | grep -F -m 1 -e "$(cat "$dir/pick")" || true
fi
