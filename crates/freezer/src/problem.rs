//! The problem file: the start position, the squares each man may use, and the rules that
//! value every way out of the index (the seed's section 2).
//!
//! Owns: parsing and checking a problem ([`Problem::parse`]); every error names the line of the
//! file it comes from. Must never: look anything up in a table (that is `super::solve`).
//!
//! # Schema (TOML)
//!
//! ```toml
//! title = "KBNvK without the centre"          # optional
//! fen = "7k/5N2/8/8/8/8/8/4KB2 w - - 0 1"     # the start position, any number of men
//! blocked = ["f4", "f5"]                      # pawns that never move (optional)
//!
//! [[man]]                  # one table per restricted man, named by its start square
//! on = "f7"
//! squares = ["all", "!d4-e5"]   # names, rectangles `e1-h4`, `light`, `dark`, `all`; `!` removes
//! elsewhere = "loss"       # the value, for White, of a position with the man elsewhere
//!
//! [[capture]]              # optional; a capture no rule values is looked up in a table
//! piece = "R"              # the man taken (upper case White, lower case Black); any if absent
//! squares = ["e3", "g3"]   # where it is taken; anywhere if absent
//! value = "loss"           # for White: "win", "draw", "loss", or "lookup"
//! recapture = "draw"       # optional: the value when the capturer can be taken at once
//! second_recapture = "win" # optional: ... and the recapturer again
//!
//! [[promotion]]            # optional; a promotion no rule values is looked up in a table
//! squares = ["a8-h8"]      # the promotion squares it covers; all if absent
//! value = "win"            # for White, or "lookup"
//! attacked = "draw"        # optional: the value when the new piece can be taken at once
//! ```
//!
//! A man without a `[[man]]` table may use every square (a pawn: every square off the end
//! ranks). A blocked pawn is a man of one square whose way ahead is held by a man that never
//! moves either, so it never leaves its square other than by being taken.

use retro_engine::fen::{engine_of_natural, natural_of_fen, FenError};
use retro_engine::{Geometry, Man, Position, Sq};
use retro_rules::board::Square;
use retro_rules::{Piece, Side};
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// The most men a problem may hold.
pub const MAX_MEN: usize = 16;

/// A position of a problem.
pub type FreezerPosition = Position<MAX_MEN>;

/// What is wrong with a problem file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    /// The file is not valid TOML or does not follow the schema.
    #[error("line {line}: {message}")]
    Syntax {
        /// The line, counted from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A value of the file makes no sense for its position.
    #[error("line {line}: {message}")]
    At {
        /// The line, counted from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// A fixed result, for White.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// White wins.
    WhiteWins,
    /// Neither side wins.
    Draw,
    /// Black wins.
    BlackWins,
}

impl Outcome {
    /// How the file spells it.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "a win for White",
            Outcome::Draw => "a draw",
            Outcome::BlackWins => "a loss for White",
        }
    }
}

/// How an exit is valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleValue {
    /// A fixed result, assumed.
    Fixed(Outcome),
    /// The exact value from the table of the material reached.
    Lookup,
}

/// A man of the problem and the squares it may use.
#[derive(Debug, Clone)]
pub struct ManSpec {
    /// Whose.
    pub side: Side,
    /// What.
    pub piece: Piece,
    /// Its square in the start position.
    pub start: Sq,
    /// The squares it may use, in increasing order.
    pub allowed: Vec<Sq>,
    /// The value of a position with the man elsewhere (`None` when every square is allowed).
    pub elsewhere: Option<Outcome>,
    /// The line of its `[[man]]` table or `blocked` entry (0 for a man without one).
    pub line: usize,
    /// Whether it is a blocked pawn.
    pub blocked: bool,
}

/// A `[[capture]]` rule.
#[derive(Debug, Clone)]
pub struct CaptureRule {
    /// The man taken: side and piece, any if `None`.
    pub victim: Option<(Side, Piece)>,
    /// Where, by square number (every square if all true).
    pub squares: Vec<bool>,
    /// The value.
    pub value: RuleValue,
    /// The value when the capturer can be taken back at once.
    pub recapture: Option<Outcome>,
    /// The value when the recapturer can be taken back too.
    pub second_recapture: Option<Outcome>,
    /// Its line.
    pub line: usize,
}

/// A `[[promotion]]` rule.
#[derive(Debug, Clone)]
pub struct PromotionRule {
    /// The promotion squares it covers.
    pub squares: Vec<bool>,
    /// The value.
    pub value: RuleValue,
    /// The value when the new piece can be taken at once.
    pub attacked: Option<Outcome>,
    /// Its line.
    pub line: usize,
}

/// A checked problem.
#[derive(Debug, Clone)]
pub struct Problem {
    /// Its title, if the file gives one.
    pub title: Option<String>,
    /// The board.
    pub geo: Geometry,
    /// The start position.
    pub start: FreezerPosition,
    /// The men, in the order of the start position's men.
    pub men: Vec<ManSpec>,
    /// The capture rules, in file order.
    pub captures: Vec<CaptureRule>,
    /// The promotion rules, in file order.
    pub promotions: Vec<PromotionRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProblem {
    title: Option<String>,
    fen: Spanned<String>,
    #[serde(default)]
    blocked: Vec<Spanned<String>>,
    #[serde(default, rename = "man")]
    men: Vec<Spanned<RawMan>>,
    #[serde(default, rename = "capture")]
    captures: Vec<Spanned<RawCapture>>,
    #[serde(default, rename = "promotion")]
    promotions: Vec<Spanned<RawPromotion>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMan {
    on: Spanned<String>,
    squares: Spanned<Vec<String>>,
    elsewhere: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCapture {
    piece: Option<Spanned<String>>,
    squares: Option<Spanned<Vec<String>>>,
    value: Spanned<String>,
    recapture: Option<Spanned<String>>,
    second_recapture: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPromotion {
    squares: Option<Spanned<Vec<String>>>,
    value: Spanned<String>,
    attacked: Option<Spanned<String>>,
}

/// Turns byte offsets into line numbers.
struct Lines<'a>(&'a str);

impl Lines<'_> {
    fn of(&self, span: Range<usize>) -> usize {
        self.0[..span.start.min(self.0.len())].matches('\n').count() + 1
    }

    fn error<T>(&self, span: Range<usize>, message: impl Into<String>) -> Result<T, ProblemError> {
        Err(ProblemError::At {
            line: self.of(span),
            message: message.into(),
        })
    }
}

impl Problem {
    /// Parses and checks a problem file's text.
    pub fn parse(text: &str) -> Result<Problem, ProblemError> {
        let lines = Lines(text);
        let raw: RawProblem = toml::from_str(text).map_err(|e| ProblemError::Syntax {
            line: e.span().map_or(1, |s| lines.of(s)),
            message: e.message().to_string(),
        })?;
        let fen_span = raw.fen.span();
        let fen = raw.fen.get_ref();
        let natural = match natural_of_fen(fen) {
            Ok(p) => p,
            Err(e @ FenError::Illegal { .. }) => {
                return lines.error(fen_span, format!("the start position: {e}"))
            }
            Err(e) => return lines.error(fen_span, e.to_string()),
        };
        let geo = Geometry::new(natural.board());
        let start: FreezerPosition = match engine_of_natural(&geo, fen, &natural) {
            Ok(p) => p,
            Err(e) => return lines.error(fen_span, format!("the start position: {e}")),
        };
        let every: Vec<Sq> = geo.squares().collect();
        let mut men: Vec<ManSpec> = start
            .men()
            .iter()
            .map(|m| ManSpec {
                side: m.side,
                piece: m.piece,
                start: m.sq,
                allowed: if m.piece == Piece::Pawn {
                    every
                        .iter()
                        .copied()
                        .filter(|&s| geo.pawn_may_stand(s))
                        .collect()
                } else {
                    every.clone()
                },
                elsewhere: None,
                line: 0,
                blocked: false,
            })
            .collect();
        let man_on = |men: &[ManSpec], sq: Sq| men.iter().position(|m| m.start == sq);

        for entry in &raw.men {
            let span = entry.span();
            let man = entry.get_ref();
            let on = parse_square(&geo, man.on.get_ref())
                .map_or_else(|m| lines.error(man.on.span(), m), Ok)?;
            let Some(i) = man_on(&men, on) else {
                return lines.error(
                    man.on.span(),
                    format!(
                        "no man stands on {} in the start position",
                        man.on.get_ref()
                    ),
                );
            };
            if men[i].line != 0 {
                return lines.error(
                    span,
                    format!(
                        "the man on {} already has its squares from line {}",
                        man.on.get_ref(),
                        men[i].line
                    ),
                );
            }
            let mask = parse_set(&geo, man.squares.get_ref())
                .map_or_else(|m| lines.error(man.squares.span(), m), Ok)?;
            let allowed: Vec<Sq> = every
                .iter()
                .copied()
                .filter(|&s| mask[usize::from(s)])
                .collect();
            let name = man_name(men[i].side, men[i].piece, &geo, on);
            if men[i].piece == Piece::Pawn {
                if let Some(&s) = allowed.iter().find(|&&s| !geo.pawn_may_stand(s)) {
                    return lines.error(
                        man.squares.span(),
                        format!(
                            "{name} may not stand on {}, an end rank",
                            square_name(&geo, s)
                        ),
                    );
                }
            }
            if !mask[usize::from(on)] {
                return lines.error(
                    man.squares.span(),
                    format!("the start position is outside its own restrictions: {name} is not on one of its squares"),
                );
            }
            let elsewhere = match &man.elsewhere {
                Some(v) => Some(
                    parse_outcome(v.get_ref()).map_or_else(|m| lines.error(v.span(), m), Ok)?,
                ),
                None if allowed.len() < men[i].allowed.len() => {
                    return lines.error(
                        span,
                        format!("{name} is restricted, so `elsewhere` must say what a position with it elsewhere is worth (\"win\", \"draw\" or \"loss\" for White)"),
                    )
                }
                None => None,
            };
            men[i].allowed = allowed;
            men[i].elsewhere = elsewhere;
            men[i].line = lines.of(span);
        }

        for entry in &raw.blocked {
            let span = entry.span();
            let on = parse_square(&geo, entry.get_ref())
                .map_or_else(|m| lines.error(span.clone(), m), Ok)?;
            let Some(i) = man_on(&men, on) else {
                return lines.error(
                    span,
                    format!("no man stands on {} to be blocked", entry.get_ref()),
                );
            };
            if men[i].piece != Piece::Pawn {
                return lines.error(
                    span,
                    format!(
                        "only pawns are blocked; {} holds {}",
                        entry.get_ref(),
                        men[i].piece.name()
                    ),
                );
            }
            if men[i].line != 0 {
                return lines.error(
                    span,
                    format!("the pawn on {} already has its squares from line {}; a blocked pawn never moves", entry.get_ref(), men[i].line),
                );
            }
            men[i].allowed = vec![on];
            men[i].blocked = true;
            // Never consulted: a blocked pawn has no move (checked below).
            men[i].elsewhere = Some(Outcome::Draw);
            men[i].line = lines.of(span);
        }
        // A blocked pawn must have a man that never moves right ahead of it.
        for m in men.iter().filter(|m| m.blocked) {
            let ahead = geo.ahead(m.side, m.start, 1);
            let held = ahead.and_then(|a| men.iter().find(|o| o.start == a));
            if held.is_none_or(|o| o.allowed.len() != 1) {
                let name = man_name(m.side, m.piece, &geo, m.start);
                return Err(ProblemError::At {
                    line: m.line,
                    message: format!("{name} is not blocked: the square ahead is not held by a man that never moves"),
                });
            }
        }

        let mut captures = Vec::new();
        for entry in &raw.captures {
            let line = lines.of(entry.span());
            let c = entry.get_ref();
            let victim = match &c.piece {
                None => None,
                Some(p) => {
                    Some(parse_man(p.get_ref()).map_or_else(|m| lines.error(p.span(), m), Ok)?)
                }
            };
            if victim.is_some_and(|(_, piece)| piece == Piece::King) {
                return lines.error(entry.span(), "a king is never captured");
            }
            let squares = match &c.squares {
                None => vec![true; geo.square_count()],
                Some(s) => {
                    parse_set(&geo, s.get_ref()).map_or_else(|m| lines.error(s.span(), m), Ok)?
                }
            };
            let value = parse_value(c.value.get_ref())
                .map_or_else(|m| lines.error(c.value.span(), m), Ok)?;
            let fixed = |v: &Option<Spanned<String>>| -> Result<Option<Outcome>, ProblemError> {
                v.as_ref()
                    .map(|v| {
                        parse_outcome(v.get_ref()).map_or_else(|m| lines.error(v.span(), m), Ok)
                    })
                    .transpose()
            };
            let recapture = fixed(&c.recapture)?;
            let second_recapture = fixed(&c.second_recapture)?;
            if value == RuleValue::Lookup && (recapture.is_some() || second_recapture.is_some()) {
                return lines.error(entry.span(), "a look-up is exact: `recapture` and `second_recapture` go with fixed values only");
            }
            if second_recapture.is_some() && recapture.is_none() {
                return lines.error(entry.span(), "`second_recapture` needs `recapture`");
            }
            let rule = CaptureRule {
                victim,
                squares,
                value,
                recapture,
                second_recapture,
                line,
            };
            if let Some(other) = captures
                .iter()
                .find(|o: &&CaptureRule| captures_overlap(o, &rule))
            {
                return lines.error(
                    entry.span(),
                    format!("this capture rule overlaps the one on line {} (a man and a square both cover)", other.line),
                );
            }
            captures.push(rule);
        }

        let mut promotions = Vec::new();
        for entry in &raw.promotions {
            let line = lines.of(entry.span());
            let p = entry.get_ref();
            let squares = match &p.squares {
                None => geo.squares().map(|s| !geo.pawn_may_stand(s)).collect(),
                Some(s) => {
                    let mask = parse_set(&geo, s.get_ref())
                        .map_or_else(|m| lines.error(s.span(), m), Ok)?;
                    if let Some(bad) = geo
                        .squares()
                        .find(|&q| mask[usize::from(q)] && geo.pawn_may_stand(q))
                    {
                        return lines.error(
                            s.span(),
                            format!("{} is not a promotion square", square_name(&geo, bad)),
                        );
                    }
                    mask
                }
            };
            let value = parse_value(p.value.get_ref())
                .map_or_else(|m| lines.error(p.value.span(), m), Ok)?;
            let attacked = match &p.attacked {
                None => None,
                Some(v) => {
                    Some(parse_outcome(v.get_ref()).map_or_else(|m| lines.error(v.span(), m), Ok)?)
                }
            };
            if value == RuleValue::Lookup && attacked.is_some() {
                return lines.error(
                    entry.span(),
                    "a look-up is exact: `attacked` goes with fixed values only",
                );
            }
            let rule = PromotionRule {
                squares,
                value,
                attacked,
                line,
            };
            if let Some(other) = promotions.iter().find(|o: &&PromotionRule| {
                o.squares.iter().zip(&rule.squares).any(|(a, b)| *a && *b)
            }) {
                return lines.error(
                    entry.span(),
                    format!(
                        "this promotion rule overlaps the one on line {}",
                        other.line
                    ),
                );
            }
            promotions.push(rule);
        }

        Ok(Problem {
            title: raw.title,
            geo,
            start,
            men,
            captures,
            promotions,
        })
    }

    /// The capture rule for taking `victim` on `sq`, if one covers it.
    pub fn capture_rule(&self, victim: (Side, Piece), sq: Sq) -> Option<(usize, &CaptureRule)> {
        self.captures
            .iter()
            .enumerate()
            .find(|(_, r)| r.victim.is_none_or(|v| v == victim) && r.squares[usize::from(sq)])
    }

    /// The promotion rule for promoting on `sq`, if one covers it.
    pub fn promotion_rule(&self, sq: Sq) -> Option<(usize, &PromotionRule)> {
        self.promotions
            .iter()
            .enumerate()
            .find(|(_, r)| r.squares[usize::from(sq)])
    }

    /// A man's name with its start square, e.g. "the white knight on f7".
    pub fn man_name(&self, i: usize) -> String {
        let m = &self.men[i];
        man_name(m.side, m.piece, &self.geo, m.start)
    }

    /// The start position's men as engine men.
    pub fn start_men(&self) -> Vec<Man> {
        self.men
            .iter()
            .map(|m| Man {
                side: m.side,
                piece: m.piece,
                sq: m.start,
            })
            .collect()
    }
}

fn captures_overlap(a: &CaptureRule, b: &CaptureRule) -> bool {
    let men = match (a.victim, b.victim) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    men && a.squares.iter().zip(&b.squares).any(|(x, y)| *x && *y)
}

/// "the white knight on f7".
pub fn man_name(side: Side, piece: Piece, geo: &Geometry, sq: Sq) -> String {
    let colour = if side == Side::White {
        "white"
    } else {
        "black"
    };
    format!("the {colour} {} on {}", piece.name(), square_name(geo, sq))
}

/// A square's name on `geo`'s board.
pub fn square_name(geo: &Geometry, sq: Sq) -> String {
    retro_engine::notation::square_name(geo, sq)
}

fn parse_square(geo: &Geometry, text: &str) -> Result<Sq, String> {
    Square::parse(text.trim())
        .and_then(|s| geo.from_square(s))
        .ok_or_else(|| {
            format!(
                "'{text}' is not a square of the {}x{} board",
                geo.files(),
                geo.ranks()
            )
        })
}

/// A set of squares: each entry a square (`e4`), a rectangle (`e1-h4`), `light`, `dark` or
/// `all`, added in order; an entry starting with `!` is taken away (a list starting with one
/// starts from every square).
fn parse_set(geo: &Geometry, entries: &[String]) -> Result<Vec<bool>, String> {
    if entries.is_empty() {
        return Err("an empty list of squares".into());
    }
    let n = geo.square_count();
    let mut set = vec![entries[0].trim_start().starts_with('!'); n];
    for entry in entries {
        let text = entry.trim();
        let (remove, body) = match text.strip_prefix('!') {
            Some(rest) => (true, rest.trim()),
            None => (false, text),
        };
        let dark = |s: Sq| (geo.file(s) + geo.rank(s)) % 2 == 0;
        let members: Vec<Sq> = match body {
            "all" => geo.squares().collect(),
            "dark" => geo.squares().filter(|&s| dark(s)).collect(),
            "light" => geo.squares().filter(|&s| !dark(s)).collect(),
            _ => match body.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (parse_square(geo, a)?, parse_square(geo, b)?);
                    let files = geo.file(a).min(geo.file(b))..=geo.file(a).max(geo.file(b));
                    let ranks = geo.rank(a).min(geo.rank(b))..=geo.rank(a).max(geo.rank(b));
                    geo.squares()
                        .filter(|&s| files.contains(&geo.file(s)) && ranks.contains(&geo.rank(s)))
                        .collect()
                }
                None => vec![parse_square(geo, body).map_err(|_| {
                    format!("'{entry}' is neither a square, a rectangle like e1-h4, nor one of all, light, dark")
                })?],
            },
        };
        for s in members {
            set[usize::from(s)] = !remove;
        }
    }
    if !set.iter().any(|&b| b) {
        return Err("the squares listed leave none".into());
    }
    Ok(set)
}

fn parse_outcome(text: &str) -> Result<Outcome, String> {
    match text {
        "win" => Ok(Outcome::WhiteWins),
        "draw" => Ok(Outcome::Draw),
        "loss" => Ok(Outcome::BlackWins),
        _ => Err(format!(
            "'{text}' is not a value: \"win\", \"draw\" or \"loss\" (for White)"
        )),
    }
}

fn parse_value(text: &str) -> Result<RuleValue, String> {
    if text == "lookup" {
        return Ok(RuleValue::Lookup);
    }
    parse_outcome(text).map(RuleValue::Fixed).map_err(|_| {
        format!("'{text}' is not a value: \"win\", \"draw\", \"loss\" (for White) or \"lookup\"")
    })
}

fn parse_man(text: &str) -> Result<(Side, Piece), String> {
    let mut chars = text.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Err(format!(
            "'{text}' is not a piece letter (K Q R B N P, lower case for Black)"
        ));
    };
    let side = if c.is_ascii_uppercase() {
        Side::White
    } else {
        Side::Black
    };
    Piece::from_letter(c.to_ascii_uppercase())
        .map(|p| (side, p))
        .ok_or_else(|| {
            format!("'{text}' is not a piece letter (K Q R B N P, lower case for Black)")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KBNK: &str = "fen = \"6k1/5N2/8/8/8/8/8/4KB2 w - - 0 1\"\n";

    fn error_of(text: &str) -> String {
        Problem::parse(text).expect_err(text).to_string()
    }

    #[test]
    fn restrictions_parse() {
        let p = Problem::parse(&format!(
            "{KBNK}[[man]]\non = \"f7\"\nsquares = [\"all\", \"!d4-e5\"]\nelsewhere = \"loss\"\n"
        ))
        .unwrap();
        let knight = p.men.iter().find(|m| m.piece == Piece::Knight).unwrap();
        assert_eq!(knight.allowed.len(), 60);
        assert_eq!(knight.elsewhere, Some(Outcome::BlackWins));
        assert_eq!(knight.line, 2);
        let bishop = p.men.iter().find(|m| m.piece == Piece::Bishop).unwrap();
        assert_eq!(bishop.allowed.len(), 64);
        let light = parse_set(&p.geo, &["light".into()]).unwrap();
        assert_eq!(light.iter().filter(|&&b| b).count(), 32);
        assert!(light[usize::from(parse_square(&p.geo, "h1").unwrap())]);
        let rect = parse_set(&p.geo, &["h4-e1".into()]).unwrap();
        assert_eq!(rect.iter().filter(|&&b| b).count(), 16);
    }

    #[test]
    fn bad_problems_name_their_line() {
        let cases = [
            (format!("{KBNK}[[man]]\non = \"a3\"\nsquares = [\"all\"]\n"), "line 3: no man stands on a3"),
            (format!("{KBNK}[[man]]\non = \"f7\"\nsquares = [\"d4-e5\"]\nelsewhere = \"loss\"\n"), "outside its own restrictions"),
            (format!("{KBNK}[[man]]\non = \"f7\"\nsquares = [\"!d4\"]\n"), "line 2: the white knight on f7 is restricted"),
            (format!("{KBNK}[[man]]\non = \"f7\"\nsquares = [\"z9\"]\nelsewhere = \"loss\"\n"), "line 4:"),
            (format!("{KBNK}[[man]]\non = \"f7\"\nsquares = [\"all\"]\nelsewhere = \"maybe\"\n"), "line 5: 'maybe' is not a value"),
            (format!("{KBNK}[[capture]]\npiece = \"N\"\nvalue = \"loss\"\n[[capture]]\nvalue = \"draw\"\n"), "line 5: this capture rule overlaps the one on line 2"),
            (format!("{KBNK}[[capture]]\npiece = \"k\"\nvalue = \"loss\"\n"), "a king is never captured"),
            (format!("{KBNK}[[promotion]]\nsquares = [\"e4\"]\nvalue = \"win\"\n"), "e4 is not a promotion square"),
            (format!("{KBNK}blocked = [\"f7\"]\n"), "only pawns are blocked"),
            ("fen = \"8/8/8/x7/8/8/8/8 w - - 0 1\"\n".to_string(), "line 1: invalid FEN"),
            ("fen = \"K6k/8/8/8/8/8/8/7Q w - - 0 1\"\n".to_string(), "line 1: the start position: 'K6k/8/8/8/8/8/8/7Q w - - 0 1' is an illegal position"),
            (format!("{KBNK}colour = 3\n"), "line 2: unknown field"),
        ];
        for (text, expected) in cases {
            let e = error_of(&text);
            assert!(
                e.contains(expected),
                "{text}\n gave: {e}\n expected: {expected}"
            );
        }
    }

    #[test]
    fn blocked_pawns_need_a_blocker() {
        let ok = Problem::parse(
            "fen = \"4k3/8/8/5p2/5P2/8/8/4K3 w - - 0 1\"\nblocked = [\"f4\", \"f5\"]\n",
        )
        .unwrap();
        assert!(ok
            .men
            .iter()
            .filter(|m| m.blocked)
            .all(|m| m.allowed.len() == 1));
        let e = error_of("fen = \"4k3/8/8/8/5P2/8/8/4K3 w - - 0 1\"\nblocked = [\"f4\"]\n");
        assert!(
            e.contains("line 2: the white pawn on f4 is not blocked"),
            "{e}"
        );
    }
}
