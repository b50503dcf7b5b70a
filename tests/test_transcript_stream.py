"""``referee replay FILE`` reads its file line by line (check_file, then stream_file): the same
inputs, ids and errors as the whole file decoded and read at once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from referee.adapters.transcript import (
    TranscriptError,
    check_file,
    decode,
    read,
    replay,
    stream_file,
)
from referee.lang.catalog import text as catalog_text

EXAMPLE = Path(__file__).resolve().parent.parent / "referee" / "examples" / "omaha-example.txt"


def _whole(data: bytes) -> list[tuple[int, str, dict[str, object]]]:
    return [(x.lineno, x.id, x.input) for x in read(decode(data))]


def _streamed(path: Path) -> list[tuple[int, str, dict[str, object]]]:
    prefix, numbers = check_file(path)
    lines = [(x.lineno, x.id, x.input) for x in stream_file(path, prefix)]
    assert list(numbers) == [n for n, _, _ in lines]
    return lines


def _error(call: object) -> str:
    with pytest.raises(TranscriptError) as e:
        call()  # type: ignore[operator]
    return str(e.value)


@pytest.mark.parametrize("breaks", ["\n", "\r\n", "\r", "\u2028", "\x85"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_the_same_inputs_and_ids_as_the_whole_file(tmp_path: Path, breaks: str,
                                                   bom: bytes) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace("\n", breaks)
    data = bom + text.encode("utf-8")
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    assert _streamed(path) == _whole(data) != []


def test_a_malformed_line_named_as_before(tmp_path: Path) -> None:
    data = EXAMPLE.read_bytes() + b"# nonsense\n"
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    expected = _error(lambda: read(decode(data)))
    assert "行目: " in expected
    assert _error(lambda: check_file(path)) == expected
    out = io.StringIO()
    assert _error(lambda: replay(path, None, out)) == expected
    assert out.getvalue() == ""  # nothing runs before every line is checked


def test_a_byte_not_utf8_after_a_malformed_line_is_the_error(tmp_path: Path) -> None:
    data = b"# table: omaha\n# nonsense\nalice: ok\nbob: \xff\xfe\n"
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    expected = _error(lambda: read(decode(data)))
    assert expected == catalog_text("transcript.at_line", line=4,
                                    error=catalog_text("transcript.not_utf8"))
    assert _error(lambda: check_file(path)) == expected


def test_a_file_changed_between_the_passes(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(EXAMPLE.read_bytes())
    prefix, _ = check_file(path)
    path.write_bytes(EXAMPLE.read_bytes() + b"## a comment added\n")
    assert "changed" in _error(lambda: list(stream_file(path, prefix)))


@pytest.mark.parametrize("block", [1, 5, 64, 1 << 16])
@pytest.mark.parametrize("breaks", ["\n", "\r\n", "\r"])
def test_blocks_cut_anywhere_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           block: int, breaks: str) -> None:
    """The file is read a block at a time: a block boundary inside a line, a character or a
    ``\\r\\n`` changes nothing -- nor does a bad byte's line number."""
    import referee.adapters.transcript as transcript

    monkeypatch.setattr(transcript, "_BLOCK", block)
    text = EXAMPLE.read_text(encoding="utf-8").replace("\n", breaks)
    data = b"\xef\xbb\xbf" + text.encode("utf-8")
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    assert _streamed(path) == _whole(data) != []
    bad = data + "alice: 全角\n".encode() * 3 + b"bob: \xff\n" + "carol: 後\n".encode()
    path.write_bytes(bad)
    expected = _error(lambda: read(decode(bad)))
    assert expected.endswith(catalog_text("transcript.not_utf8"))
    assert _error(lambda: check_file(path)) == expected
