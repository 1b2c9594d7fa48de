//! What the Freezer's integration tests share: the values of ways out checked against the
//! full tables they are looked up in.

use retro_engine::Position;
use retro_format::Value;
use retro_freezer::{Analysis, Step, Verdict};
use retro_rules::Side;
use retro_tablebase::Tablebase;

/// Every way out valued by a table look-up (a capture or promotion no rule values), from the
/// index entries `step_by` apart on each side to move: its value must be the table's value of
/// the position it reaches. Returns the ways out compared and how many of them are not draws.
pub fn exits_against_tables(
    analysis: &Analysis<'_>,
    tables: &Tablebase,
    step_by: usize,
) -> (u64, u64) {
    let geo = &analysis.problem().geo;
    let (mut compared, mut decided) = (0, 0);
    for side in [Side::White, Side::Black] {
        for index in (0..analysis.space().size()).step_by(step_by) {
            let Some(pos) = analysis.position_at(side, index) else {
                continue;
            };
            for (mv, step, _) in analysis.rated_moves(side, index).unwrap() {
                let Step::Exits(exit, None) = step else {
                    continue;
                };
                let after: Position = pos
                    .resized::<8>()
                    .unwrap()
                    .play(geo, &mv)
                    .resized()
                    .unwrap();
                let expected = match tables.value(&after).unwrap() {
                    Value::Win(n) => Verdict::Win(Some(n)),
                    Value::Loss(n) => Verdict::Loss(Some(n)),
                    Value::Draw => Verdict::Draw,
                    Value::Illegal => panic!("a legal way out the table calls illegal"),
                };
                assert_eq!(exit, expected, "{}", after.to_natural(geo).fen());
                compared += 1;
                decided += u64::from(expected != Verdict::Draw);
            }
        }
    }
    (compared, decided)
}
