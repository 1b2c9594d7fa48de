//! The slots of a layout in which one man stands on one rank, numbered densely: the
//! en-passant positions and the tables a promotion leads into.
//!
//! Owns: [`RankField`].
//! Must never: number slots of another rank.

use super::*;

/// The slots of a layout in which one man stands on one rank, numbered densely: the slot with
/// that man's square replaced by its file,
///
/// `number = (high · files + file) · stride + low` where `slot = (high · squares + square) ·
/// stride + low`,
///
/// so the numbers run over `slots / ranks` values. En-passant positions (the pawn that has just
/// double-stepped stands where double steps end) and the tables a promotion leads into (the
/// promoted piece stands on the last rank) are numbered so.
#[derive(Debug, Clone, Copy)]
pub struct RankField {
    man: usize,
    rank: u64,
    files: u64,
    squares: u64,
    stride: u64,
    /// `log2 stride`, when the board has a power of two of squares.
    shift: Option<u32>,
    /// In a sliced layout, the slots of a slice and of them the ones numbered here: each
    /// slice is numbered on its own, its slots beyond the used ones left out.
    slices: Option<(u64, u64)>,
}

impl RankField {
    /// The slots of `layout` with man `man` (not the white king) on rank `rank` of a board of
    /// `files` files.
    pub fn new(layout: &Layout, files: u8, man: usize, rank: u8) -> RankField {
        assert!(man > 0, "the white king's field is a region number");
        assert!(
            !layout.lead.contains(&man),
            "a slice's pawns stand still in it"
        );
        let stride = layout.strides[man];
        RankField {
            slices: (!layout.lead.is_empty()).then(|| {
                (
                    layout.block,
                    layout.block_used / layout.squares * u64::from(files),
                )
            }),
            man,
            rank: u64::from(rank),
            files: u64::from(files),
            squares: layout.squares,
            stride,
            shift: layout
                .squares
                .is_power_of_two()
                .then(|| stride.trailing_zeros()),
        }
    }

    /// The man whose rank is fixed.
    pub fn man(&self) -> usize {
        self.man
    }

    /// Whether the man standing on `sq` is on the kept rank: the test [`RankField::number`]
    /// makes.
    #[inline(always)]
    pub fn keeps_square(&self, sq: Sq) -> bool {
        self.on_kept_rank(u64::from(sq))
    }

    #[inline(always)]
    pub(super) fn on_kept_rank(&self, square: u64) -> bool {
        square / self.files == self.rank
    }

    /// How many numbers there are, for a layout of `slots` slots.
    pub fn size(&self, slots: u64) -> u64 {
        match self.slices {
            Some((block, kept)) => slots / block * kept,
            None => slots / self.squares * self.files,
        }
    }

    /// `(value / stride, value % stride)`.
    #[inline(always)]
    pub(super) fn split(&self, value: u64) -> (u64, u64) {
        match self.shift {
            Some(shift) => (value >> shift, value & (self.stride - 1)),
            None => (value / self.stride, value % self.stride),
        }
    }

    /// The number of `slot`, or `None` if the man stands on another rank.
    #[inline(always)]
    pub fn number(&self, slot: u64) -> Option<u64> {
        if let Some((block, kept)) = self.slices {
            let (slice, within) = match block.is_power_of_two() {
                true => (slot >> block.trailing_zeros(), slot & (block - 1)),
                false => (slot / block, slot % block),
            };
            return Some(slice * kept + self.number_in_slice(within)?);
        }
        self.number_in_slice(slot)
    }

    /// [`RankField::number`] of a slot of an unsliced layout, or of one within a slice.
    #[inline(always)]
    pub(super) fn number_in_slice(&self, slot: u64) -> Option<u64> {
        let (above, low) = self.split(slot);
        let square = above % self.squares;
        if !self.on_kept_rank(square) {
            return None;
        }
        let high = above / self.squares;
        Some((high * self.files + square % self.files) * self.stride + low)
    }

    /// The slot of `number`.
    #[inline(always)]
    pub fn slot(&self, number: u64) -> u64 {
        if let Some((block, kept)) = self.slices {
            return number / kept * block + self.slot_in_slice(number % kept);
        }
        self.slot_in_slice(number)
    }

    /// [`RankField::slot`] within an unsliced layout or one slice.
    #[inline(always)]
    pub(super) fn slot_in_slice(&self, number: u64) -> u64 {
        let (above, low) = self.split(number);
        let square = self.rank * self.files + above % self.files;
        ((above / self.files) * self.squares + square) * self.stride + low
    }
}
