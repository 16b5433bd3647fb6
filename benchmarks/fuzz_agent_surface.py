"""Fuzzing at volume: N generated agent messages through the daemon's real receive and presentation path.

    python benchmarks/fuzz_agent_surface.py [--messages 100000] [--seed 1] [--batch 1000] [--huge 5]

The messages come from tests/fuzz/strategies.py drawn with its seeded `RandomSource`: the very
generator the hypothesis strategies run (hypothesis itself is far too slow for 100k), so the
mix is the tests' mix: valid and broken notices, known v2 variants whole and broken, unknown
variants, other methods, responses to ids never sent, unroutable JSON, garbage, invalid UTF-8,
deep nesting, lines split at arbitrary bytes. `--huge` of them (0.2 to 5 MB, some over the 4 MiB
line limit) are placed among the others. Batches alternate ACP v1 and v2 and cycle through the
preference sets of the tests (default, do not disturb, info routed nowhere, agent muted, tight
rate limit).

Each batch goes through tests/fuzz/harness.py: the real `LineTransport`, `ClientHandler`,
`AgentHost` (as the handler's peer), `Daemon._handle` (router on a fake clock, history writer,
console and notification content for every presentation). Every invariant of the fuzz tests is
checked on every batch; the exit status is 1 if any failed. Log output is off (the daemon's
log file is not part of the path measured).

The peer, measured on the same lines in the same run (interleaved per batch, as
benchmarks/parse_notices.py does): `json.loads` alone on each line, the floor with no
validation, routing, history or presentation at all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acp_tray.protocol.version import ProtocolVersion  # noqa: E402
from tests.fuzz.harness import check, decode_problems, run_stream  # noqa: E402
from tests.fuzz.strategies import PREFS, Config, Item, RandomSource, gen_item, gen_items, make_stream  # noqa: E402


def raw_json_loads(lines: list[bytes]) -> float:
    """Seconds for `json.loads` on every non-blank line (what it refuses counts as done)."""
    start = time.perf_counter()
    for line in lines:
        try:  # noqa: SIM105 (contextlib.suppress would add its own cost to the peer's)
            json.loads(line)
        except (ValueError, RecursionError):
            pass
    return time.perf_counter() - start


def split_lines(items: list[Item]) -> list[bytes]:
    return [part.strip() for item in items for part in item.line.split(b"\n") if part.strip()]


def batch_items(src: RandomSource, version: ProtocolVersion, size: int, huge: int) -> list[Item]:
    items = gen_items(src, Config(version=version, huge_weight=0), size - huge)
    huge_cfg = Config(version=version, huge_weight=1, categories=("huge",))
    for _ in range(huge):
        items.insert(src.integer(0, len(items)), gen_item(src, huge_cfg))
    return items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1000, help="messages per batch (one history file each)")
    parser.add_argument("--huge", type=int, default=5, help="messages of 0.2 to 5 MB among them")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)

    wall = time.perf_counter()
    src = RandomSource(args.seed)
    batches = -(-args.messages // args.batch)
    categories: Counter[str] = Counter()
    records: Counter[str] = Counter()
    versions: Counter[str] = Counter()
    generated = ours = raw = 0.0
    sent = lines = skipped = presented = 0
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(batches):
            size = min(args.batch, args.messages - sent)
            version = ProtocolVersion.V1 if n % 2 == 0 else ProtocolVersion.V2
            prefs = PREFS[n % len(PREFS)]
            start = time.perf_counter()
            huge = (n + 1) * args.huge // batches - n * args.huge // batches  # spread over the batches
            items = batch_items(src, version, size, huge)
            stream = make_stream(src, items, version, prefs)
            batch_lines = split_lines(items)
            generated += time.perf_counter() - start

            history = Path(tmp) / f"history-{n}.jsonl"
            run = asyncio.run(run_stream(stream.chunks, version, prefs, history))
            ours += run.elapsed
            raw += raw_json_loads(batch_lines)

            problems = check(items, run) + decode_problems(batch_lines)
            if problems:
                failures.append(f"batch {n} (seed {args.seed}, {version.name}, {prefs}): " + "\n".join(problems[:3]))
            sent += size
            lines += len(batch_lines)
            skipped += len(run.drops)
            presented += len(run.presented)
            versions[version.name] += size
            categories.update(item.expect.category for item in items)
            records.update(f"{r.get('kind')} ({r.get('source')})" for r in run.records)
            history.unlink()
    wall = time.perf_counter() - wall
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(f"messages: {sent:,} ({', '.join(f'{v:,} {k}' for k, v in sorted(versions.items()))}) in {batches} batches")
    print(f"  {lines:,} non-blank lines, {skipped:,} skipped by the transport, seed {args.seed}")
    print(f"ours: {sent / ours:>12,.0f} msg/s  ({ours:.2f} s: framing, decode, handler, router, history, surfaces)")
    print(f"raw:  {sent / raw:>12,.0f} msg/s  ({raw:.2f} s: json.loads of the same lines, nothing else)")
    print(f"ours / raw json.loads: {raw / ours:.3f}x (the cost of everything past parsing)")
    print(f"history records written: {sum(records.values()):,}")
    for name, count in records.most_common():
        print(f"  {name:<24} {count:>8,}")
    print(f"presentations: {presented:,}")
    print("messages per category:")
    for name, count in sorted(categories.items()):
        print(f"  {name:<32} {count:>8,}")
    print(f"generation (not counted above): {generated:.2f} s")
    print(f"wall time: {wall:.1f} s; peak RSS: {peak_mb:,.0f} MB")
    if failures:
        print(f"INVARIANTS FAILED in {len(failures)} batch(es):", file=sys.stderr)
        for failure in failures[:5]:
            print(failure, file=sys.stderr)
        return 1
    print("invariants: all held (no exception escaped; every skipped line counted; every notice recorded once,")
    print("  exactly as sent, in order, with its decision; every malformed update recorded; nothing else)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
