#!/bin/sh
# A terminal emulator for the tests ($TERMINAL): records how it was called in
# "$ACP_TRAY_TEST_TERMINAL/called" (one argument a line), then runs the command after `-e` the
# way a terminal window would (no input: a `--pause` at the end reads end of file), its output
# going to "$ACP_TRAY_TEST_TERMINAL/output".
dir=${ACP_TRAY_TEST_TERMINAL:?}
printf '%s\n' "$@" >"$dir/called"
[ "$1" = "-e" ] || exit 2
shift
exec "$@" </dev/null >"$dir/output" 2>&1
