"""Samples random legal positions of chess endgame tables and records what python-chess's
Syzygy prober says of them on the Syzygy generator's files: the golden data of
crates/cli/tests/fifty.rs (crates/cli/tests/syzygy/python-chess-3-4.tsv).

Usage: python3 tools/syzygy-sample.py SYZYGY_DIR COUNT SEED MATERIAL...
  (with python-chess installed; SYZYGY_DIR holds the .rtbw and .rtbz files of every
  material named and of those it leads into, as `rtbgen` / `rtbgenp` write them)

Writes TSV on standard output: fen, wdl (probe_wdl), dtz (probe_dtz) and exact (1 where
python-chess's DTZ is the exact distance in plies: the value of a zeroing move played at once,
or an entry of the DTZ file's stored side kept in plies; 0 where it may be one ply short, as
python-chess documents).

A third of the positions of a material with pawns of both sides are taken just after a double
step that an en-passant capture can answer.
"""
import random, sys, chess, chess.syzygy

def positions(material, count, rng):
    white, black = material.split("v")
    pieces = [(chess.WHITE, c) for c in white] + [(chess.BLACK, c) for c in black]
    found, tries = [], 0
    both = "P" in white and "P" in black
    while len(found) < count and tries < 200000:
        tries += 1
        board = chess.Board(None)
        turn = rng.choice([chess.WHITE, chess.BLACK])
        fixed = {}
        if both and rng.random() < 0.3:
            # The position right after a double step answerable en passant: the mover's pawn on
            # its fourth rank, one of the side to move's pawns beside it.
            mover = not turn
            rank = 3 if mover == chess.WHITE else 4
            f = rng.randrange(8)
            g = f + rng.choice([-1, 1])
            if not 0 <= g < 8:
                continue
            fixed[(mover, "P")] = chess.square(f, rank)
            fixed[(turn, "P")] = chess.square(g, rank)
        placed = set(fixed.values())
        ok = True
        used = set()
        for colour, letter in pieces:
            key = (colour, letter)
            if key in fixed and key not in used:
                used.add(key)
                sq = fixed[key]
            else:
                free = [s for s in range(64) if s not in placed]
                sq = rng.choice(free)
            placed.add(sq)
            piece = chess.Piece.from_symbol(letter if colour else letter.lower())
            if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
                ok = False
                break
            board.set_piece_at(sq, piece)
        if not ok:
            continue
        board.turn = turn
        if fixed:
            mover = not turn
            sq = fixed[(mover, "P")]
            passed = sq - 8 if mover == chess.WHITE else sq + 8
            start = sq - 16 if mover == chess.WHITE else sq + 16
            if board.piece_at(passed) or board.piece_at(start):
                continue
            board.ep_square = passed
            if not board.has_legal_en_passant():
                continue
        if not board.is_valid():
            continue
        found.append(board)
    return found

def exact(tb, board):
    """Whether python-chess's DTZ of the board is the exact distance in plies: the value of
    a zeroing move played now, or an entry of the DTZ table's stored side kept in plies (the
    table's flag for that class; cursed classes are always kept in moves)."""
    if board.ep_square and board.has_legal_en_passant():
        return 0
    wdl, success = tb.probe_ab(board, -2, 2, threats=True)
    if wdl == 0:
        return 1
    if success == 2:
        return 1
    dtz, stored = tb.probe_dtz_table(board, wdl)
    if stored < 0 or wdl in (-1, 1):
        return 0
    table = tb.dtz[chess.syzygy.calc_key(board)]
    flags = table.flags
    if isinstance(flags, list):
        # A pawn table: the flags of the file of its leading pawn; python-chess's own choice
        # of file is internal, so a pawn table's entries are taken as possibly rounded.
        return 0
    return 1 if flags & chess.syzygy.PA_FLAGS[wdl + 2] else 0

def main():
    directory, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    materials = sys.argv[4:]
    rng = random.Random(seed)
    print("fen\twdl\tdtz\texact")
    with chess.syzygy.open_tablebase(directory) as tb:
        for material in materials:
            for board in positions(material, count, rng):
                wdl = tb.probe_wdl(board)
                dtz = tb.probe_dtz(board)
                print(f"{board.fen()}\t{wdl}\t{dtz}\t{exact(tb, board)}")

main()
