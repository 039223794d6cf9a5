"""Every fixture file and every hostile input reads exactly as the reader did before python-frontmatter (issue 10).

`tests/fixtures/reading_golden.json` was written by the hand-rolled reader (commit before the switch): for each
file under tests/fixtures/ and for each generated hostile input, the parsed front matter, the body, the malformed
flag, the error text and what the line editor's `split_block` sees. The reader now splits and parses through
python-frontmatter; this test holds it to the same answers, byte for byte.

Regenerate (only when a change of reading is intended, and say so in the commit): `python tests/test_reading_golden.py`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from memtui.core import frontmatter
from memtui.core.reading import read_memory

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = FIXTURES / "reading_golden.json"
INLINE = 400  # longer strings are kept as their SHA-256, so the golden file stays readable


def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines)


FM = "---\nname: n\ndescription: d\ntype: feedback\n---\n\nBody.\n"

NAMED: dict[str, bytes | str] = {
    "plain": FM,
    "crlf": FM.replace("\n", "\r\n"),
    "bom": "\ufeff" + FM,
    "bom-crlf": "\ufeff" + FM.replace("\n", "\r\n"),
    "lone-cr": FM.replace("\n", "\r"),
    "mixed-newlines": "---\r\nname: n\ndescription: d\r\ntype: user\n---\r\nBody\r\n",
    "fence-trailing-space": "---  \nname: n\n--- \t\nbody\n",
    "fence-trailing-cr-space": "--- \r\nname: n\r\n---\t\r\nbody",
    "four-dashes": "----\nname: n\n----\nbody\n",
    "closing-four-dashes": "---\nname: n\n----\n---\nbody\n",
    "fence-with-text": "--- yaml\nname: n\n---\nbody\n",
    "closing-with-text": "---\nname: n\n--- end\nbody\n",
    "leading-newline": "\n---\nname: n\n---\nbody\n",
    "leading-space": " ---\nname: n\n---\nbody\n",
    "only-fence": "---",
    "only-fence-nl": "---\n",
    "two-fences": "---\n---\n",
    "two-fences-no-nl": "---\n---",
    "empty-block-body": "---\n---\nbody\n",
    "closing-at-eof": "---\nname: n\ntype: user\n---",
    "closing-cr-at-eof": "---\r\nname: n\r\n---\r",
    "blank-block": "---\n\n\n---\nbody\n",
    "comment-only": "---\n# just a comment\n---\nbody\n",
    "unclosed": "---\nname: x\ntype: user\n\nbody without a closing fence\n",
    "unclosed-crlf": "---\r\nname: x\r\n",
    "double-cr-closing": "---\r\nname: n\r\n---\r\r\nbody\n",
    "three-blocks": "---\nname: a\n---\n---\nname: b\n---\nbody\n",
    "doc-end-marker": "---\nname: n\n...\n---\nbody\n",
    "doc-start-inside": "---\nname: n\n--- \nname: m\n---\nbody\n",
    "list": "---\n- a\n- b\n---\nbody\n",
    "scalar": "---\njust words\n---\nbody\n",
    "int-scalar": "---\n42\n---\nbody\n",
    "null-doc": "---\n~\n---\nbody\n",
    "int-keys": "---\n1: one\n2.5: two\ntrue: yes\nnull: nothing\n---\nbody\n",
    "dates-kept": "---\nupdated: 2026-07-25T19:17:39.087Z\nday: 2026-11-30\nspace: 2026-11-30 10:00:00\n---\nb\n",
    "explicit-timestamp": "---\nwhen: !!timestamp 2026-11-30\n---\nb\n",
    "explicit-tags": "---\na: !!str 12\nb: !!int '7'\nc: !!float 1e3\nd: !!binary aGVsbG8=\ne: !!set {x, y}\n---\nb\n",
    "python-tag": "---\nname: !!python/object/apply:os.system ['true']\n---\nb\n",
    "unknown-tag": "---\nname: !custom thing\n---\nb\n",
    "merge-key": "---\nbase: &b {type: user, name: n}\nm:\n  <<: *b\n  name: m\n---\nb\n",
    "booleans": "---\na: yes\nb: no\nc: on\nd: off\ne: True\nf: ~\ng: .nan\nh: -.inf\ni: 0x1f\nj: 0o17\n---\nb\n",
    "duplicate-keys": "---\nname: a\nname: b\ntype: user\n---\nb\n",
    "retry-colon": "---\nname: Feedback — EOD\ndescription: Reported on 2026-04-22. Priority: Medium.\ntype: project\n---\nx\n",
    "retry-hash-bang": "---\nname: a # b\ndescription: !important & more @x `y`\ntype: user\n---\nx\n",
    "retry-braces": "---\nname: {not a map\ndescription: [open\ntype: user\n---\nx\n",
    "retry-quotes-inside": '---\nname: he said "hi": ok\ndescription: back\\slash: yes\n---\nx\n',
    "retry-fails": '---\nname: x\ndescription: "quoted" then more text\ntype: feedback\n---\nbody\n',
    "retry-crlf": "---\r\nname: a: b\r\ntype: user\r\n---\r\nx\r\n",
    "tabs": "---\nname:\tn\n\ttype: user\n---\nx\n",
    "bad-indent": "---\nname: n\n  type: user\n bad: x\n---\nx\n",
    "metadata-gen-b": (
        "---\nname: feedback-check-docs-first\ndescription: Check docs first\nmetadata: \n  node_type: memory\n"
        "  type: feedback\n  originSessionId: 9bcb5645\n  modified: 2026-07-25T19:17:39.087Z\n---\n\nBody.\n"
    ),
    "metadata-not-map": "---\nname: n\nmetadata: [a, b]\n---\nx\n",
    "type-list": "---\nname: [a, b, [c, d]]\ndescription: {k: v}\ntype: [Feedback]\n---\nx\n",
    "type-upper": "---\nname: n\ntype: FEEDBACK\nstatus: Archived\n---\nx\n",
    "status-archived-meta": "---\nname: n\nmetadata:\n  status: archived\n  type: user\n---\nx\n",
    "alias-bomb-name": f"---\n{_bomb()}\nname: *a8\ndescription: d\ntype: feedback\n---\n\nBody.\n",
    "alias-bomb-unused": f"---\n{_bomb()}\nname: bomb\ndescription: d\ntype: feedback\n---\n\nBody.\n",
    "alias-bomb-meta": f"---\n{_bomb()}\nname: bomb\nmetadata:\n  type: *a8\n---\n\nBody.\n",
    "alias-small": "---\nx: &x [1, 2, 3]\nname: *x\ny: *x\n---\nb\n",
    "alias-at-budget": "---\na: &a [" + ",".join(["1"] * 100) + "]\nb: [" + ",".join(["*a"] * 99) + "]\n---\nb\n",
    "alias-over-budget": "---\na: &a [" + ",".join(["1"] * 100) + "]\nb: [" + ",".join(["*a"] * 101) + "]\n---\nb\n",
    "alias-self": "---\na: &a [1, *a]\n---\nb\n",
    "alias-self-map": "---\na: &a {k: *a}\n---\nb\n",
    "alias-undefined": "---\nname: *nope\n---\nb\n",
    "deep-flow": "---\nname: " + "[" * 5000 + "]" * 5000 + "\n---\nb\n",
    "deep-flow-map": "---\nname: " + "{a: " * 3000 + "x" + "}" * 3000 + "\n---\nb\n",
    "deep-map-25": "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(25)) + " " * 25 + "leaf: v\n---\nb\n",
    "deep-block": "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(300)) + "---\nb\n",
    "huge-int": "---\nname: " + "9" * 5000 + "\ndescription: d\ntype: user\n---\n",
    "huge-float": "---\nname: 1e999999\n---\nb\n",
    "long-line": "---\nname: n\ndescription: " + "http://?" * 8192 + "\n---\n" + "a-" * 40000 + "\n",
    "long-key-list": "---\n" + "".join(f"k{i}: v{i}\n" for i in range(3000)) + "---\nb\n",
    "control-chars": "---\nname: a\x1b[31mred\x07\ndescription: d\x0b\n---\nb\n",
    "zero-width": "---\nname: a\u200bb\ndescription: \u2028line\ntype: user\n---\nb\n",
    "cjk": "---\nname: 规则：中文\ndescription: 明天 下周四\ntype: feedback\n---\n类型：project\n",
    "no-front-matter": "类型：project\n\nTracy has no CLI capture.\n",
    "empty": "",
    "only-bom": "\ufeff",
    "body-has-fences": "Intro\n---\nname: n\n---\nmore\n",
    "nul-byte": b"---\nname: n\x00\n---\nb\n",
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00",
    "latin1": "---\nname: caf\xe9\n---\nb\n".encode("latin-1"),
    "bad-bytes-after": FM.encode() + b"\xff\xfe broken",
    "utf16": FM.encode("utf-16"),
    "surrogate-escape": b"---\nname: \xed\xa0\x80\n---\nb\n",
    "nul-after-8k": b"---\nname: n\n---\n" + b"x" * 9000 + b"\x00",
    "yaml-directive": "---\n%YAML 1.1\n---\nname: n\n---\nb\n",
    "anchor-on-root": "---\n&r {name: n}\n---\nb\n",
    "complex-key": "---\n? [a, b]\n: v\nname: n\n---\nb\n",
    "nested-list-name": "---\nname:\n  - a\n  - - b\n    - c\ntype: user\n---\nb\n",
    "multiline-block": "---\nname: n\ndescription: |\n  line one\n  line two\ntype: >-\n  feedback\n---\nb\n",
}

ATOMS = [
    ": ", "'", '"', "&a ", "*a", "[", "]", "{", "}", "#", "- ", "|", ">", "!!str ", "%", "@", "`", "\\", "\t",
    "\r\n", "\n", "---", "...", "null", "~", "2026-11-30", "2026-07-25T19:17:39.087Z", "明天", "**Why:**", "sk-",
    "\x1b[31m", "\u200b", "é", "\ufeff", "\r", "? ", ",", "name", "type", "user", "feedback", "metadata", "  ",
]  # fmt: skip
KEYS = ["name", "description", "type", "metadata", "updated", "last_verified", "status", "tags", "x", "a b", "-"]


def _random_case(rng: random.Random) -> str:
    """A file an agent (or an attacker) might write: key lines with hostile values, fences in odd places."""
    words = lambda: "".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 8)))  # noqa: E731
    lines = []
    for _ in range(rng.randint(0, 6)):
        shape = rng.random()
        if shape < 0.6:
            lines.append(f"{rng.choice(KEYS)}: {words()}")
        elif shape < 0.8:
            lines.append(f"  {rng.choice(KEYS)}: {words()}")
        else:
            lines.append(words())
    nl = rng.choice(["\n", "\r\n", "\n", "\n"])
    opening = rng.choice(["---"] * 6 + ["--- ", "----", "", "---\t"])
    closing = rng.choice(["---"] * 6 + ["---  ", "...", "", "--- x"])
    return opening + nl + nl.join(lines) + nl + closing + nl + words() + nl


@functools.cache
def cases() -> dict[str, bytes]:
    """Every input the golden file covers: fixture files by path, named hostile inputs, seeded random ones."""
    out: dict[str, bytes] = {}
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path != GOLDEN and path.suffix != ".json":
            out[f"file:{path.relative_to(FIXTURES).as_posix()}"] = path.read_bytes()
    for name, value in NAMED.items():
        out[f"named:{name}"] = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    rng = random.Random(20261130)
    for i in range(400):
        out[f"random:{i:03d}"] = _random_case(rng).encode("utf-8")
    return out


def _short(value: str) -> str:
    if len(value) <= INLINE:
        return value
    return f"sha256:{hashlib.sha256(value.encode('utf-8', 'surrogatepass')).hexdigest()} len:{len(value)}"


def _canon(value: Any, depth: int = 0) -> str:
    """repr, except that sets are sorted: a set's order changes with the string hash seed of each run."""
    if depth > 200:
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_canon(k, depth + 1)}: {_canon(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_canon(v, depth + 1) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "set(" + ", ".join(sorted(_canon(v, depth + 1) for v in value)) + ")"
    return repr(value)


def reading_of(data: bytes, tmp: Path) -> dict[str, Any]:
    """What the reader makes of one file's bytes: the Memory's fields and the line editor's split."""
    path = tmp / "m.md"
    path.write_bytes(data)
    m = read_memory(path, "m.md", in_archive=False)
    result: dict[str, Any] = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "malformed": m.is_malformed,
        "error": m.error,
        "frontmatter": _short(_canon(m.frontmatter)),
        "has_frontmatter": m.has_frontmatter,
        "body": _short(m.body),
        "text": _short(m.text),
        "name": _short(m.name),
        "description": _short(m.description),
        "type": m.type,
        "raw_type": m.raw_type and _short(m.raw_type),
        "status": m.status,
        "retried": m.retried,
        "generation": m.generation,
    }
    try:
        block, end = frontmatter.split_block(m.text)
        result["split"] = [None if block is None else _short(block), end]
    except frontmatter.FrontMatterError as exc:
        result["split"] = f"error: {exc}"
    return result


def test_golden_covers_every_real_corpus_file() -> None:
    files = {key for key in cases() if key.startswith("file:real/")}
    assert len(files) >= 10
    missing = sorted(files - set(golden()))
    assert not missing, f"fixture files missing from {GOLDEN.name} (regenerate it on the old reader): {missing}"


@functools.cache
def golden() -> dict[str, Any]:
    """The readings the old reader gave."""
    loaded: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("key", sorted(golden()))
def test_reads_exactly_as_before(key: str, tmp_path: Path) -> None:
    expected = golden()[key]
    data = cases()[key]
    assert reading_of(data, tmp_path) == expected


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        readings = {key: reading_of(data, Path(tmp)) for key, data in cases().items()}
    GOLDEN.write_text(json.dumps(readings, indent=1, ensure_ascii=True, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(readings)} readings to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
