//! The Lichess tablebase API as `retro serve` answers it: the key sets and value types of
//! lila-tablebase's documented responses (the fixtures in `tests/fixtures/`, written from the
//! examples of lila-tablebase's README for `GET /standard` and `GET /standard/mainline`, with the
//! `conversion` flag of its moves and the `precise_dtz` of its current main line), the values
//! against `retro`'s own API, and against the README's own example under the fifty-move rule.

mod common;

use axum::http::StatusCode;
use common::get_json;
use retro_engine::Material;
use retro_rules::Board;
use serde_json::Value;
use std::path::Path;

/// Keys lila-tablebase documents as "or null if unknown": a number there, null here allowed.
const NULLABLE: [&str; 4] = ["dtz", "precise_dtz", "dtm", "winner"];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `ours` has exactly the fixture's keys, each of the fixture's type (or null where the key is
/// nullable), arrays compared element by element against the fixture's first element.
fn same_shape(ours: &Value, fixture: &Value, at: &str) {
    match (ours, fixture) {
        (Value::Object(a), Value::Object(b)) => {
            let mut ka: Vec<_> = a.keys().collect();
            let mut kb: Vec<_> = b.keys().collect();
            ka.sort();
            kb.sort();
            assert_eq!(ka, kb, "the keys at {at}");
            for (k, v) in b {
                let ours = &a[k];
                if ours.is_null() && NULLABLE.contains(&k.as_str()) {
                    continue;
                }
                same_shape(ours, v, &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if let Some(first) = b.first() {
                for (i, x) in a.iter().enumerate() {
                    same_shape(x, first, &format!("{at}[{i}]"));
                }
            }
        }
        _ => assert_eq!(kind(ours), kind(fixture), "the type at {at}"),
    }
}

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn standard_and_mainline_speak_lila_tablebase() {
    let dir = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(Board::STANDARD, dir.path())
        .build(&[Material::parse("KPvK").unwrap()], &retro_gen::Silent)
        .unwrap();
    // A white pawn on the seventh rank: promotions (conversions), pawn and king moves.
    let fen = "4k3/6KP/8/8/8/8/8/8_w_-_-_0_1";
    let (status, standard) = get_json(dir.path(), &format!("/standard?fen={fen}")).await;
    assert_eq!(status, StatusCode::OK, "{standard}");
    same_shape(&standard, &fixture("lichess-standard.json"), "standard");
    // The values are retro's own.
    let (_, ours) = get_json(
        dir.path(),
        &format!("/api/probe?fen={}", fen.replace('_', "%20")),
    )
    .await;
    assert_eq!(standard["dtm"], ours["dtm"]);
    assert_eq!(standard["category"], ours["category"]);
    let moves = standard["moves"].as_array().unwrap();
    let theirs = ours["moves"].as_array().unwrap();
    assert_eq!(moves.len(), theirs.len());
    // The same values, in lila-tablebase's order here (a conversion first among moves that
    // mate as fast) rather than retro's.
    assert_eq!(moves[0]["uci"], "h7h8q", "{standard}");
    for m in moves {
        let o = theirs.iter().find(|o| o["uci"] == m["uci"]).unwrap();
        assert_eq!((&m["dtm"], &m["category"]), (&o["dtm"], &o["category"]));
        let promotes = m["uci"].as_str().unwrap().len() == 5;
        let pawn = m["uci"].as_str().unwrap().starts_with("h7");
        assert_eq!(m["conversion"], promotes, "{m}");
        assert_eq!(m["zeroing"], pawn, "{m}");
    }
    assert!(standard["dtz"].is_null() && standard["precise_dtz"].is_null());

    let (status, mainline) = get_json(dir.path(), &format!("/standard/mainline?fen={fen}")).await;
    assert_eq!(status, StatusCode::OK, "{mainline}");
    same_shape(&mainline, &fixture("lichess-mainline.json"), "mainline");
    assert_eq!(mainline["winner"], "w");
    let line = mainline["mainline"].as_array().unwrap();
    assert_eq!(line.len() as i64, standard["dtm"].as_i64().unwrap());
    assert!(line.last().unwrap()["san"].as_str().unwrap().ends_with('#'));

    // A drawn position: category draw, dtm null, an empty main line and no winner.
    let draw = "8/8/8/8/8/k7/8/K7_w_-_-_0_1";
    let (status, kvk) = get_json(dir.path(), &format!("/standard?fen={draw}")).await;
    assert_eq!(status, StatusCode::OK, "{kvk}");
    assert_eq!(
        (kvk["category"].as_str(), kvk["dtm"].is_null()),
        (Some("draw"), true)
    );
    assert_eq!(kvk["insufficient_material"], true);
    let (_, drawn) = get_json(dir.path(), &format!("/standard/mainline?fen={draw}")).await;
    assert_eq!(
        (
            drawn["mainline"].as_array().unwrap().len(),
            drawn["winner"].is_null()
        ),
        (0, true)
    );

    // Bad input: 400; a table not built: 404, as lila-tablebase answers.
    let (status, _) = get_json(dir.path(), "/standard?fen=not_a_fen").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = get_json(dir.path(), "/standard").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = get_json(dir.path(), "/standard?fen=4k3/8/8/8/8/8/8/3QK3_w_-_-_0_1").await;
    assert_eq!(
        status,
        StatusCode::OK,
        "KQvK is built for KPvK's promotions"
    );
    let (status, _) = get_json(dir.path(), "/standard?fen=4k3/8/8/8/8/8/8/2RQK3_w_-_-_0_1").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// lila-tablebase's README example, `4k3/6KP/8/8/8/8/7p/8 w - - 0 1`, from the DTZ50 and DTM
/// tables: the values it documents (DTZ 1 and DTM 17; h8=Q+ leaves DTZ −2 and DTM −16; the
/// main line h8=Q+ Kd7 with DTZ −2 and 1), the moves in its order, and a cursed win at a late
/// halfmove clock.
#[tokio::test]
async fn the_readme_example_under_the_fifty_move_rule() {
    let dir = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(Board::STANDARD, dir.path())
        .with_metrics(&[retro_gen::Metric::Dtm, retro_gen::Metric::Fifty])
        .build(&[Material::parse("KPvKP").unwrap()], &retro_gen::Silent)
        .unwrap();
    let fen = "4k3/6KP/8/8/8/8/7p/8_w_-_-_0_1";
    let (status, standard) = get_json(dir.path(), &format!("/standard?fen={fen}")).await;
    assert_eq!(status, StatusCode::OK, "{standard}");
    same_shape(&standard, &fixture("lichess-standard.json"), "standard");
    assert_eq!(
        (&standard["dtz"], &standard["precise_dtz"], &standard["dtm"]),
        (&Value::from(1), &Value::from(1), &Value::from(17))
    );
    assert_eq!(standard["category"], "win");
    let first = &standard["moves"][0];
    assert_eq!(
        (
            &first["uci"],
            &first["dtz"],
            &first["dtm"],
            &first["category"]
        ),
        (
            &Value::from("h7h8q"),
            &Value::from(-2),
            &Value::from(-16),
            &Value::from("loss")
        )
    );
    // Every move's DTZ is exact: never null.
    assert!(standard["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["precise_dtz"].is_i64() && m["precise_dtz"] == m["dtz"]));
    let (status, mainline) = get_json(dir.path(), &format!("/standard/mainline?fen={fen}")).await;
    assert_eq!(status, StatusCode::OK, "{mainline}");
    same_shape(&mainline, &fixture("lichess-mainline.json"), "mainline");
    let line = mainline["mainline"].as_array().unwrap();
    assert_eq!(
        (&line[0]["uci"], &line[0]["dtz"]),
        (&Value::from("h7h8q"), &Value::from(-2))
    );
    assert_eq!(
        (&line[1]["uci"], &line[1]["dtz"]),
        (&Value::from("e8d7"), &Value::from(1))
    );
    assert_eq!(mainline["winner"], "w");
    assert!(line.last().unwrap()["san"].as_str().unwrap().ends_with('#'));
    // The same position 99 plies after the last capture or pawn move: the promotion still
    // zeroes the clock in time, so a win.
    let (_, late) = get_json(dir.path(), "/standard?fen=4k3/6KP/8/8/8/8/7p/8_w_-_-_99_60").await;
    assert_eq!(late["category"], "win");
}
