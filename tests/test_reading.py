"""Reading one file: encodings, line endings, broken bytes, binary files, files without front matter."""

from __future__ import annotations

from pathlib import Path

from memtui.core.reading import read_memory

TEXT = "---\nname: x\ndescription: d\ntype: user\n---\n\nUser likes tea.\n"


def _read(tmp_path: Path, data: bytes):  # type: ignore[no-untyped-def]
    path = tmp_path / "m.md"
    path.write_bytes(data)
    return read_memory(path, "m.md", in_archive=False)


def test_utf8_with_bom_reads_like_without(tmp_path: Path) -> None:
    plain = _read(tmp_path, TEXT.encode())
    bom = _read(tmp_path, b"\xef\xbb\xbf" + TEXT.encode())
    assert bom.type == plain.type == "user" and bom.body == plain.body and not bom.error


def test_crlf_file(tmp_path: Path) -> None:
    m = _read(tmp_path, TEXT.replace("\n", "\r\n").encode())
    assert m.type == "user" and m.name == "x" and "User likes tea." in m.body


def test_bad_bytes_are_malformed_naming_the_offset(tmp_path: Path) -> None:
    m = _read(tmp_path, TEXT.encode() + b"\xff\xfe broken")
    assert m.is_malformed and "not UTF-8" in (m.error or "") and "offset" in (m.error or "")


def test_binary_file_is_malformed(tmp_path: Path) -> None:
    m = _read(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    assert m.is_malformed and "binary" in (m.error or "")


def test_file_without_front_matter_is_an_untyped_memory(tmp_path: Path) -> None:
    m = _read(tmp_path, "类型：project\n\nTracy has no CLI capture.\n".encode())
    assert not m.is_malformed and not m.has_frontmatter and m.type is None and m.generation == "none"


def test_metadata_type_and_unknown_type(tmp_path: Path) -> None:
    m = _read(tmp_path, b"---\nname: n\ndescription: d\nmetadata:\n  type: reference\n---\nx\n")
    assert m.type == "reference" and m.generation == "B"
    odd = _read(tmp_path, b"---\nname: n\ndescription: d\ntype: tech\n---\nx\n")
    assert odd.type is None and odd.raw_type == "tech"


def test_status_archived_marks_the_memory_archived(tmp_path: Path) -> None:
    m = _read(tmp_path, b"---\nname: n\ndescription: d\ntype: user\nstatus: archived\n---\nx\n")
    assert m.status == "archived" and not m.in_archive
