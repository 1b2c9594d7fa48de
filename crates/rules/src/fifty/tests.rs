//! The fifty-move rule's definitions on every position of small universes, with short rules so
//! that cursed wins and blessed losses abound: the classes from the games on (position, clock)
//! against the DTZ50 of the phase game (the module's theorem), and zeroing moves by hand.

use super::*;
use crate::chess::universe;
use crate::{Board, Man};

fn men(text: &str) -> Vec<Man> {
    let mut men = Vec::new();
    let (white, black) = text.split_once('v').unwrap();
    for (side, letters) in [(Side::White, white), (Side::Black, black)] {
        for letter in letters.chars() {
            men.push((side, Piece::from_letter(letter).unwrap()));
        }
    }
    men
}

#[test]
fn pawn_moves_and_captures_zero_the_clock() {
    let zeroing_moves = |fen: &str| -> Vec<String> {
        let p: Position = fen.parse().unwrap();
        successors(&p)
            .into_iter()
            .filter(|(mv, _)| zeroing(&p, mv))
            .map(|(mv, _)| mv.to_string())
            .collect()
    };
    // A king move and a rook move are not zeroing; the rook's and the king's captures are.
    let mut captures = zeroing_moves("k3/4/1K2/r2R w - - 0 1");
    captures.sort();
    assert_eq!(captures, ["b2a1", "d1a1"]);
    // Pushes, the double step and a promotion are.
    let pawn = zeroing_moves("k7/4P3/8/8/8/8/1P6/7K w - - 0 1");
    assert!(pawn.contains(&"b2b3".to_string()) && pawn.contains(&"b2b4".to_string()));
    assert!(pawn.contains(&"e7e8q".to_string()) && pawn.contains(&"e7e8n".to_string()));
    assert!(!pawn.contains(&"h1g1".to_string()));
    // En passant is.
    let ep = zeroing_moves("k7/8/8/3pP3/8/8/8/7K w - d6 0 1");
    assert!(ep.contains(&"e5d6".to_string()), "{ep:?}");
}

/// Every legal position of `men`'s universe on `files × ranks`, the rule allowing `rule`
/// plies: the class from the games on (position, clock) is the class of its DTZ50, and a win's
/// or loss's DTZ50 is the rule less the largest clock at which it still holds.
fn theorem_holds(text: &str, files: usize, ranks: usize, rule: u32) -> BTreeMap<Class, usize> {
    let board = Board::new(files, ranks).unwrap();
    let all = universe(board, &men(text));
    let classes = reference_classes(&all, rule).unwrap();
    let dtz = reference_zeroing(&all, rule, &classes).unwrap();
    let clocked: Vec<Clocked> = all
        .iter()
        .flat_map(|p| {
            (0..=rule).map(|clock| Clocked {
                position: p.clone(),
                clock,
            })
        })
        .collect();
    let solved: BTreeMap<Side, _> = Side::ALL
        .into_iter()
        .map(|side| {
            let game = FiftyMoveChess {
                player_one: side,
                rule_plies: rule,
            };
            (side, solve(&game, clocked.iter().cloned()).unwrap())
        })
        .collect();
    let mut counts = BTreeMap::new();
    for (p, &class) in &classes {
        let value = dtz[p];
        assert_eq!(class_of(value, rule), class, "{} DTZ50 {value:?}", p.fen());
        *counts.entry(class).or_insert(0) += 1;
        let s = to_move(p);
        let holds_at = |clock: u32| {
            let c = Clocked {
                position: p.clone(),
                clock,
            };
            match class {
                Class::Win => solved[&s].least_win1_by(&c).is_some(),
                _ => solved[&opponent(s)].least_win2_by(&c).is_some(),
            }
        };
        if let (Class::Win | Class::Loss, Outcome::Win(n) | Outcome::Loss(n)) = (class, value) {
            let latest = (0..=rule).filter(|&h| holds_at(h)).max().unwrap();
            assert_eq!(n, rule - latest, "{} DTZ50 {value:?}", p.fen());
            // And at every clock up to that one, never beyond.
            assert!((0..=latest).all(holds_at), "{}", p.fen());
        }
    }
    counts
}

#[test]
fn krk_on_4x4_with_a_rule_of_4_plies() {
    let counts = theorem_holds("KRvK", 4, 4, 4);
    // The rule is short enough that some of KRvK's wins are cursed.
    assert!(
        counts[&Class::CursedWin] > 0 && counts[&Class::BlessedLoss] > 0,
        "{counts:?}"
    );
    assert!(
        counts[&Class::Win] > 0 && counts[&Class::Loss] > 0,
        "{counts:?}"
    );
}

#[test]
fn kpk_on_4x4_with_a_rule_of_4_plies() {
    let counts = theorem_holds("KPvK", 4, 4, 4);
    assert!(
        counts[&Class::Win] > 0 && counts[&Class::Draw] > 0,
        "{counts:?}"
    );
}

#[test]
fn knkp_on_3x4_with_a_rule_of_2_plies() {
    theorem_holds("KNvKP", 3, 4, 2);
}

#[test]
fn a_mate_on_the_last_ply_of_the_rule_wins() {
    // KRvK on 4×4, White to move mates in one: won at every clock below the rule's end, the
    // mate itself coming on the rule's last ply.
    let p: Position = "k3/4/1K2/3R w - - 0 1".parse().unwrap();
    let board = p.board();
    let all = universe(board, &men("KRvK"));
    let game = FiftyMoveChess {
        player_one: Side::White,
        rule_plies: 4,
    };
    let clocked = all.iter().flat_map(|q| {
        (0..=4).map(|clock| Clocked {
            position: q.clone(),
            clock,
        })
    });
    let solved = solve(&game, clocked).unwrap();
    let at = |clock| Clocked {
        position: p.clone(),
        clock,
    };
    assert_eq!(solved.least_win1_by(&at(3)), Some(0));
    assert_eq!(solved.least_win1_by(&at(4)), None);
}
