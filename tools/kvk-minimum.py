#!/usr/bin/env python3
"""The smallest bare-kings draw oracle, by MaxSAT: a check of the README's bare-kings figures.

Usage: python3 tools/kvk-minimum.py [SQUARES]   (needs `pip install python-sat`)

The question is the one `retro oracle build '8/8/8/8/8/8/8/K6k w - - 0 1' --goal not-lose`
answers: the fewest positions (White-to-move and Black-to-move, each counted once) of a White
oracle from White's king on a1 and Black's on h1, White to move. SQUARES (for example
`b2,c2,b3,c3,a1`; default: every square) are the squares White's king may stand on with Black
to move; the answer is the minimum over the oracles that keep to them.

The encoding (exact, for two bare kings; neither king can ever be in check, and no position
is a stalemate, so an oracle has no leaves):
  y[s, b]  the oracle holds the Black-to-move position with White's king on s, Black's on b;
  x[w, b]  the oracle holds the White-to-move position with White's king on w, Black's on b.
  - x[a1, h1] (the root);
  - y[s, b] -> x[s, c] for every Black move b -> c (c next to b, not next to s): a Black
    node has all its moves;
  - x[w, b] -> OR of y[s, b] over s next to w (and not next to b): a White node has a move.
An oracle gives a model with as many true variables as it has nodes; a model gives an oracle
(what the root reaches) with at most that many. RC2 (core-guided MaxSAT over CaDiCaL) finds
the fewest true variables and proves that no model has fewer.
"""

import sys
import time

from pysat.examples.rc2 import RC2
from pysat.formula import WCNF, IDPool

FILES = "abcdefgh"


def square(name):
    return (FILES.index(name[0]), int(name[1]) - 1)


def apart(a, b):
    """Whether kings on a and b may stand together: different squares, not side by side."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= 2


def neighbours(a):
    return [
        (a[0] + df, a[1] + dr)
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df or dr) and 0 <= a[0] + df < 8 and 0 <= a[1] + dr < 8
    ]


def main():
    board = [(f, r) for f in range(8) for r in range(8)]
    region = board if len(sys.argv) < 2 else [square(s) for s in sys.argv[1].split(",")]
    root = (square("a1"), square("h1"))
    pool = IDPool()
    wcnf = WCNF()
    black = {(s, b): pool.id(("y", s, b)) for s in region for b in board if apart(s, b)}
    white = {}
    for b in board:
        kings = set(region) | ({root[0]} if b == root[1] else set())
        for w in kings:
            if not apart(w, b):
                continue
            # Black nodes with White's king on w from which Black's king steps onto b.
            sources = [black[(w, c)] for c in neighbours(b) if (w, c) in black]
            if not sources and (w, b) != root:
                continue
            x = white[(w, b)] = pool.id(("x", w, b))
            for y in sources:
                wcnf.append([-y, x])
            moves = [black[(s, b)] for s in neighbours(w) if (s, b) in black]
            wcnf.append([-x] + moves)
    wcnf.append([white[root]])
    for v in list(black.values()) + list(white.values()):
        wcnf.append([-v], weight=1)
    start = time.time()
    with RC2(wcnf, solver="cd19", adapt=True, exhaust=True, minz=True, trim=5) as rc2:
        model = set(v for v in rc2.compute() if v > 0)
        nodes_white = sum(1 for v in white.values() if v in model)
        nodes_black = sum(1 for v in black.values() if v in model)
        print(
            f"White's king with Black to move on {len(region)} squares: the smallest oracle has "
            f"{rc2.cost} nodes ({nodes_white} White-to-move, {nodes_black} Black-to-move); "
            f"proved minimal in {time.time() - start:.1f} s"
        )


if __name__ == "__main__":
    main()
