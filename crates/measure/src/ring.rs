//! Seeded randomness: xoshiro256++ from `rand_xoshiro`, uniform indices, shuffles, and the
//! single-cycle random permutation (Sattolo's algorithm) that pointer chasing needs.
//!
//! Every experiment uses [`DEFAULT_SEED`] unless told otherwise, so two runs walk the same
//! ring and differ only in the machine's behaviour.

pub use rand_xoshiro::Xoshiro256PlusPlus as Rng;
use rand_xoshiro::rand_core::{Rng as _, SeedableRng};

/// The seed every experiment uses by default.
pub const DEFAULT_SEED: u64 = 0x6d61_6368_696e_6521; // "machine!"

/// A generator seeded with `seed`.
pub fn rng(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

/// A uniform integer in `0..n` (Lemire's multiply-shift with rejection, no modulo bias).
pub fn below(rng: &mut Rng, n: usize) -> usize {
    assert!(n > 0, "below(0) has no values");
    let n = n as u64;
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        let low = m as u64;
        if low >= n.wrapping_neg() % n {
            return (m >> 64) as usize;
        }
    }
}

/// Fisher-Yates shuffle in place.
pub fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i + 1);
        v.swap(i, j);
    }
}

/// A random permutation `next` of `0..n` that is one single cycle (Sattolo's algorithm):
/// starting anywhere and following `next[i]` visits every index exactly once before it
/// returns. That is what keeps a pointer chase from closing early into a small ring that
/// fits in cache.
pub fn sattolo(n: usize, seed: u64) -> Vec<usize> {
    try_sattolo(n, seed).unwrap_or_else(|e| panic!("{e}"))
}

/// [`sattolo`], with "not enough memory" as an error where the permutation's `n` words
/// cannot be allocated (a large ring on a small machine), instead of an abort.
pub fn try_sattolo(n: usize, seed: u64) -> Result<Vec<usize>, String> {
    let mut rng = rng(seed);
    let mut next = crate::mem::try_vec(n, 0usize)?;
    for (i, x) in next.iter_mut().enumerate() {
        *x = i;
    }
    for i in (1..n).rev() {
        let j = below(&mut rng, i); // j < i, never i itself: this is what makes one cycle
        next.swap(i, j);
    }
    Ok(next)
}

/// Follows `next` from 0 and returns the length of the cycle through 0.
pub fn cycle_len(next: &[usize]) -> usize {
    if next.is_empty() {
        return 0;
    }
    let (mut p, mut len) = (next[0], 1);
    while p != 0 && len <= next.len() {
        p = next[p];
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sattolo_is_one_cycle_for_many_sizes() {
        for n in [1usize, 2, 3, 4, 5, 7, 8, 100, 1000, 4096, 65_537] {
            for seed in [DEFAULT_SEED, 1, 2] {
                let next = sattolo(n, seed);
                assert_eq!(cycle_len(&next), n, "n={n} seed={seed}");
                let mut seen = next.clone();
                seen.sort_unstable();
                assert!(seen.iter().copied().eq(0..n), "a permutation");
                if n > 1 {
                    assert!(
                        next.iter().enumerate().all(|(i, &p)| i != p),
                        "no fixed points"
                    );
                }
            }
        }
    }

    #[test]
    fn a_ring_too_large_to_allocate_is_an_error() {
        assert_eq!(try_sattolo(1000, 7).unwrap(), sattolo(1000, 7));
        let e = try_sattolo(usize::MAX / 16, 7).unwrap_err();
        assert!(e.starts_with("not enough memory"), "{e}");
    }

    #[test]
    fn sattolo_is_seeded() {
        assert_eq!(sattolo(1000, 7), sattolo(1000, 7));
        assert_ne!(sattolo(1000, 7), sattolo(1000, 8));
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = rng(3);
        let mut hits = [0usize; 7];
        for _ in 0..7000 {
            hits[below(&mut r, 7)] += 1;
        }
        assert!(hits.iter().all(|&h| h > 700 && h < 1300), "{hits:?}");
    }

    #[test]
    fn shuffle_permutes() {
        let mut v: Vec<u32> = (0..100).collect();
        shuffle(&mut rng(5), &mut v);
        assert_ne!(v, (0..100).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
