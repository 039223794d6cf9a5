"""Front matter: every generation, Claude Code's quoting retry, failures, and minimal line edits."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core import frontmatter as fm

GEN_A = "---\nname: feedback_testing\ndescription: Real DB in tests\ntype: feedback\n---\n\nBody.\n"
GEN_A_PRIME = (
    "---\nname: Bug patterns\ndescription: Recurring bugs\ntype: feedback\n"
    "originSessionId: 9bcb5645-bb7a-4eb5-8136-ff774166a95e\n---\n\nBody.\n"
)
GEN_B = (
    "---\nname: feedback-check-docs-first\ndescription: Check docs first\nmetadata: \n  node_type: memory\n"
    "  type: feedback\n  originSessionId: 9bcb5645\n  modified: 2026-07-25T19:17:39.087Z\n---\n\nBody.\n"
)


@pytest.mark.parametrize("text", [GEN_A, GEN_A_PRIME, GEN_B])
def test_every_generation_parses_and_keeps_unknown_keys(text: str) -> None:
    parsed = fm.parse(text)
    assert parsed.present and not parsed.retried
    assert text[parsed.block_end :] == "\nBody.\n"
    data = parsed.data
    assert data.get("type") == "feedback" or data["metadata"]["type"] == "feedback"
    if "originSessionId" in text and "metadata" not in data:
        assert data["originSessionId"].startswith("9bcb")


def test_quoting_retry_reads_an_unquoted_colon_value() -> None:
    text = "---\nname: Feedback — EOD\ndescription: Reported on 2026-04-22. Priority: Medium.\ntype: project\n---\nx\n"
    parsed = fm.parse(text)
    assert parsed.retried
    assert parsed.data["description"] == "Reported on 2026-04-22. Priority: Medium."


def test_front_matter_the_retry_cannot_read_is_an_error_naming_the_reason() -> None:
    text = '---\nname: x\ndescription: "quoted" then more text\ntype: feedback\n---\nbody\n'
    with pytest.raises(fm.FrontMatterError, match="not valid YAML"):
        fm.parse(text)


def test_unclosed_front_matter_is_an_error() -> None:
    with pytest.raises(fm.FrontMatterError, match="never closed"):
        fm.parse("---\nname: x\ntype: user\n\nbody without a closing fence\n")


def test_a_yaml_list_is_not_a_mapping() -> None:
    with pytest.raises(fm.FrontMatterError, match="not a mapping"):
        fm.parse("---\n- a\n- b\n---\nbody\n")


def test_no_front_matter_is_not_an_error() -> None:
    parsed = fm.parse("Just a note.\n")
    assert not parsed.present and parsed.data == {} and parsed.block_end == 0


def test_set_keys_changes_only_the_lines_it_means_to() -> None:
    text = (
        "---\n# a comment the user wrote\nname: 'quoted name'\ntags: [a, b]\n"
        "description: keep me\ntype: feedback\n---\n\nBody stays.\n"
    )
    new = fm.set_keys(text, {"status": "archived", "archived_reason": fm.yaml_scalar("Superseded: by direct style")})
    old_lines, new_lines = text.splitlines(), new.splitlines()
    assert [line for line in new_lines if line not in old_lines] == [
        "status: archived",
        'archived_reason: "Superseded: by direct style"',
    ]
    assert all(line in new_lines for line in old_lines)
    assert fm.parse(new).data["archived_reason"] == "Superseded: by direct style"


def test_set_keys_replaces_an_existing_value_in_place_and_keeps_crlf() -> None:
    text = "---\r\nname: x\r\nstatus: active\r\ntype: user\r\n---\r\nBody\r\n"
    new = fm.set_keys(text, {"status": "archived"})
    assert new == "---\r\nname: x\r\nstatus: archived\r\ntype: user\r\n---\r\nBody\r\n"


def test_set_keys_under_metadata_keeps_the_trailing_space_and_indent() -> None:
    new = fm.set_keys(GEN_B, {"last_verified": "2026-11-30"}, under="metadata")
    assert "metadata: \n" in new
    assert "  modified: 2026-07-25T19:17:39.087Z\n  last_verified: 2026-11-30\n---" in new
    assert fm.parse(new).data["metadata"]["last_verified"] == "2026-11-30"  # dates stay as written


def test_remove_keys_is_the_inverse_of_adding_them() -> None:
    added = fm.set_keys(GEN_A, {"status": "archived", "archived_at": "2026-11-30"})
    assert fm.remove_keys(added, ["status", "archived_at"]) == GEN_A


def test_yaml_scalar_quotes_only_when_needed() -> None:
    assert fm.yaml_scalar("plain words") == "plain words"
    assert fm.yaml_scalar("a: b") == '"a: b"'
    assert fm.yaml_scalar('say "hi" # now') == '"say \\"hi\\" # now"'
    assert fm.yaml_scalar("yes") == '"yes"'  # would otherwise read back as a boolean


def test_set_keys_stamps_the_duplicate_key_yaml_reads() -> None:
    """Issue 7 F11: with two `last_verified:` lines YAML reads the last; stamping the first changed nothing."""
    from memtui.core.frontmatter import parse, set_keys

    text = "---\nname: x\nlast_verified: 2020-01-01\ntype: user\nlast_verified: 2019-01-01\n---\nbody\n"
    stamped = set_keys(text, {"last_verified": "2026-11-30"})
    assert parse(stamped).data["last_verified"] == "2026-11-30"
    assert stamped == text.replace("2019-01-01", "2026-11-30")


def test_python_frontmatter_reads_through_memtuis_handler() -> None:
    """Issue 10: python-frontmatter is the reader; its own `loads` with memtui's handler gives the same metadata."""
    import frontmatter as python_frontmatter

    retry = "---\nname: a: b\nupdated: 2026-07-25T19:17:39.087Z\ntype: user\n---\n\nBody.\n"
    for text in (GEN_A, GEN_B, retry):
        post = python_frontmatter.loads(text, handler=fm.HANDLER)
        assert post.metadata == fm.parse(text).data and post.content == "Body."
    assert fm.parse(retry).data["updated"] == "2026-07-25T19:17:39.087Z"  # kept as written, not a datetime
    assert isinstance(fm.HANDLER, python_frontmatter.YAMLHandler)


def test_the_plain_mapping_shortcut_builds_what_the_constructor_builds() -> None:
    text = "---\nname: n\nname: last\nmetadata:\n  type: user\n  deep:\n    k: v\nx: 'q'\n---\nb\n"
    block = fm.split_block(text)[0]
    assert block is not None
    assert fm.parse(text).data == yaml.load(block, Loader=fm._Loader)  # noqa: S506 - a safe loader


# Pieces of `key: value` lines: mostly words, and the tricky ones — YAML indicators, `: ` and ` #` inside a value,
# values YAML reads as booleans, numbers, null or dates, blanks, tabs, line breaks YAML knows (NEL, LS, PS), a byte
# order mark, control characters and non-ASCII text.
_WORDS = st.sampled_from(["a", "Never", "b c", "x:y", "a#b", "é", "数据库", "🙂", "\u00a0", "...", "-x", "1 2", " "])
_TRICKY = st.sampled_from(
    [": ", ":", "#", " #", "-", "- ", "?", "'", '"', "&", "*", "!", "|", ">", "%", "@", "`", ",", "[", "]", "{", "}"]
    + ["=", "<<", "~", "true", "no", "null", "12", "0x1f", "1.5", ".inf", "2026-01-10", "  ", "\t", "\r", "\x85"]
    + ["\u2028", "\ufeff", "\x07", "\x7f", "---"]
)
_KEYS = st.one_of(
    st.sampled_from(["name", "description", "type", "last-verified", "_x", "k1"]),
    st.sampled_from(["yes", "Null", "1k", "<<", " name", "-k"]),
)
_LINES = st.tuples(
    _KEYS,
    st.sampled_from([": ", ": ", ":  ", ":", ": \t"]),
    st.lists(st.one_of(*[_WORDS] * 9, _TRICKY), max_size=6),
).map(lambda t: t[0] + t[1] + "".join(t[2]))


@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(st.lists(_LINES, min_size=1, max_size=4), st.sampled_from(["\n", "\n", "\n", ""]))
def test_the_line_reading_of_simple_front_matter_gives_what_yaml_gives(lines: list[str], last: str) -> None:
    block = "\n".join(lines) + last
    simple = fm._simple_mapping(block)
    if simple is not None:
        assert simple == fm._load_yaml(block)
        assert all(type(v) is str for v in simple.values())


@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["name", "description", "type", "k"]),
            st.text(
                alphabet="abcdefghijklmnopqrstuvwxyzNTY0123456789    ::#-.,'\"!&*%@`|>?~=[]{}é数🙂\xa0\u3000\t",
                max_size=12,
            ),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_plain_values_of_any_characters_read_as_yaml_reads_them(entries: list[tuple[str, str]]) -> None:
    block = "".join(f"{key}: {value}\n" for key, value in entries)
    simple = fm._simple_mapping(block)
    if simple is not None:
        assert simple == fm._load_yaml(block)


@pytest.mark.parametrize(
    ("block", "read"),
    [
        ("name: n\ndescription: Real DB:yes, in tests#1 — é  \ntype: feedback\n", True),
        ("name: n\nname: last\n", True),
        ("name: n\ntype: true\n", False),  # a boolean: YAML decides
        ("name: n\ndescription: a: b\n", False),  # not valid YAML: the quoting retry decides
        ("name: n\ndescription: a #comment\n", False),
        ("name: n\n\ntype: user\n", False),
        ("name: n\nmetadata:\n  type: user\n", False),
    ],
)
def test_only_plain_string_lines_take_the_line_reading(block: str, read: bool) -> None:
    assert (fm._simple_mapping(block) is not None) is read
    if read:
        assert fm._simple_mapping(block) == yaml.load(block, Loader=fm._Loader)  # noqa: S506 - a safe loader
