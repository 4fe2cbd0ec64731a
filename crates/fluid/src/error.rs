//! What can go wrong: an invalid network, a network without an equilibrium, a solver or an
//! integrator that did not converge.

use std::fmt;

/// Why a fluid computation failed; every variant names the flow or link concerned.
#[derive(Clone, Debug, PartialEq)]
pub enum FluidError {
    /// The network description is inconsistent (a link index out of range, a negative delay, a
    /// flow without subflows, …); the message names the element and what was expected.
    InvalidNetwork(String),
    /// No finite equilibrium exists: some window of `flow` grows without bound.
    NoEquilibrium {
        /// The flow whose window is unbounded.
        flow: String,
        /// Why, in words (such as "subflow 1 crosses no lossy and no congestible link").
        reason: String,
    },
    /// The equilibrium iteration stopped at its iteration limit with a residual above the
    /// tolerance.
    NotConverged {
        /// The flow (`flow "name"`) or link (`link "name"`) with the largest residual.
        worst: String,
        /// That residual, relative (see [`crate::Options::tolerance`]).
        residual: f64,
        /// Iterations spent.
        iterations: usize,
    },
    /// The ODE integrator failed (step size underflow or a non-finite state).
    Integration {
        /// Simulated time reached, seconds.
        time: f64,
        /// What failed.
        message: String,
    },
}

impl fmt::Display for FluidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FluidError::InvalidNetwork(m) => write!(f, "invalid network: {m}"),
            FluidError::NoEquilibrium { flow, reason } => write!(f, "no equilibrium: flow \"{flow}\": {reason}"),
            FluidError::NotConverged { worst, residual, iterations } => {
                write!(f, "equilibrium not reached after {iterations} iterations: {worst} has residual {residual:.3e}")
            }
            FluidError::Integration { time, message } => write!(f, "integration failed at t = {time} s: {message}"),
        }
    }
}

impl std::error::Error for FluidError {}
