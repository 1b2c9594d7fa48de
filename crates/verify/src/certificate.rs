//! Certificates: a short text file beside a table recording that the checker passed on it, and
//! on which exact file (by its body's blake3 hash) and smaller tables.
//!
//! Owns: [`write()`], [`established`].
//!
//! ```text
//! retro verify certificate 1
//! material KRvK
//! board 8x8
//! body-blake3 3f2a…
//! positions 50015
//! smaller KvK 9c41…
//! ```
//!
//! A certificate of a DTZ50 table (`KRvK.8x8.dtz50.verified`) has a line `kind dtz50` after the
//! board, the body of its WDL50 companion (`companion-blake3`), and names the DTZ50 tables of
//! the smaller materials.
//!
//! A table's theorems are *established* when its certificate names its current body, and every
//! smaller table it names (every table its captures and promotions lead into) is established
//! with the body it names.

use crate::men::Men;
use crate::{exits, Checker, Report, VerifyError};
use retro_format::TableKind;
use std::fs;
use std::path::PathBuf;

const FIRST_LINE: &str = "retro verify certificate 1";

fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Checker {
    /// The certificate file of a category's DTM table.
    pub fn certificate_path(&self, men: &Men) -> PathBuf {
        self.kind_certificate_path(men, TableKind::Dtm)
    }

    /// The certificate file of a category's table of `kind` (a DTZ50 certificate covers its
    /// WDL50 companion).
    pub fn kind_certificate_path(&self, men: &Men, kind: TableKind) -> PathBuf {
        self.kind_path_of(men, kind).with_extension("verified")
    }

    /// The blake3 hash of a category's DTM table body, as its header records it.
    pub fn body_hash(&self, men: &Men) -> Result<[u8; 32], VerifyError> {
        self.kind_body_hash(men, TableKind::Dtm)
    }

    /// The blake3 hash of a category's table body of `kind`, as its header records it, the
    /// body read through and checked against it.
    pub fn kind_body_hash(&self, men: &Men, kind: TableKind) -> Result<[u8; 32], VerifyError> {
        Ok(retro_format::Table::open(&self.kind_path_of(men, kind))?.body_hash())
    }
}

/// Writes the certificate of a passed check, atomically.
pub fn write(
    checker: &Checker,
    report: &Report,
    board: retro_rules::Board,
) -> Result<PathBuf, VerifyError> {
    let men = &report.men;
    let kind = report.kind;
    let mut text = format!("{FIRST_LINE}\nmaterial {men}\nboard {board}\n");
    if kind != TableKind::Dtm {
        text.push_str(&format!("kind {}\n", kind.name()));
    }
    text.push_str(&format!(
        "body-blake3 {}\npositions {}\n",
        hex(&report.body_hash),
        report.positions
    ));
    if let Some(companion) = &report.companion_hash {
        text.push_str(&format!("companion-blake3 {}\n", hex(companion)));
    }
    for s in exits(men) {
        text.push_str(&format!(
            "smaller {s} {}\n",
            hex(&checker.kind_body_hash(&s, kind)?)
        ));
    }
    let path = checker.kind_certificate_path(men, kind);
    retro_format::write_atomically(&path, text.as_bytes())?;
    Ok(path)
}

/// Whether the category's DTM theorems are established: `Ok(None)` if so, else the reason.
pub fn established(checker: &Checker, men: &Men) -> Result<Option<String>, VerifyError> {
    established_kind(checker, men, TableKind::Dtm)
}

/// Whether the category's table of `kind` is established by its certificate: `Ok(None)` if
/// so, else the reason.
pub fn established_kind(
    checker: &Checker,
    men: &Men,
    kind: TableKind,
) -> Result<Option<String>, VerifyError> {
    established_with(checker, men, kind, None)
}

/// [`established_kind`] for a table its caller has read through and checked against its
/// header, `body` the hash it holds: the table is not read again, and a DTZ50 table's WDL50
/// companion is not consulted (for a caller that takes the classes from the DTZ50 table).
pub fn established_as_read(
    checker: &Checker,
    men: &Men,
    kind: TableKind,
    body: &[u8; 32],
) -> Result<Option<String>, VerifyError> {
    established_with(checker, men, kind, Some(body))
}

fn established_with(
    checker: &Checker,
    men: &Men,
    kind: TableKind,
    read: Option<&[u8; 32]>,
) -> Result<Option<String>, VerifyError> {
    let path = checker.kind_certificate_path(men, kind);
    let again = match kind {
        TableKind::Dtm => format!("retro verify {men}"),
        _ => format!("retro verify {men} --kinds fifty"),
    };
    let Ok(text) = fs::read_to_string(&path) else {
        return Ok(Some(format!(
            "{men}'s {kind} table has not been checked: run `{again}`"
        )));
    };
    let mut lines = text.lines();
    if lines.next() != Some(FIRST_LINE) {
        return Ok(Some(format!("{} is not a certificate", path.display())));
    }
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")).map(str::to_string))
    };
    if field("material").as_deref() != Some(men.to_string().as_str()) {
        return Ok(Some(format!(
            "{} certifies another material",
            path.display()
        )));
    }
    if field("kind").as_deref().unwrap_or(TableKind::Dtm.name()) != kind.name() {
        return Ok(Some(format!(
            "{} certifies another kind of table",
            path.display()
        )));
    }
    let body = match read {
        Some(body) => hex(body),
        None => hex(&checker.kind_body_hash(men, kind)?),
    };
    if field("body-blake3").as_deref() != Some(body.as_str()) {
        return Ok(Some(format!(
            "{men}'s {kind} table changed since it was checked: run `{again}` again"
        )));
    }
    if kind == TableKind::Dtz50 && read.is_none() {
        let companion = hex(&checker.kind_body_hash(men, TableKind::Wdl50)?);
        if field("companion-blake3").as_deref() != Some(companion.as_str()) {
            return Ok(Some(format!(
                "{men}'s WDL50 table changed since it was checked: run `{again}` again"
            )));
        }
    }
    for line in text.lines().filter_map(|l| l.strip_prefix("smaller ")) {
        let (name, hash) = line.split_once(' ').unwrap_or((line, ""));
        let sub = Men::parse(name)?;
        if hex(&checker.kind_body_hash(&sub, kind)?) != hash {
            return Ok(Some(format!(
                "{sub}'s {kind} table changed since {men} was checked: run `{again}` again"
            )));
        }
        if let Some(reason) = established_kind(checker, &sub, kind)? {
            return Ok(Some(reason));
        }
    }
    Ok(None)
}
