//! Window laws by name and parameters, as scenario files configure them, and the reference
//! table the documentation is generated from.

use crate::controller::CoupledController;
use crate::coupled::Coupled;
use crate::cubic::Cubic;
use crate::generalized::{Balia, Generalized, NormOrder};
use crate::lia::Lia;
use crate::link_fair::LinkFair;
use crate::mult_tcp::MultTcp;
use crate::olia::Olia;
use crate::reno::Reno;
use crate::rsf::{RsfDb, RsfLb};
use crate::semicoupled::Semicoupled;
use crate::semicoupled_phi::{Aggressiveness, CoupledScalable, SemicoupledPhi};
use crate::uncoupled::Uncoupled;

/// A parameter value as a scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A number (times arrive here in seconds).
    Number(f64),
    /// A word, such as `"adaptive"` or `"inf"`.
    Text(String),
    /// A boolean switch, such as Balia's `integer_alpha`.
    Bool(bool),
}

/// A parameter's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamDefault {
    /// None: a scenario must give it.
    Required,
    /// A number.
    Number(f64),
    /// A time, in seconds (written in milliseconds in a scenario and the table).
    Seconds(f64),
    /// A word, such as `"inf"`.
    Word(&'static str),
    /// A switch.
    Switch(bool),
}

impl ParamDefault {
    /// The default as a scenario would write it (`"required"` if there is none).
    pub fn written(&self) -> String {
        match *self {
            ParamDefault::Required => "required".to_string(),
            ParamDefault::Number(v) => format!("{v}"),
            ParamDefault::Seconds(v) => format!("\"{}ms\"", v * 1e3),
            ParamDefault::Word(w) => format!("\"{w}\""),
            ParamDefault::Switch(b) => format!("{b}"),
        }
    }
}

/// A parameter a window law accepts.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Its key in a scenario's `cc = { … }` table, such as `"phi"`.
    pub name: &'static str,
    /// Its default, the one the law is built with when the scenario does not give it.
    pub default: ParamDefault,
    /// What it means and what values are valid.
    pub meaning: &'static str,
    /// Which numbers it takes, said as an error says it (`"φ in [0, 2]"`).
    expected: &'static str,
    /// Whether a number is one of them.
    valid: fn(f64) -> bool,
}

fn positive(v: f64) -> bool {
    v > 0.0 && v.is_finite()
}

fn above_one(v: f64) -> bool {
    v > 1.0 && v.is_finite()
}

fn non_negative(v: f64) -> bool {
    v >= 0.0 && v.is_finite()
}

fn at_least_one(v: f64) -> bool {
    v >= 1.0 && v.is_finite()
}

fn any_number(_: f64) -> bool {
    true
}

/// One row of the reference table.
#[derive(Clone, Copy, Debug)]
pub struct AlgorithmInfo {
    /// The name a scenario's `cc` gives, such as `"semicoupled-phi"`.
    pub name: &'static str,
    /// Increase of `w_r` per packet acknowledged in congestion avoidance.
    pub increase: &'static str,
    /// Decrease of `w_r` per loss event.
    pub decrease: &'static str,
    /// The parameters it accepts, in the order the table lists them (empty: none).
    pub params: &'static [ParamSpec],
    /// The paper (seed number, section or equation) or RFC that defines it.
    pub source: &'static str,
    /// The law from the parameters a scenario gives (the row's defaults for the others).
    make: fn(&Params) -> Result<Algorithm, ParamError>,
}

/// Every window law this build offers, in the order of docs/spec/ALGORITHMS.md: its name,
/// law, parameters with their defaults, and how it is made, each said once.
pub const ALGORITHMS: &[AlgorithmInfo] = &[
    AlgorithmInfo { name: "reno", increase: "1/w", decrease: "w/2", params: &[], source: "RFC 5681", make: |_| Ok(Algorithm::Reno) },
    AlgorithmInfo {
        name: "mult-tcp",
        increase: "N/w",
        decrease: "w/(2N)",
        params: &[ParamSpec {
            name: "n",
            default: ParamDefault::Required,
            meaning: "number of TCPs emulated, N ≥ 1",
            expected: "a number N ≥ 1",
            valid: at_least_one,
        }],
        source: "seed 004 §II-B.4 (MultTCP)",
        make: |p| Ok(Algorithm::MultTcp { n: p.number("n")? }),
    },
    AlgorithmInfo {
        name: "uncoupled",
        increase: "a/w_r",
        decrease: "w_r/2",
        params: &[ParamSpec {
            name: "a",
            default: ParamDefault::Number(1.0),
            meaning: "increase scale, a > 0 (1: independent Reno; 1/n²: fair at a shared bottleneck)",
            expected: "a > 0",
            valid: positive,
        }],
        source: "seeds 000 (EWTCP), 001",
        make: |p| Ok(Algorithm::Uncoupled { a: p.number("a")? }),
    },
    AlgorithmInfo {
        name: "coupled",
        increase: "(w_r/τ_r²)/X²",
        decrease: "w_r/2",
        params: &[],
        source: "seed 000 (Coupled; Kelly and Voice)",
        make: |_| Ok(Algorithm::Coupled),
    },
    AlgorithmInfo {
        name: "semicoupled-phi",
        increase: "a^(2−φ)·w_r^(1−φ)/W^(2−φ)",
        decrease: "w_r/b",
        params: &[
            ParamSpec {
                name: "phi",
                default: ParamDefault::Number(1.0),
                meaning: "φ ∈ [0, 2]: 0 is seed 001's COUPLED, 1 SEMICOUPLED, 2 uncoupled",
                expected: "φ in [0, 2]",
                valid: |v| (0.0..=2.0).contains(&v),
            },
            ParamSpec {
                name: "a",
                default: ParamDefault::Number(1.0),
                meaning: "a > 0, or \"adaptive\" (RTT compensation, htsim's ε-family; φ < 2)",
                expected: "a > 0 or \"adaptive\"",
                valid: positive,
            },
            ParamSpec {
                name: "b",
                default: ParamDefault::Number(2.0),
                meaning: "decrease divisor, b > 1",
                expected: "b > 1",
                valid: above_one,
            },
        ],
        source: "seed 001 §4, §5",
        make: |p| {
            let phi = p.number("phi")?;
            let a = match p.get("a") {
                Some(ParamValue::Text(t)) if t == "adaptive" => {
                    if phi >= 2.0 {
                        return Err(p.error("a", "\"adaptive\" needs φ < 2 (at φ = 2 the adaptation is undefined)"));
                    }
                    Aggressiveness::Adaptive
                }
                _ => Aggressiveness::Fixed(p.number("a")?),
            };
            Ok(Algorithm::SemicoupledPhi { phi, a, b: p.number("b")? })
        },
    },
    AlgorithmInfo {
        name: "coupled-scalable",
        increase: "a",
        decrease: "W/b (at most w_r)",
        params: &[
            ParamSpec {
                name: "a",
                default: ParamDefault::Number(0.01),
                meaning: "increase per ACK, packets, a > 0",
                expected: "a > 0",
                valid: positive,
            },
            ParamSpec {
                name: "b",
                default: ParamDefault::Number(2.0),
                meaning: "divisor of the total window, b > 1",
                expected: "b > 1",
                valid: above_one,
            },
        ],
        source: "seed 001 §2",
        make: |p| Ok(Algorithm::CoupledScalable { a: p.number("a")?, b: p.number("b")? }),
    },
    AlgorithmInfo {
        name: "semicoupled",
        increase: "1/(τ_r·X)",
        decrease: "w_r/2",
        params: &[],
        source: "seed 000 (Semicoupled)",
        make: |_| Ok(Algorithm::Semicoupled),
    },
    AlgorithmInfo {
        name: "lia",
        increase: "min(max_k(w_k/τ_k²)/X², 1/w_r)",
        decrease: "w_r/2",
        params: &[],
        source: "RFC 6356; seed 001 §5 (RTT COMPENSATOR); seed 000 (Max)",
        make: |_| Ok(Algorithm::Lia),
    },
    AlgorithmInfo {
        name: "link-fair",
        increase: "min over S ∋ r of max_{s∈S}(w_s/τ_s²)/(Σ_{s∈S} w_s/τ_s)²",
        decrease: "w_r/2",
        params: &[],
        source: "seed 001 appendix A",
        make: |_| Ok(Algorithm::LinkFair),
    },
    AlgorithmInfo {
        name: "generalized",
        increase: "x_r/(τ_r·X²)·(1+β(‖x‖_n/x_r−1))·(1+η(x_max/x_r−1))",
        decrease: "(w_r/2)·(1+η(x_max/x_r−1))",
        params: &[
            ParamSpec { name: "beta", default: ParamDefault::Number(0.2), meaning: "β ≥ 0", expected: "β ≥ 0", valid: non_negative },
            ParamSpec { name: "eta", default: ParamDefault::Number(0.5), meaning: "η ≥ 0", expected: "η ≥ 0", valid: non_negative },
            ParamSpec {
                name: "n",
                default: ParamDefault::Word("inf"),
                meaning: "norm order: a number ≥ 1 or \"inf\"",
                expected: "n ≥ 1 or \"inf\"",
                valid: at_least_one,
            },
        ],
        source: "seed 000 eq. 12 via eq. 5 (defaults: Balia's point)",
        make: |p| {
            let n = match p.get("n") {
                None => NormOrder::Infinity,
                Some(ParamValue::Text(t)) if t == "inf" => NormOrder::Infinity,
                _ => NormOrder::Finite(p.number("n")?),
            };
            Ok(Algorithm::Generalized { beta: p.number("beta")?, eta: p.number("eta")?, n })
        },
    },
    AlgorithmInfo {
        name: "balia",
        increase: "x_r/(τ_r·X²)·((1+α_r)/2)·((4+α_r)/5), α_r = x_max/x_r",
        decrease: "(w_r/2)·min(α_r, 1.5)",
        params: &[ParamSpec {
            name: "integer_alpha",
            default: ParamDefault::Switch(false),
            meaning: "true: the Linux module's α floored to an integer before min(α, 1.5)",
            expected: "true or false",
            valid: any_number,
        }],
        source: "seed 000 eqs. 1–2",
        make: |p| Ok(Algorithm::Balia { integer_alpha: p.switch("integer_alpha")? }),
    },
    AlgorithmInfo {
        name: "olia",
        increase: "(w_r/τ_r²)/X² + α_r/w_r",
        decrease: "w_r/2",
        params: &[],
        source: "seed 002 eqs. 3–6",
        make: |_| Ok(Algorithm::Olia),
    },
    AlgorithmInfo {
        name: "rsf-db",
        increase: "(1/w_r)·min(1, (d − q_r)/q_r), q_r = srtt − min RTT",
        decrease: "w_r/2",
        params: &[ParamSpec {
            name: "d",
            default: ParamDefault::Seconds(0.1),
            meaning: "target delay, a time > 0",
            expected: "a target delay > 0, such as \"100ms\"",
            valid: positive,
        }],
        source: "seed 003 eq. 1",
        make: |p| Ok(Algorithm::RsfDb { d: p.number("d")? }),
    },
    AlgorithmInfo {
        name: "rsf-lb",
        increase: "(1/w_r)·min(1, (μ − λ_r·l_r)/(λ_r·l_r)), λ_r = w_r/τ_r, l_r = 1/max(l1, l2)",
        decrease: "w_r/2",
        params: &[ParamSpec {
            name: "mu",
            default: ParamDefault::Number(4.0),
            meaning: "target loss rate, packets per second, μ > 0",
            expected: "a target loss rate μ > 0, packets per second",
            valid: positive,
        }],
        source: "seed 003 eq. 2",
        make: |p| Ok(Algorithm::RsfLb { mu: p.number("mu")? }),
    },
    AlgorithmInfo {
        name: "cubic",
        increase: "1/cnt, cnt = max(2, min(w_r/(W(t+d_min) − w_r), w_r/(W_est − w_r))), W(t) = C·(t − K)³ + W_max",
        decrease: "(1 − β)·w_r, β = 717/1024",
        params: &[ParamSpec {
            name: "hystart",
            default: ParamDefault::Switch(true),
            meaning: "HyStart ends slow start at an ACK train or a delay rise (Linux's module parameter)",
            expected: "true or false",
            valid: any_number,
        }],
        source: "RFC 9438 as Linux's tcp_cubic.c (C = 410/1024; HyStart)",
        make: |p| Ok(Algorithm::Cubic { hystart: p.switch("hystart")? }),
    },
];

/// A window law and its parameters, validated; [`Algorithm::build`] turns it into a controller.
///
/// Each variant's doc gives its configuration name and law (increase of `w_r` per packet
/// acknowledged in congestion avoidance; decrease per loss event); the full table with sources
/// is [`ALGORITHMS`] and docs/spec/ALGORITHMS.md.
#[derive(Clone, Debug, PartialEq)]
pub enum Algorithm {
    /// `reno`: single-path NewReno (RFC 5681), `+1/w`, `−w/2`; the baseline every multipath law
    /// must match with one subflow.
    Reno,
    /// `mult-tcp`: one AIMD connection emulating `N` TCPs (seed 004 §II-B.4), `+N/w`,
    /// `−w/(2N)`.
    MultTcp {
        /// `N`, the number of TCPs emulated (≥ 1, need not be an integer); no default.
        n: f64,
    },
    /// `uncoupled` (EWTCP, seeds 000 and 001): every subflow an independent Reno scaled by `a`,
    /// `+a/w_r`, `−w_r/2`.
    Uncoupled {
        /// Increase scale `a > 0` (default 1, independent Reno; `1/n²` is fair to a single TCP
        /// at a bottleneck shared by all `n` subflows).
        a: f64,
    },
    /// `coupled` (seed 000, Kelly and Voice): `+(w_r/τ_r²)/X²`, `−w_r/2`; moves all traffic to
    /// the least congested paths.
    Coupled,
    /// `semicoupled-phi`, SEMICOUPLED(φ) of seed 001 §4: `+a^(2−φ)·w_r^(1−φ)/W^(2−φ)`, `−w_r/b`.
    SemicoupledPhi {
        /// φ ∈ [0, 2] (default 1) trades resource pooling against flappiness: 0 is seed 001's
        /// COUPLED, 1 SEMICOUPLED, 2 uncoupled.
        phi: f64,
        /// Aggressiveness `a` (default 1), fixed or adapted for RTT compensation (seed 001 §5).
        a: Aggressiveness,
        /// Decrease divisor `b > 1` (default 2, as NewReno).
        b: f64,
    },
    /// `coupled-scalable`, COUPLED SCALABLE of seed 001 §2: `+a` per ACK, `−W/b` (at most
    /// `w_r`).
    CoupledScalable {
        /// Increase per ACK, packets, `a > 0` (default 0.01, scalable TCP's).
        a: f64,
        /// Divisor of the total window `W` on a loss, `b > 1` (default 2, to mimic NewReno).
        b: f64,
    },
    /// `semicoupled` (seed 000, Peng's form): `+1/(τ_r·X)`, `−w_r/2`.
    Semicoupled,
    /// `lia`, RFC 6356 (seed 001's RTT COMPENSATOR, seed 000's Max):
    /// `+min(max_k(w_k/τ_k²)/X², 1/w_r)`, `−w_r/2`; the law deployed in Linux MPTCP.
    Lia,
    /// `link-fair` (seed 001 appendix A): LIA's coupling minimised over every subset of paths
    /// containing `r`; limited to [`crate::link_fair::MAX_SUBFLOWS`] subflows.
    LinkFair,
    /// `generalized`, the (β, η, n) family of seed 000 eq. 12 (via eq. 5):
    /// `+x_r/(τ_r·X²)·(1+β(‖x‖_n/x_r−1))·(1+η(x_max/x_r−1))`, `−(w_r/2)·(1+η(x_max/x_r−1))`.
    /// (0, 0, ·) is Coupled, (1, 0, 1) Semicoupled, (1, 0, ∞) Max/LIA (equal RTTs).
    Generalized {
        /// β ≥ 0 (default 0.2): weight of the `‖x‖_n/x_r` term; with `n` it trades
        /// friendliness to TCP (smaller β) against responsiveness (larger β) (seed 000 Table II).
        beta: f64,
        /// η ≥ 0 (default 0.5): weight of the `x_max/x_r` term in increase and decrease; it
        /// makes slow paths more responsive at the cost of window oscillation (seed 000 §IV-B).
        eta: f64,
        /// Order of the norm `‖x‖_n` in the β term (default ∞, `‖x‖_∞ = x_max`); larger is
        /// friendlier, smaller more responsive.
        n: NormOrder,
    },
    /// `balia` (seed 000 eqs. 1–2): the generalized family at (0.2, 0.5, ∞) with the decrease
    /// capped at `(w_r/2)·min(α_r, 1.5)`, `α_r = x_max/x_r`.
    Balia {
        /// Floor `α_r` to an integer before `min(α_r, 1.5)`, as the Linux module does, so the
        /// decrease is `w_r/2` or `0.75·w_r` (default false: the paper's form).
        integer_alpha: bool,
    },
    /// `olia` (seed 002 eqs. 3–6): `+(w_r/τ_r²)/X² + α_r/w_r`, `−w_r/2`; α_r shifts window from
    /// the largest windows to the best paths, which seed 002 shows is Pareto-optimal where LIA
    /// is not.
    Olia,
    /// `cubic` (RFC 9438 as Linux computes it), on each subflow independently: the kernel's
    /// default TCP, for cross-traffic as real networks carry it; slow start ends by HyStart
    /// unless `hystart` is off.
    Cubic {
        /// Whether HyStart may end slow start before a loss.
        hystart: bool,
    },
    /// `rsf-db`, delay-based rent-seeking (seed 003 eq. 1): `+(1/w_r)·min(1, (d − q_r)/q_r)`,
    /// `−w_r/2`, with `q_r` = smoothed RTT − minimum RTT.
    RsfDb {
        /// Target queueing delay `d`, seconds (default 0.1, the paper's 100 ms); above it the
        /// increase turns negative.
        d: f64,
    },
    /// `rsf-lb`, loss-based rent-seeking (seed 003 eq. 2):
    /// `+(1/w_r)·min(1, (μ − λ_r·l_r)/(λ_r·l_r))`, `−w_r/2`.
    RsfLb {
        /// Target loss rate μ, packets per second (default 4, the paper's); above it the
        /// increase turns negative.
        mu: f64,
    },
}

/// A parameter that is unknown, missing or out of range.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    /// The parameter (empty when the algorithm name itself is wrong).
    pub key: String,
    /// What was wrong and what is valid.
    pub message: String,
}

/// The parameters a scenario gives one law, read against that law's row of [`ALGORITHMS`].
struct Params<'a> {
    info: &'static AlgorithmInfo,
    given: &'a [(String, ParamValue)],
}

impl Params<'_> {
    fn error(&self, key: &str, message: impl Into<String>) -> ParamError {
        ParamError { key: key.to_string(), message: message.into() }
    }

    fn get(&self, key: &str) -> Option<&ParamValue> {
        self.given.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn spec(&self, key: &str) -> &'static ParamSpec {
        self.info.params.iter().find(|p| p.name == key).expect("a parameter of this law's row")
    }

    /// The number given for `key`, or its default, checked against the row's valid values.
    fn number(&self, key: &str) -> Result<f64, ParamError> {
        let spec = self.spec(key);
        let v = match (self.get(key), spec.default) {
            (Some(ParamValue::Number(v)), _) => *v,
            (None, ParamDefault::Number(d) | ParamDefault::Seconds(d)) => d,
            (None, _) => return Err(self.error(key, format!("missing; {} needs {key}: {}", self.info.name, spec.expected))),
            (Some(other), _) => return Err(self.error(key, format!("expected {}, got {other:?}", spec.expected))),
        };
        if (spec.valid)(v) { Ok(v) } else { Err(self.error(key, format!("expected {}, got {v}", spec.expected))) }
    }

    /// The switch given for `key`, or its default.
    fn switch(&self, key: &str) -> Result<bool, ParamError> {
        let spec = self.spec(key);
        match (self.get(key), spec.default) {
            (Some(ParamValue::Bool(b)), _) => Ok(*b),
            (None, ParamDefault::Switch(b)) => Ok(b),
            (None, _) => Err(self.error(key, format!("missing; {} needs {key}: {}", self.info.name, spec.expected))),
            (Some(other), _) => Err(self.error(key, format!("expected {}, got {other:?}", spec.expected))),
        }
    }
}

impl Algorithm {
    /// Every configuration name this build offers.
    pub fn names() -> impl Iterator<Item = &'static str> {
        ALGORITHMS.iter().map(|a| a.name)
    }

    /// The algorithm called `name` with parameters `given` (defaults for the others).
    pub fn from_params(name: &str, given: &[(String, ParamValue)]) -> Result<Algorithm, ParamError> {
        let Some(info) = ALGORITHMS.iter().find(|a| a.name == name) else {
            return Err(ParamError { key: String::new(), message: format!("unknown algorithm \"{name}\"") });
        };
        if let Some((key, _)) = given.iter().find(|(k, _)| !info.params.iter().any(|p| p.name == k)) {
            let valid: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            let valid = if valid.is_empty() { "it takes none".to_string() } else { format!("valid: {}", valid.join(", ")) };
            return Err(ParamError { key: key.clone(), message: format!("\"{name}\" has no parameter \"{key}\" ({valid})") });
        }
        (info.make)(&Params { info, given })
    }

    /// The algorithm called `name` with its default parameters.
    pub fn by_name(name: &str) -> Option<Algorithm> {
        Self::from_params(name, &[]).ok()
    }

    /// The name a scenario's `cc` gives (the controller's own, so the two cannot disagree).
    pub fn name(&self) -> &'static str {
        self.build().name()
    }

    /// A fresh controller for one connection.
    pub fn build(&self) -> Box<dyn CoupledController> {
        match *self {
            Algorithm::Reno => Box::new(Reno),
            Algorithm::MultTcp { n } => Box::new(MultTcp { n }),
            Algorithm::Uncoupled { a } => Box::new(Uncoupled { a }),
            Algorithm::Coupled => Box::new(Coupled),
            Algorithm::SemicoupledPhi { phi, a, b } => Box::new(SemicoupledPhi { phi, a, b }),
            Algorithm::CoupledScalable { a, b } => Box::new(CoupledScalable { a, b }),
            Algorithm::Semicoupled => Box::new(Semicoupled),
            Algorithm::Lia => Box::new(Lia),
            Algorithm::LinkFair => Box::new(LinkFair),
            Algorithm::Generalized { beta, eta, n } => Box::new(Generalized { beta, eta, n }),
            Algorithm::Balia { integer_alpha } => Box::new(Balia { integer_alpha }),
            Algorithm::Olia => Box::new(Olia),
            Algorithm::Cubic { hystart } => Box::new(Cubic::new(hystart)),
            Algorithm::RsfDb { d } => Box::new(RsfDb { d }),
            Algorithm::RsfLb { mu } => Box::new(RsfLb { mu }),
        }
    }

    /// The most subflows a connection with this law may have.
    pub fn max_subflows(&self) -> usize {
        match self {
            Algorithm::LinkFair => crate::link_fair::MAX_SUBFLOWS,
            _ => usize::MAX,
        }
    }
}

/// The reference table as Markdown (the body of `docs/algorithms.md`).
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "| name | increase of w_r per packet acknowledged (congestion avoidance) | decrease per loss | parameters (default) | source |\n|---|---|---|---|---|\n",
    );
    for a in ALGORITHMS {
        let params: Vec<String> = a.params.iter().map(|p| format!("`{}` = {}: {}", p.name, p.default.written(), p.meaning)).collect();
        let params = if params.is_empty() { "—".to_string() } else { params.join("; ") };
        out.push_str(&format!("| `{}` | `{}` | `{}` | {} | {} |\n", a.name, a.increase, a.decrease, params, a.source));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::SubflowState;

    fn num(k: &str, v: f64) -> (String, ParamValue) {
        (k.to_string(), ParamValue::Number(v))
    }

    #[test]
    fn every_name_builds_with_its_defaults_except_required_ones() {
        for info in ALGORITHMS {
            let required = info.params.iter().any(|p| p.default == ParamDefault::Required);
            let built = Algorithm::from_params(info.name, &[]);
            assert_eq!(built.is_err(), required, "{}", info.name);
            if let Ok(a) = built {
                assert_eq!(a.name(), info.name);
            }
        }
    }

    #[test]
    fn invalid_parameters_are_rejected_with_what_is_valid() {
        let err = |name: &str, given: &[(String, ParamValue)]| Algorithm::from_params(name, given).unwrap_err();
        assert!(err("semicoupled-phi", &[num("phi", 2.5)]).message.contains("φ in [0, 2]"));
        assert!(err("generalized", &[num("beta", -1.0)]).message.contains("β ≥ 0"));
        assert!(err("generalized", &[num("n", 0.5)]).message.contains("n ≥ 1"));
        assert!(err("uncoupled", &[num("a", 0.0)]).message.contains("a > 0"));
        assert!(err("mult-tcp", &[]).message.contains("missing"));
        assert!(err("lia", &[num("phi", 1.0)]).message.contains("it takes none"));
        assert!(err("balia", &[num("beta", 1.0)]).message.contains("valid: integer_alpha"));
        assert!(err("semicoupled-phi", &[num("phi", 2.0), ("a".into(), ParamValue::Text("adaptive".into()))]).message.contains("φ < 2"));
        assert!(err("lai", &[]).message.contains("unknown algorithm"));
    }

    /// With one subflow every law is Reno (`+1/w`, `−w/2`), except those meant to differ.
    #[test]
    fn one_subflow_reduces_to_reno() {
        let meant_to_differ = ["mult-tcp", "uncoupled", "coupled-scalable", "rsf-db", "rsf-lb", "cubic"];
        for (w, srtt) in [(10.0, 0.010), (37.5, 0.2), (2.0, 1.5)] {
            let s = [SubflowState { min_rtt: srtt, ..SubflowState::with_window(w, srtt) }];
            for info in ALGORITHMS.iter().filter(|a| !meant_to_differ.contains(&a.name)) {
                let law = Algorithm::by_name(info.name).unwrap().build();
                let (inc, dec) = (law.increase(&s, 0), law.decrease(&s, 0));
                assert!((inc - 1.0 / w).abs() < 1e-12 * inc, "{}: increase {inc} at w = {w}", info.name);
                assert!((dec - w / 2.0).abs() < 1e-12 * dec, "{}: decrease {dec} at w = {w}", info.name);
            }
            // The ones meant to differ reduce to Reno at their neutral settings.
            for (name, given) in [("mult-tcp", vec![num("n", 1.0)]), ("uncoupled", vec![num("a", 1.0)])] {
                let law = Algorithm::from_params(name, &given).unwrap().build();
                assert!((law.increase(&s, 0) - 1.0 / w).abs() < 1e-12 && (law.decrease(&s, 0) - w / 2.0).abs() < 1e-12, "{name}");
            }
            // RSF with no queueing and no loss is Reno.
            for name in ["rsf-db", "rsf-lb"] {
                let law = Algorithm::by_name(name).unwrap().build();
                assert!((law.increase(&s, 0) - 1.0 / w).abs() < 1e-12 && (law.decrease(&s, 0) - w / 2.0).abs() < 1e-12, "{name}");
            }
        }
    }
}

#[cfg(test)]
mod docs {
    /// `docs/algorithms.md` embeds the generated table verbatim, so the page cannot drift from
    /// the code.
    #[test]
    fn the_documentation_page_matches_the_code() {
        let page = include_str!("../../../docs/algorithms.md");
        let start = page.find("<!-- generated: equipoise algorithms -->\n").expect("start marker")
            + "<!-- generated: equipoise algorithms -->\n".len();
        let end = page.find("<!-- end generated -->").expect("end marker");
        assert_eq!(&page[start..end], super::reference_markdown(), "regenerate with `equipoise algorithms`");
    }
}
