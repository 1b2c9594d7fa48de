//! The decoder of whole Syzygy files against shakmaty-syzygy, on the Syzygy generator's own
//! files (KPvK, KQvK, KRvK): wherever the reader's answer can only come from the table (no
//! capture, and for DTZ no pawn move either, so that no search answers instead), every entry
//! the decoder reads is the value the reader gives; a damaged file is an error, never a panic.

use retro_syzygy::decode::{Decisive, FileKind, StoredPlies, SyzygyFile};
use shakmaty::{CastlingMode, Chess, Color, FromSetup, Position, Role, Setup, Square};
use shakmaty_syzygy::{Dtz, MaybeRounded, Tablebase, Wdl};
use std::path::PathBuf;

/// The generator's files kept for the tests.
fn generator_files() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/syzygy/files")
}

fn parse(name: &str, kind: FileKind) -> SyzygyFile {
    let extension = match kind {
        FileKind::Wdl => "rtbw",
        FileKind::Dtz => "rtbz",
    };
    let bytes = std::fs::read(generator_files().join(format!("{name}.{extension}"))).unwrap();
    SyzygyFile::parse(bytes, kind, 3, false).unwrap()
}

/// The legal position of a decoded entry: the listing's men on the placement's squares, the
/// file's White the material's first side.
fn position(listing: &[(Color, Role)], squares: &[u8], white_to_move: bool) -> Option<Chess> {
    let mut setup = Setup::empty();
    for (&(color, role), &sq) in listing.iter().zip(squares) {
        setup
            .board
            .set_piece_at(Square::new(u32::from(sq)), role.of(color));
    }
    setup.turn = if white_to_move {
        Color::White
    } else {
        Color::Black
    };
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

fn role_of(kind: u8) -> Role {
    [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ][usize::from(kind - 1)]
}

#[test]
fn every_entry_the_reader_reads_is_decoded_as_it_reads_it() {
    let mut tables = Tablebase::new();
    tables.add_directory(generator_files()).unwrap();
    for name in ["KPvK", "KQvK", "KRvK"] {
        let (mut wdl_compared, mut dtz_compared) = (0u64, 0u64);
        for kind in [FileKind::Wdl, FileKind::Dtz] {
            let file = parse(name, kind);
            let bytes = file.bytes();
            for subtable in &file.subtables {
                for side in subtable {
                    let listing: Vec<(Color, Role)> = side
                        .layout
                        .men
                        .iter()
                        .map(|m| (Color::from_white(!m.black), role_of(m.kind)))
                        .collect();
                    let mut values = Vec::new();
                    let mut squares = [0u8; 8];
                    for run in side.runs(bytes, 1 << 12) {
                        side.decode(bytes, &run, &mut values).unwrap();
                        assert_eq!(values.len() as u64, run.entries);
                        for (k, &value) in values.iter().enumerate() {
                            let index = run.first + k as u64;
                            let Some(n) = side.layout.placement_into(index, &mut squares) else {
                                continue;
                            };
                            let Some(pos) = position(&listing, &squares[..n], side.side == 0)
                            else {
                                continue;
                            };
                            if !pos.capture_moves().is_empty() {
                                continue;
                            }
                            let wdl = tables.probe_wdl_after_zeroing(&pos).unwrap();
                            match kind {
                                FileKind::Wdl => {
                                    let stored = [
                                        Wdl::Loss,
                                        Wdl::BlessedLoss,
                                        Wdl::Draw,
                                        Wdl::CursedWin,
                                        Wdl::Win,
                                    ][usize::from(value)];
                                    assert_eq!(stored, wdl, "{name}");
                                    wdl_compared += 1;
                                }
                                FileKind::Dtz => {
                                    let pawn_moves =
                                        pos.legal_moves().iter().any(|m| m.role() == Role::Pawn);
                                    let class = match wdl {
                                        Wdl::Win => Decisive::Win,
                                        Wdl::Loss => Decisive::Loss,
                                        Wdl::CursedWin => Decisive::CursedWin,
                                        Wdl::BlessedLoss => Decisive::BlessedLoss,
                                        Wdl::Draw => continue,
                                    };
                                    if pawn_moves {
                                        continue;
                                    }
                                    let StoredPlies { plies, rounded } =
                                        side.dtz_plies(bytes, class, value).unwrap();
                                    let sign = if wdl > Wdl::Draw { 1 } else { -1 };
                                    let first = match class {
                                        Decisive::Win | Decisive::Loss => 1,
                                        _ => 101,
                                    };
                                    let decoded = Dtz(sign * (first + plies as i32));
                                    let read = match tables.probe_dtz(&pos).unwrap() {
                                        MaybeRounded::Rounded(d) => (d, true),
                                        MaybeRounded::Precise(d) => (d, false),
                                    };
                                    assert_eq!(read, (decoded, rounded), "{name}");
                                    dtz_compared += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(
            wdl_compared > 10_000 && dtz_compared > 1_000,
            "{name}: {wdl_compared} {dtz_compared}"
        );
    }
}

#[test]
fn a_damaged_file_is_an_error_naming_what_is_wrong() {
    let bytes = std::fs::read(generator_files().join("KPvK.rtbw")).unwrap();
    for cut in [0, 3, 5, 40, bytes.len() / 2, bytes.len() - 17] {
        let error = SyzygyFile::parse(bytes[..cut].to_vec(), FileKind::Wdl, 3, false)
            .err()
            .unwrap_or_else(|| panic!("a file cut at {cut} parsed"));
        assert!(!error.is_empty());
    }
    let mut bad = bytes.clone();
    bad[0] ^= 1;
    let error = SyzygyFile::parse(bad, FileKind::Wdl, 3, false)
        .err()
        .unwrap();
    assert!(error.contains("magic"), "{error}");
    let error = SyzygyFile::parse(bytes.clone(), FileKind::Dtz, 3, false)
        .err()
        .unwrap();
    assert!(error.contains("magic"), "{error}");
    // Every byte of the header changed in turn: an error or a file, never a panic.
    for at in 4..200.min(bytes.len()) {
        let mut changed = bytes.clone();
        changed[at] ^= 0x5a;
        if let Ok(file) = SyzygyFile::parse(changed, FileKind::Wdl, 3, false) {
            let mut values = Vec::new();
            for side in file.subtables.iter().flatten() {
                for run in side.runs(file.bytes(), 1 << 12) {
                    let _ = side.decode(file.bytes(), &run, &mut values);
                }
            }
        }
    }
}
