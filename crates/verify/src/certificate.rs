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
//! A table's theorems are *established* when its certificate names its current body, and every
//! smaller table it names (every table its captures and promotions lead into) is established
//! with the body it names.

use crate::men::Men;
use crate::{exits, Checker, Report, VerifyError};
use std::fs;
use std::path::PathBuf;

const FIRST_LINE: &str = "retro verify certificate 1";

fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Checker {
    /// The certificate file of a category.
    pub fn certificate_path(&self, men: &Men) -> PathBuf {
        self.path_of(men).with_extension("verified")
    }

    /// The blake3 hash of a category's table body, as its header records it.
    pub fn body_hash(&self, men: &Men) -> Result<[u8; 32], VerifyError> {
        Ok(retro_format::Table::open(&self.path_of(men))?.body_hash())
    }
}

/// Writes the certificate of a passed check, atomically.
pub fn write(
    checker: &Checker,
    report: &Report,
    board: retro_rules::Board,
) -> Result<PathBuf, VerifyError> {
    let men = &report.men;
    let mut text = format!(
        "{FIRST_LINE}\nmaterial {men}\nboard {board}\nbody-blake3 {}\npositions {}\n",
        hex(&report.body_hash),
        report.positions
    );
    for s in exits(men) {
        text.push_str(&format!("smaller {s} {}\n", hex(&checker.body_hash(&s)?)));
    }
    let path = checker.certificate_path(men);
    retro_format::write_atomically(&path, text.as_bytes())?;
    Ok(path)
}

/// Whether the category's theorems are established: `Ok(None)` if so, else the reason.
pub fn established(checker: &Checker, men: &Men) -> Result<Option<String>, VerifyError> {
    let path = checker.certificate_path(men);
    let Ok(text) = fs::read_to_string(&path) else {
        return Ok(Some(format!(
            "{men} has not been checked: run `retro verify {men}`"
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
    let body = hex(&checker.body_hash(men)?);
    if field("body-blake3").as_deref() != Some(body.as_str()) {
        return Ok(Some(format!(
            "{men}'s table changed since it was checked: run `retro verify {men}` again"
        )));
    }
    for line in text.lines().filter_map(|l| l.strip_prefix("smaller ")) {
        let (name, hash) = line.split_once(' ').unwrap_or((line, ""));
        let sub = Men::parse(name)?;
        if hex(&checker.body_hash(&sub)?) != hash {
            return Ok(Some(format!(
                "{sub}'s table changed since {men} was checked: run `retro verify {men}` again"
            )));
        }
        if let Some(reason) = established(checker, &sub)? {
            return Ok(Some(reason));
        }
    }
    Ok(None)
}
