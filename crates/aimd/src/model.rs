//! What an AIMD experiment is: the link, the connections and the loss policy.

/// Who is signalled at a congestion event.
#[derive(Clone, Debug, PartialEq)]
pub enum Policy {
    /// ONE: a connection chosen with probability proportional to its rate just before the event.
    RateProportional,
    /// ONE: the connection with the largest rate just before the event (the lowest index on a tie).
    LargestRate,
    /// ONE: connection `i` chosen with fixed probability proportional to its
    /// [`Connection::weight`], whatever the rates.
    RateIndependent,
    /// ONE: the connection with the largest rate is tagged and cut at every congestion event,
    /// which then come ever faster, until its rate reaches zero (§IV-B); then the next is tagged.
    Beatdown,
    /// Every connection is cut at every event (synchronized windows).
    All,
}

impl Policy {
    /// Every policy with its configuration name.
    pub const NAMES: [(&'static str, Policy); 5] = [
        ("rate-proportional", Policy::RateProportional),
        ("largest-rate", Policy::LargestRate),
        ("rate-independent", Policy::RateIndependent),
        ("beatdown", Policy::Beatdown),
        ("all", Policy::All),
    ];

    /// The name an `[aimd]` scenario's `policy` key gives (one of [`Policy::NAMES`]).
    pub fn name(&self) -> &'static str {
        Self::NAMES.iter().find(|(_, p)| p == self).map(|(n, _)| *n).expect("every policy is named")
    }
}

/// One AIMD connection of the model: its rate dynamics only (no packets, no round-trip time).
#[derive(Clone, Debug, PartialEq)]
pub struct Connection {
    /// Additive increase: rate growth per unit of time (`η_i`), in capacity units per second.
    pub eta: f64,
    /// Multiplicative decrease: the fraction of its rate a signalled connection keeps (`β_i`).
    pub beta: f64,
    /// Relative selection weight under the rate-independent policy (normalized over all).
    pub weight: f64,
}

impl Default for Connection {
    /// TCP-like: `η = 1`, `β = 1/2`, weight 1.
    fn default() -> Self {
        Connection { eta: 1.0, beta: 0.5, weight: 1.0 }
    }
}

/// A complete experiment: everything [`crate::run`] needs, so a `Model` (seed included)
/// determines its [`crate::Report`].
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Link capacity `c` (rates are in the same unit; 1 gives normalized results).
    pub capacity: f64,
    /// The N connections sharing the link (at least one); each starts at rate `c/N`.
    pub connections: Vec<Connection>,
    /// Who is cut at each congestion event: ONE with a selection rule, or ALL.
    pub policy: Policy,
    /// Congestion events whose intervals are measured (tagging events under beatdown).
    pub events: u64,
    /// Events run first and not measured, so the start (all rates `c/N`) is forgotten.
    pub warmup_events: u64,
    /// Seed of the policy's random choices.
    pub seed: u64,
}

/// Why a model cannot run.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

impl Model {
    /// `n` identical TCP-like connections (`η = 1`, `β`) on a link of capacity 1.
    pub fn identical(n: usize, beta: f64, policy: Policy, events: u64, seed: u64) -> Model {
        Model {
            capacity: 1.0,
            connections: vec![Connection { beta, ..Connection::default() }; n],
            policy,
            events,
            warmup_events: 1_000,
            seed,
        }
    }

    /// Checks every parameter; the message names the offending one and the valid range.
    pub fn validate(&self) -> Result<(), ModelError> {
        let err = |m: String| Err(ModelError(m));
        if !(self.capacity.is_finite() && self.capacity > 0.0) {
            return err(format!("capacity must be a positive number, not {}", self.capacity));
        }
        if self.connections.is_empty() {
            return err("there must be at least one connection".into());
        }
        if self.events == 0 {
            return err("events must be at least 1".into());
        }
        for (i, c) in self.connections.iter().enumerate() {
            if !(c.eta.is_finite() && c.eta > 0.0) {
                return err(format!("connection {i}: eta must be a positive number, not {}", c.eta));
            }
            if !(c.beta > 0.0 && c.beta < 1.0) {
                return err(format!("connection {i}: beta must be strictly between 0 and 1, not {}", c.beta));
            }
            if !(c.weight.is_finite() && c.weight >= 0.0) {
                return err(format!("connection {i}: weight must be a number >= 0, not {}", c.weight));
            }
        }
        if self.policy == Policy::RateIndependent && self.connections.iter().all(|c| c.weight == 0.0) {
            return err("rate-independent: at least one connection needs a positive weight".into());
        }
        Ok(())
    }
}
