//! The window laws of equipoise, separate from the transport that applies them.
//!
//! - [`SubflowState`]: what a window law may read about each subflow of a connection.
//! - [`CoupledController`]: the object-safe seam; a connection owns one boxed controller and
//!   calls it once per acknowledgement and once per loss event, passing every subflow's state
//!   and the index of the one concerned.
//! - [`Algorithm`]: the configuration of a controller by name and parameters, and the factory
//!   that builds it.
//! - One module per window law ([`reno`], …), each with the test vectors of its source.
//!
//! The crate depends on nothing else in the workspace: increase and decrease are pure functions
//! of the subflow states, reusable by a fluid-model solver.

pub mod controller;
pub mod reno;
pub mod state;

pub use controller::CoupledController;
pub use reno::Reno;
pub use state::SubflowState;

/// A window law and its parameters, as named in scenario files.
#[derive(Clone, Debug, PartialEq)]
pub enum Algorithm {
    /// NewReno's law (`"reno"`).
    Reno,
}

impl Algorithm {
    /// Every configuration name this build offers.
    pub const NAMES: &'static [&'static str] = &["reno"];

    /// The algorithm called `name` with its default parameters.
    pub fn by_name(name: &str) -> Option<Algorithm> {
        match name {
            "reno" => Some(Algorithm::Reno),
            _ => None,
        }
    }

    /// The configuration name.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Reno => "reno",
        }
    }

    /// A fresh controller for one connection.
    pub fn build(&self) -> Box<dyn CoupledController> {
        match self {
            Algorithm::Reno => Box::new(Reno),
        }
    }
}
