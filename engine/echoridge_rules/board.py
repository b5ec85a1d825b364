"""City geometry: blocks, rows, columns and adjacency (rules.md §2)."""

from __future__ import annotations

from typing import Final

from echoridge_rules.data import GRID, HQ

Block = tuple[int, int]  # (col, row), both 1..5

BLOCKS: Final[tuple[Block, ...]] = tuple(
    (col, row) for row in range(1, GRID + 1) for col in range(1, GRID + 1)
)
NON_HQ: Final[tuple[Block, ...]] = tuple(b for b in BLOCKS if b != HQ)


def index(block: Block) -> int:
    """Position of a block in per-block tables and in the canonical block order."""
    col, row = block
    return (row - 1) * GRID + (col - 1)


def on_board(block: object) -> bool:
    if type(block) is tuple and len(block) == 2:  # the common case, without a generator
        col, row = block
        if type(col) is int and type(row) is int:
            return 1 <= col <= GRID and 1 <= row <= GRID
    return (
        isinstance(block, tuple)
        and len(block) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= GRID for v in block)
    )


def _neighbours(block: Block) -> tuple[Block, ...]:
    col, row = block
    out = []
    for dc, dr in ((0, -1), (-1, 0), (1, 0), (0, 1)):
        c, r = col + dc, row + dr
        if 1 <= c <= GRID and 1 <= r <= GRID:
            out.append((c, r))
    return tuple(out)


NEIGHBOURS: Final[dict[Block, tuple[Block, ...]]] = {b: _neighbours(b) for b in BLOCKS}


def adjacent(a: Block, b: Block) -> bool:
    return b in NEIGHBOURS[a]


def near(block: Block) -> tuple[Block, ...]:
    """The block itself and the blocks sharing an edge with it, in canonical order."""
    return tuple(sorted((block, *NEIGHBOURS[block]), key=index))
