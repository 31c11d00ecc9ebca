"""The verifier reads an export as a stream of bytes, cut into blocks of whole lines for its
worker processes: whatever pieces it is given, the lines are the same, no block is much
larger than asked, and nothing is read ahead of the block being made (memory stays bounded
whatever the size of the export)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from casino.audit_export import casino_audit_export as verifier

EXPORT = b"".join(b'{"n":%d,"pad":"%s"}\n' % (n, b"x" * (n * 7 % 90)) for n in range(400))


def lines_of(blocks: list[bytes]) -> list[bytes]:
    return [line for block in blocks for line in block.splitlines(keepends=True)]


@pytest.mark.parametrize("size", [1, 50, 333, 4096, 10**6])
def test_blocks_hold_whole_lines_whatever_the_pieces(size: int) -> None:
    lines = EXPORT.splitlines(keepends=True)
    for pieces in (
        lines,  # its lines
        [EXPORT],  # one piece
        [EXPORT[i : i + 77] for i in range(0, len(EXPORT), 77)],  # pieces cutting lines
        io.BytesIO(EXPORT),  # a file
    ):
        blocks = list(verifier._blocks(pieces, size))
        assert b"".join(blocks) == EXPORT
        assert all(block.endswith(b"\n") for block in blocks)
        assert lines_of(blocks) == lines
        longest = max(len(line) for line in lines)
        assert all(len(block) <= max(size, longest) for block in blocks)


def test_a_last_line_without_line_feed_ends_the_last_block() -> None:
    cut = EXPORT[:-10]
    blocks = list(verifier._blocks([cut], 1000))
    assert b"".join(blocks) == cut and not blocks[-1].endswith(b"\n")
    assert all(block.endswith(b"\n") for block in blocks[:-1])


def test_blocks_are_made_as_the_export_is_read() -> None:
    taken = 0

    def endless() -> Iterator[bytes]:
        nonlocal taken
        while True:
            taken += 1
            yield b'{"line":"' + b"y" * 100 + b'"}\n'

    blocks = verifier._blocks(endless(), 10_000)
    first = next(blocks)
    assert 9_000 < len(first) <= 10_000
    assert taken * 113 < 10_000 + 2 * 113  # no more than the block and a line


def test_a_line_cut_across_two_given_pieces_is_one_line() -> None:
    """The export is a stream of bytes: a piece without its line feed continues in the
    next piece, as in the file."""
    lines = EXPORT.splitlines(keepends=True)
    halves = [part for line in lines for part in (line[:5], line[5:])]
    for jobs in (1, 2):
        given = verifier.verify(halves, [], jobs=jobs, block_size=500)
        whole = verifier.verify([EXPORT], [], jobs=jobs, block_size=500)
        for summary in (given, whole):
            del summary["seconds"], summary["rounds_per_second"]
        assert given == whole
        fmt = given["checks"][0]
        assert fmt["detail"].startswith(f"{len(lines)} lines")
