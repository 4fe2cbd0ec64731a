//! The plain scenario model: what a scenario file says, with names expanded and units parsed,
//! before cross-checks and the building of a simulation.

use sim_core::Time;
use sim_core::threshold::DropperPolicy;

use crate::units::{BufferValue, RateValue, SizeValue};

/// A parsed scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file it came from.
    pub file: String,
    /// The effective scenario as TOML (the file with every `--set` applied), recorded with
    /// every result.
    pub text: String,
    /// `[meta]`.
    pub meta: Meta,
    /// `[sim]`.
    pub sim: SimModel,
    /// `[tcp]`: defaults for every flow.
    pub tcp: TcpModel,
    /// `[[link]]`, with counted links expanded.
    pub links: Vec<LinkModel>,
    /// `[[flow]]`, with counted flows expanded, then the flows of `[[traffic]]` generators.
    pub flows: Vec<FlowModel>,
    /// `[metrics]`: what to compute beyond the defaults.
    pub metrics: MetricsModel,
}

/// `[metrics]`: the papers' metrics that need to be told which links or flows they compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricsModel {
    /// Pairs of links whose loss-rate ratio (first over second) is reported.
    pub loss_ratios: Vec<(String, String)>,
    /// Convergence times (seed 000 footnote 2) to measure.
    pub convergence: Vec<ConvergenceModel>,
}

/// Seed 000 footnote 2: the first time after `after` that a subflow's window reaches its mean
/// over the reference interval.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergenceModel {
    /// The flow (expanded name).
    pub flow: String,
    /// Its subflow, from 0.
    pub subflow: u32,
    /// When the disturbance ends (the single-path flows leave).
    pub after: Time,
    /// The window's reference mean is taken over this interval.
    pub reference: (Time, Time),
}

/// `[meta]`: what the scenario is.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// Short name.
    pub name: Option<String>,
    /// The experiment it reproduces.
    pub source: Option<String>,
    /// Free text.
    pub description: Option<String>,
}

/// `[sim]`.
#[derive(Clone, Debug)]
pub struct SimModel {
    /// Simulated time.
    pub duration: Time,
    /// Statistics start here.
    pub warmup: Time,
    /// Run seed.
    pub seed: u64,
    /// Data packet size, bytes.
    pub mss: u32,
    /// ACK size, bytes.
    pub ack_size: u32,
    /// Time-series resolution.
    pub sample_interval: Option<Time>,
}

/// `[tcp]` or a flow's `tcp` table: a profile and every setting optional, so a flow overrides
/// only what it sets.
pub type TcpModel = tcp::TcpOverrides;

/// How a link's queue drops.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueModel {
    /// Drop-tail.
    DropTail,
    /// RED with thresholds on the average queue.
    Red {
        /// Minimum threshold.
        min: BufferValue,
        /// Maximum threshold.
        max: BufferValue,
        /// Drop probability at the maximum threshold.
        max_p: f64,
        /// EWMA weight.
        weight: f64,
        /// Gentle mode.
        gentle: bool,
        /// ns-2's `wait` between drops.
        wait: bool,
    },
    /// Random drops in the top `zone` of the buffer.
    RandomDrop {
        /// Depth of the zone.
        zone: BufferValue,
        /// Fixed drop probability in the zone (htsim's `RandomQueue`); `None`: a linear ramp.
        probability: Option<f64>,
    },
    /// Seed 004's threshold-dropper.
    ThresholdDropper {
        /// Queue length, packets, that starts a congestion event.
        threshold: u32,
        /// Quiet time after a drop.
        hold: Time,
        /// Which connection is signalled.
        policy: DropperPolicy,
    },
}

/// One `[[link]]` (one copy of a counted link).
#[derive(Clone, Debug)]
pub struct LinkModel {
    /// Expanded name.
    pub name: String,
    /// Key path for messages (`link.<template name>`, or `topology.links.<name>`).
    pub key: String,
    /// The generator's group for it (`core`, `access`, …); empty for a written `[[link]]`.
    pub group: String,
    /// Capacity.
    pub rate: RateValue,
    /// One-way propagation delay.
    pub delay: Time,
    /// Buffer.
    pub buffer: BufferValue,
    /// Queue discipline.
    pub queue: QueueModel,
    /// Exogenous loss probability.
    pub loss: f64,
    /// Scheduled state changes (time, up).
    pub events: Vec<(Time, bool)>,
}

/// A window law by name with its parameter table (checked when the simulation is built).
#[derive(Clone, Debug, PartialEq)]
pub struct CcModel {
    /// Algorithm name.
    pub algorithm: String,
    /// Parameters other than `algorithm`.
    pub params: toml::Table,
}

/// When a flow starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StartModel {
    /// At this time.
    At(Time),
    /// Uniformly at random in this interval (from the flow's own random stream).
    Uniform(Time, Time),
}

/// One `[[flow]]` (one copy of a counted flow).
#[derive(Clone, Debug)]
pub struct FlowModel {
    /// Expanded name.
    pub name: String,
    /// Key path for messages (`flow.<template name>`).
    pub key: String,
    /// Window law.
    pub cc: CcModel,
    /// Links of each subflow's path.
    pub paths: Vec<Vec<String>>,
    /// Links of each subflow's ACK path, if not the default uncongested reverse.
    pub reverse_paths: Option<Vec<Vec<String>>>,
    /// Start time.
    pub start: StartModel,
    /// Stop time.
    pub stop: Option<Time>,
    /// Transfer size (`None`: bulk).
    pub size: Option<SizeValue>,
    /// Multipath receive buffer (`None`: unlimited).
    pub receive_buffer: Option<SizeValue>,
    /// Per-flow TCP overrides.
    pub tcp: TcpModel,
}
