//! Sets of squares of boards up to 16×16, as 256-bit masks.
//!
//! Owns: [`SqSet`] and [`Sq`], the engine's square number `rank × files + file`.

/// A square of a particular board, numbered `rank × files + file` (a1 is 0).
pub type Sq = u8;

/// A set of squares of a board of at most 256 squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SqSet([u64; 4]);

impl SqSet {
    /// The empty set.
    pub const EMPTY: SqSet = SqSet([0; 4]);

    /// The set holding `sq` alone.
    #[inline]
    pub fn single(sq: Sq) -> SqSet {
        let mut s = SqSet::EMPTY;
        s.insert(sq);
        s
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub fn contains(self, sq: Sq) -> bool {
        (self.0[usize::from(sq >> 6)] >> (sq & 63)) & 1 != 0
    }

    /// Adds `sq`.
    #[inline]
    pub fn insert(&mut self, sq: Sq) {
        self.0[usize::from(sq >> 6)] |= 1 << (sq & 63);
    }

    /// Removes `sq`.
    #[inline]
    pub fn remove(&mut self, sq: Sq) {
        self.0[usize::from(sq >> 6)] &= !(1 << (sq & 63));
    }

    /// Whether the two sets share a square.
    #[inline]
    pub fn intersects(self, other: SqSet) -> bool {
        (self.0[0] & other.0[0])
            | (self.0[1] & other.0[1])
            | (self.0[2] & other.0[2])
            | (self.0[3] & other.0[3])
            != 0
    }

    /// The squares in both sets.
    #[inline]
    pub fn and(self, other: SqSet) -> SqSet {
        SqSet([
            self.0[0] & other.0[0],
            self.0[1] & other.0[1],
            self.0[2] & other.0[2],
            self.0[3] & other.0[3],
        ])
    }

    /// The squares in either set.
    #[inline]
    pub fn or(self, other: SqSet) -> SqSet {
        SqSet([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
            self.0[3] | other.0[3],
        ])
    }

    /// The squares of this set not in `other`.
    #[inline]
    pub fn minus(self, other: SqSet) -> SqSet {
        SqSet([
            self.0[0] & !other.0[0],
            self.0[1] & !other.0[1],
            self.0[2] & !other.0[2],
            self.0[3] & !other.0[3],
        ])
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == [0; 4]
    }

    /// The number of squares in the set.
    pub fn len(self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The lowest square of the set.
    #[inline]
    pub fn first(self) -> Option<Sq> {
        (0..4)
            .find(|&w| self.0[w] != 0)
            .map(|w| (w * 64) as Sq + self.0[w].trailing_zeros() as Sq)
    }

    /// The highest square of the set.
    #[inline]
    pub fn last(self) -> Option<Sq> {
        (0..4)
            .rev()
            .find(|&w| self.0[w] != 0)
            .map(|w| (w * 64) as Sq + (63 - self.0[w].leading_zeros()) as Sq)
    }

    /// The squares of the set in increasing order.
    pub fn iter(self) -> impl Iterator<Item = Sq> {
        (0..4u8).flat_map(move |w| {
            let mut word = self.0[usize::from(w)];
            std::iter::from_fn(move || {
                if word == 0 {
                    None
                } else {
                    let bit = word.trailing_zeros() as u8;
                    word &= word - 1;
                    Some(w * 64 + bit)
                }
            })
        })
    }
}

impl FromIterator<Sq> for SqSet {
    fn from_iter<I: IntoIterator<Item = Sq>>(iter: I) -> SqSet {
        let mut s = SqSet::EMPTY;
        for sq in iter {
            s.insert(sq);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let mut s: SqSet = [0, 63, 64, 200, 255].into_iter().collect();
        assert!(s.contains(200) && !s.contains(1));
        assert_eq!(s.len(), 5);
        s.remove(63);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 64, 200, 255]);
        assert!(s.intersects(SqSet::single(255)));
        assert!(!s.intersects(SqSet::single(254)));
        assert!(SqSet::EMPTY.is_empty());
        assert_eq!((s.first(), s.last()), (Some(0), Some(255)));
        assert_eq!(
            (SqSet::single(70).first(), SqSet::single(70).last()),
            (Some(70), Some(70))
        );
        assert_eq!(SqSet::EMPTY.first(), None);
    }
}
