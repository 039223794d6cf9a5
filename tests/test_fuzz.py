"""Fuzzing (issue 7 "Show"): random front matter, names and bodies through `check` and every action, time-bounded.

Whatever an agent writes, memtui reads it (a broken file is `malformed`, with a reason), `check` finishes, and
each action (verify, edit, fix-date, merge, archive, restore, undo) either does its job or refuses with an
`OpError` — never another exception, never a hang. Examples are derandomised, so a run is reproducible.

Two guards turn a hang into a failure: SIGALRM per example (raises inside Python code) and faulthandler's
watchdog for the whole test (kills the process, with every thread's stack, if C code never returns).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import faulthandler
import signal
import string
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import init_repo, memory, write_files
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memtui import ops
from memtui.analysis.check import check_store
from memtui.core import frontmatter
from memtui.core.reading import read_memory
from memtui.core.store import load_store

DAY = dt.date(2026, 11, 30)
EXAMPLE_SECONDS = 20

# Pieces an agent (or an attacker) puts in front matter and bodies: YAML syntax, aliases, quotes, dates,
# relative dates, secret-like strings, Markdown labels, CJK, control characters, CRLF.
ATOMS = st.sampled_from(
    [
        ": ",
        "'",
        '"',
        "&a ",
        "*a",
        "[",
        "]",
        "{",
        "}",
        "#",
        "- ",
        "|",
        ">",
        "!!str ",
        "%",
        "@",
        "`",
        "\\",
        "\t",
        "\r\n",
        "---",
        "...",
        "null",
        "~",
        "2026-11-30",
        "2026-07-25T19:17:39.087Z",
        "tomorrow",
        "next Thursday",
        "last month",
        "on Monday",
        "every Friday",
        "明天",
        "下周四",
        "每周一",
        "**Why:**",
        "**How to apply:**",
        "http://?",
        "https://a.b/c?x=1",
        "sk-",
        "AKIA",
        "eyJ",
        "a-a-",
        "aaaa",
        "1" * 30,
        "\x1b[31m",
        "\x00",
        "\u200b",
        "é",
        "规则",
        "\ufeff",
    ]
)
TEXT = st.lists(st.one_of(ATOMS, st.text(max_size=12)), max_size=25).map("".join)
KEYS = st.sampled_from(
    [
        "name",
        "description",
        "type",
        "metadata",
        "updated",
        "last_verified",
        "expires_at",
        "status",
        "location",
        "originSessionId",
        "tags",
        "x",
    ]
)
VALUE = st.one_of(
    TEXT,
    st.sampled_from(
        [
            "user",
            "feedback",
            "project",
            "reference",
            "[a, b]",
            "{type: user}",
            "\n  type: feedback\n  updated: 2026-01-01",
        ]
    ),
)


BOMB = (
    "---\n"
    + "\n".join(
        ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    )
    + "\nname: *a8\ndescription: d\ntype: feedback\n---\n"
)
HUGE_INT = "---\nname: " + "9" * 5000 + "\ndescription: d\ntype: user\n---\n"
LONG_LINE = "http://?" * 8192  # 64 KB: 11 s per secret scan before issue 7 H2
LONG_WORD = "a-" * 40000


@st.composite
def front_matter(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["none", "pairs", "raw", "unclosed", "hostile"]))
    if kind == "none":
        return ""
    if kind == "raw":
        return "---\n" + draw(TEXT) + "\n---\n"
    if kind == "unclosed":
        return "---\n" + draw(TEXT) + "\n"
    if kind == "hostile":
        return draw(st.sampled_from([BOMB, HUGE_INT]))
    pairs = draw(st.lists(st.tuples(KEYS, VALUE), max_size=8))
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in pairs) + "---\n"


NAMES = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=30).map(
    lambda s: f"fz_{s}.md"
)
# Names git quotes (CJK, tab, quotes) break undo until issue 7 F8 lands; they belong here once it has.


@contextlib.contextmanager
def time_bound(seconds: int) -> Iterator[None]:
    """Raise inside the example when it runs longer than `seconds` (main thread only)."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"example did not finish in {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(300, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(fm=front_matter(), body=TEXT)
@example(fm=BOMB, body="x").via("issue 7 H1")
@example(fm=HUGE_INT, body="x").via("a value Python cannot convert")
def test_any_text_reads_without_raising_and_quickly(
    fm: str, body: str, tmp_path_factory: pytest.TempPathFactory, watchdog: None
) -> None:
    text = fm + body
    with time_bound(EXAMPLE_SECONDS):
        try:
            frontmatter.parse(text)
        except frontmatter.FrontMatterError as exc:
            assert str(exc)
        folder = tmp_path_factory.mktemp("read")
        path = folder / "fz.md"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        m = read_memory(path, "fz.md", in_archive=False)
        assert m.error or m.text == text.removeprefix("\ufeff")


def _action_results(store: Path, name: str, other: str) -> list[str]:
    """Run every action on `name`; each either works or refuses with OpError. Returns what happened."""
    happened: list[str] = []

    def attempt(label: str, call) -> None:  # type: ignore[no-untyped-def]
        try:
            call()
            happened.append(label)
        except ops.OpError as exc:
            assert str(exc).strip(), label
            happened.append(f"{label}: refused")

    attempt("verify", lambda: ops.verify(store, name, today=DAY, allow_secret=True))
    if (store / name).exists():
        text = (store / name).read_text(encoding="utf-8", errors="replace")
        attempt("edit", lambda: ops.edit(store, name, text + "\nEdited.\n", today=DAY, allow_secret=True))
    attempt("fix-date", lambda: ops.fix_date(store, name, today=DAY, allow_secret=True))
    attempt("merge", lambda: ops.merge(store, [name, other], into=name, today=DAY, allow_secret=True))
    attempt("undo", lambda: ops.undo(store, today=DAY))
    attempt("archive", lambda: ops.archive(store, name, reason="fuzz", today=DAY, allow_secret=True))
    attempt("restore", lambda: ops.restore(store, name, today=DAY, allow_secret=True))
    attempt("undo", lambda: ops.undo(store, today=DAY))
    return happened


_STORE: dict[str, Path] = {}


def _shared_store(factory: pytest.TempPathFactory) -> Path:
    """One real git store for all examples (a repository per example would make this minutes)."""
    if "store" not in _STORE:
        top = factory.mktemp("fuzzstore") / "app"
        write_files(
            top / "memory",
            {
                "MEMORY.md": "# Memory\n\n- [Base](feedback_base.md) — base\n",
                "feedback_base.md": memory("feedback_base"),
            },
        )
        init_repo(top)
        _STORE["store"] = top / "memory"
    return _STORE["store"]


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(fm=front_matter(), body=TEXT, name=NAMES)
@example(fm=BOMB, body="Body.", name="fz_bomb.md").via("issue 7 H1")
@example(
    fm="---\nname: long\ndescription: d\ntype: reference\n---\n", body=LONG_LINE + "\n" + LONG_WORD, name="fz_long.md"
).via("issue 7 H2")
def test_every_action_on_a_random_memory_works_or_refuses(
    fm: str, body: str, name: str, tmp_path_factory: pytest.TempPathFactory, watchdog: None
) -> None:
    store = _shared_store(tmp_path_factory)
    if (store / name).exists() or (store.parent / "memory.archive" / name).exists():
        return
    other = f"feedback_other_{len(list(store.glob('*.md')))}.md"
    (store / other).write_text(memory(other[:-3]), encoding="utf-8")
    # the agent writes it (uncommitted): every action records it first, scanning it for secrets
    (store / name).write_bytes((fm + body).encode("utf-8", "surrogatepass"))
    start = time.monotonic()
    with time_bound(EXAMPLE_SECONDS):
        report = check_store(load_store(store), DAY)
        assert all(f.message for f in report.findings)
        _action_results(store, name, other)
        check_store(load_store(store), DAY)
    assert time.monotonic() - start < EXAMPLE_SECONDS
