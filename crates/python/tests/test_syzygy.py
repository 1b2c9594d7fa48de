"""The submodule `retro.syzygy` against python-chess's `chess.syzygy` on the Syzygy generator's
own files (the golden values of crates/cli/tests/syzygy/python-chess-3-4.tsv) and against the
command line.

Run by crates/cli/tests/python.rs (see test_retro.py), whose tables directory holds the DTZ50
and WDL50 tables of KRvK, KQvKR, KPvKP, KBvK and those they lead into.
"""

import csv
import json
import os
import subprocess

import chess
import chess.syzygy
import pytest

import retro
import retro.syzygy

BIN = os.environ["RETRO_BIN"]
TABLES = os.environ["RETRO_TABLES"]
GOLDEN = os.path.join(
    os.path.dirname(__file__), "..", "..", "cli", "tests", "syzygy", "python-chess-3-4.tsv"
)


def golden():
    """python-chess's values on Syzygy's files, for the positions whose tables are built
    here: (board, wdl, dtz, exact)."""
    with retro.syzygy.open_tablebase(TABLES) as tablebase:
        with open(GOLDEN) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                board = chess.Board(row["fen"])
                if tablebase.get_wdl(board) is None:
                    continue
                yield board, int(row["wdl"]), int(row["dtz"]), row["exact"] == "1"


def test_a_syzygy_snippet_runs_unchanged():
    # Written for chess.syzygy; run with retro.syzygy in its place, on the positions whose
    # exact value python-chess read from the Syzygy generator's files.
    def snippet(syzygy, directory, boards):
        results = []
        with syzygy.open_tablebase(directory) as tablebase:
            for board in boards:
                results.append((tablebase.probe_wdl(board), tablebase.probe_dtz(board)))
            results.append(tablebase.get_dtz(chess.Board("8/8/8/8/8/8/8/K2knn2 w - - 0 1")))
            try:
                tablebase.probe_wdl(chess.Board("8/8/8/8/8/8/8/K2knn2 w - - 0 1"))
            except syzygy.MissingTableError:
                results.append("missing")
            tablebase.add_directory(directory)
        return results

    exact = [(b, w, d) for b, w, d, e in golden() if e]
    assert len(exact) > 100
    boards = [b for b, _, _ in exact]
    expected = [(w, d) for _, w, d in exact] + [None, "missing"]
    assert snippet(retro.syzygy, TABLES, boards) == expected


def test_every_golden_position_within_syzygy_rounding():
    checked = 0
    with retro.syzygy.open_tablebase(TABLES) as tablebase:
        for board, wdl, dtz, exact in golden():
            assert tablebase.probe_wdl(board) == wdl, board.fen()
            ours = tablebase.probe_dtz(board)
            if exact or board.is_checkmate():
                assert ours == dtz, board.fen()
            else:
                # python-chess: its value may be one ply short of the true distance.
                assert ours in (dtz, dtz + (1 if dtz > 0 else -1)), (board.fen(), ours, dtz)
            checked += 1
    assert checked > 300


def test_conventions_and_errors():
    with retro.syzygy.open_tablebase(TABLES) as tablebase:
        mated = chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
        assert tablebase.probe_wdl(mated) == -2 and tablebase.probe_dtz(mated) == -1
        assert tablebase.probe_dtz(chess.Board("8/8/8/8/8/2k5/1R6/K7 w - - 0 1")) == 31
        # The halfmove clock is ignored, as chess.syzygy ignores it.
        assert tablebase.probe_wdl(chess.Board("8/8/8/8/8/2k5/1R6/K7 w - - 90 60")) == 2
        assert tablebase.probe_wdl(chess.Board("8/8/8/8/8/8/8/K1k5 w - - 0 1")) == 0
        with pytest.raises(KeyError):
            tablebase.probe_dtz(chess.Board())
        with pytest.raises(retro.syzygy.MissingTableError):
            tablebase.probe_dtz(chess.Board("8/8/8/8/8/5k2/1N6/KN6 w - - 0 1"))
        assert tablebase.get_dtz(chess.Board("8/8/8/8/8/5k2/1N6/KN6 w - - 0 1"), 5) == 5


def test_the_command_line_gives_the_same_values():
    with retro.syzygy.open_tablebase(TABLES) as tablebase:
        boards = [b for b, _, _, _ in golden()][:60]
        run = subprocess.run(
            [BIN, "probe", "--batch", "--dir", TABLES],
            input="".join(b.fen() + "\n" for b in boards),
            capture_output=True, text=True, check=True,
        )
        for board, line in zip(boards, run.stdout.splitlines()):
            answer = json.loads(line)
            names = {"loss": -2, "blessed-loss": -1, "draw": 0, "cursed-win": 1, "win": 2}
            assert names[answer["wdl50"]] == tablebase.probe_wdl(board)
            dtz = tablebase.probe_dtz(board)
            assert answer["dtz"] == (0 if board.is_checkmate() else dtz)


def random_boards(material, count, seed):
    """Legal positions of `material` (`KQvKR`), either side to move, drawn at random."""
    import random

    rng = random.Random(seed)
    white, black = material.split("v")
    pieces = [chess.Piece.from_symbol(c) for c in white] + [
        chess.Piece.from_symbol(c.lower()) for c in black
    ]
    boards = []
    while len(boards) < count:
        board = chess.Board(None)
        for piece, square in zip(pieces, rng.sample(chess.SQUARES, len(pieces))):
            board.set_piece_at(square, piece)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid():
            boards.append(board)
    return boards


def test_python_chess_reads_the_exported_files_as_proved():
    # `retro export --syzygy` wrote WDL and DTZ files of the tables here; python-chess's own
    # reader answers from them what the proved tables answer: the class, and DTZ exactly for
    # wins and losses (a cursed win's or blessed loss's is in the format's moves: one ply
    # short at most).
    exported = os.environ["RETRO_SYZYGY_EXPORT"]
    checked = 0
    with chess.syzygy.open_tablebase(exported) as theirs:
        with retro.syzygy.open_tablebase(TABLES) as ours:
            for seed, material in enumerate(["KRvK", "KQvKR", "KBvK", "KQvK", "KPvKP"]):
                for board in random_boards(material, 300, seed):
                    assert theirs.probe_wdl(board) == ours.probe_wdl(board), board.fen()
                    dtz, proved = theirs.probe_dtz(board), ours.probe_dtz(board)
                    if abs(proved) <= 100:
                        assert dtz == proved, (board.fen(), dtz, proved)
                    else:
                        assert proved in (dtz, dtz + (1 if dtz > 0 else -1)), board.fen()
                    checked += 1
    assert checked == 1500
