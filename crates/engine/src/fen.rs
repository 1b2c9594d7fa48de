//! From a FEN to positions: the natural model's, checked legal, and the engine's.
//!
//! Owns: the one way a FEN text becomes positions for every reader — the command line, the
//! server and the probing library ([`natural_of_fen`], [`engine_of_natural`],
//! [`positions_of_fen`]) — and the error naming what is wrong with it ([`FenError`]).
//! Must never: accept a position the natural model calls illegal.

use crate::position::PositionError;
use crate::{Geometry, Position};
use retro_rules::fen::{IllegalPosition, Setup};

/// Why a FEN gives no position.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FenError {
    /// The text is not FEN.
    #[error("invalid FEN '{fen}': {reason}")]
    Malformed {
        /// The text given.
        fen: String,
        /// What is wrong with it.
        reason: retro_rules::fen::FenError,
    },
    /// The text is FEN, but the position breaks the laws.
    #[error("'{fen}' is an {illegal}")]
    Illegal {
        /// The text given.
        fen: String,
        /// Its setup, as parsed (for a diagram of what was given).
        setup: Box<Setup>,
        /// Every reason it is illegal.
        illegal: IllegalPosition,
    },
    /// A legal position the engine cannot hold (too many men, or a board it does not take).
    #[error("'{fen}': {reason}")]
    Engine {
        /// The text given.
        fen: String,
        /// Why.
        reason: PositionError,
    },
}

/// The natural model's position of `fen`, checked legal.
pub fn natural_of_fen(fen: &str) -> Result<retro_rules::Position, FenError> {
    let setup = Setup::parse(fen).map_err(|reason| FenError::Malformed {
        fen: fen.to_string(),
        reason,
    })?;
    retro_rules::Position::from_setup(&setup).map_err(|illegal| FenError::Illegal {
        fen: fen.to_string(),
        setup: Box::new(setup),
        illegal,
    })
}

/// The engine's position of `natural` (given as `fen`), on `geo`'s board, of at most `N` men.
pub fn engine_of_natural<const N: usize>(
    geo: &Geometry,
    fen: &str,
    natural: &retro_rules::Position,
) -> Result<Position<N>, FenError> {
    Position::from_natural(geo, natural).map_err(|reason| FenError::Engine {
        fen: fen.to_string(),
        reason,
    })
}

/// Both positions of `fen`, with the geometry of its board made for the engine's.
pub fn positions_of_fen(
    fen: &str,
) -> Result<(retro_rules::Position, Geometry, Position), FenError> {
    let natural = natural_of_fen(fen)?;
    let geo = Geometry::new(natural.board());
    let engine = engine_of_natural(&geo, fen, &natural)?;
    Ok((natural, geo, engine))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_is_named() {
        let (natural, geo, engine) = positions_of_fen("8/8/8/8/8/2k5/1R6/K7 w - - 0 1").unwrap();
        assert_eq!(natural.board(), geo.board());
        assert_eq!(engine.men().len(), 3);
        let malformed = natural_of_fen("8/8/x").unwrap_err();
        assert!(matches!(malformed, FenError::Malformed { .. }));
        assert!(malformed.to_string().starts_with("invalid FEN '8/8/x'"));
        // Black in check with White to move: illegal, with the setup kept for a diagram.
        let illegal = natural_of_fen("8/8/8/8/8/8/1k6/KR6 w - - 0 1").unwrap_err();
        match &illegal {
            FenError::Illegal { setup, illegal, .. } => {
                assert_eq!(setup.men.len(), 3);
                assert!(!illegal.reasons.is_empty());
            }
            other => panic!("expected an illegal position, got {other}"),
        }
        assert!(illegal.to_string().contains("is an illegal position"));
    }
}
