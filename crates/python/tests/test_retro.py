"""The Python module `retro` against the command line and chess.gaviota's conventions.

Run by crates/cli/tests/python.rs, which installs the module with pip, builds the tables and
sets RETRO_BIN (the `retro` binary), RETRO_TABLES (raw 8x8 and 4x4 tables) and RETRO_PACKED
(packed copies of some of them).
"""

import json
import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor

import chess
import pytest

import retro

BIN = os.environ["RETRO_BIN"]
TABLES = os.environ["RETRO_TABLES"]
PACKED = os.environ["RETRO_PACKED"]

# Materials built by the driver, White's men then Black's (the kings included).
MATERIALS = ["KRvK", "KQvKR", "KPvKP", "KBvK", "KQvKP", "KPvK"]
PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "P": chess.PAWN}


def random_board(rng, material):
    """A random legal position of `material` (either side to move), or None."""
    white, black = material.split("v")
    board = chess.Board(None)
    for colour, men in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in men:
            while True:
                square = rng.randrange(64)
                if board.piece_at(square) is not None:
                    continue
                if letter == "P" and chess.square_rank(square) in (0, 7):
                    continue
                board.set_piece_at(square, chess.Piece(PIECES[letter], colour))
                break
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    return board if board.is_valid() else None


def en_passant_board(rng):
    """A random legal KPvKP position just after Black's double step, with White able to take
    en passant, or None."""
    board = chess.Board(None)
    file = rng.randrange(8)
    side = rng.choice([f for f in (file - 1, file + 1) if 0 <= f < 8])
    board.set_piece_at(chess.square(side, 4), chess.Piece(chess.PAWN, chess.WHITE))
    board.set_piece_at(chess.square(file, 6), chess.Piece(chess.PAWN, chess.BLACK))
    for colour in (chess.WHITE, chess.BLACK):
        while True:
            square = rng.randrange(64)
            if board.piece_at(square) is None:
                board.set_piece_at(square, chess.Piece(chess.KING, colour))
                break
    board.turn = chess.BLACK
    if not board.is_valid():
        return None
    move = chess.Move(chess.square(file, 6), chess.square(file, 4))
    if not board.is_legal(move):
        return None
    board.push(move)
    board = chess.Board(board.fen())
    return board if board.is_valid() and board.has_legal_en_passant() else None


def sample(count, seed):
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = random_board(rng, rng.choice(MATERIALS))
        if board is not None:
            boards.append(board)
    passant = []
    while len(passant) < count // 10:
        board = en_passant_board(rng)
        if board is not None:
            passant.append(board)
    return boards + passant


def cli_batch(fens, directory):
    """`retro probe --batch` on the FENs: one JSON answer a FEN, in order."""
    run = subprocess.run(
        [BIN, "probe", "--batch", "--dir", directory],
        input="\n".join(fens) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in run.stdout.splitlines()]


@pytest.fixture(scope="module")
def tablebase():
    with retro.open_tablebase(TABLES) as tb:
        yield tb


def test_random_positions_give_what_the_command_line_gives(tablebase):
    boards = sample(600, 1)
    assert sum(1 for b in boards if b.ep_square is not None) >= 60
    answers = cli_batch([b.fen() for b in boards], TABLES)
    wins = losses = 0
    for board, answer in zip(boards, answers):
        assert "error" not in answer, answer
        dtm = answer["dtm"] if answer["dtm"] is not None else 0
        assert tablebase.probe_dtm(board) == dtm, board.fen()
        assert tablebase.probe_wdl(board) == {"win": 1, "draw": 0, "loss": -1}[answer["category"]]
        wins += answer["category"] == "win"
        losses += answer["category"] == "loss"
    assert wins > 50 and losses > 20


def test_probe_is_what_probe_json_prints(tablebase):
    for board in sample(12, 2)[:12] + [en_passant_board(random.Random(s)) for s in range(40)]:
        if board is None:
            continue
        run = subprocess.run(
            [BIN, "probe", board.fen(), "--json", "--line", "--dir", TABLES],
            capture_output=True, text=True, check=True,
        )
        assert tablebase.probe(board, line=True) == json.loads(run.stdout)


def test_gaviota_documented_values(tablebase):
    # chess.gaviota's documentation: White to move is mated in 10 half-moves; KBvK is drawn.
    assert tablebase.probe_dtm(chess.Board("8/8/8/8/8/8/8/K2kr3 w - - 0 1")) == -10
    assert tablebase.probe_wdl(chess.Board("8/4k3/8/B7/8/8/8/4K3 w - - 0 1")) == 0


def test_gaviota_conventions_for_mate_draw_and_errors(tablebase):
    mated = chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
    assert mated.is_checkmate()
    assert tablebase.probe_dtm(mated) == 0 and tablebase.probe_wdl(mated) == -1
    mate_in_one = chess.Board("k7/8/1K6/8/8/8/8/7R w - - 0 1")
    assert tablebase.probe_dtm(mate_in_one) == 1 and tablebase.probe_wdl(mate_in_one) == 1
    assert tablebase.probe_dtm(chess.Board("8/8/8/8/8/8/8/K1k5 w - - 0 1")) == 0
    with pytest.raises(KeyError):
        tablebase.probe_dtm(chess.Board())  # castling rights, and 32 men
    with pytest.raises(KeyError):
        tablebase.probe_dtm(chess.Board("8/8/8/8/8/8/8/R3K2k w Q - 0 1"))  # castling rights
    no_table = chess.Board("8/8/8/8/8/5k2/1N6/KN6 w - - 0 1")  # KNNvK is not built
    with pytest.raises(retro.MissingTableError) as missing:
        tablebase.probe_dtm(no_table)
    assert isinstance(missing.value, KeyError) and "KNNvK" in str(missing.value)
    illegal = chess.Board("8/8/8/8/8/8/1k6/K6R b - - 0 1")  # both kings attacked
    with pytest.raises(KeyError):
        tablebase.probe_dtm(illegal)
    assert tablebase.get_dtm(illegal) is None
    assert tablebase.get_wdl(no_table, 7) == 7
    assert tablebase.get_dtm(mate_in_one) == 1
    with pytest.raises(ValueError):
        tablebase.probe_dtm("not a fen")
    with pytest.raises(TypeError):
        tablebase.probe_dtm(42)


def test_a_gaviota_snippet_runs_unchanged():
    # Written for chess.gaviota; run with the module `retro` in its place.
    def snippet(gaviota, directory):
        results = []
        with gaviota.open_tablebase(directory) as tablebase:
            board = chess.Board("8/8/8/8/8/8/8/K2kr3 w - - 0 1")
            results.append(tablebase.probe_dtm(board))
            results.append(tablebase.probe_wdl(board))
            results.append(tablebase.get_dtm(chess.Board("8/8/8/8/8/8/8/K2knn2 w - - 0 1")))
            try:
                tablebase.probe_wdl(chess.Board("8/8/8/8/8/8/8/K2knn2 w - - 0 1"))
            except gaviota.MissingTableError:
                results.append("missing")
            tablebase.add_directory(directory)
        return results

    assert snippet(retro, TABLES) == [-10, -1, None, "missing"]


def test_packed_tables_give_the_same_values():
    packed = retro.open_tablebase(PACKED)
    raw = retro.open_tablebase(TABLES)
    rng = random.Random(3)
    boards = [random_board(rng, rng.choice(["KRvK", "KQvKR"])) for _ in range(600)]
    boards = [b for b in boards if b is not None]
    assert len(boards) > 300
    for board in boards:
        assert packed.probe_dtm(board) == raw.probe_dtm(board), board.fen()
    assert any(f.endswith(".rtbz") for f in os.listdir(PACKED))
    assert not any(f.endswith(".rtb") for f in os.listdir(PACKED))


def test_threads_share_one_tablebase(tablebase):
    boards = sample(400, 4)
    alone = [tablebase.probe_dtm(b) for b in boards]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(tablebase.probe_dtm, boards * 5))
    assert together == alone * 5


def test_best_move_line_and_other_boards(tablebase):
    board = chess.Board("8/8/8/8/8/2k5/1R6/K7 w - - 0 1")
    assert tablebase.probe_dtm(board) == 31
    line = tablebase.line(board)
    assert len(line) == 31 and line[0] == tablebase.best_move(board)
    for uci in line:
        assert chess.Move.from_uci(uci) in board.legal_moves
        board.push_uci(uci)
    assert board.is_checkmate()
    assert tablebase.best_move(chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")) is None
    # A 4x4 board, given by FEN: mate in at most a few moves, as the CLI says.
    small = "1k2/4/4/K2R w - - 0 1"
    run = subprocess.run([BIN, "probe", small, "--json", "--dir", TABLES],
                         capture_output=True, text=True, check=True)
    assert tablebase.probe_dtm(small) == json.loads(run.stdout)["dtm"]
    assert tablebase.probe_dtm(small) > 0
