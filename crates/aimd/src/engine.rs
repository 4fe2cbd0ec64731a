//! The event loop: from one congestion event to the next, integrating exactly in between.

use rand::RngExt;
use sim_core::rng::{Stream, stream};

use crate::model::{Model, ModelError, Policy};

/// Time averages of one connection.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectionReport {
    /// Time-average rate `E[x_i]`, capacity units.
    pub mean_rate: f64,
    /// Time-average squared rate `E[x_i²]`, capacity units squared.
    pub second_moment: f64,
    /// Congestion indications received in the measured events (taggings under beatdown).
    pub signals: u64,
}

/// What a run measured, after its warm-up events.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Measured time, seconds (in the model's time unit).
    pub time: f64,
    /// Congestion events measured. Under beatdown, tagging events: the congestion events
    /// themselves accumulate (infinitely many in finite time, §IV-B).
    pub events: u64,
    /// Time-average aggregate rate `E[X]`, capacity units.
    pub mean_aggregate: f64,
    /// Time-average squared aggregate rate `E[X²]`.
    pub aggregate_second_moment: f64,
    /// Per connection, in the model's order.
    pub connections: Vec<ConnectionReport>,
}

impl Report {
    /// `E[X]/c`: the link utilization Theorem 1 predicts.
    pub fn utilization(&self, capacity: f64) -> f64 {
        self.mean_aggregate / capacity
    }
}

/// Running integrals over the measured time.
struct Integrals {
    time: f64,
    aggregate: (f64, f64),
    per: Vec<(f64, f64)>,
}

/// `∫₀ˢ (x + ηt) dt` and `∫₀ˢ (x + ηt)² dt`.
fn linear_integrals(x: f64, eta: f64, s: f64) -> (f64, f64) {
    (x * s + eta * s * s / 2.0, x * x * s + x * eta * s * s + eta * eta * s * s * s / 3.0)
}

/// An index drawn with probability proportional to its weight.
fn draw(rng: &mut Stream, weights: impl Iterator<Item = f64> + Clone) -> usize {
    let total: f64 = weights.clone().sum();
    let mut u = rng.random::<f64>() * total;
    let mut last_positive = 0;
    for (i, w) in weights.enumerate() {
        if w > 0.0 {
            last_positive = i;
        }
        u -= w;
        if u < 0.0 {
            return i;
        }
    }
    // Rounding left a sliver.
    last_positive
}

struct Engine<'a> {
    model: &'a Model,
    rates: Vec<f64>,
    eta_sum: f64,
    signals: Vec<u64>,
    rng: Stream,
}

/// Below this fraction of the capacity a beaten-down connection counts as stopped.
const BEATDOWN_FLOOR: f64 = 1e-12;
/// At most this many cuts per beatdown tagging (its rate falls geometrically; this bounds
/// pathological parameters where it falls very slowly).
const BEATDOWN_MAX_CUTS: usize = 100_000;

impl Engine<'_> {
    /// All rates grow for `s`; adds the integrals to `acc` if measuring.
    fn grow(&mut self, s: f64, acc: &mut Option<Integrals>) {
        if let Some(acc) = acc {
            let aggregate: f64 = self.rates.iter().sum();
            let (a1, a2) = linear_integrals(aggregate, self.eta_sum, s);
            acc.time += s;
            acc.aggregate.0 += a1;
            acc.aggregate.1 += a2;
            for (i, c) in self.model.connections.iter().enumerate() {
                let (m1, m2) = linear_integrals(self.rates[i], c.eta, s);
                acc.per[i].0 += m1;
                acc.per[i].1 += m2;
            }
        }
        for (x, c) in self.rates.iter_mut().zip(&self.model.connections) {
            *x += c.eta * s;
        }
    }

    /// Time until the rates add up to the capacity again.
    fn until_congestion(&self) -> f64 {
        let sum: f64 = self.rates.iter().sum();
        ((self.model.capacity - sum) / self.eta_sum).max(0.0)
    }

    fn cut(&mut self, i: usize) {
        self.rates[i] *= self.model.connections[i].beta;
    }

    fn largest(&self) -> usize {
        let mut best = 0;
        for (i, &x) in self.rates.iter().enumerate() {
            if x > self.rates[best] {
                best = i;
            }
        }
        best
    }

    /// One congestion event (one tagging under beatdown) and the growth up to the next.
    fn step(&mut self, acc: &mut Option<Integrals>) {
        let n = self.rates.len();
        match self.model.policy {
            Policy::All => {
                for i in 0..n {
                    self.cut(i);
                    self.signals[i] += 1;
                }
            }
            Policy::Beatdown if n > 1 => return self.beat_down(acc),
            Policy::LargestRate | Policy::Beatdown => {
                let i = self.largest();
                self.cut(i);
                self.signals[i] += 1;
            }
            Policy::RateProportional => {
                let i = draw(&mut self.rng, self.rates.iter().copied());
                self.cut(i);
                self.signals[i] += 1;
            }
            Policy::RateIndependent => {
                let i = draw(&mut self.rng, self.model.connections.iter().map(|c| c.weight));
                self.cut(i);
                self.signals[i] += 1;
            }
        }
        let s = self.until_congestion();
        self.grow(s, acc);
    }

    /// Beatdown: the largest connection is cut at every congestion event until it stops; the
    /// cuts come geometrically faster, so they are applied one by one until its rate is below
    /// [`BEATDOWN_FLOOR`] of the capacity.
    fn beat_down(&mut self, acc: &mut Option<Integrals>) {
        let i = self.largest();
        self.signals[i] += 1;
        let floor = BEATDOWN_FLOOR * self.model.capacity;
        for _ in 0..BEATDOWN_MAX_CUTS {
            self.cut(i);
            let s = self.until_congestion();
            self.grow(s, acc);
            if self.rates[i] <= floor {
                break;
            }
        }
        self.rates[i] = 0.0;
    }
}

/// Runs `model`: starts with every connection at `c/N` (a congestion event), runs the warm-up
/// events, then measures `model.events` events.
pub fn run(model: &Model) -> Result<Report, ModelError> {
    model.validate()?;
    let n = model.connections.len();
    let mut engine = Engine {
        model,
        rates: vec![model.capacity / n as f64; n],
        eta_sum: model.connections.iter().map(|c| c.eta).sum(),
        signals: vec![0; n],
        rng: stream(model.seed, "aimd.policy"),
    };
    let mut none = None;
    for _ in 0..model.warmup_events {
        engine.step(&mut none);
    }
    engine.signals.iter_mut().for_each(|s| *s = 0);
    let mut acc = Some(Integrals { time: 0.0, aggregate: (0.0, 0.0), per: vec![(0.0, 0.0); n] });
    for _ in 0..model.events {
        engine.step(&mut acc);
    }
    let acc = acc.expect("measuring");
    let t = acc.time;
    Ok(Report {
        time: t,
        events: model.events,
        mean_aggregate: acc.aggregate.0 / t,
        aggregate_second_moment: acc.aggregate.1 / t,
        connections: acc
            .per
            .iter()
            .zip(&engine.signals)
            .map(|(&(m1, m2), &signals)| ConnectionReport { mean_rate: m1 / t, second_moment: m2 / t, signals })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Connection;

    #[test]
    fn integrals_of_a_ramp() {
        // x from 1 growing at 2 for 3: ∫ = 3 + 9 = 12; ∫x² = ((7)³ − 1)/(3·2) = 57.
        assert_eq!(linear_integrals(1.0, 2.0, 3.0), (12.0, 57.0));
    }

    #[test]
    fn one_connection_is_a_periodic_sawtooth() {
        // From c down to βc and back: mean (1+β)/2, second moment (1+β+β²)/3, every event alike.
        let model = Model::identical(1, 0.5, Policy::RateProportional, 10, 1);
        let r = run(&model).unwrap();
        assert!((r.mean_aggregate - 0.75).abs() < 1e-12, "{}", r.mean_aggregate);
        assert!((r.aggregate_second_moment - 1.75 / 3.0).abs() < 1e-12);
        assert!((r.time - 10.0 * 0.5).abs() < 1e-9, "each event is (1-β)c/η = 0.5 apart: {}", r.time);
        assert_eq!(r.connections[0].signals, 10);
    }

    #[test]
    fn largest_rate_settles_on_the_round_robin_of_proposition_1() {
        // N = 2, β = 1/2: rates just before events alternate (4/7, 3/7), so each connection
        // ramps from 2/7 to 4/7 in 2/7 of time: E[x] = 3/7, E[x²] = 4/21.
        let r = run(&Model::identical(2, 0.5, Policy::LargestRate, 1_000, 1)).unwrap();
        for c in &r.connections {
            assert!((c.mean_rate - 3.0 / 7.0).abs() < 1e-9, "{}", c.mean_rate);
            assert!((c.second_moment - 4.0 / 21.0).abs() < 1e-9, "{}", c.second_moment);
            assert_eq!(c.signals, 500);
        }
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut m = Model::identical(2, 0.5, Policy::All, 10, 1);
        m.connections[1] = Connection { beta: 1.0, ..Connection::default() };
        assert_eq!(run(&m).unwrap_err().0, "connection 1: beta must be strictly between 0 and 1, not 1");
        m.connections = vec![];
        assert!(run(&m).unwrap_err().0.contains("at least one connection"));
    }
}
