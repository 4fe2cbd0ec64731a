//! L'Ecuyer's MRG32k3a combined multiple recursive generator ("Good parameters and
//! implementations for combined multiple recursive random number generators", Operations
//! Research 47(1), 1999), the generator behind ns-2.35's `RNG` class and so behind every
//! `Random::uniform()` ns-2 draws: a RED queue's early drops among them.
//!
//! Two order-3 recurrences, each modulo a prime just below 2^32,
//!
//! ```text
//! x1[n] = (1403580·x1[n−2] − 810728·x1[n−3]) mod 4294967087
//! x2[n] = ( 527612·x2[n−1] − 1370589·x2[n−3]) mod 4294944443
//! u[n]  = ((x1[n] − x2[n]) mod 4294967087, with 0 read as 4294967087) / 4294967088
//! ```
//!
//! so u lies in (0, 1). The arithmetic here is exact in integers; ns-2 computes the same
//! integers in doubles, and the one floating-point step, the scaling, is done as ns-2 does it,
//! so every draw is the same double.

const M1: i64 = 4_294_967_087;
const M2: i64 = 4_294_944_443;
const A12: i64 = 1_403_580;
const A13N: i64 = 810_728;
const A21: i64 = 527_612;
const A23N: i64 = 1_370_589;
/// 1 / (m1 + 1), the scale of a draw.
const NORM: f64 = 1.0 / 4_294_967_088.0;

/// The state of one MRG32k3a stream: the last three values of each component, oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mrg32k3a {
    s: [i64; 6],
}

impl Mrg32k3a {
    /// The stream ns-2.35 draws `Random::uniform()` from: its default RNG, which ns-2's Tcl
    /// library seeds with `$defaultRNG seed 1`, every one of the six state words set to 1.
    pub fn ns2_default() -> Mrg32k3a {
        Mrg32k3a { s: [1; 6] }
    }

    /// The next draw, uniform in (0, 1): ns-2's `RNG::uniform()` without its antithetic and
    /// extended-precision options (both off by default).
    #[inline]
    pub fn next_uniform(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = (A12 * s[1] - A13N * s[0]).rem_euclid(M1);
        s[0] = s[1];
        s[1] = s[2];
        s[2] = p1;
        let p2 = (A21 * s[5] - A23N * s[3]).rem_euclid(M2);
        s[3] = s[4];
        s[4] = s[5];
        s[5] = p2;
        let d = if p1 > p2 { p1 - p2 } else { p1 - p2 + M1 };
        d as f64 * NORM
    }

    /// Discards `n` draws.
    pub fn skip(&mut self, n: u64) {
        for _ in 0..n {
            self.next_uniform();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2's `next-random` (`uniform_positive_int`): the draw scaled to 2^31 and truncated.
    fn positive_int(r: &mut Mrg32k3a) -> u64 {
        (2_147_483_648.0 * r.next_uniform()) as u64
    }

    #[test]
    fn the_seed_one_stream_gives_ns2s_test_values() {
        // ns-2.35's RNGTest (tools/rng.cc): from seed 1, the 10 000th integer is 1179983147
        // and the 551 246th 817829295.
        let mut r = Mrg32k3a::ns2_default();
        let mut last = 0;
        for _ in 0..10_000 {
            last = positive_int(&mut r);
        }
        assert_eq!(last, 1_179_983_147);
        for _ in 10_000..551_246 {
            last = positive_int(&mut r);
        }
        assert_eq!(last, 817_829_295);
    }

    #[test]
    fn draws_lie_strictly_inside_the_unit_interval() {
        let mut r = Mrg32k3a::ns2_default();
        assert!((0..100_000).map(|_| r.next_uniform()).all(|u| u > 0.0 && u < 1.0));
    }
}
