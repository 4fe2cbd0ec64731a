//! The retransmission timer's estimator (RFC 6298).

use sim_core::Time;

/// SRTT, RTTVAR and RTO per RFC 6298, in integer picoseconds, with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Time,
    rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    /// `rto · 2^backoff` capped at `max_rto`, kept current because it is read on every ACK.
    timeout: Time,
}

impl RttEstimator {
    /// An estimator before any sample: RTO is `initial_rto` (RFC 6298 (2.1)).
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            min_rtt: Time::NEVER,
            rto: initial_rto,
            backoff: 0,
            min_rto,
            max_rto,
            timeout: initial_rto.min(max_rto),
        }
    }

    /// Takes one RTT measurement from a segment that was not retransmitted (Karn's rule is the
    /// caller's: retransmitted segments give no sample). Returns whether it is a new minimum.
    #[inline]
    pub fn sample(&mut self, r: Time) -> bool {
        let new_min = r < self.min_rtt;
        self.min_rtt = self.min_rtt.min(r);
        match self.srtt {
            None => {
                // (2.2) SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(srtt) => {
                // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, then SRTT <- 7/8 SRTT + 1/8 R'
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Time((7 * srtt.0 + r.0) / 8));
            }
        }
        // RTO <- SRTT + max(G, 4 RTTVAR), with a clock granularity G of one picosecond; (2.4) floor.
        let srtt = self.srtt.expect("set above");
        self.rto = (srtt + Time((4 * self.rttvar.0).max(1))).max(self.min_rto).min(self.max_rto);
        // Karn: a valid sample from new data ends the backoff.
        self.backoff = 0;
        self.timeout = self.rto;
        new_min
    }

    /// Doubles the timeout after an expiry (RFC 6298 (5.5)).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
        self.timeout = self.rto.saturating_mul(1 << self.backoff).min(self.max_rto);
    }

    /// The timeout to arm now: RTO times 2^backoff, at most the maximum.
    #[inline]
    pub fn timeout(&self) -> Time {
        self.timeout
    }

    /// Smoothed RTT, if sampled.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// Smallest RTT sampled, if any.
    pub fn min_rtt(&self) -> Option<Time> {
        self.srtt.map(|_| self.min_rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_updates_floor_and_backoff() {
        let mut e = RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60));
        assert_eq!(e.timeout(), Time::from_secs(1));
        e.sample(Time::from_ms(100));
        // SRTT 100, RTTVAR 50 -> RTO 300 ms
        assert_eq!((e.srtt(), e.timeout()), (Some(Time::from_ms(100)), Time::from_ms(300)));
        e.sample(Time::from_ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 112.5; RTO = 112.5 + 250 = 362.5 ms
        assert_eq!(e.srtt(), Some(Time::from_us(112_500)));
        assert_eq!(e.timeout(), Time::from_us(362_500));
        e.back_off();
        e.back_off();
        assert_eq!(e.timeout(), Time::from_ms(1450));
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.timeout(), Time::from_secs(60));
        e.sample(Time::from_ms(1));
        assert!(e.timeout() >= Time::from_ms(200), "floored at min RTO");
        assert_eq!(e.min_rtt(), Some(Time::from_ms(1)));
    }
}
