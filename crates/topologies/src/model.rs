//! The plain scenario model, what [`crate::expand`] produces and both engines build from: named
//! links and flows whose paths are lists of link names, every generator expanded and every
//! random choice drawn. Units are as written (a rate in b/s or packets/s, a buffer as a size or
//! a time); cross-checks against the packet size wait for [`Scenario::build`].

use std::sync::Arc;

use mptcp_cc::Algorithm;
use sim_core::Time;
use sim_core::threshold::DropperPolicy;

use crate::units::{BufferValue, RateValue, SizeValue};

/// The most flows one run may have (a flow that has not started takes about 1 KB).
pub const MAX_FLOWS: usize = 2_000_000;
/// The most links one run may have.
pub const MAX_LINKS: usize = 1_000_000;
/// The most time-series rows one run may record (about 60 bytes each in memory).
pub const MAX_SAMPLES: u64 = 20_000_000;
/// The most captures one run takes (each is a file).
pub const MAX_CAPTURES: usize = 64;

/// An expanded scenario; cross-checks wait for [`Scenario::build`].
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file it came from.
    pub file: String,
    /// The effective scenario as TOML (the file with every `--set` applied), recorded with
    /// every result.
    pub text: String,
    /// `[meta]`: what the scenario is and which experiment it reproduces.
    pub meta: Meta,
    /// `[sim]`: run-wide settings.
    pub sim: SimModel,
    /// `[tcp]`: defaults for every flow.
    pub tcp: TcpModel,
    /// `[[link]]`, with counted links expanded.
    pub links: Vec<LinkModel>,
    /// `[[flow]]`, with counted flows expanded, then the flows of `[[traffic]]` generators.
    pub flows: Vec<FlowModel>,
    /// `[metrics]`: what to compute beyond the defaults.
    pub metrics: MetricsModel,
    /// `[fluid]`: how the fluid model of this scenario is set up.
    pub fluid: FluidModel,
    /// `[[capture]]` (and `run --capture`): packet captures.
    pub captures: Vec<CaptureModel>,
    /// The `[[traffic]]` tables whose generator drew no flow in this run (its arrivals all fell
    /// after the end): a valid run, of which the user is warned. Each is here as one flow it
    /// would draw (its `key` is the table's, `traffic.<name>`), checked as drawn flows are.
    pub idle_traffic: Vec<FlowModel>,
}

/// One packet capture: the packets arriving at a link, in front of its queue.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureModel {
    /// Where it was declared (`capture[0]`, or `--capture`), for errors.
    pub key: String,
    /// The links' names: one file of what arrives at any of them (a multipath flow's subflows
    /// on different links in one file, as Wireshark needs them to group the subflows).
    pub links: Vec<String>,
    /// The flows captured, by name (a counted flow's group name stands for all its copies);
    /// `None`: every flow.
    pub flows: Option<Vec<String>>,
    /// Arrivals from this time on…
    pub from: Time,
    /// …until this one (`None`: the end of the run).
    pub until: Option<Time>,
}

/// `[fluid]`: the fluid model's choices (docs/fluid.md).
#[derive(Clone, Debug, PartialEq)]
pub struct FluidModel {
    /// `constant`: TCP's square-root-law constant.
    pub constant: FluidConstant,
    /// `loss`: how a congested link's load becomes its loss probability.
    pub loss: FluidLoss,
    /// `small_loss`: the papers' first-order model (no `1 − p` discount, path loss `Σ p_l`).
    pub small_loss: bool,
    /// `queueing = "standing"` (the default): a congested link's queue adds its delay to the
    /// RTTs at equilibrium (drop-tail: the buffer; random-drop zone: to the zone's middle; RED:
    /// between its thresholds; threshold-dropper: its threshold); `"none"`: propagation RTTs,
    /// as in the papers' models.
    pub queueing: bool,
    /// `integrator`, `step`, `tolerance`: how the trajectory is integrated.
    pub integrator: FluidIntegrator,
}

impl Default for FluidModel {
    fn default() -> FluidModel {
        FluidModel {
            constant: FluidConstant::Auto,
            loss: FluidLoss::Price,
            small_loss: false,
            queueing: true,
            integrator: FluidIntegrator::Adaptive { tolerance: 1e-6 },
        }
    }
}

/// TCP's constant in the fluid model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FluidConstant {
    /// From the flows' TCP settings: the packet sawtooth's, with or without delayed ACKs, so
    /// that fluid and packet numbers compare like for like.
    Auto,
    /// The papers': Reno's window `√(2/p)`.
    Papers,
    /// The deterministic sawtooth's mean: `√(3/(2p))`.
    Packet,
    /// The sawtooth with delayed ACKs: `√(3/(4p))`.
    PacketDelayedAck,
}

/// A congested link's loss in the fluid model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FluidLoss {
    /// A price: positive only where the load reaches the capacity.
    Price,
    /// `p = min(1, (y/c)^B)` with this exponent B.
    Curve(f64),
}

/// The trajectory's integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FluidIntegrator {
    /// An embedded Runge–Kutta pair with this relative tolerance per step.
    Adaptive {
        /// Relative error allowed per step.
        tolerance: f64,
    },
    /// Classic fourth-order Runge–Kutta with this step.
    Rk4 {
        /// The fixed step.
        step: Time,
    },
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
    /// Short name, which heads the run's summary (`friendliness-same-rtt`).
    pub name: Option<String>,
    /// The paper experiment it reproduces, by seed file and figure or table
    /// (`"000_59b601105bcb4a51.txt, Table III"`).
    pub source: Option<String>,
    /// Free text for readers of the file and its results; not interpreted.
    pub description: Option<String>,
}

/// `[sim]`: run-wide settings, as the simulation takes them (one definition, so no setting
/// can be read and then lost on the way).
pub type SimModel = tcp::SimConfig;

/// `[tcp]` or a flow's `tcp` table: a profile and every setting optional, so a flow overrides
/// only what it sets.
pub type TcpModel = tcp::TcpOverrides;

/// Whose RED a queue runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVariant {
    /// Floyd and Jacobson's (1993): the average over the whole buffer, count from −1.
    Floyd,
    /// ns-2.35's queue/red.cc ([`sim_core::red_ns2`]).
    Ns2,
}

/// How a link's queue drops.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueModel {
    /// Drop arrivals that do not fit in the buffer (the default).
    DropTail,
    /// RED with thresholds on the average queue.
    Red {
        /// Average queue below which nothing is dropped early.
        min: BufferValue,
        /// Average queue at which the drop probability reaches `max_p`; above it (above twice
        /// it, gentle) every arrival is dropped.
        max: BufferValue,
        /// Drop probability at the maximum threshold.
        max_p: f64,
        /// Weight of each new sample in the moving average of the queue (Floyd and Jacobson's
        /// `w_q`).
        weight: f64,
        /// Between `max` and `2·max`, ramp the probability from `max_p` to 1 instead of
        /// dropping everything.
        gentle: bool,
        /// ns-2's `wait`: drops at least `1/p` arrivals apart, rather than `1/(2p)` on average.
        /// Unset: on in the `ns2` variant (ns-2's `wait_` default), off in `floyd`.
        wait: Option<bool>,
        /// Whose computation: unset, `ns2` when `[tcp]` names the `ns2-sack` profile, else
        /// `floyd` ([`Scenario::red_variant`](crate::Scenario::red_variant)).
        variant: Option<RedVariant>,
        /// `ns2` variant: the average counts bytes (thresholds in bytes, the probability scaled
        /// by the packet's size: ns-2's `queue_in_bytes_` and `bytes_`) rather than packets.
        bytes: bool,
        /// `ns2` variant: ns-2's `mean_pktsize_`, bytes, which sets the packets per second the
        /// idle average decays by and the byte mode's unit; unset, the scenario's `mss`.
        mean_pktsize: Option<u32>,
        /// `ns2` variant: draw from ns-2's own generator as ns-2's run does (the run's seed
        /// does not reach it) rather than from the link's stream of the run's seed.
        ns2_rng: bool,
    },
    /// Random drops in the top `zone` of the buffer.
    RandomDrop {
        /// Depth of the zone at the top of the buffer.
        zone: BufferValue,
        /// Fixed drop probability in the zone (htsim's `RandomQueue`); `None`: a linear ramp.
        probability: Option<f64>,
    },
    /// Seed 004's threshold-dropper (§V-D): one connection loses a packet per congestion
    /// event, so packet-level TCP follows the AIMD model's ONE policy.
    ThresholdDropper {
        /// Queue length, packets, that starts a congestion event.
        threshold: u32,
        /// Quiet time after a drop, so that one congestion event costs one connection (the
        /// paper uses a multiple of the round-trip time).
        hold: Time,
        /// How the connection to lose a packet is chosen.
        policy: DropperPolicy,
    },
}

/// One `[[link]]` (one copy of a counted link).
#[derive(Clone, Debug)]
pub struct LinkModel {
    /// Name with `{i}` expanded, unique among links; flows' paths name it.
    pub name: String,
    /// Key path for messages (`link.<template name>`, or `topology.links.<name>`).
    pub key: String,
    /// The generator's group for it (`core`, `access`, …); empty for a written `[[link]]`.
    pub group: String,
    /// The rate the link's queue is served at.
    pub rate: RateValue,
    /// One-way propagation delay.
    pub delay: Time,
    /// Buffer, counting the packet in service: a size, or a time at the link's rate (one BDP
    /// when it is the round-trip time).
    pub buffer: BufferValue,
    /// Which arrivals the queue drops.
    pub queue: QueueModel,
    /// Exogenous Bernoulli drop probability per packet, independent of the queue (seed 001's
    /// exogenous drops, seed 003's random loss).
    pub loss: f64,
    /// The buffer is served round robin among flows, a packet a turn (csg-htsim's host queue),
    /// rather than first come, first served.
    pub round_robin: bool,
    /// Scheduled state changes (time, up).
    pub events: Vec<(Time, bool)>,
}

/// One `[[flow]]` (one copy of a counted flow).
#[derive(Clone, Debug)]
pub struct FlowModel {
    /// Name with `{i}` expanded, unique among flows; it labels records and seeds the flow's
    /// random streams.
    pub name: String,
    /// Key path for messages (`flow.<template name>`). This and the other parts every copy of
    /// a template has alike are shared, not copied, so a copy costs less to make and to keep
    /// (docs/performance.md).
    pub key: Arc<str>,
    /// The congestion-avoidance window law, resolved with its parameters when the file is read.
    pub cc: Arc<Algorithm>,
    /// Links of each subflow's path (shared by the copies of a template that have the same).
    pub paths: Arc<Vec<Vec<String>>>,
    /// Links of each subflow's ACK path, if not the default uncongested reverse.
    pub reverse_paths: Option<Vec<Vec<String>>>,
    /// When the flow starts (drawn when the file gives an interval).
    pub start: Time,
    /// When it stops offering new data (`None`: never); what is in flight is still delivered.
    pub stop: Option<Time>,
    /// Transfer size (`None`: bulk).
    pub size: Option<SizeValue>,
    /// Multipath receive buffer (`None`: unlimited).
    pub receive_buffer: Option<SizeValue>,
    /// The flow's own `tcp` table, overriding the scenario's `[tcp]` setting by setting.
    pub tcp: Arc<TcpModel>,
}
