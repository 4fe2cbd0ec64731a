//! Verdicts: how a chain of measured quantities compares with a claim's relation.

use topologies::paper::Claim;

/// A claim's outcome, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The data contradict it beyond the confidence intervals (or in some replicate).
    DoesNotHold,
    /// The means contradict it but the intervals overlap.
    WithinNoise,
    /// An ordering the means follow, with overlapping intervals.
    HoldsInTheMeans,
    /// The means follow it and, for orderings, the intervals are disjoint.
    Holds,
    /// The runs cannot test it: at some point of it, what it needs is not there (a link that
    /// does not bind, no loss).
    NotTested,
}

impl Verdict {
    /// The verdict as the report prints it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::DoesNotHold => "does not hold",
            Verdict::WithinNoise => "within noise",
            Verdict::HoldsInTheMeans => "holds in the means (CIs overlap)",
            Verdict::Holds => "holds",
            Verdict::NotTested => "not tested here",
        }
    }
}

impl Verdict {
    /// The verdict in one character, for the tables of unknowns.
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Holds => "✓",
            Verdict::HoldsInTheMeans => "(✓)",
            Verdict::WithinNoise => "≈",
            Verdict::DoesNotHold => "✗",
            Verdict::NotTested => "–",
        }
    }

    /// What the marks mean.
    pub const LEGEND: &'static str = "✓ holds, (✓) holds in the means (CIs overlap), ≈ within noise, ✗ does not hold, – not tested here.";
}

/// A ratio of two means and its 95 % half-width, to first order (the relative half-widths
/// added in quadrature).
pub fn ratio(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let r = a.0 / b.0;
    (r, r.abs() * ((a.1 / a.0).powi(2) + (b.1 / b.0).powi(2)).sqrt())
}

/// The verdict of one chain of measured quantities.
pub fn chain_verdict(claim: &Claim, chain: &[(f64, f64)], replicates: &[Vec<f64>]) -> Verdict {
    let (relation, tolerance) = (claim.relation, claim.tolerance);
    // The right side of each pair, scaled by the claim's factor.
    let pairs = || chain.windows(2).map(|w| (w[0], (w[1].0 * claim.factor, w[1].1 * claim.factor)));
    if claim.each_replicate {
        let every = replicates.iter().all(|r| holds_in(claim, r));
        return if every { Verdict::Holds } else { Verdict::DoesNotHold };
    }
    if let (Some((low, high)), [a, b]) = (claim.band, chain) {
        let (r, half) = ratio(*a, *b);
        return if (low..=high).contains(&r) {
            Verdict::Holds
        } else if r + half >= low && r - half <= high {
            Verdict::WithinNoise
        } else {
            Verdict::DoesNotHold
        };
    }
    let in_means = pairs().all(|(a, b)| relation.holds(a.0, b.0, tolerance));
    // Intervals overlap: a side's and the bound the next sets, tolerance included (a bound
    // missed in the means is "within noise" when the tolerated bound is within the noise).
    let overlap = |a: (f64, f64), b: (f64, f64)| {
        let bound = relation.tolerated(a.0, b, tolerance);
        (a.0 - bound.0).abs() <= a.1 + bound.1
    };
    match (relation.is_strict(), in_means) {
        (true, true) if pairs().all(|(a, b)| !overlap(a, b)) => Verdict::Holds,
        (true, true) => Verdict::HoldsInTheMeans,
        (false, true) => Verdict::Holds,
        (false, false) if pairs().all(|(a, b)| relation.holds(a.0, b.0, tolerance) || overlap(a, b)) => Verdict::WithinNoise,
        _ => Verdict::DoesNotHold,
    }
}

/// Whether one replicate's values follow the claim.
pub(super) fn holds_in(claim: &Claim, values: &[f64]) -> bool {
    if let (Some((low, high)), [a, b]) = (claim.band, values) {
        return (low..=high).contains(&(a / b));
    }
    values.windows(2).all(|w| claim.relation.holds(w[0], w[1] * claim.factor, claim.tolerance))
}

#[cfg(test)]
mod tests {
    use super::*;
    use topologies::paper::Relation;

    fn claim(relation: Relation, tolerance: f64, factor: f64, each_replicate: bool) -> Claim {
        Claim {
            text: String::new(),
            relation,
            chains: Vec::new(),
            each_replicate,
            tolerance,
            factor,
            band: None,
            testable_if: None,
            model_check: false,
            largest: false,
            denominator: None,
        }
    }

    #[test]
    fn a_ratio_holds_inside_its_band() {
        let band = Claim { band: Some((4.0, 6.0)), ..claim(Relation::Ratio, 0.0, 1.0, false) };
        assert_eq!(chain_verdict(&band, &[(10.0, 0.1), (2.0, 0.01)], &[]), Verdict::Holds);
        // 1.5 ± 0.2: far below the band
        assert_eq!(chain_verdict(&band, &[(3.0, 0.2), (2.0, 0.1)], &[]), Verdict::DoesNotHold);
        // 3.5, but ± 0.9: the band is within reach
        assert_eq!(chain_verdict(&band, &[(7.0, 1.5), (2.0, 0.2)], &[]), Verdict::WithinNoise);
        let each = Claim { each_replicate: true, ..band };
        assert_eq!(chain_verdict(&each, &[(10.0, 0.0), (2.0, 0.0)], &[vec![10.0, 2.0], vec![9.0, 2.0]]), Verdict::Holds);
        assert_eq!(chain_verdict(&each, &[(10.0, 0.0), (2.0, 0.0)], &[vec![10.0, 2.0], vec![14.0, 2.0]]), Verdict::DoesNotHold);
        let (r, half) = ratio((6.0, 0.6), (2.0, 0.2));
        assert!((r - 3.0).abs() < 1e-12 && (half - 3.0 * 0.02f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn verdicts_follow_means_and_intervals() {
        let v = |rel, chain: &[(f64, f64)]| chain_verdict(&claim(rel, 0.0, 1.0, false), chain, &[]);
        assert_eq!(v(Relation::Increasing, &[(1.0, 0.1), (2.0, 0.1), (3.0, 0.1)]), Verdict::Holds);
        assert_eq!(v(Relation::Increasing, &[(1.0, 0.6), (2.0, 0.6)]), Verdict::HoldsInTheMeans);
        assert_eq!(v(Relation::Increasing, &[(2.0, 0.6), (1.0, 0.6)]), Verdict::DoesNotHold);
        assert_eq!(v(Relation::Decreasing, &[(2.0, 0.1), (1.0, 0.1)]), Verdict::Holds);
        assert_eq!(v(Relation::AtLeast, &[(0.95, 0.1), (1.0, 0.1)]), Verdict::WithinNoise);
        assert_eq!(v(Relation::AtLeast, &[(0.5, 0.1), (1.0, 0.1)]), Verdict::DoesNotHold);
        assert_eq!(chain_verdict(&claim(Relation::AtLeast, 0.1, 1.0, false), &[(0.95, 0.0), (1.0, 0.0)], &[]), Verdict::Holds);
        // A bound with a tolerance is missed within the noise when the interval reaches the
        // tolerated bound, 0.95 × (3.81 ± 0.20) = 3.62 ± 0.19, not when it misses 3.81 itself.
        let tolerant = |chain: &[(f64, f64)]| chain_verdict(&claim(Relation::AtLeast, 0.05, 1.0, false), chain, &[]);
        assert_eq!(tolerant(&[(3.28, 0.16), (3.81, 0.20)]), Verdict::WithinNoise);
        assert_eq!(tolerant(&[(3.20, 0.16), (3.81, 0.20)]), Verdict::DoesNotHold);
        let tolerant_most = |chain: &[(f64, f64)]| chain_verdict(&claim(Relation::AtMost, 0.05, 1.0, false), chain, &[]);
        assert_eq!(tolerant_most(&[(2.2, 0.05), (2.0, 0.05)]), Verdict::WithinNoise);
        assert_eq!(tolerant_most(&[(2.3, 0.05), (2.0, 0.05)]), Verdict::DoesNotHold);
        // An equality is one finding, its noise judged against the nearer tolerated bound.
        let same = |chain: &[(f64, f64)]| chain_verdict(&claim(Relation::Same, 0.05, 1.0, false), chain, &[]);
        assert_eq!(same(&[(1.04, 0.01), (1.0, 0.01), (0.97, 0.01)]), Verdict::Holds);
        assert_eq!(same(&[(2.2, 0.05), (2.0, 0.05)]), Verdict::WithinNoise);
        assert_eq!(same(&[(1.81, 0.05), (2.0, 0.05)]), Verdict::WithinNoise);
        assert_eq!(same(&[(1.7, 0.05), (2.0, 0.05)]), Verdict::DoesNotHold);
        let five_times = claim(Relation::AtLeast, 0.0, 5.0, false);
        assert_eq!(chain_verdict(&five_times, &[(5.5, 0.1), (1.0, 0.01)], &[]), Verdict::Holds);
        assert_eq!(chain_verdict(&five_times, &[(4.0, 0.1), (1.0, 0.01)], &[]), Verdict::DoesNotHold);
        let each = |reps: &[Vec<f64>]| chain_verdict(&claim(Relation::AtLeast, 0.0, 1.0, true), &[(2.0, 0.1), (1.0, 0.1)], reps);
        assert_eq!(each(&[vec![2.0, 1.0], vec![3.0, 1.0]]), Verdict::Holds);
        assert_eq!(each(&[vec![2.0, 1.0], vec![0.5, 1.0]]), Verdict::DoesNotHold);
    }
}
