//! The window laws of equipoise, separate from the transport that applies them.
//!
//! - [`SubflowState`]: what a window law may read about each subflow of a connection.
//! - [`CoupledController`]: the object-safe seam; a connection owns one boxed controller and
//!   calls it once per acknowledgement and once per loss event, passing every subflow's state
//!   and the index of the one concerned.
//! - [`Algorithm`]: a law by configuration name and parameters, its factory, and the
//!   [`algorithm::ALGORITHMS`] reference table that `docs/algorithms.md` is generated from.
//! - One module per law, each with the test vectors of `docs/spec/ALGORITHMS.md`: [`reno`],
//!   [`mult_tcp`], [`uncoupled`], [`coupled`], [`semicoupled_phi`] (with COUPLED SCALABLE),
//!   [`semicoupled`], [`lia`], [`link_fair`], [`generalized`] (with Balia), [`olia`], [`rsf`];
//!   and [`cubic`], the kernel's default TCP, as cross-traffic.
//!
//! The crate depends on nothing else in the workspace: increase and decrease are pure functions
//! of the subflow states, reusable by a fluid-model solver.

pub mod algorithm;
pub mod controller;
pub mod coupled;
pub mod cubic;
pub mod generalized;
pub mod lia;
pub mod link_fair;
pub mod mult_tcp;
pub mod olia;
pub mod reno;
pub mod rsf;
pub mod semicoupled;
pub mod semicoupled_phi;
pub mod state;
pub mod sums;
pub mod uncoupled;

pub use algorithm::{ALGORITHMS, Algorithm, AlgorithmInfo, ParamDefault, ParamError, ParamSpec, ParamValue};
pub use controller::{CoupledController, SlowStartSample};
pub use reno::Reno;
pub use state::SubflowState;
