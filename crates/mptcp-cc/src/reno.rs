//! NewReno's window law (RFC 5681 §3.1): additive increase, multiplicative decrease.

use crate::controller::CoupledController;
use crate::state::SubflowState;

/// Reno: `+1/w` per acknowledged packet, `w/2` per loss event; subflows are independent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl CoupledController for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    /// RFC 5681 eq. (3): `cwnd += SMSS*SMSS/cwnd` per ACK, i.e. `1/w` packets.
    fn increase(&self, subflows: &[SubflowState], r: usize) -> f64 {
        1.0 / subflows[r].cwnd
    }

    /// RFC 5681 eq. (4) with the window in place of FlightSize: halve.
    fn decrease(&self, subflows: &[SubflowState], r: usize) -> f64 {
        subflows[r].cwnd / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_t_flow_one_alone() {
        // docs/spec/ALGORITHMS.md test vector T, flow 1 alone: +0.1 per ACK, halves on loss.
        let s = [SubflowState::with_window(10.0, 0.010)];
        assert!((Reno.increase(&s, 0) - 0.1).abs() < 1e-12);
        assert_eq!(Reno.decrease(&s, 0), 5.0);
    }
}
