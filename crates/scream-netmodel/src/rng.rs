//! Seeded random streams.
//!
//! Every random element of a simulation (a link's jitter, its loss, an AQM's coin) draws
//! from its own ChaCha stream whose seed is derived from the master seed and a stable
//! element id such as `"link/bottleneck/jitter"`. Adding an element therefore never
//! shifts the numbers another element sees, and the same master seed reproduces a run.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// FNV-1a 64-bit offset basis and prime (a stable hash, unlike `std`'s `DefaultHasher`,
/// whose algorithm is unspecified and may change between Rust releases).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The seed of the stream named `element_id` under `master_seed`.
pub fn stream_seed(master_seed: u64, element_id: &str) -> u64 {
    let mut h = FNV_OFFSET;
    for b in master_seed
        .to_le_bytes()
        .iter()
        .chain(element_id.as_bytes())
    {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// One seeded random stream.
#[derive(Debug, Clone)]
pub struct RngStream {
    rng: ChaCha8Rng,
}

impl RngStream {
    /// The stream named `element_id` under `master_seed`.
    pub fn new(master_seed: u64, element_id: &str) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(stream_seed(master_seed, element_id)),
        }
    }

    /// A uniform number in `[0, 1)` with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (clamped to `[0, 1]`).
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (p >= 1.0 || self.uniform() < p)
    }

    /// A standard normal number (Box-Muller; one draw per call keeps the stream simple).
    pub fn standard_normal(&mut self) -> f64 {
        // 1 - u lies in (0, 1], so the logarithm is finite.
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (core::f64::consts::TAU * u2).cos()
    }

    /// A normal number with standard deviation `sigma`, redrawn until it lies within
    /// `[-bound, bound]` (a truncated Gaussian as in RFC 8868 §4.2 jitter models).
    pub fn truncated_normal(&mut self, sigma: f64, bound: f64) -> f64 {
        if sigma <= 0.0 || bound <= 0.0 {
            return 0.0;
        }
        // Each draw falls inside the bound with probability >= 68% for bound >= sigma;
        // a fixed cap keeps a pathological bound from looping for long.
        for _ in 0..64 {
            let x = sigma * self.standard_normal();
            if x.abs() <= bound {
                return x;
            }
        }
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_with_the_same_name_and_seed_repeat() {
        let mut a = RngStream::new(7, "link/x/loss");
        let mut b = RngStream::new(7, "link/x/loss");
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }

    #[test]
    fn different_names_or_seeds_give_different_streams() {
        assert_ne!(stream_seed(1, "a"), stream_seed(1, "b"));
        assert_ne!(stream_seed(1, "a"), stream_seed(2, "a"));
    }

    #[test]
    fn truncated_normal_respects_its_bound_and_spread() {
        let mut r = RngStream::new(3, "t");
        let xs: Vec<f64> = (0..20_000).map(|_| r.truncated_normal(2.0, 6.0)).collect();
        assert!(xs.iter().all(|x| x.abs() <= 6.0));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.1, "mean {mean}");
        assert!((var.sqrt() - 2.0).abs() < 0.15, "std {}", var.sqrt());
    }
}
