//! The order of a side's entries in a packed file: the raw index's mixed-radix digits, taken
//! in another order of significance.
//!
//! Owns: [`DigitOrder`], the arithmetic between a raw index and its place in the packed stream.
//! Must never: know what a digit means (kings, a group of men, an en-passant code); the packer's
//! caller names the digits by their radices, and any order of them is a bijection.
//!
//! A raw index is `((d₀ · r₁ + d₁) · r₂ + d₂) · …` with `0 ≤ dₜ < rₜ`, the radices `r` most
//! significant first. A packed side keeps its entries in the order of the same digits ranked
//! `order[0]` (most significant) to `order[n − 1]` (least): entries whose `order[n − 1]` digits
//! differ only follow one another, and so on up.

/// A permutation of an index's digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigitOrder {
    /// The radices of the raw index's digits, most significant first.
    radices: Vec<u64>,
    /// The raw digits by significance in the packed stream, most significant first.
    order: Vec<u8>,
    /// Each raw digit's weight in the raw index.
    raw_weights: Vec<u64>,
    /// Each raw digit's weight in the packed index.
    packed_weights: Vec<u64>,
}

/// Weights of mixed-radix digits listed most significant first, in the order given by
/// `significance` (digit numbers, most significant first).
fn weights(radices: &[u64], significance: impl DoubleEndedIterator<Item = usize>) -> Vec<u64> {
    let mut weights = vec![0; radices.len()];
    let mut weight = 1u64;
    for digit in significance.rev() {
        weights[digit] = weight;
        weight = weight.saturating_mul(radices[digit]);
    }
    weights
}

impl DigitOrder {
    /// The order `order` of the digits of radices `radices`, if it is a permutation of them
    /// (a radix of 0 numbers no entries, and leaves nothing to order).
    pub fn new(radices: &[u64], order: &[u8]) -> Option<DigitOrder> {
        let n = radices.len();
        let mut seen = vec![false; n];
        if n == 0 || order.len() != n {
            return None;
        }
        for &digit in order {
            let slot = seen.get_mut(usize::from(digit))?;
            if *slot {
                return None;
            }
            *slot = true;
        }
        radices.iter().try_fold(1u64, |p, &r| p.checked_mul(r))?;
        Some(DigitOrder {
            radices: radices.to_vec(),
            order: order.to_vec(),
            raw_weights: weights(radices, 0..n),
            packed_weights: weights(radices, order.iter().map(|&d| usize::from(d))),
        })
    }

    /// The raw order itself.
    pub fn identity(radices: &[u64]) -> Option<DigitOrder> {
        let order: Vec<u8> = (0..radices.len()).map(|d| d as u8).collect();
        DigitOrder::new(radices, &order)
    }

    /// The radices, most significant first.
    pub fn radices(&self) -> &[u64] {
        &self.radices
    }

    /// The raw digits by packed significance, most significant first.
    pub fn order(&self) -> &[u8] {
        &self.order
    }

    /// Whether the packed stream is in raw order.
    pub fn is_identity(&self) -> bool {
        self.order
            .iter()
            .enumerate()
            .all(|(k, &d)| usize::from(d) == k)
    }

    /// The number of entries: the product of the radices.
    pub fn entries(&self) -> u64 {
        self.radices.iter().product()
    }

    /// The packed place of raw index `raw`.
    pub fn packed_index(&self, raw: u64) -> u64 {
        self.convert(raw, &self.packed_weights)
    }

    /// The raw index at packed place `packed`.
    pub fn raw_index(&self, packed: u64) -> u64 {
        let mut rest = packed;
        let mut raw = 0;
        for &digit in self.order.iter().rev() {
            let d = usize::from(digit);
            raw += (rest % self.radices[d]) * self.raw_weights[d];
            rest /= self.radices[d];
        }
        raw
    }

    /// Digits of `raw` (raw order) weighted by `weights`.
    fn convert(&self, raw: u64, weights: &[u64]) -> u64 {
        let mut rest = raw;
        let mut out = 0;
        for d in (0..self.radices.len()).rev() {
            out += (rest % self.radices[d]) * weights[d];
            rest /= self.radices[d];
        }
        out
    }

    /// Calls `visit` with the raw index of each of the packed places `start .. start + count`,
    /// in order (an odometer over the packed digits: one addition per place, and a carry now
    /// and then).
    pub fn for_each_raw(&self, start: u64, count: usize, mut visit: impl FnMut(u64)) {
        if count == 0 {
            return;
        }
        if self.is_identity() {
            (start..start + count as u64).for_each(visit);
            return;
        }
        let n = self.order.len();
        let radix: Vec<u64> = self
            .order
            .iter()
            .map(|&d| self.radices[usize::from(d)])
            .collect();
        let weight: Vec<u64> = self
            .order
            .iter()
            .map(|&d| self.raw_weights[usize::from(d)])
            .collect();
        let mut digits = vec![0u64; n];
        let mut rest = start;
        let mut raw = 0;
        for k in (0..n).rev() {
            digits[k] = rest % radix[k];
            rest /= radix[k];
            raw += digits[k] * weight[k];
        }
        for _ in 0..count {
            visit(raw);
            let mut k = n;
            while k > 0 {
                k -= 1;
                digits[k] += 1;
                raw += weight[k];
                if digits[k] < radix[k] {
                    break;
                }
                raw -= radix[k] * weight[k];
                digits[k] = 0;
            }
        }
    }

    /// The orders [`crate::pack`] tries for a side: the raw order first; then, keeping leading
    /// digits of radix below 16 (en-passant codes) in front, every order of the others when
    /// there are at most four of them, and otherwise each of them moved to the front and each
    /// moved to the back.
    pub fn candidates(radices: &[u64]) -> Vec<DigitOrder> {
        let n = radices.len();
        let fixed = radices.iter().take_while(|&&r| r < 16).count().min(n);
        let free: Vec<u8> = (fixed..n).map(|d| d as u8).collect();
        let mut orders: Vec<Vec<u8>> = vec![(0..n as u8).collect()];
        let mut tails: Vec<Vec<u8>> = Vec::new();
        if free.len() <= 4 {
            permutations(&free, &mut Vec::new(), &mut tails);
        } else {
            for (k, &d) in free.iter().enumerate() {
                let mut front = vec![d];
                front.extend(
                    free.iter()
                        .enumerate()
                        .filter(|&(j, _)| j != k)
                        .map(|(_, &x)| x),
                );
                let mut back: Vec<u8> = free
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, &x)| x)
                    .collect();
                back.push(d);
                tails.push(front);
                tails.push(back);
            }
        }
        for tail in tails {
            let mut order: Vec<u8> = (0..fixed as u8).collect();
            order.extend(tail);
            if !orders.contains(&order) {
                orders.push(order);
            }
        }
        orders
            .iter()
            .filter_map(|order| DigitOrder::new(radices, order))
            .collect()
    }
}

/// Every order of `items` after `prefix`, appended to `out`.
fn permutations(items: &[u8], prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
    if items.is_empty() {
        out.push(prefix.clone());
        return;
    }
    for k in 0..items.len() {
        let mut rest = items.to_vec();
        let item = rest.remove(k);
        prefix.push(item);
        permutations(&rest, prefix, out);
        prefix.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_is_a_bijection_and_the_odometer_agrees() {
        let radices = [17u64, 19, 16, 18];
        let total = radices.iter().product::<u64>();
        for order in DigitOrder::candidates(&radices) {
            let mut seen = vec![false; total as usize];
            let mut walked = Vec::new();
            order.for_each_raw(0, total as usize, |raw| walked.push(raw));
            for packed in 0..total {
                let raw = order.raw_index(packed);
                assert_eq!(order.packed_index(raw), packed, "{order:?}");
                assert!(!seen[raw as usize]);
                seen[raw as usize] = true;
                assert_eq!(walked[packed as usize], raw);
            }
            let mut part = Vec::new();
            order.for_each_raw(3737, 500, |raw| part.push(raw));
            assert_eq!(part, walked[3737..4237]);
        }
        assert_eq!(DigitOrder::candidates(&radices).len(), 24);
    }

    #[test]
    fn candidates_keep_small_leading_digits_in_front() {
        // Radices below 16 in front only: nothing left to order.
        assert_eq!(DigitOrder::candidates(&[3, 5, 2, 4]).len(), 1);
        // An en-passant digit, the kings and three groups of men: the en-passant digit stays
        // first, the four others take every order.
        let candidates = DigitOrder::candidates(&[3, 1806, 64, 48, 64]);
        assert_eq!(candidates.len(), 24);
        assert!(candidates.iter().all(|c| c.order()[0] == 0));
        assert!(candidates[0].is_identity());
        // Five free digits: each to the front and to the back, besides the raw order.
        assert_eq!(DigitOrder::candidates(&[462, 62, 61, 60, 59]).len(), 9);
    }

    #[test]
    fn bad_orders_are_refused() {
        assert!(DigitOrder::new(&[4, 5], &[0, 0]).is_none());
        assert!(DigitOrder::new(&[4, 5], &[0, 2]).is_none());
        assert!(DigitOrder::new(&[4, 5], &[0]).is_none());
        assert_eq!(DigitOrder::new(&[4, 0], &[1, 0]).unwrap().entries(), 0);
        assert!(DigitOrder::new(&[u64::MAX, 3], &[0, 1]).is_none());
        assert!(DigitOrder::new(&[], &[]).is_none());
    }
}
