"""The parallel run's rules (tests/support/parallel.py): which tests share a worker, and how a
worker's report crosses to the process that prints it."""

from __future__ import annotations

import pytest

pytest.importorskip("xdist", reason="pytest-xdist (the test extra; the Windows lane runs without it)")

from tests.support.parallel import GROUP_OF, GroupedScheduling, transportable


def test_a_listed_module_runs_on_one_worker_and_any_other_test_on_its_own() -> None:
    scheduling = object.__new__(GroupedScheduling)  # _split_scope needs none of its state
    packaging = [scheduling._split_scope(f"tests/integration/test_packaging.py::{name}") for name in ("a", "b[x]")]
    assert packaging == ["@packaging", "@packaging"]
    assert scheduling._split_scope("tests/unit/test_backoff.py::test_a") == "tests/unit/test_backoff.py::test_a"
    assert GROUP_OF["tests/security/test_other_user.py"] == "other-user"


def test_a_report_with_lone_surrogates_is_sent_with_them_escaped() -> None:
    report = {"sections": [("Captured log call", "bad \udc80 text")], "outcome": "passed", "duration": 0.5}
    sent = transportable(report)
    assert sent == {"sections": [("Captured log call", "bad \\udc80 text")], "outcome": "passed", "duration": 0.5}
    assert sent["sections"][0][1].encode("utf-8")  # what execnet does with every string
