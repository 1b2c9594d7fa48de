//! The position page in a real browser (Debian's chromium driven through chromedriver's
//! WebDriver protocol): it loads, lists the moves grouped by result, plays a move when one is
//! clicked, shows the best line with its PGN, and draws boards of other sizes. Screenshots go
//! to `target/tmp/screenshots/`.
//!
//! Chromium and chromedriver are installed with apt-get when missing, so `cargo test` needs no
//! preparation on a fresh Debian machine (as root, as CI runs).

use base64::Engine as _;
use retro_engine::Material;
use retro_rules::Board;
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// Chromium and chromedriver, installed with apt-get if missing.
fn browser() -> (PathBuf, PathBuf) {
    let found = || Some((on_path("chromium")?, on_path("chromedriver")?));
    if let Some(both) = found() {
        return both;
    }
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600"])
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    if !apt(&["install", "-y", "chromium", "chromium-driver"]) {
        apt(&["update"]);
        apt(&["install", "-y", "chromium", "chromium-driver"]);
    }
    found().expect(
        "chromium and chromedriver are needed for the browser tests: `apt-get install chromium chromium-driver` failed",
    )
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The server on a free loopback port, in a thread of its own.
fn start_server(dir: &Path) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime
            .block_on(retro_server::serve(
                "127.0.0.1:0".parse().unwrap(),
                retro_server::AppState::new(dir),
                true,
                move |addr| tx.send(addr).unwrap(),
            ))
            .unwrap();
    });
    rx.recv_timeout(Duration::from_secs(10)).unwrap()
}

/// A chromedriver process, killed when dropped.
struct Driver {
    child: Child,
    url: String,
    agent: ureq::Agent,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn start(chromedriver: &Path) -> Driver {
        let port = free_port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            agent,
        };
        let start = Instant::now();
        while driver.get("/status").is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    fn get(&self, path: &str) -> Option<Value> {
        let mut response = self.agent.get(format!("{}{path}", self.url)).call().ok()?;
        response.body_mut().read_json().ok()
    }

    fn post(&self, path: &str, body: Value) -> Value {
        let mut response = self
            .agent
            .post(format!("{}{path}", self.url))
            .send_json(&body)
            .unwrap();
        response.body_mut().read_json().unwrap()
    }
}

/// A browser session.
struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self
            .driver
            .agent
            .delete(format!("{}/session/{}", self.driver.url, self.id))
            .call();
    }
}

impl<'a> Session<'a> {
    fn new(driver: &'a Driver, chromium: &Path) -> Session<'a> {
        let answer = driver.post(
            "/session",
            json!({ "capabilities": { "alwaysMatch": { "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1200,800"],
            }}}}),
        );
        let id = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_string();
        Session { driver, id }
    }

    fn command(&self, path: &str, body: Value) -> Value {
        self.driver
            .post(&format!("/session/{}{path}", self.id), body)["value"]
            .clone()
    }

    fn open(&self, url: &str) {
        self.command("/url", json!({ "url": url }));
    }

    /// Runs `script` in the page and returns its value.
    fn eval(&self, script: &str) -> Value {
        self.command("/execute/sync", json!({ "script": script, "args": [] }))
    }

    /// Waits until `script` returns true.
    fn wait_for(&self, script: &str, what: &str) {
        let start = Instant::now();
        while self.eval(script) != json!(true) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}; status: {}; board: {}",
                self.eval("return document.getElementById('status').textContent"),
                self.eval("return document.getElementById('board').innerHTML.slice(0, 300)")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the first element matching `css`, as a user does.
    fn click(&self, css: &str) {
        let found = self.command("/element", json!({ "using": "css selector", "value": css }));
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string();
        self.command(&format!("/element/{id}/click"), json!({}));
    }

    /// Clicks the square `square` (e.g. `b8`) of the chessground board, White at the bottom.
    fn click_square(&self, square: &str) {
        let found = self.command(
            "/element",
            json!({ "using": "css selector", "value": "cg-board" }),
        );
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .cloned()
            .unwrap();
        let width = self
            .eval("return document.querySelector('cg-board').getBoundingClientRect().width")
            .as_f64()
            .unwrap();
        let bytes = square.as_bytes();
        let (file, rank) = (f64::from(bytes[0] - b'a'), f64::from(bytes[1] - b'1'));
        let side = width / 8.0;
        let x = (file + 0.5) * side - width / 2.0;
        let y = (7.0 - rank + 0.5) * side - width / 2.0;
        self.command(
            "/actions",
            json!({ "actions": [{
                "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" },
                "actions": [
                    { "type": "pointerMove", "duration": 0, "x": x.round() as i64, "y": y.round() as i64,
                      "origin": { "element-6066-11e4-a52e-4f735466cecf": id } },
                    { "type": "pointerDown", "button": 0 },
                    { "type": "pointerUp", "button": 0 },
                ],
            }]}),
        );
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        let encoded = self
            .driver
            .get(&format!("/session/{}/screenshot", self.id))
            .unwrap();
        let png = base64::engine::general_purpose::STANDARD
            .decode(encoded["value"].as_str().unwrap())
            .unwrap();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, png).unwrap();
        path
    }
}

fn text_of(session: &Session, id: &str) -> String {
    session
        .eval(&format!(
            "return document.getElementById('{id}').textContent"
        ))
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_position_page_in_a_browser() {
    let (chromium, chromedriver) = browser();
    let tables = tempfile::tempdir().unwrap();
    for board in [Board::STANDARD, Board::new(5, 5).unwrap()] {
        retro_gen::Builder::new(board, tables.path())
            .with_metrics(&[retro_gen::Metric::Dtm, retro_gen::Metric::Fifty])
            .build(&[Material::parse("KRvK").unwrap()], &retro_gen::Silent)
            .unwrap();
    }
    retro_gen::Builder::new(Board::STANDARD, tables.path())
        .build(&[Material::parse("KQvK").unwrap()], &retro_gen::Silent)
        .unwrap();
    let addr = start_server(tables.path());
    let driver = Driver::start(&chromedriver);
    let session = Session::new(&driver, &chromium);

    // KRvK, mate in 16: chessground draws the three men, the moves load, grouped by result.
    session.open(&format!(
        "http://{addr}/?fen=8/8/8/8/8/2k5/1R6/K7%20w%20-%20-%200%201"
    ));
    session.wait_for(
        "return document.querySelectorAll('#board piece:not(.ghost)').length === 3 && document.querySelectorAll('.group.win .move').length > 0",
        "the board and the winning moves",
    );
    assert!(text_of(&session, "status").contains("White to move: mate in 16 (31 plies)"));
    assert!(
        text_of(&session, "rule").contains("Under the fifty-move rule: a win, DTZ50 31 plies"),
        "{}",
        text_of(&session, "rule")
    );
    session.screenshot("position-page.png");

    // The same position 80 plies after the last capture or pawn move: the mate comes too
    // late, a cursed win, said and explained; the moves grouped as cursed wins.
    session.open(&format!(
        "http://{addr}/?fen=8/8/8/8/8/2k5/1R6/K7%20w%20-%20-%2080%2060"
    ));
    session.wait_for(
        "return document.getElementById('rule').textContent.includes('cursed win') && document.querySelectorAll('.group.cursed .move').length > 0",
        "the cursed win at clock 80",
    );
    assert!(text_of(&session, "rule").contains("claim a draw"));
    session.screenshot("position-page-cursed.png");
    session.open(&format!(
        "http://{addr}/?fen=8/8/8/8/8/2k5/1R6/K7%20w%20-%20-%200%201"
    ));
    session.wait_for(
        "return document.querySelectorAll('#board piece:not(.ghost)').length === 3 && document.querySelectorAll('.group.win .move').length > 0",
        "the board again",
    );

    // A move played on the board by clicking the rook, then b8: Black to move, new moves.
    let before = session.eval("return document.querySelector('.move').dataset.uci");
    session.click_square("b2");
    session.click_square("b8");
    session.wait_for(
        "return document.getElementById('status').textContent.includes('Black to move')",
        "the position after Rb8",
    );
    assert!(session
        .eval("return decodeURIComponent(location.search)")
        .as_str()
        .unwrap()
        .contains("1R6/8/8/8/8/2k5/8/K7 b"));
    let after = session.eval("return document.querySelector('.move').dataset.uci");
    assert_ne!(before, after);

    // A move played from the list: White to move again.
    session.click(".group.loss .move");
    session.wait_for(
        "return document.getElementById('status').textContent.includes('White to move')",
        "the position after Black's reply",
    );

    // The best line, to step through, with its PGN.
    session.click("#show-line");
    session.wait_for(
        "return document.querySelectorAll('#line-steps .step').length > 10",
        "the best line",
    );
    assert!(session
        .eval("return document.getElementById('pgn').value")
        .as_str()
        .unwrap()
        .contains("[FEN \""));
    session.click("#line-steps .step");
    std::thread::sleep(Duration::from_millis(500)); // chessground animates the move
    let shot = session.screenshot("best-line.png");
    eprintln!("screenshots in {}", shot.parent().unwrap().display());

    // The board editor: a new position set up man by man; then the table of KQvK answers.
    session.click("#edit");
    session.wait_for(
        "return !document.getElementById('editor').hidden && document.querySelectorAll('#board rect').length === 64",
        "the editor",
    );
    session.click("#edit-clear");
    for (piece, square) in [
        ("K", "a1"),
        ("k", "c3"),
        ("Q", "d1"),
        ("N", "h8"),
        ("x", "h8"),
    ] {
        session.click(&format!(".palette-piece[data-piece='{piece}']"));
        session.click(&format!("#board rect[data-square='{square}']"));
    }
    let fen = session.eval("return document.getElementById('fen').value");
    assert_eq!(fen, json!("8/8/8/8/8/2k5/8/K2Q4 w - - 0 1"));
    session.screenshot("editor.png");
    session.click("#edit-done");
    session.wait_for(
        "return document.getElementById('status').textContent.startsWith('KQvK on 8x8')",
        "the edited position's value",
    );

    // Playing against the table: after White's move the table answers for Black at once.
    session.click("#play");
    session.wait_for(
        "return document.getElementById('status').textContent.includes('your move')",
        "the game against the table",
    );
    session.click(".group.win .move");
    session.wait_for(
        "return document.getElementById('status').textContent.includes('White to move') && document.getElementById('status').textContent.includes('your move')",
        "the table's reply",
    );
    session.click("#play");

    // The learning page: Table 1's row beside the paper's, the chart of depths, the longest
    // wins, the mutual zugzwangs.
    session.open(&format!("http://{addr}/learn/KRvK"));
    session.wait_for(
        "return document.querySelectorAll('.depth-chart .bar').length > 20 && document.getElementById('zugzwangs').textContent.length > 0",
        "the learning page's chart",
    );
    let page = session
        .eval("return document.querySelector('main').textContent")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        page.contains("KR_K") && page.contains("mate in 16 (31 plies)"),
        "{page}"
    );
    assert_eq!(
        session.eval("return document.querySelectorAll('tr.differs').length"),
        json!(0)
    );
    // The longest win, stepped through in place.
    session.click(".step-through");
    session.wait_for(
        "return document.querySelectorAll('.mini-board rect').length === 64",
        "the line viewer",
    );
    for _ in 0..3 {
        session.click(".line-viewer .next");
    }
    session.wait_for(
        "return document.querySelector('.line-viewer .caption').textContent.startsWith('after ')",
        "three steps of the best line",
    );
    session.screenshot("learning-page.png");
    session.eval("document.querySelector('.line-viewer').scrollIntoView(); return true");
    session.screenshot("learning-page-line.png");
    session.open(&format!("http://{addr}/learn"));
    session.wait_for(
        "return document.querySelectorAll('ul.materials a').length >= 2",
        "the list of endgames",
    );

    // The KRK strategy page: the strategy's move and kind beside the optimal one, played out.
    session.open(&format!("http://{addr}/strategy/krk"));
    session.wait_for(
        "return document.getElementById('strategy-kind').textContent.length > 1 && document.getElementById('optimal-dtm').textContent.includes('plies')",
        "the strategy's move",
    );
    session.click("#step");
    session.wait_for(
        "return document.querySelectorAll('#history li').length === 1 && document.querySelector('#history li').textContent.includes('…')",
        "the strategy's move and the table's reply",
    );
    session.screenshot("krk-strategy.png");

    // Another board size: 5x5 is drawn with 25 squares.
    session.open(&format!(
        "http://{addr}/?fen=5/5/2k2/5/KR3%20w%20-%20-%200%201"
    ));
    session.wait_for(
        "return document.querySelectorAll('#board rect').length === 25 && document.querySelectorAll('.move').length > 0",
        "the 5x5 board",
    );
    assert!(text_of(&session, "status").contains("on 5x5"));
    session.screenshot("position-page-5x5.png");
}
