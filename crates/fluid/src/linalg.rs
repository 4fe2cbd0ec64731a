//! Dense LU factorization with partial pivoting: the per-flow Jacobians (at most a few subflows)
//! and the links' Schur complement (one row per congestible link) of the Newton steps.

/// A pivot row with fewer than one nonzero entry in this many is applied entry by entry.
const SPARSE: usize = 4;

/// An LU factorization of a square matrix, row-major.
pub(crate) struct Lu {
    n: usize,
    a: Vec<f64>,
    pivot: Vec<usize>,
}

impl Lu {
    /// Factorizes the `n × n` row-major matrix `a`; `None` if it is singular to working
    /// precision.
    pub fn new(n: usize, mut a: Vec<f64>) -> Option<Lu> {
        debug_assert_eq!(a.len(), n * n);
        let mut pivot = vec![0; n];
        let mut nonzero: Vec<usize> = Vec::with_capacity(n);
        for k in 0..n {
            let p = (k..n).max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))?;
            if a[p * n + k].is_nan() || a[p * n + k].abs() <= 1e-300 {
                return None;
            }
            pivot[k] = p;
            if p != k {
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
            }
            let d = a[k * n + k];
            // Row slices rather than indices: the update loop then has no bounds checks and
            // vectorizes (the FatTree's 768-link system spent 60 % of its time here).
            let (top, bottom) = a.split_at_mut((k + 1) * n);
            let pivot_row = &top[k * n + k + 1..];
            // A pivot row with few nonzero entries updates only those columns.
            nonzero.clear();
            nonzero.extend((0..pivot_row.len()).filter(|&j| pivot_row[j] != 0.0));
            let sparse = nonzero.len() * SPARSE < pivot_row.len();
            for row in bottom.chunks_exact_mut(n) {
                let f = row[k] / d;
                row[k] = f;
                if f == 0.0 {
                    continue;
                }
                let rest = &mut row[k + 1..];
                if sparse {
                    for &j in &nonzero {
                        rest[j] -= f * pivot_row[j];
                    }
                } else {
                    for (x, &y) in rest.iter_mut().zip(pivot_row) {
                        *x -= f * y;
                    }
                }
            }
        }
        Some(Lu { n, a, pivot })
    }

    /// Solves `A x = b` in place.
    pub fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        for k in 0..n {
            b.swap(k, self.pivot[k]);
        }
        for i in 0..n {
            let row = &self.a[i * n..i * n + i];
            let s: f64 = row.iter().zip(&b[..i]).map(|(a, x)| a * x).sum();
            b[i] -= s;
        }
        for i in (0..n).rev() {
            let row = &self.a[i * n + i + 1..(i + 1) * n];
            let s: f64 = row.iter().zip(&b[i + 1..]).map(|(a, x)| a * x).sum();
            b[i] = (b[i] - s) / self.a[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lu;

    #[test]
    fn solves_a_system_needing_a_pivot() {
        // [0 2 1; 1 1 0; 2 0 3]·(1, 2, 3) = (7, 3, 11); the first pivot must be swapped in.
        let a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 3.0];
        let lu = Lu::new(3, a).unwrap();
        let mut b = vec![7.0, 3.0, 11.0];
        lu.solve(&mut b);
        for (got, want) in b.iter().zip([1.0, 2.0, 3.0]) {
            assert!((got - want).abs() < 1e-12, "{b:?}");
        }
        assert!(Lu::new(2, vec![1.0, 2.0, 2.0, 4.0]).is_none());
    }

    /// Larger systems that need pivoting and have zero entries (as the Schur systems do), a
    /// third of them (dense pivot rows) or nine in ten beside the diagonal (sparse ones, updated
    /// entry by entry): `A·x` for the solution is `b` to rounding.
    #[test]
    fn solves_larger_systems_with_zeros() {
        for (n, zeros) in [(1, 1.0 / 3.0), (5, 1.0 / 3.0), (31, 1.0 / 3.0), (64, 1.0 / 3.0), (257, 1.0 / 3.0), (64, 0.9), (257, 0.9)] {
            // A deterministic pseudo-random matrix with that share of zeros.
            let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % 2001) as f64 / 1000.0 - 1.0
            };
            let mut a: Vec<f64> =
                (0..n * n).map(|_| (next(), next())).map(|(x, keep)| if keep < 2.0 * zeros - 1.0 { 0.0 } else { x }).collect();
            for i in 0..n {
                a[i * n + i] += 0.5;
            }
            let b: Vec<f64> = (0..n).map(|_| next()).collect();
            let mut x = b.clone();
            Lu::new(n, a.clone()).expect("not singular").solve(&mut x);
            for i in 0..n {
                let ax: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum();
                assert!((ax - b[i]).abs() <= 1e-9, "n = {n}, row {i}: {ax} against {}", b[i]);
            }
        }
    }
}
