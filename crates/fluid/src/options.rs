//! How the model is set up: TCP's constant, the loss model of congested links, the small-loss
//! approximation of the papers, and the solver's tolerances.

/// The constant of TCP's square-root law, applied by scaling every law's increase by `k`.
///
/// With increase `k·I(w)` the balance `(1 − p)·k·I(w) = p·D(w)` of a law whose increase is
/// homogeneous of degree −1 in the windows and whose decrease is homogeneous of degree 1
/// (Reno, EWTCP, Coupled, LIA, OLIA, Semicoupled, SEMICOUPLED(φ), the generalized family,
/// Balia, MultTCP) is solved by `√k` times the `k = 1` windows: this is exactly how the
/// constants move every such equilibrium. Laws with other homogeneity (COUPLED SCALABLE's
/// constant increase, RSF's targets) still get their increase scaled by `k`, but their windows
/// do not scale by `√k`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum TcpConstant {
    /// `k = 1`, the papers' fluid model: Reno settles at `w = √(2(1−p)/p) ≈ √(2/p)`.
    #[default]
    Papers,
    /// `k = 3/4`: `w = √(3(1−p)/(2p))`, the mean of the deterministic sawtooth (the window
    /// oscillates between `2w/3` and `4w/3`).
    Packet,
    /// `k = 3/8`: `w = √(3(1−p)/(4p))`, the sawtooth with delayed ACKs (one ACK per two packets
    /// halves the increase per packet).
    PacketDelayedAck,
}

impl TcpConstant {
    /// The factor `k` on every increase.
    pub fn factor(self) -> f64 {
        match self {
            TcpConstant::Papers => 1.0,
            TcpConstant::Packet => 0.75,
            TcpConstant::PacketDelayedAck => 0.375,
        }
    }
}

/// How a link of finite capacity turns its load into a loss probability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    /// Loss as a price (seed 000 eq. 7): `p_l ≥ 0`, load `y_l ≤ c_l`, and `p_l > 0` only where
    /// `y_l = c_l` (complementary slackness). In trajectories: drop-tail, `max(0, 1 − c_l/y_l)`
    /// while the buffer is full (always, for a link without buffer), 0 otherwise.
    Price,
    /// `p_l = min(1, (y_l/c_l)^B)`: a smooth loss curve, the sharper the larger `B` (an AQM
    /// such as RED, or seed 002 §5.1's increasing `p_l(y)`).
    Curve {
        /// The exponent `B > 0`.
        exponent: f64,
    },
}

/// Options shared by [`crate::equilibrium()`] and [`crate::trajectory()`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// TCP's constant (see [`TcpConstant`]).
    pub constant: TcpConstant,
    /// The loss model of links with finite capacity.
    pub loss_model: LossModel,
    /// The papers' first-order model instead of the exact one: the increase is not discounted
    /// by the fraction `1 − p_r` of packets acknowledged, and path loss is `Σ_l p_l` instead of
    /// `1 − Π_l (1 − p_l)` (seed 000 §II-B's `I − D·q`, seed 002 §5.1's `p_r ≈ Σ p_l`). The
    /// papers' closed forms are exact in this model; in the exact one they hold to `O(p)`.
    pub small_loss: bool,
    /// Largest relative residual accepted at equilibrium: of each subflow's window balance
    /// `|A − B|/(|A| + B)` (A the increase, B the decrease term per RTT), weighted by the
    /// subflow's share of its flow's largest window when it is shrinking, and of each link's
    /// complementarity (`|y − c|/c` where the price is positive, `(y − c)/c` above capacity)
    /// or loss curve (`|p − p(y)|/p(y)`).
    pub tolerance: f64,
    /// Largest residual accepted from a solve that stops short of `tolerance` (its Newton
    /// steps no longer improve, as in networks of hundreds of links whose Jacobians are finite
    /// differences, or whose equilibria form sets). A relative imbalance of 1e-5 moves a
    /// window by about 5e-6 of itself, a twentieth of `uniqueness_tolerance`. OLIA on seed
    /// 002's FatTree with standing queues stalls between 1e-6 and 1e-5 for some permutations
    /// (`sim.seed` 5 to 8 at k = 6, 3 and 5 at k = 8; at seed 6 the worst residuals, 1.1e-5,
    /// were on subflows carrying 3e-6 to 6e-6 of their flow's largest window), which 1e-6
    /// turned into errors. The uniqueness check's second solve accepts up to a quarter of
    /// `uniqueness_tolerance` (`crate::equilibrium`'s `SECOND_SOLVE_SHARE`).
    pub acceptable_residual: f64,
    /// Iteration limit of one equilibrium solve.
    pub max_iterations: usize,
    /// Solve a second time from a different split of every flow's window and compare
    /// (see [`crate::Uniqueness`]).
    pub check_uniqueness: bool,
    /// Two solutions whose subflow rates differ by more than this fraction of the flow's total
    /// rate are different equilibria.
    pub uniqueness_tolerance: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            constant: TcpConstant::Papers,
            loss_model: LossModel::Price,
            small_loss: false,
            tolerance: 1e-9,
            acceptable_residual: 1e-5,
            max_iterations: 500,
            check_uniqueness: true,
            uniqueness_tolerance: 1e-4,
        }
    }
}
