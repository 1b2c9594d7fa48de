//! Hand-worked games and a randomised cross-check of the reference solver.

use super::*;

fn set(items: &[&'static str]) -> BTreeSet<&'static str> {
    items.iter().copied().collect()
}

/// A small game whose sets are worked out by hand in the comments below.
///
/// Player I moves from a, c, e, x, z, v, t; Player II moves from w0, b, d, s, f, y, u.
/// * `w0` is won for Player I (the analogue of checkmate).
/// * `s` is a stuck non-winning position for Player II (the analogue of stalemate), and `t` is a
///   stuck position for Player I.
/// * `x ⇄ y` is a cycle with no way out: play goes on for ever and Player I never wins.
/// * `u ⇄ v` is a cycle from which Player I can escape to `w0`.
/// * `ill` is illegal and takes part in nothing.
fn hand_game() -> ExplicitGame<&'static str> {
    let mut g = ExplicitGame::new();
    for p in [
        "w0", "a", "b", "c", "d", "s", "e", "f", "x", "y", "z", "u", "v", "t",
    ] {
        g = g.legal(p);
    }
    g.win("w0")
        .move1("a", "w0")
        .move1("a", "b")
        .move2("b", "a")
        .move1("c", "b")
        .move2("d", "a")
        .move2("d", "c")
        .move1("e", "s")
        .move2("f", "a")
        .move2("f", "e")
        .move1("x", "y")
        .move2("y", "x")
        .move1("z", "y")
        .move1("z", "b")
        .move2("u", "v")
        .move1("v", "u")
        .move1("v", "w0")
}

#[test]
fn hand_game_sets_match_hand_computation() {
    let g = hand_game();
    let mut universe = g.universe();
    universe.insert("ill");
    let solved = solve(&g, universe).unwrap();

    // win2_by 0 = {p | W p} = {w0}.
    assert_eq!(solved.win2_by(0), set(&["w0"]));
    // win1_by 0: Player I moves into {w0}: a and v.
    assert_eq!(solved.win1_by(0), set(&["a", "v"]));
    // win2_by 1 adds the non-terminal legal positions whose every Player II move lands in
    // {a, v}: b (→ a) and u (→ v). d has c, f has e, y has x; s is terminal; Player I's
    // positions have no Player II moves, so they are terminal2 and excluded.
    assert_eq!(solved.win2_by(1), set(&["w0", "b", "u"]));
    // win1_by 1: moves into {w0, b, u}: a, c (→ b), z (→ b), v.
    assert_eq!(solved.win1_by(1), set(&["a", "c", "z", "v"]));
    // win2_by 2 adds d (→ a, c). f still has e, which never wins (it can only reach s).
    assert_eq!(solved.win2_by(2), set(&["w0", "b", "u", "d"]));
    assert_eq!(solved.win1_by(2), set(&["a", "c", "z", "v"]));
    // From 2 on nothing changes.
    assert_eq!(solved.stable_at(), 2);
    assert_eq!(solved.win2_by(10), solved.win2_by(2));
    assert_eq!(solved.win1(), solved.win1_by(2));
    assert_eq!(solved.win2(), solved.win2_by(2));

    // terminal1: legal positions with no Player I move: t, and every Player II position.
    assert_eq!(
        solved.terminal1(),
        set(&["t", "w0", "b", "d", "s", "f", "y", "u"])
    );
    // terminal2: legal positions with no Player II move: w0, s, and every Player I position.
    assert_eq!(
        solved.terminal2(),
        set(&["w0", "s", "a", "c", "e", "x", "z", "v", "t"])
    );

    assert_eq!(solved.least_win2_by(&"d"), Some(2));
    assert_eq!(solved.least_win1_by(&"c"), Some(1));
    // The stuck positions and the endless cycle are never won.
    for p in ["s", "e", "f", "x", "y", "t", "ill"] {
        assert_eq!(solved.least_win1_by(&p), None, "{p}");
        assert_eq!(solved.least_win2_by(&p), None, "{p}");
    }
}

#[test]
fn stuck_position_is_not_won_even_though_every_move_wins_vacuously() {
    // The only position: Player II to move, no moves, not W. The universal quantifier in
    // win2_by is vacuously true, and it is `− terminal2` that keeps stalemate out of the set.
    let g = ExplicitGame::new().legal("stalemate");
    let solved = solve(&g, ["stalemate"]).unwrap();
    assert!(solved.win2().is_empty());
    assert_eq!(solved.terminal2(), set(&["stalemate"]));
}

#[test]
fn moves_from_illegal_positions_are_rejected() {
    let g = ExplicitGame::new().legal("b").move1("a", "b");
    let err = solve(&g, ["a", "b"]).unwrap_err();
    assert_eq!(
        err,
        GameError::NotTwoPlayer {
            what: "M",
            position: "a"
        }
    );
    let g = ExplicitGame::new().win("a");
    assert!(matches!(
        solve(&g, ["a"]),
        Err(GameError::NotTwoPlayer { what: "W", .. })
    ));
}

#[test]
fn universe_must_be_closed_under_moves() {
    let g = ExplicitGame::new().legal("a").legal("b").move1("a", "b");
    assert_eq!(
        solve(&g, ["a"]).unwrap_err(),
        GameError::NotClosed { from: "a", to: "b" }
    );
}

/// A tiny deterministic generator, so the test needs no dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// Backward induction with counters — the usual retrograde algorithm, written independently of
/// the set definitions — returns the least n for win1_by and win2_by.
fn retrograde(g: &ExplicitGame<u32>, n: u32) -> (Vec<Option<u32>>, Vec<Option<u32>>) {
    let count = n as usize;
    let mut preds1 = vec![Vec::new(); count];
    let mut preds2 = vec![Vec::new(); count];
    let mut remaining = vec![0usize; count];
    for p in 0..n {
        for q in g.moves1(&p) {
            preds1[q as usize].push(p);
        }
        for q in g.moves2(&p) {
            preds2[q as usize].push(p);
            remaining[p as usize] += 1;
        }
    }
    let mut d1 = vec![None; count];
    let mut d2: Vec<Option<u32>> = (0..n).map(|p| g.win(&p).then_some(0)).collect();
    let mut frontier: Vec<u32> = (0..n).filter(|&p| g.win(&p)).collect();
    let mut depth = 0;
    while !frontier.is_empty() {
        let mut new1 = Vec::new();
        for &q in &frontier {
            for &p in &preds1[q as usize] {
                if d1[p as usize].is_none() {
                    d1[p as usize] = Some(depth);
                    new1.push(p);
                }
            }
        }
        let mut next = Vec::new();
        for &q in &new1 {
            for &p in &preds2[q as usize] {
                remaining[p as usize] -= 1;
                if remaining[p as usize] == 0 && g.legal(&p) && d2[p as usize].is_none() {
                    d2[p as usize] = Some(depth + 1);
                    next.push(p);
                }
            }
        }
        frontier = next;
        depth += 1;
    }
    (d1, d2)
}

#[test]
fn random_games_agree_with_backward_induction() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..300 {
        let n = 2 + rng.next(40) as u32;
        let mut g = ExplicitGame::new();
        let legal: Vec<bool> = (0..n).map(|_| rng.next(10) != 0).collect();
        for p in 0..n {
            if !legal[p as usize] {
                continue;
            }
            g = g.legal(p);
            // Positions may be Player I's, Player II's, or (the theory allows it) both.
            let kind = rng.next(5);
            if kind != 1 {
                for _ in 0..rng.next(4) {
                    g = g.move1(p, rng.next(n as u64) as u32);
                }
            }
            if kind != 0 {
                for _ in 0..rng.next(4) {
                    g = g.move2(p, rng.next(n as u64) as u32);
                }
                if rng.next(6) == 0 {
                    g = g.win(p);
                }
            }
        }
        let solved = solve(&g, 0..n).unwrap();
        let (d1, d2) = retrograde(&g, n);
        for p in 0..n {
            assert_eq!(solved.least_win1_by(&p), d1[p as usize], "win1_by of {p}");
            assert_eq!(solved.least_win2_by(&p), d2[p as usize], "win2_by of {p}");
        }
    }
}
