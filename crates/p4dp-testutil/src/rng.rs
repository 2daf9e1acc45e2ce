//! A small seeded random generator for the fuzz tests: the same seed gives the same inputs, so a
//! failure a test reports with its seed can be replayed.

/// splitmix64 (G. L. Steele, D. Lea and C. H. Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): one 64-bit state, every seed (0 too) gives a full-period sequence.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn upto(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.upto(n as u64) as usize
    }

    /// True one time in `in_n`.
    pub fn chance(&mut self, in_n: u64) -> bool {
        self.upto(in_n) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_sequence_and_bounds_hold() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            assert_eq!(a.next(), b.next());
        }
        let mut r = Rng::new(0);
        assert_ne!(r.next(), r.next());
        for n in 1..50 {
            assert!(r.below(n) < n);
        }
        assert_eq!(r.upto(0), 0);
    }
}
