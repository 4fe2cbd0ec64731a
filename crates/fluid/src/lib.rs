//! The fluid model of the multipath window laws: equilibria and trajectories of networks whose
//! flows run the very controllers of [`mptcp_cc`] that the packet-level simulator runs.
//!
//! # The model
//!
//! A [`Network`] has links (capacity `c_l` in packets/s, or infinite; one-way delay; exogenous
//! loss probability; optional buffer) and flows; flow `s` runs one window law over subflows
//! `r`, each with a fixed path and propagation RTT `τ_r`. With `x_r = w_r/τ_r` and path loss
//! `p_r = 1 − Π_{l∈r}(1 − p_l)`, the windows follow seed 000 §II-B (eqs. 3–5):
//!
//! ```text
//! dw_r/dt = x_r·[(1 − p_r)·k·I_r(w) − p_r·D_r(w)]
//! ```
//!
//! where `I_r` and `D_r` are the law's [`mptcp_cc::CoupledController::increase`] (per packet
//! acknowledged) and [`decrease`](mptcp_cc::CoupledController::decrease) (per loss) evaluated on
//! `SubflowState::with_window(w_r, τ_r)`: a fraction `1 − p_r` of the `x_r` packets per second
//! is acknowledged, a fraction `p_r` lost. At equilibrium every used path balances,
//! `(1 − p_r)·k·I_r = p_r·D_r`, and a path a coupled law abandons has `w_r = 0` with
//! `(1 − p_r)·k·I_r ≤ p_r·D_r` (COUPLED and OLIA put no traffic on strictly worse paths).
//! Windows are kept above 1e-12 packets (so rates, ratios and logarithms stay finite) and
//! reported as exactly 0 below 1e-8 of their flow's largest window.
//! [`Options::small_loss`] switches to the papers' first-order model (no `1 − p_r`, and
//! `p_r = Σ p_l`), in which their closed forms are exact.
//!
//! OLIA reads inter-loss counters: both are set to `1/p_r` packets (rounded), the mean between
//! losses, as seed 002 §5.1 does in its own fluid model, so its best-path set B is the set of
//! paths with the lowest `p_r·τ_r²` (the largest TCP rate `√(2/p_r)/τ_r`). RSF-LB's loss
//! estimate is then `p_r`; RSF-DB's queueing delay is that of the standing queues on its path
//! (its RTT less the propagation RTT: none without [`Link::standing_queue`], where it is
//! Reno).
//!
//! # TCP's constant
//!
//! [`TcpConstant`] multiplies every increase by `k`: 1 for the papers (Reno settles at
//! `w = √(2(1 − p)/p)`), 3/4 for the mean of the deterministic sawtooth (`√(3(1 − p)/(2p))`),
//! 3/8 with delayed ACKs (`√(3(1 − p)/(4p))`). For laws whose increase is homogeneous of degree
//! −1 in the windows and whose decrease is of degree +1 (Reno, EWTCP, Coupled, Semicoupled,
//! SEMICOUPLED(φ), LIA, OLIA, the generalized family, Balia, MultTCP) this scales every
//! equilibrium window by exactly `√k`, which is how the constants are meant; other laws
//! (COUPLED SCALABLE's constant increase, RSF's targets) just get the scaled increase.
//!
//! # Loss at congestible links
//!
//! Exogenous loss is fixed. A link of finite capacity adds a congestion loss by its
//! [`LossModel`], combined with the exogenous one as independent losses:
//! - [`LossModel::Price`]: `p_l ≥ 0`, load `y_l = Σ_{r∋l} x_r ≤ c_l`, and `p_l > 0` only where
//!   `y_l = c_l` (complementary slackness, seed 000 eq. 7); the load counts arrivals, `x_r`.
//!   In trajectories it becomes drop-tail: `max(0, 1 − c_l/y_l)` while the buffer is full (or
//!   always, without a buffer), which settles with a full queue and `y(1 − p) = c`, i.e. to
//!   `O(p)` and one buffer of queueing delay from the price equilibrium.
//! - [`LossModel::Curve`]: `p_l = min(1, (y_l/c_l)^B)`, in equilibria and trajectories alike.
//!
//! # The equilibrium solver
//!
//! [`equilibrium()`] solves in log coordinates (`ln w_r`, and a price variable logarithmic above
//! 1e-6 and linear below, so a price of exactly 0 is a reachable bound). A first phase solves
//! with every flow replaced by independent TCP-friendly subflows (EWTCP with `a = 1/n²`) to get
//! prices of the right magnitude; then Newton's method on the balance residuals
//! `G_r = ln(A_r/B_r)` and the link residuals (`ln(y_l/c_l)`, or the curve), with the Jacobian
//! of each flow's law by finite differences and the links' coupling through a dense Schur
//! complement (one row per congestible link), an active set for the complementarity (windows
//! at the floor, prices at 0), a backtracking line search and pseudo-transient continuation.
//! Where Newton stalls (far from the solution, or at the kinks of `min`/`max`/integer terms) it
//! marches along the model's own primal–dual dynamics for a while and starts again. Convergence
//! is a relative residual below [`Options::tolerance`] for every subflow and link; otherwise
//! the error names the flow or link with the largest residual. A flow with a path that has
//! neither exogenous loss nor a congestible link has no equilibrium (its window grows without
//! bound): [`FluidError::NoEquilibrium`] names it.
//!
//! # Uniqueness
//!
//! COUPLED's equilibria form a set on paths of equal loss (seed 001 §3.2's "flappiness": any
//! split of the total is an equilibrium). The solver does not pick one: it solves a second time
//! from the same prices with every flow's total window split 1 : 1/2 : 1/3 … among its
//! subflows. Directions with no restoring force keep their starting split, so where the two
//! solutions' subflow rates differ by more than [`Options::uniqueness_tolerance`] of the flow's
//! total the flow is [`Uniqueness::NotUnique`] and only its total rate is reported. This also
//! catches isolated multiple equilibria (Balia as written in seed 000 eqs. 1–2, on identical
//! paths). A second solve that does not converge (OLIA at a tie, whose α switches with the
//! largest window) leaves the flow [`Uniqueness::Unknown`].
//!
//! # Queueing delay at equilibrium
//!
//! The papers' equilibria run at propagation RTTs. A packet network's congested links keep a
//! queue, and where the bandwidth-delay product is small (a datacenter's microseconds) it is
//! most of the RTT. A link with [`Link::standing_queue`] `Q` (price model) holds a queue
//! between 0 and `Q` packets while its load equals its capacity and loses packets only when
//! the queue is full; the queueing delay `q/c` is part of the RTT of every path through it.
//! The solver treats queue and price as one variable per link (the queue fills first), so a
//! link at capacity whose flows are held back by losses elsewhere settles with a partly filled
//! queue and no loss, where a queue that is either empty or full has no consistent state.
//! Newton's step stops a link at the end of its queue rather than carrying it across, so the
//! next step sees the slopes of the side it is on. If Newton's method does not converge at all,
//! the model's own dynamics are followed from one packet per subflow (ten thousand longest
//! RTTs, at most 20 000 steps) and Newton restarts from where they rest (Balia on two paths of
//! unequal exogenous loss needs it).
//!
//! # Trajectories
//!
//! [`trajectory()`] integrates the ODE from windows of 1 packet (or given ones), with RTT
//! `τ_r + Σ q_l/c_l` where links have buffers (`dq_l/dt = y_l − c_l`, clamped to
//! `[0, buffer]`), by fixed-step RK4 or adaptive Dormand–Prince 5(4), sampled at a fixed
//! interval as rows `(time_s, flow, subflow, cwnd_pkts, srtt_s, rate_pps)`.
//!
//! # Modules
//!
//! [`network`] (the input), [`options`], [`mod@equilibrium`] (results and uniqueness),
//! [`mod@trajectory`], [`error`]; inside: `model` (the right-hand side), `solver` (residuals and the
//! driver), `newton` (the Newton step), `relax` (the march), `integrate` (RK4, Dormand–Prince),
//! `linalg` (LU).
//!
//! ```
//! use fluid::{Flow, Link, Network, Options, Subflow, equilibrium};
//! use mptcp_cc::Algorithm;
//!
//! // A LIA flow over two links of 1000 packets/s, one shared with a TCP flow.
//! let mut net = Network::new();
//! let a = net.add_link(Link::new("a", 1000.0));
//! let b = net.add_link(Link::new("b", 1000.0));
//! let lia = Algorithm::by_name("lia").unwrap();
//! net.add_flow(Flow::with_algorithm("mp", &lia).subflow(Subflow::with_rtt(vec![a], 0.1)).subflow(Subflow::with_rtt(vec![b], 0.1)));
//! net.add_flow(Flow::with_algorithm("tcp", &Algorithm::Reno).subflow(Subflow::with_rtt(vec![b], 0.1)));
//! let eq = equilibrium(&net, &Options::default()).unwrap();
//! assert!(eq.is_unique());
//! assert!((eq.links[0].utilization - 1.0).abs() < 1e-6);
//! ```

pub mod equilibrium;
pub mod error;
pub(crate) mod integrate;
pub(crate) mod linalg;
pub(crate) mod model;
pub mod network;
pub(crate) mod newton;
pub mod options;
pub(crate) mod relax;
pub(crate) mod solver;
pub mod trajectory;

pub use equilibrium::{
    Equilibrium, FlowEquilibrium, LinkEquilibrium, Stage, SubflowEquilibrium, Uniqueness, equilibrium, equilibrium_observed,
};
pub use error::FluidError;
pub use integrate::Stats;
pub use network::{Flow, Link, Network, Subflow};
pub use options::{LossModel, Options, TcpConstant};
pub use trajectory::{Integrator, Trajectory, TrajectoryOptions, TrajectoryRow, trajectory};
