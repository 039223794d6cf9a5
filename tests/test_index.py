"""The index: the lenient line grammar and Claude Code's exact 200-line / 25,000-unit budget."""

from __future__ import annotations

from pathlib import Path

from memtui.core import index as idx


def test_lenient_entry_grammar() -> None:
    cases = {
        "- [Title](file.md) — hook": ("Title", "file.md", "hook"),
        "* [Title — with dash](sub/file.md#anchor) - hook": ("Title — with dash", "sub/file.md", "hook"),
        "+ [用户画像](user.md): 中文": ("用户画像", "user.md", "中文"),
        "  - [`code` title](x.md)": ("`code` title", "x.md", ""),
        "- [T](x.md) -- two dashes": ("T", "x.md", "two dashes"),
    }
    for line, (title, target, hook) in cases.items():
        entry = idx.parse_entry(line, 1)
        assert entry is not None, line
        assert (entry.title, entry.target, entry.hook) == (title, target, hook)


def test_non_entry_lines_are_kept_verbatim(tmp_path: Path) -> None:
    text = "# Memory Index\n\n> preamble\n- Custom agents live in `.claude/agents/`\n---\n**[CLAUDE.md](../../CLAUDE.md)**\n- [A](a.md) — a\n"
    path = tmp_path / "MEMORY.md"
    path.write_text(text)
    index = idx.parse_index(path)
    assert [e.target for e in index.entries] == ["a.md"]
    assert "\n".join(index.lines) == text


def test_budget_counts_lines_and_names_line_201() -> None:
    text = "".join(f"- [M{i}](m{i}.md) — hook\n" for i in range(1, 215))
    b = idx.measure(text)
    assert b.lines == 214 and b.over_lines and not b.over_units
    assert b.first_unloaded_line == 201


def test_budget_counts_utf16_units_not_bytes_or_code_points() -> None:
    # 1 CJK char = 1 unit (3 UTF-8 bytes); 1 emoji = 2 units (4 bytes, 1 code point)
    assert idx.utf16_units("中文") == 2
    assert idx.utf16_units("😀") == 2
    line = "- " + "中" * 98 + "\n"  # 101 units per line
    text = line * 190
    b = idx.measure(text)
    assert b.units == 101 * 190 - 1 and not b.over_units
    emoji = ("- " + "😀" * 65 + "\n") * 200  # 133 units per line, 200 lines, 13,600 code points
    b2 = idx.measure(emoji)
    assert b2.over_units and not b2.over_lines and len(emoji) < 25_000
    # the cut is at the last newline before unit 25,000: 187 full lines fit
    assert b2.first_unloaded_line == 25_000 // 133 + 1 == 188


def test_front_matter_and_html_comments_are_not_counted_and_line_numbers_stay_true() -> None:
    head = "---\ntitle: index\n---\n<!-- a comment\nover three\nlines -->\n"
    body = "".join(f"- [M{i}](m{i}.md)\n" for i in range(1, 202))
    b = idx.measure(head + body)
    assert b.lines == 201 and b.over_lines
    assert b.first_unloaded_line == 6 + 201  # line 201 of the body is line 207 of the file


def test_format_size_matches_claude_code() -> None:
    assert idx.format_size(25_000) == "24.4KB"
    assert idx.format_size(999) == "999 bytes"
    assert idx.format_size(2048) == "2KB"


def test_remove_and_add_entries_touch_only_their_lines(tmp_path: Path) -> None:
    text = "# Index\n\n- [A](a.md) — a\n- [B](b.md) — b\n\n*Note: footer*\n"
    removed = idx.remove_entries(text, tmp_path, {tmp_path / "a.md"})
    assert removed == "# Index\n\n- [B](b.md) — b\n\n*Note: footer*\n"
    added = idx.add_entry(removed, "- [C](c.md) — c")
    assert added == "# Index\n\n- [B](b.md) — b\n- [C](c.md) — c\n\n*Note: footer*\n"
