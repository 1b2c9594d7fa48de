//! Tests of the analysis: rules valued as the seed says, both layouts against a solver of the
//! definitions, un-moves against moves reversed.

use super::*;
use std::collections::HashSet;

/// A capture rule's three values (the seed, 2.2): Qxd5 takes the black rook; with the e6
/// pawn to recapture the rule's `recapture` value holds, and with the d1 rook to take back
/// again its `second_recapture` value; with neither, its plain value.
#[test]
fn recaptures_and_second_recaptures_are_valued_by_the_rule() {
    let cases = [
        ("4k3/8/4p3/3r4/3Q4/8/8/3RK3 w - - 0 1", Outcome::BlackWins),
        ("4k3/8/4p3/3r4/3Q4/8/8/4K3 w - - 0 1", Outcome::Draw),
        ("4k3/8/8/3r4/3Q4/8/8/4K3 w - - 0 1", Outcome::WhiteWins),
    ];
    for (fen, expected) in cases {
        // Every man kept to its square (an index of one entry), any other capture a draw.
        let mut text = format!(
            "fen = \"{fen}\"\n[[capture]]\npiece = \"r\"\nvalue = \"win\"\nrecapture = \"draw\"\nsecond_recapture = \"loss\"\n[[capture]]\npiece = \"Q\"\nvalue = \"draw\"\n[[promotion]]\nvalue = \"draw\"\n"
        );
        let setup = retro_rules::fen::Setup::parse(fen).unwrap();
        for (square, _) in &setup.men {
            text.push_str(&format!(
                "[[man]]\non = \"{square}\"\nsquares = [\"{square}\"]\nelsewhere = \"draw\"\n"
            ));
        }
        let problem = Problem::parse(&text).expect(&text);
        let tables = Tablebase::new(problem.geo.board(), std::env::temp_dir());
        let a = Analysis::unsolved(&problem, &tables, WorkLayout::Wide).unwrap();
        let start = a.index_of(&problem.start).unwrap();
        let n = problem.men.len();
        let mut squares = [0 as Sq; MAX_MEN];
        a.space.squares(start, &mut squares[..n]);
        let mut valued = None;
        problem.start.for_each_legal_move(&problem.geo, None, |mv| {
            if mv.captured == Some(Piece::Rook) {
                valued = Some(a.step(&problem.start, &squares[..n], start, &mv).unwrap());
            }
        });
        match valued {
            Some(Step::Exits(_, Some((RuleRef::Capture(0), o)))) => {
                assert_eq!(o, expected, "{fen}")
            }
            other => panic!("{fen}: {other:?}"),
        }
    }
}

/// 4x6: a white pawn on b2-b5 and a black one on c3-c5, each able to double-step to beside
/// the other's squares (en-passant entries both ways), free kings, captures looked up in
/// KPvK, promotions counted as wins for White.
const EN_PASSANT_PROBLEM: &str = "fen = \"3k/2p1/4/4/1P2/K3 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"b2-b5\"]\nelsewhere = \"win\"\n[[man]]\non = \"c5\"\nsquares = [\"c3-c5\"]\nelsewhere = \"loss\"\n[[promotion]]\nvalue = \"win\"\n";

/// The values of every legal entry by their definition, solved naively from the moves
/// [`Analysis::step`] values: depth by depth (a win in `k` has a move to a loss in `k − 1`;
/// a loss in `k` has only moves to wins of at most `k − 1` plies, exits included), then
/// the rule fixpoint (a move to a loss by rule wins, moves only to wins lose), the rest
/// drawn. Indexed by `index · 2 + side`; `None` for an illegal entry.
fn by_definition(a: &Analysis<'_>) -> Vec<Option<Verdict>> {
    enum Out {
        Child(usize),
        Exit(Verdict),
    }
    let problem = a.problem;
    let geo = &problem.geo;
    let n = problem.men.len();
    let size = a.space.entries() as usize;
    let mut moves: Vec<Option<Vec<Out>>> = Vec::with_capacity(2 * size);
    let mut values: Vec<Option<Verdict>> = vec![None; 2 * size];
    let mut deepest_exit = 0;
    for (e, value) in values.iter_mut().enumerate() {
        let (entry, x) = ((e >> 1) as u64, e & 1);
        let mut squares = [0 as Sq; MAX_MEN];
        let (index, ep) = a.space.decode(entry, &mut squares[..n]);
        let Some(pos) = a.position(&squares[..n], x, ep) else {
            moves.push(None);
            continue;
        };
        let mut out = Vec::new();
        pos.for_each_legal_move(geo, None, |mv| {
            match a.step(&pos, &squares[..n], index, &mv).unwrap() {
                Step::Stays(child) => out.push(Out::Child((child as usize) << 1 | (1 - x))),
                Step::Exits(v, _) => {
                    deepest_exit = deepest_exit.max(v.plies().unwrap_or(0));
                    out.push(Out::Exit(v));
                }
            }
        });
        if out.is_empty() {
            *value = Some(if pos.in_check(geo, pos.side_to_move()) {
                Verdict::Loss(Some(0))
            } else {
                Verdict::Draw
            });
        }
        moves.push(Some(out));
    }
    let after = |values: &[Option<Verdict>], o: &Out| match o {
        Out::Child(c) => values[*c],
        Out::Exit(v) => Some(*v),
    };
    let mut k = 1;
    let mut last_change = 0;
    while k <= deepest_exit + 2 || k <= last_change + 2 {
        let mut decided = Vec::new();
        for (e, list) in moves.iter().enumerate() {
            let Some(list) = list else { continue };
            if values[e].is_some() {
                continue;
            }
            let now = if k % 2 == 1 {
                list.iter()
                    .any(|o| after(&values, o) == Some(Verdict::Loss(Some(k - 1))))
                    .then_some(Verdict::Win(Some(k)))
            } else {
                list.iter()
                    .all(|o| matches!(after(&values, o), Some(Verdict::Win(Some(j))) if j < k))
                    .then_some(Verdict::Loss(Some(k)))
            };
            if let Some(v) = now {
                decided.push((e, v));
            }
        }
        if !decided.is_empty() {
            last_change = k;
        }
        for (e, v) in decided {
            values[e] = Some(v);
        }
        k += 1;
    }
    loop {
        let mut decided = Vec::new();
        for (e, list) in moves.iter().enumerate() {
            let Some(list) = list else { continue };
            if values[e].is_some() {
                continue;
            }
            if list
                .iter()
                .any(|o| after(&values, o) == Some(Verdict::Loss(None)))
            {
                decided.push((e, Verdict::Win(None)));
            } else if list
                .iter()
                .all(|o| matches!(after(&values, o), Some(Verdict::Win(_))))
            {
                decided.push((e, Verdict::Loss(None)));
            }
        }
        if decided.is_empty() {
            break;
        }
        for (e, v) in decided {
            values[e] = Some(v);
        }
    }
    moves
        .iter()
        .zip(values)
        .map(|(m, v)| m.as_ref().map(|_| v.unwrap_or(Verdict::Draw)))
        .collect()
}

/// Both layouts give every entry the value its definition gives it ([`by_definition`]), on
/// problems with fixed rules of each kind, look-ups into tables with depths (positions
/// whose every move is a capture into a lost table among them), pawns and promotions.
#[test]
fn both_layouts_give_the_values_by_definition() {
    let problems = [
        // 5x5: two rooks against a king, captures looked up in KRvK; a black king whose
        // only move takes a rook into a lost KRvK position is lost with a depth.
        "fen = \"k4/5/5/1R1R1/4K w - - 0 1\"\n",
        // The same with a rook kept to ranks 1-2 (a draw elsewhere) and one to files a-c
        // (a win elsewhere), and taking a rook on c3 counted as a loss for White.
        "fen = \"k4/5/5/1R1R1/4K w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"a1-e2\"]\nelsewhere = \"draw\"\n[[man]]\non = \"d2\"\nsquares = [\"a1-c5\", \"d2\"]\nelsewhere = \"win\"\n[[capture]]\nsquares = [\"c3\"]\nvalue = \"loss\"\n",
        // 6x6: a pawn on b2-b5 (double steps), a rook kept to c1-f3, free kings.
        "fen = \"6/6/3k2/6/1P4/K1R3 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"b2-b5\"]\nelsewhere = \"win\"\n[[man]]\non = \"c1\"\nsquares = [\"c1-f3\"]\nelsewhere = \"draw\"\n[[promotion]]\nvalue = \"win\"\n[[capture]]\nvalue = \"draw\"\n",
        // 4x6: a knight against a black pawn, captures and promotion by rule.
        "fen = \"k3/1p2/4/4/N3/K3 b - - 0 1\"\n[[capture]]\nvalue = \"loss\"\n[[promotion]]\nvalue = \"loss\"\n",
        // 4x5: king and pawn against king, promotions looked up (a knight's draws too).
        "fen = \"4/2k1/4/1P2/K3 w - - 0 1\"\n",
        EN_PASSANT_PROBLEM,
    ];
    let dir = tempfile::tempdir().unwrap();
    for text in problems {
        let problem = Problem::parse(text).expect(text);
        let needed = tables_needed(&problem).unwrap();
        retro_gen::Builder::new(problem.geo.board(), dir.path())
            .build(&needed, &retro_gen::Silent)
            .unwrap();
        let tables = Tablebase::new(problem.geo.board(), dir.path());
        let truth =
            by_definition(&Analysis::unsolved(&problem, &tables, WorkLayout::Wide).unwrap());
        let mut kinds = HashSet::new();
        for layout in [WorkLayout::Wide, WorkLayout::Narrow] {
            let a = Analysis::solve_with(&problem, &tables, layout, &retro_gen::Silent).unwrap();
            for (e, want) in truth.iter().enumerate() {
                let got = a.verdict(side(e & 1), (e >> 1) as u64);
                assert_eq!(got, *want, "{layout:?}, entry {e}: {text}");
                if let Some(v) = got {
                    kinds.insert(v.key().0);
                }
            }
        }
        eprintln!("{text}: value kinds {kinds:?}");
        assert!(kinds.len() >= 3, "{text}: values of too few kinds");
    }
}

/// The un-moves list exactly the entries with a move staying in the index to a given entry:
/// checked on every legal entry of small problems with sliders, knights, pawns (single and
/// double steps) and restricted men.
#[test]
fn unmoves_are_the_moves_reversed() {
    let problems = [
        // 6x6: a pawn on b2-b5 (double steps from b2), a rook kept to c1-f3, free kings.
        "fen = \"6/6/3k2/6/1P4/K1R3 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"b2-b5\"]\nelsewhere = \"win\"\n[[man]]\non = \"c1\"\nsquares = [\"c1-f3\"]\nelsewhere = \"draw\"\n[[promotion]]\nvalue = \"win\"\n[[capture]]\nvalue = \"draw\"\n",
        // 4x6: a knight against a black pawn, captures by rule.
        "fen = \"k3/1p2/4/4/N3/K3 b - - 0 1\"\n[[capture]]\nvalue = \"loss\"\n[[promotion]]\nvalue = \"loss\"\n",
        // 4x6: queen kept to the light squares against a king.
        "fen = \"k3/4/4/4/4/KQ2 w - - 0 1\"\n[[man]]\non = \"b1\"\nsquares = [\"light\"]\nelsewhere = \"loss\"\n[[capture]]\nvalue = \"draw\"\n",
        EN_PASSANT_PROBLEM,
    ];
    for text in problems {
        let problem = Problem::parse(text).expect(text);
        let tables = Tablebase::new(problem.geo.board(), std::env::temp_dir());
        let a = Analysis::unsolved(&problem, &tables, WorkLayout::Wide).unwrap();
        let size = a.space.entries();
        let n = problem.men.len();
        let mut edges = HashSet::new();
        let mut legal = HashSet::new();
        for x in 0..2 {
            for entry in 0..size {
                let mut squares = [0 as Sq; MAX_MEN];
                let (index, ep) = a.space.decode(entry, &mut squares[..n]);
                let Some(pos) = a.position(&squares[..n], x, ep) else {
                    continue;
                };
                legal.insert(entry << 1 | x as u64);
                pos.for_each_legal_move(&problem.geo, None, |mv| {
                    if let Ok(Step::Stays(child)) = a.step(&pos, &squares[..n], index, &mv) {
                        edges.insert((entry << 1 | x as u64, child << 1 | (1 - x) as u64));
                    }
                });
            }
        }
        assert!(edges.len() > 1000, "{text}: {} moves", edges.len());
        if text == EN_PASSANT_PROBLEM {
            // Double steps into en-passant entries, and moves out of them, both ways.
            let ep = |e: u64| e >> 1 >= a.space.size();
            for x in 0..2u64 {
                let into = edges.iter().filter(|(p, c)| p & 1 == x && ep(*c)).count();
                let out = edges.iter().filter(|(p, _)| p & 1 == x && ep(*p)).count();
                assert!(into > 0 && out > 0, "side {x}: {into} into, {out} out of");
            }
        }
        let mut found = HashSet::new();
        for &child in &legal {
            a.for_each_parent(child, |parent, _| {
                if legal.contains(&parent) {
                    assert!(found.insert((parent, child)), "a parent listed twice");
                }
            });
        }
        assert_eq!(found, edges, "{text}");
    }
}
