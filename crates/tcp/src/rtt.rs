//! The retransmission timer's estimator: RFC 6298, or Linux's variant of it.

use sim_core::Time;

use crate::config::RtoFormula;

/// SRTT, RTTVAR and RTO in integer picoseconds, with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    /// RFC 6298's RTTVAR; under Linux's formula, `mdev`, its per-sample twin.
    rttvar: Time,
    min_rtt: Time,
    rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    formula: RtoFormula,
    /// Linux: the largest `4·mdev` of the current round trip (`mdev_max_us`).
    mdev_max: Time,
    /// Linux: the variance term of the timeout, `rttvar_us` (4·RTTVAR, at least `min_rto`).
    linux_rttvar: Time,
    /// Linux: the round ends when this sequence is acknowledged (`rtt_seq`).
    round_end: u64,
    /// `rto · 2^backoff` capped at `max_rto`, kept current because it is read on every ACK.
    timeout: Time,
}

impl RttEstimator {
    /// An estimator before any sample: RTO is `initial_rto` (RFC 6298 (2.1)).
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time, formula: RtoFormula) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            min_rtt: Time::NEVER,
            rto: initial_rto,
            backoff: 0,
            min_rto,
            max_rto,
            formula,
            mdev_max: Time::ZERO,
            linux_rttvar: Time::ZERO,
            round_end: 0,
            timeout: initial_rto.min(max_rto),
        }
    }

    /// Takes one RTT measurement `r`; `acked` is the subflow's new cumulative acknowledgement
    /// and `next` its next sequence to send (Linux's formula tracks rounds with them). Whether
    /// a sample is valid (Karn's rule, timestamps) is the caller's decision. Returns whether it
    /// is a new minimum.
    #[inline]
    pub fn sample(&mut self, r: Time, acked: u64, next: u64) -> bool {
        let new_min = r < self.min_rtt;
        self.min_rtt = self.min_rtt.min(r);
        if self.formula == RtoFormula::Rfc6298 {
            self.sample_rfc6298(r);
        } else {
            self.sample_linux(r, acked, next);
        }
        // A valid sample ends the backoff (RFC 6298 (5.7) note; Linux resets on new data).
        self.backoff = 0;
        self.timeout = self.rto;
        new_min
    }

    #[inline]
    fn sample_rfc6298(&mut self, r: Time) {
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
    }

    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto`, with `rttvar` holding `mdev` (not
    /// scaled by 4 here: the factor is applied where Linux's scaled value is used).
    #[inline(never)]
    fn sample_linux(&mut self, r: Time, acked: u64, next: u64) {
        let m = r.0 as i128;
        match self.srtt {
            None => {
                // srtt = m, mdev = m/2, so that RTO = 3·RTT before the floor.
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
                self.linux_rttvar = Time(4 * self.rttvar.0).max(self.min_rto);
                self.mdev_max = self.linux_rttvar;
                self.round_end = next;
            }
            Some(srtt) => {
                let err = m - srtt.0 as i128;
                self.srtt = Some(Time((srtt.0 as i128 + err / 8) as u64));
                // mdev += (|err| - mdev)/4, where a sample below SRTT (a falling RTT) whose
                // error exceeds mdev weighs 8 times less.
                let mdev = self.rttvar.0 as i128;
                let delta = if err < 0 {
                    let d = -err - mdev;
                    if d > 0 { d / 8 } else { d }
                } else {
                    err - mdev
                };
                self.rttvar = Time((mdev + delta / 4).max(0) as u64);
                let scaled = Time(4 * self.rttvar.0);
                if scaled > self.mdev_max {
                    self.mdev_max = scaled;
                    self.linux_rttvar = self.linux_rttvar.max(scaled);
                }
                if acked > self.round_end {
                    // Once per round trip: let the variance term decay towards this round's
                    // largest deviation, and start the next round with the floor.
                    if self.mdev_max < self.linux_rttvar {
                        self.linux_rttvar = self.linux_rttvar - Time((self.linux_rttvar - self.mdev_max).0 / 4);
                    }
                    self.round_end = next;
                    self.mdev_max = self.min_rto;
                }
            }
        }
        let srtt = self.srtt.expect("set above");
        self.rto = (srtt + self.linux_rttvar).min(self.max_rto);
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

    fn estimator(formula: RtoFormula) -> RttEstimator {
        RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60), formula)
    }

    #[test]
    fn rfc6298_updates_floor_and_backoff() {
        let mut e = estimator(RtoFormula::Rfc6298);
        assert_eq!(e.timeout(), Time::from_secs(1));
        e.sample(Time::from_ms(100), 1, 2);
        // SRTT 100, RTTVAR 50 -> RTO 300 ms
        assert_eq!((e.srtt(), e.timeout()), (Some(Time::from_ms(100)), Time::from_ms(300)));
        e.sample(Time::from_ms(200), 2, 3);
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
        e.sample(Time::from_ms(1), 3, 4);
        assert!(e.timeout() >= Time::from_ms(200), "floored at min RTO");
        assert_eq!(e.min_rtt(), Some(Time::from_ms(1)));
    }

    #[test]
    fn rfc6298_timeout_hugs_srtt_above_the_floor() {
        // A steady 500 ms RTT: RTTVAR decays to nothing and the timeout to SRTT itself.
        let mut e = estimator(RtoFormula::Rfc6298);
        for i in 0..200 {
            e.sample(Time::from_ms(500), i + 1, i + 2);
        }
        assert!(e.timeout() < Time::from_ms(501), "{}", e.timeout());
    }

    #[test]
    fn linux_floor_acts_on_the_variance_term() {
        let mut e = estimator(RtoFormula::Linux);
        // First sample: SRTT = 100 ms, 4·mdev = 200 ms, so RTO = 100 + max(200, 200) = 300 ms.
        e.sample(Time::from_ms(100), 1, 10);
        assert_eq!(e.timeout(), Time::from_ms(300));
        // A steady 500 ms RTT for many rounds: the timeout stays min_rto above SRTT.
        let mut e = estimator(RtoFormula::Linux);
        for i in 0..200 {
            e.sample(Time::from_ms(500), 10 * i + 1, 10 * i + 10);
        }
        assert_eq!(e.srtt(), Some(Time::from_ms(500)));
        // (The decay by a quarter per round stops within 4 ps of the floor, as Linux's within 4 us.)
        assert!(e.timeout() >= Time::from_ms(700) && e.timeout() < Time::from_ms(700) + Time(4), "SRTT + min_rto: {}", e.timeout());
        // A jump in the RTT raises the variance term above the floor at once.
        e.sample(Time::from_ms(900), 2001, 2010);
        // err = 400 ms: SRTT = 550, mdev = 0 + 400/4 = 100 ms, 4·mdev = 400 ms.
        assert!((e.timeout().as_ps() as i64 - Time::from_ms(950).as_ps() as i64).abs() < 100, "{}", e.timeout());
    }
}
