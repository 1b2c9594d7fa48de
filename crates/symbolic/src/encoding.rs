//! Hurd's encoding of positions as Boolean variables (section 3.1): a category's position is the
//! list of its men's squares; a square is its file bits then its rank bits (⌈log₂ F⌉ + ⌈log₂ R⌉
//! bits, 6 on 8×8, most significant first). Every bit has a current-state and a next-state
//! variable, side by side, for the relational product.
//!
//! Owns: [`Ordering`], [`VariableLayout`].

use std::fmt;
use std::str::FromStr;

/// The order of the Boolean variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ordering {
    /// Square after square: all bits of man 0, then all bits of man 1, …
    Sequential,
    /// The bits of all squares interleaved: bit 0 of every man, then bit 1 of every man, …
    InterleavedSquares,
    /// As interleaved-squares, with file and rank bits interleaved too (most significant file
    /// bit, most significant rank bit, next file bit, …).
    InterleavedAll,
}

impl Ordering {
    /// Every ordering.
    pub const ALL: [Ordering; 3] = [
        Ordering::Sequential,
        Ordering::InterleavedSquares,
        Ordering::InterleavedAll,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Sequential => "sequential",
            Ordering::InterleavedSquares => "interleaved-squares",
            Ordering::InterleavedAll => "interleaved-all",
        }
    }
}

impl fmt::Display for Ordering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Ordering {
    type Err = String;

    fn from_str(text: &str) -> Result<Ordering, String> {
        Ordering::ALL
            .into_iter()
            .find(|o| o.name() == text)
            .ok_or_else(|| format!("unknown variable ordering '{text}': expected sequential, interleaved-squares or interleaved-all"))
    }
}

/// Where each bit of each man's square lives: variable numbers for up to `men` men on an
/// `files × ranks` board.
#[derive(Debug, Clone)]
pub struct VariableLayout {
    /// Files of the board.
    pub files: u8,
    /// Ranks of the board.
    pub ranks: u8,
    /// Bits for the file.
    pub file_bits: u32,
    /// Bits for the rank.
    pub rank_bits: u32,
    /// The most men a category may have.
    pub men: usize,
    /// The ordering.
    pub ordering: Ordering,
    /// `vars[man][bit][next]`: the variable number.
    vars: Vec<Vec<[u32; 2]>>,
}

fn bits_for(n: u8) -> u32 {
    let mut bits = 0;
    while (1u32 << bits) < u32::from(n) {
        bits += 1;
    }
    bits.max(1)
}

impl VariableLayout {
    /// The layout for `men` men on `files × ranks` in `ordering`.
    pub fn new(files: u8, ranks: u8, men: usize, ordering: Ordering) -> VariableLayout {
        let (file_bits, rank_bits) = (bits_for(files), bits_for(ranks));
        let square_bits = (file_bits + rank_bits) as usize;
        // The bit order within a square, by bit index (file bits 0.., then rank bits).
        let bit_order: Vec<usize> = match ordering {
            Ordering::InterleavedAll => {
                let mut order = Vec::new();
                let most = file_bits.max(rank_bits) as usize;
                // Align least significant bits: the file's i-th bit from the top is at index
                // i, the rank's at file_bits + i.
                for level in 0..most {
                    let f_skip = most - file_bits as usize;
                    let r_skip = most - rank_bits as usize;
                    if level >= f_skip {
                        order.push(level - f_skip);
                    }
                    if level >= r_skip {
                        order.push(file_bits as usize + level - r_skip);
                    }
                }
                order
            }
            _ => (0..square_bits).collect(),
        };
        let mut vars = vec![vec![[0u32; 2]; square_bits]; men];
        let mut next_var = 0u32;
        let mut place = |man: usize, bit: usize, vars: &mut Vec<Vec<[u32; 2]>>| {
            vars[man][bit] = [next_var, next_var + 1];
            next_var += 2;
        };
        match ordering {
            Ordering::Sequential => {
                for man in 0..men {
                    for &bit in &bit_order {
                        place(man, bit, &mut vars);
                    }
                }
            }
            Ordering::InterleavedSquares | Ordering::InterleavedAll => {
                for &bit in &bit_order {
                    for man in 0..men {
                        place(man, bit, &mut vars);
                    }
                }
            }
        }
        VariableLayout {
            files,
            ranks,
            file_bits,
            rank_bits,
            men,
            ordering,
            vars,
        }
    }

    /// Bits per square.
    pub fn square_bits(&self) -> u32 {
        self.file_bits + self.rank_bits
    }

    /// All variables of the manager.
    pub fn var_count(&self) -> u32 {
        2 * self.men as u32 * self.square_bits()
    }

    /// The variable of bit `bit` (file bits first, most significant first) of man `man`'s
    /// square, in the current (`next = false`) or next state.
    pub fn var(&self, man: usize, bit: usize, next: bool) -> u32 {
        self.vars[man][bit][usize::from(next)]
    }

    /// The value of bit `bit` for the square (`file`, `rank`).
    pub fn bit_value(&self, file: u8, rank: u8, bit: usize) -> bool {
        let fb = self.file_bits as usize;
        if bit < fb {
            (file >> (fb - 1 - bit)) & 1 == 1
        } else {
            let rb = self.rank_bits as usize;
            let i = bit - fb;
            (rank >> (rb - 1 - i)) & 1 == 1
        }
    }

    /// The codes a square's bits can hold, on the board or not.
    pub fn codes(&self) -> impl Iterator<Item = (u8, u8)> {
        let (fc, rc) = (1u16 << self.file_bits, 1u16 << self.rank_bits);
        (0..rc).flat_map(move |r| (0..fc).map(move |f| (f as u8, r as u8)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variable_is_used_once_in_every_ordering() {
        for ordering in Ordering::ALL {
            for (files, ranks) in [(8, 8), (5, 7), (16, 3), (1, 1)] {
                let layout = VariableLayout::new(files, ranks, 4, ordering);
                let mut seen = vec![false; layout.var_count() as usize];
                for man in 0..4 {
                    for bit in 0..layout.square_bits() as usize {
                        for next in [false, true] {
                            let v = layout.var(man, bit, next) as usize;
                            assert!(!seen[v]);
                            seen[v] = true;
                        }
                    }
                }
                assert!(seen.iter().all(|&s| s), "{ordering} {files}x{ranks}");
            }
        }
        let seq = VariableLayout::new(8, 8, 2, Ordering::Sequential);
        assert_eq!((seq.var(0, 5, true), seq.var(1, 0, false)), (11, 12));
        let sq = VariableLayout::new(8, 8, 2, Ordering::InterleavedSquares);
        assert_eq!((sq.var(1, 0, false), sq.var(0, 1, false)), (2, 4));
        let all = VariableLayout::new(8, 8, 1, Ordering::InterleavedAll);
        // file msb, rank msb, file bit 1, rank bit 1, …
        assert_eq!(
            (
                all.var(0, 0, false),
                all.var(0, 3, false),
                all.var(0, 1, false)
            ),
            (0, 2, 4)
        );
    }

    #[test]
    fn bits_spell_the_square() {
        let l = VariableLayout::new(8, 8, 1, Ordering::Sequential);
        // e3 = (4, 2): file 100, rank 010.
        let bits: Vec<bool> = (0..6).map(|b| l.bit_value(4, 2, b)).collect();
        assert_eq!(bits, [true, false, false, false, true, false]);
    }
}
