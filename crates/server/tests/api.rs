//! The JSON API and the pages through the router, without a network: answers in the shape
//! `retro probe --json` prints, 400 for bad input with the command line's message, 404 for a
//! table that is not built with the command that builds it, and no panic on any input.

mod common;

use axum::http::StatusCode;
use common::{get, get_json};
use retro_engine::Material;
use retro_rules::Board;

fn tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(Board::STANDARD, dir.path())
        .build(&[Material::parse("KRvK").unwrap()], &retro_gen::Silent)
        .unwrap();
    dir
}

fn fen_query(fen: &str) -> String {
    fen.replace(' ', "%20")
}

#[tokio::test]
async fn probe_line_stats_and_strategy() {
    let dir = tables();
    let fen = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1";
    let (status, json) = get_json(dir.path(), &format!("/api/probe?fen={}", fen_query(fen))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json["category"], "win");
    assert_eq!(json["dtm"], 31);
    let moves = json["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert_eq!(moves[0]["category"], "loss");
    assert!(moves[0]["fen"].as_str().unwrap().ends_with(" b - - 0 1"));

    let (status, json) = get_json(dir.path(), &format!("/api/line?fen={}", fen_query(fen))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json["line"].as_array().unwrap().len(), 31);
    assert!(json["pgn"]
        .as_str()
        .unwrap()
        .contains("[FEN \"8/8/8/8/8/2k5/1R6/K7 w - - 0 1\"]"));

    let (status, json) = get_json(dir.path(), "/api/stats/KRvK").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json["white_to_move"]["longest_win"]["plies"], 31);

    let (status, json) = get_json(
        dir.path(),
        &format!("/api/strategy/krk?fen={}&board=8", fen_query(fen)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert!(json["move"].as_str().unwrap().len() == 4);
    assert!(json["kind"].is_string());
    assert!(json["optimal"]["uci"].is_string());
}

/// A directory of packed tables is served as the raw one is: the same answers, each table
/// listed once.
#[tokio::test]
async fn packed_tables_are_served_as_raw_ones() {
    let raw = tables();
    let packed = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(Board::STANDARD, packed.path())
        .with_pack(Some(Default::default()))
        .build(&[Material::parse("KRvK").unwrap()], &retro_gen::Silent)
        .unwrap();
    let fen = fen_query("8/8/8/8/8/2k5/1R6/K7 w - - 0 1");
    for uri in [
        format!("/api/probe?fen={fen}"),
        format!("/api/line?fen={fen}"),
        "/api/stats/KRvK".to_string(),
        "/api/tables".to_string(),
    ] {
        let (status, from_packed) = get(packed.path(), &uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {from_packed}");
        assert_eq!(from_packed, get(raw.path(), &uri).await.1, "{uri}");
    }
}

#[tokio::test]
async fn the_learning_data() {
    let dir = tables();
    let (status, json) = get_json(dir.path(), "/api/learn/KRvK").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    // Hurd's KR_K row, from the paper: every White-to-move position is won, in at most 16.
    let rows = json["table1"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["equal"] == true), "{rows:?}");
    let row = rows
        .iter()
        .find(|r| r["paper"]["material"] == "KR_K")
        .unwrap();
    assert_eq!(row["paper"]["wtm_max_moves"], 16);
    assert_eq!(json["zugzwangs"]["total"], 0);
    let (status, json) = get_json(dir.path(), "/api/tables").await;
    assert_eq!(status, StatusCode::OK);
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["material"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"KRvK") && names.contains(&"KvK"),
        "{names:?}"
    );
}

#[tokio::test]
async fn bad_input_is_400_and_missing_tables_404() {
    let dir = tables();
    let cases: [(&str, StatusCode, &str); 9] = [
        ("/api/probe", StatusCode::BAD_REQUEST, "needs a position"),
        (
            "/api/probe?fen=not%20a%20fen",
            StatusCode::BAD_REQUEST,
            "invalid FEN",
        ),
        // Two white kings.
        (
            "/api/probe?fen=8/8/8/8/8/2k5/1K6/K7%20w%20-%20-%200%201",
            StatusCode::BAD_REQUEST,
            "illegal",
        ),
        // KBNvK is not built: the answer says how to build it.
        (
            "/api/probe?fen=8/8/8/8/8/2k5/8/KBN5%20w%20-%20-%200%201",
            StatusCode::NOT_FOUND,
            "retro gen KBNvK",
        ),
        (
            "/api/stats/KXvK",
            StatusCode::BAD_REQUEST,
            "unknown material",
        ),
        ("/api/stats/KQvK", StatusCode::NOT_FOUND, "retro gen"),
        (
            "/api/stats/KRvK?board=99x1",
            StatusCode::BAD_REQUEST,
            "board",
        ),
        (
            "/api/strategy/krk?fen=8/8/8/8/8/2k5/1Q6/K7%20w%20-%20-%200%201",
            StatusCode::BAD_REQUEST,
            "rook",
        ),
        ("/no/such/page", StatusCode::NOT_FOUND, "no such page"),
    ];
    for (uri, expected, text) in cases {
        let (status, body) = get(dir.path(), uri).await;
        assert_eq!(status, expected, "{uri}: {body}");
        assert!(body.contains(text), "{uri}: {body}");
    }
}

#[tokio::test]
async fn odd_input_gets_a_client_error_not_a_panic() {
    let dir = tables();
    let nasty = [
        "/api/probe?fen=%00%ff",
        "/api/probe?fen=",
        "/api/probe?fen=8/8/8/8/8/8/8/8%20w%20-%20-%200%201",
        "/api/probe?fen=kkkkkkkk/8/8/8/8/8/8/KKKKKKKK%20w%20-%20-%200%201",
        "/api/probe?fen=1/1%20w",
        "/api/line?fen=K1k%20w%20-%20-%200%201",
        "/api/stats/%20",
        "/api/strategy/krk?fen=k/K%20w&board=0",
        "/api/strategy/krk?fen=8/8/8/8/8/2k5/1R6/K7%20w%20-%20-%200%201&board=300",
        "/assets/..%2f..%2fetc%2fpasswd",
    ];
    for uri in nasty {
        let (status, body) = get(dir.path(), uri).await;
        assert!(status.is_client_error(), "{uri}: {status} {body}");
    }
}

#[tokio::test]
async fn the_position_page_and_its_assets() {
    let dir = tables();
    let (status, html) = get(dir.path(), "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("<div id=\"board\"") && html.contains("/assets/position.js"));
    let (status, js) = get(dir.path(), "/assets/position.js").await;
    assert_eq!(status, StatusCode::OK);
    assert!(js.contains("/api/probe"));
    let (status, _) = get(dir.path(), "/assets/retro.css").await;
    assert_eq!(status, StatusCode::OK);
}
