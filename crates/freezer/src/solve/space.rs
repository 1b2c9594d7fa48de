//! The index of a problem: each man numbered within its allowed squares, then the en-passant
//! entries.
//!
//! Owns: [`Space`] — entries, decoding and encoding placements, the en-passant blocks.
//! Must never: value a position (the analysis does).

use super::*;

/// The index: `Σ slot(manᵢ) · strideᵢ`, each man numbered within its allowed squares, the
/// last man fastest; one array per side to move. After the index positions come the
/// *en-passant entries* (`EpBlock`): positions whose last move was a double step inside the
/// index that an en-passant capture can answer, each a position of its own (Article 9.2).
#[derive(Debug, Clone)]
pub struct Space {
    pub(super) allowed: Vec<Vec<Sq>>,
    /// By man and board square: the square's number among the allowed ones, or `u32::MAX`.
    pub(super) slot: Vec<Vec<u32>>,
    pub(super) strides: Vec<u64>,
    pub(super) size: u64,
    /// The en-passant blocks, in entry order.
    pub(super) ep_blocks: Vec<EpBlock>,
    /// Entries per side to move: the index positions and every en-passant block.
    pub(super) entries: u64,
}

/// The en-passant entries of one double step inside the index: pawn `pawn` from `origin` to
/// `landing` over `passed`, where a pawn of the other side may stand beside `landing`. One
/// entry per index position with the pawn on `landing` (the index with that pawn's field left
/// out), the side that did not move the pawn to move and `passed` the en-passant target; an
/// entry whose position is not legal with that target (no en-passant capture is legal, or a
/// square the step passed is taken) is never legal.
#[derive(Debug, Clone, Copy)]
pub(super) struct EpBlock {
    pub(super) pawn: usize,
    pub(super) origin: Sq,
    pub(super) passed: Sq,
    pub(super) landing: Sq,
    /// The block's first entry (at least [`Space::size`]).
    pub(super) first: u64,
    /// Its number of entries: the index size over the pawn's number of squares.
    pub(super) len: u64,
}

pub(super) const OUTSIDE: u32 = u32::MAX;

impl Space {
    /// The index of `problem`, after checking it needs nothing the Freezer does not do.
    pub fn new(problem: &Problem) -> Result<Space, FreezeError> {
        let geo = &problem.geo;
        let allowed: Vec<Vec<Sq>> = problem.men.iter().map(|m| m.allowed.clone()).collect();
        let mut strides = vec![0u64; allowed.len()];
        let mut size: u64 = 1;
        for i in (0..allowed.len()).rev() {
            strides[i] = size;
            size = size
                .checked_mul(allowed[i].len() as u64)
                .ok_or_else(|| FreezeError::TooLarge("more than 2^64 entries per side".into()))?;
        }
        let slot = allowed
            .iter()
            .map(|squares| {
                let mut s = vec![OUTSIDE; geo.square_count()];
                for (k, &sq) in squares.iter().enumerate() {
                    s[usize::from(sq)] = k as u32;
                }
                s
            })
            .collect();
        // En passant inside the index: a block for each double step a pawn may make between two
        // of its squares to beside a square an enemy pawn may use.
        let mut ep_blocks = Vec::new();
        let mut entries = size;
        for (i, p) in problem.men.iter().enumerate() {
            if p.piece != Piece::Pawn {
                continue;
            }
            for &origin in &p.allowed {
                if geo.rank(origin) != geo.second_rank(p.side) {
                    continue;
                }
                let (Some(passed), Some(landing)) =
                    (geo.ahead(p.side, origin, 1), geo.ahead(p.side, origin, 2))
                else {
                    continue;
                };
                if !allowed[i].contains(&landing) {
                    continue;
                }
                let answerable = problem
                    .men
                    .iter()
                    .filter(|q| q.piece == Piece::Pawn && q.side != p.side)
                    .any(|q| {
                        q.allowed.iter().any(|&s| {
                            geo.rank(s) == geo.rank(landing)
                                && geo.file(s).abs_diff(geo.file(landing)) == 1
                        })
                    });
                if !answerable {
                    continue;
                }
                let len = size / allowed[i].len() as u64;
                ep_blocks.push(EpBlock {
                    pawn: i,
                    origin,
                    passed,
                    landing,
                    first: entries,
                    len,
                });
                entries = entries.checked_add(len).ok_or_else(|| {
                    FreezeError::TooLarge("more than 2^64 entries per side".into())
                })?;
            }
        }
        // A start position with an en-passant target must be one of the en-passant entries.
        if let Some(target) = problem.start.en_passant() {
            let mover = opponent(problem.start.side_to_move());
            let landing = geo.ahead(mover, target, 1);
            let held = ep_blocks.iter().any(|b: &EpBlock| {
                Some(b.landing) == landing && problem.men[b.pawn].start == b.landing
            });
            if !held {
                return Err(FreezeError::Unsupported(format!(
                    "the start position's en-passant square {} follows a double step the index does not hold: the pawn must be allowed both the square it came from and the one it stands on, and an enemy pawn the square beside",
                    crate::problem::square_name(geo, target)
                )));
            }
        }
        if entries > u64::MAX / 4 || usize::try_from(entries).is_err() {
            let of_which = match entries - size {
                0 => String::new(),
                ep => format!(" ({ep} of them en-passant entries)"),
            };
            return Err(FreezeError::TooLarge(format!(
                "{entries} entries per side{of_which}"
            )));
        }
        Ok(Space {
            allowed,
            slot,
            strides,
            size,
            ep_blocks,
            entries,
        })
    }

    /// Index positions per side to move (without the en-passant entries).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Entries per side to move: the index positions, then the en-passant entries.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The men's squares at entry `entry` (an index position or an en-passant entry), with its
    /// index position and its en-passant target.
    #[inline]
    pub fn decode(&self, entry: u64, out: &mut [Sq]) -> (u64, Option<Sq>) {
        match self.ep_block(entry) {
            None => {
                self.squares(entry, out);
                (entry, None)
            }
            Some(block) => {
                let index = self.ep_index(block, entry);
                self.squares(index, out);
                (index, Some(block.passed))
            }
        }
    }

    /// The block of en-passant entry `entry` (`None` for an index position).
    pub(super) fn ep_block(&self, entry: u64) -> Option<&EpBlock> {
        if entry < self.size {
            return None;
        }
        let k = self.ep_blocks.partition_point(|b| b.first + b.len <= entry);
        self.ep_blocks.get(k)
    }

    /// The index position of en-passant entry `entry` of `block`: its number within the block
    /// is the index with the pawn's field left out.
    pub(super) fn ep_index(&self, block: &EpBlock, entry: u64) -> u64 {
        let i = block.pawn;
        let stride = self.strides[i];
        let number = entry - block.first;
        let (high, low) = (number / stride, number % stride);
        let landing = u64::from(self.slot[i][usize::from(block.landing)]);
        (high * self.allowed[i].len() as u64 + landing) * stride + low
    }

    /// The en-passant entry of index position `index` after pawn `pawn`'s double step to
    /// `landing` (where it stands in `index`), if the index has such entries.
    pub fn ep_entry(&self, index: u64, pawn: usize, landing: Sq) -> Option<u64> {
        self.ep_block_of(pawn, landing)
            .map(|block| self.ep_entry_in(block, index))
    }

    /// The block of pawn `pawn`'s double step to `landing`, if the index has one.
    pub(super) fn ep_block_of(&self, pawn: usize, landing: Sq) -> Option<&EpBlock> {
        self.ep_blocks
            .iter()
            .find(|b| b.pawn == pawn && b.landing == landing)
    }

    /// The entry of `block` for index position `index` (its pawn on the block's landing
    /// square): the index with that pawn's field left out, after the block's first entry.
    pub(super) fn ep_entry_in(&self, block: &EpBlock, index: u64) -> u64 {
        let stride = self.strides[block.pawn];
        let n = self.allowed[block.pawn].len() as u64;
        let (high, low) = (index / (stride * n), index % stride);
        block.first + high * stride + low
    }

    /// The men's squares at index position `index` (below [`Space::size`]; an en-passant entry
    /// is read with [`Space::decode`]).
    pub fn squares(&self, mut index: u64, out: &mut [Sq]) {
        for i in (0..self.allowed.len()).rev() {
            let n = self.allowed[i].len() as u64;
            out[i] = self.allowed[i][(index % n) as usize];
            index /= n;
        }
    }

    /// The index of the men on `squares`, if each is on one of its squares.
    pub fn index(&self, squares: &[Sq]) -> Option<u64> {
        let mut index = 0;
        for (i, &sq) in squares.iter().enumerate() {
            let s = self.slot[i][usize::from(sq)];
            if s == OUTSIDE {
                return None;
            }
            index += u64::from(s) * self.strides[i];
        }
        Some(index)
    }

    /// Whether man `i` may stand on `sq`.
    pub fn allows(&self, i: usize, sq: Sq) -> bool {
        self.slot[i][usize::from(sq)] != OUTSIDE
    }

    pub(super) fn moved(&self, index: u64, i: usize, from: Sq, to: Sq) -> Option<u64> {
        let (a, b) = (
            self.slot[i][usize::from(from)],
            self.slot[i][usize::from(to)],
        );
        if b == OUTSIDE {
            return None;
        }
        Some((index + u64::from(b) * self.strides[i]) - u64::from(a) * self.strides[i])
    }
}
