//! Dense LU factorization with partial pivoting: the per-flow Jacobians (at most a few subflows)
//! and the links' Schur complement (one row per congestible link) of the Newton steps.
//!
//! The Schur complement starts sparse (a link couples only with the links its flows cross) and
//! fills in: on seed 002's k = 8 FatTree, a 555-row system's pivot rows stay sparse for the
//! first 222 columns, and in the remaining 333, 70 % of the rows below a pivot have an entry in
//! its column. The sparse front is eliminated pivot row by pivot row, touching only the nonzero
//! entries; the dense tail in panels of [`PANEL`] columns, whose rows update the rest of the
//! matrix together.

/// The front ends at the first pivot row with at least one nonzero entry in this many.
const SPARSE: usize = 4;

/// Columns per panel of the dense tail. Each trailing row is read and written once per panel
/// rather than once per column. Against the column-by-column update, LIA's equilibrium on the
/// k = 8 FatTree took 0.84 of the CPU time without queues and 0.97 with standing queues (where
/// the LU is 29 % of the time rather than 62 %), medians of six paired runs; panels of 8
/// columns gave 0.93 and 0.98 (more pointers than registers in the update loop).
const PANEL: usize = 4;

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
            pivot_column(n, &mut a, &mut pivot, k)?;
            let d = a[k * n + k];
            let (top, bottom) = a.split_at_mut((k + 1) * n);
            let pivot_row = &top[k * n + k + 1..];
            // A pivot row of the front updates only its nonzero columns.
            nonzero.clear();
            nonzero.extend((0..pivot_row.len()).filter(|&j| pivot_row[j] != 0.0));
            if nonzero.len() * SPARSE >= pivot_row.len() {
                // The front ends here: the swap is undone and the tail's panels start from
                // this column, choosing the same pivot.
                let p = pivot[k];
                for j in 0..n {
                    a.swap(k * n + j, p * n + j);
                }
                factor_dense_tail(n, &mut a, &mut pivot, k)?;
                break;
            }
            for row in bottom.chunks_exact_mut(n) {
                let f = row[k] / d;
                row[k] = f;
                if f == 0.0 {
                    continue;
                }
                let rest = &mut row[k + 1..];
                for &j in &nonzero {
                    rest[j] -= f * pivot_row[j];
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
        // Forward, four rows at a time: their sums over the columns before the four are
        // independent chains, each in the order of a row-by-row sum (the same bits).
        let mut i = 0;
        while i + 4 <= n {
            let rows: [&[f64]; 4] = std::array::from_fn(|r| &self.a[(i + r) * n..(i + r) * n + i]);
            let mut s = [-0.0; 4];
            for (j, &x) in b[..i].iter().enumerate() {
                for r in 0..4 {
                    s[r] += rows[r][j] * x;
                }
            }
            for r in 0..4 {
                let row = &self.a[(i + r) * n + i..(i + r) * n + i + r];
                for (a, x) in row.iter().zip(&b[i..i + r]) {
                    s[r] += a * x;
                }
                b[i + r] -= s[r];
            }
            i += 4;
        }
        for i in i..n {
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

/// Picks the pivot of column `k` among rows `k..n` (the largest magnitude) and swaps its row
/// into place; `None` if the column is zero (or NaN) there.
fn pivot_column(n: usize, a: &mut [f64], pivot: &mut [usize], k: usize) -> Option<()> {
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
    Some(())
}

/// Factorizes rows and columns `start..n` of `a`, the columns before them already eliminated,
/// in panels of [`PANEL`] columns: each panel is factorized with partial pivoting, its rows of
/// U are completed, and the trailing rows are updated by all its columns in one pass.
fn factor_dense_tail(n: usize, a: &mut [f64], pivot: &mut [usize], start: usize) -> Option<()> {
    for k0 in (start..n).step_by(PANEL) {
        let k1 = (k0 + PANEL).min(n);
        // The panel, column by column, within its own columns.
        for k in k0..k1 {
            pivot_column(n, a, pivot, k)?;
            let d = a[k * n + k];
            let (top, bottom) = a.split_at_mut((k + 1) * n);
            let pivot_row = &top[k * n + k + 1..k * n + k1];
            for row in bottom.chunks_exact_mut(n) {
                let f = row[k] / d;
                row[k] = f;
                if f != 0.0 {
                    for (x, &y) in row[k + 1..k1].iter_mut().zip(pivot_row) {
                        *x -= f * y;
                    }
                }
            }
        }
        if k1 == n {
            break;
        }
        // The panel's rows of U right of it.
        for k in k0..k1 {
            let (top, bottom) = a.split_at_mut((k + 1) * n);
            let u_row = &top[k * n + k1..(k + 1) * n];
            for row in bottom[..(k1 - k - 1) * n].chunks_exact_mut(n) {
                let f = row[k];
                if f != 0.0 {
                    for (x, &y) in row[k1..].iter_mut().zip(u_row) {
                        *x -= f * y;
                    }
                }
            }
        }
        // The trailing rows, by the panel's columns together.
        let (top, bottom) = a.split_at_mut(k1 * n);
        let u: Vec<&[f64]> = (k0..k1).map(|k| &top[k * n + k1..(k + 1) * n]).collect();
        let mut rows = bottom.chunks_exact_mut(n).filter(|row| row[k0..k1].iter().any(|&x| x != 0.0));
        if let [u0, u1, u2, u3] = u.as_slice() {
            // Two rows at a time share the loads of the panel's rows of U.
            while let Some(a) = rows.next() {
                match rows.next() {
                    Some(b) => update_two(k1, [u0, u1, u2, u3], a, b),
                    None => update_one(k1, [u0, u1, u2, u3], a),
                }
            }
        } else {
            for row in rows {
                let (l, rest) = row.split_at_mut(k1);
                for (&f, u) in l[k0..k1].iter().zip(&u) {
                    for (x, &y) in rest.iter_mut().zip(*u) {
                        *x -= f * y;
                    }
                }
            }
        }
    }
    Some(())
}

/// Row `row` (its columns from `k1` on) less its multipliers in the four columns before `k1`
/// times the panel's rows of U, `u`.
#[inline(always)]
fn update_one(k1: usize, u: [&[f64]; 4], row: &mut [f64]) {
    let (l, rest) = row.split_at_mut(k1);
    let [f0, f1, f2, f3] = [l[k1 - 4], l[k1 - 3], l[k1 - 2], l[k1 - 1]];
    // Slices of the row's length, so that the loop has no bounds checks and vectorizes.
    let w = rest.len();
    let (u0, u1, u2, u3) = (&u[0][..w], &u[1][..w], &u[2][..w], &u[3][..w]);
    for j in 0..w {
        rest[j] -= f0 * u0[j] + f1 * u1[j] + f2 * u2[j] + f3 * u3[j];
    }
}

/// [`update_one`] for two rows together, each entry by the same expression.
#[inline(always)]
fn update_two(k1: usize, u: [&[f64]; 4], a: &mut [f64], b: &mut [f64]) {
    let (la, ra) = a.split_at_mut(k1);
    let (lb, rb) = b.split_at_mut(k1);
    let [a0, a1, a2, a3] = [la[k1 - 4], la[k1 - 3], la[k1 - 2], la[k1 - 1]];
    let [b0, b1, b2, b3] = [lb[k1 - 4], lb[k1 - 3], lb[k1 - 2], lb[k1 - 1]];
    let w = ra.len();
    let rb = &mut rb[..w];
    let (u0, u1, u2, u3) = (&u[0][..w], &u[1][..w], &u[2][..w], &u[3][..w]);
    for j in 0..w {
        let (x0, x1, x2, x3) = (u0[j], u1[j], u2[j], u3[j]);
        ra[j] -= a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3;
        rb[j] -= b0 * x0 + b1 * x1 + b2 * x2 + b3 * x3;
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
    /// entry by entry): `A·x` for the solution is `b` to rounding, and the solve's four rows at
    /// a time give the bits of a row-by-row substitution.
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
            let lu = Lu::new(n, a.clone()).expect("not singular");
            lu.solve(&mut x);
            // The same bits as a substitution row by row, each row's sum in one chain.
            let mut y = b.clone();
            for k in 0..n {
                y.swap(k, lu.pivot[k]);
            }
            for i in 0..n {
                y[i] -= (0..i).map(|j| lu.a[i * n + j] * y[j]).sum::<f64>();
            }
            for i in (0..n).rev() {
                y[i] = (y[i] - (i + 1..n).map(|j| lu.a[i * n + j] * y[j]).sum::<f64>()) / lu.a[i * n + i];
            }
            assert!(x.iter().zip(&y).all(|(x, y)| x.to_bits() == y.to_bits()), "n = {n}");
            for i in 0..n {
                let ax: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum();
                assert!((ax - b[i]).abs() <= 1e-9, "n = {n}, row {i}: {ax} against {}", b[i]);
            }
        }
    }
}
