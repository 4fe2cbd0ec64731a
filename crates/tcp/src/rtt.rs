//! The retransmission timer's estimator: RFC 6298, Linux's variant of it, or ns-2's.

use sim_core::Time;

use crate::config::RtoFormula;

/// SRTT, RTTVAR and RTO in integer picoseconds, with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// `Time::NEVER` before the first sample.
    srtt: Time,
    /// RFC 6298's RTTVAR; under Linux's formula, `mdev`, its per-sample twin.
    rttvar: Time,
    min_rtt: Time,
    rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    /// `rto · 2^backoff` capped at `max_rto`, kept current because it is read on every ACK.
    timeout: Time,
    /// The formula, with the state only it keeps.
    formula: Formula,
}

/// Which formula sets the timeout, with the state only that formula keeps (every sender
/// holds an estimator, so the others' state would cost each of them its bytes).
#[derive(Clone, Debug)]
enum Formula {
    Rfc6298,
    Linux(LinuxRounds),
    /// Boxed: the largest state, and only ns-2's profile keeps it.
    Ns2(Box<Ns2Timer>),
}

/// Linux's per-round state of the variance term.
#[derive(Clone, Copy, Debug)]
struct LinuxRounds {
    /// The largest `4·mdev` of the current round trip (`mdev_max_us`).
    mdev_max: Time,
    /// The variance term of the timeout, `rttvar_us` (4·RTTVAR, at least `min_rto`).
    rttvar: Time,
    /// The round ends when this sequence is acknowledged (`rtt_seq`).
    round_end: u64,
}

/// ns-2.35's `TcpAgent` timer state (tcp.cc): SRTT in eighths of a tick, RTTVAR in quarters,
/// the backoff multiplier and the tick, and the one segment being timed.
#[derive(Clone, Copy, Debug)]
struct Ns2Timer {
    tick: Time,
    /// `t_srtt_`: 0 before the first sample and after a long backoff.
    srtt: i32,
    /// `t_rttvar_`.
    rttvar: i32,
    /// `t_backoff_`: 1, 2, 4, … 64.
    backoff: u32,
    /// The timed segment (`rtt_seq_`) and when it was sent (`rtt_ts_`; `Time::NEVER` when
    /// none is timed): one new segment at a time gives the samples, none after a
    /// retransmission until a new one.
    timed_seq: u64,
    timed_at: Time,
}

impl RttEstimator {
    /// An estimator before any sample: RTO is `initial_rto` (RFC 6298 (2.1)).
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time, formula: RtoFormula, tick: Time) -> Self {
        RttEstimator {
            srtt: Time::NEVER,
            rttvar: Time::ZERO,
            min_rtt: Time::NEVER,
            rto: initial_rto,
            backoff: 0,
            min_rto,
            max_rto,
            timeout: initial_rto.min(max_rto),
            formula: match formula {
                RtoFormula::Rfc6298 => Formula::Rfc6298,
                RtoFormula::Linux => Formula::Linux(LinuxRounds { mdev_max: Time::ZERO, rttvar: Time::ZERO, round_end: 0 }),
                RtoFormula::Ns2 => Formula::Ns2(Box::new(Ns2Timer {
                    tick: tick.max(Time(1)),
                    srtt: 0,
                    rttvar: 0,
                    backoff: 1,
                    timed_seq: 0,
                    timed_at: Time::NEVER,
                })),
            },
        }
    }

    /// Under ns-2's formula, starts timing segment `seq`, sent at `now` for the first time,
    /// unless one is being timed already; the other formulas time every segment.
    #[inline]
    pub fn time_segment(&mut self, seq: u64, now: Time) {
        if let Formula::Ns2(n) = &mut self.formula
            && n.timed_at == Time::NEVER
        {
            (n.timed_seq, n.timed_at) = (seq, now);
        }
    }

    /// Whether RTT samples come from one timed segment at a time (ns-2's formula), not from
    /// every acknowledgement that may give one.
    #[inline]
    pub fn times_one_segment(&self) -> bool {
        matches!(self.formula, Formula::Ns2(_))
    }

    /// Forgets the timed segment (a loss makes its sample ambiguous).
    pub fn stop_timing(&mut self) {
        if let Formula::Ns2(n) = &mut self.formula {
            n.timed_at = Time::NEVER;
        }
    }

    /// When the timed segment was sent, if acknowledgement `next` (the next segment the
    /// receiver expects) covers it; it is then timed no longer.
    #[inline]
    pub fn timed_acknowledged(&mut self, next: u64) -> Option<Time> {
        match &mut self.formula {
            Formula::Ns2(n) if n.timed_at != Time::NEVER && next > n.timed_seq => Some(std::mem::replace(&mut n.timed_at, Time::NEVER)),
            _ => None,
        }
    }

    /// Takes the measurement of a segment sent at `sent` and acknowledged at `now`; `acked`
    /// and `next` as [`RttEstimator::sample`] takes them. ns-2's formula counts the ticks
    /// between the two instants (its clock's phase taken as zero), the others the time.
    #[inline]
    pub fn sample_at(&mut self, sent: Time, now: Time, acked: u64, next: u64) -> bool {
        let r = now - sent;
        let new_min = r < self.min_rtt;
        self.min_rtt = self.min_rtt.min(r);
        match self.formula {
            Formula::Rfc6298 => self.sample_rfc6298(r),
            Formula::Linux(_) => self.sample_linux(r, acked, next),
            // ns-2 ends its backoff and sets its timeout itself.
            Formula::Ns2(_) => {
                self.sample_ns2(sent, now);
                return new_min;
            }
        }
        // A valid sample ends the backoff (RFC 6298 (5.7) note; Linux resets on new data).
        self.backoff = 0;
        self.timeout = self.rto;
        new_min
    }

    /// tcp.cc `rtt_update`, in its integer arithmetic (`delta` is a C `short`), after the
    /// timed segment's acknowledgement, which also ends the backoff.
    #[inline(never)]
    fn sample_ns2(&mut self, sent: Time, now: Time) {
        let Formula::Ns2(n) = &mut self.formula else { return };
        let ticks = (now.0 / n.tick.0) as i64 - (sent.0 / n.tick.0) as i64;
        let rtt = ticks.clamp(1, i32::MAX as i64) as i32;
        if n.srtt != 0 {
            let mut delta = rtt.wrapping_sub(n.srtt >> 3) as i16;
            n.srtt = n.srtt.wrapping_add(delta as i32);
            if n.srtt <= 0 {
                n.srtt = 1;
            }
            delta = delta.wrapping_abs();
            delta = (delta as i32).wrapping_sub(n.rttvar >> 2) as i16;
            n.rttvar = n.rttvar.wrapping_add(delta as i32);
            if n.rttvar <= 0 {
                n.rttvar = 1;
            }
        } else {
            n.srtt = rtt << 3;
            n.rttvar = rtt << 1;
        }
        // t_rtxcur_ = SRTT + 4·RTTVAR, in whole ticks.
        let rtxcur = (((n.rttvar as i64) << 3) + n.srtt as i64) >> 3;
        self.rto = Time(n.tick.0.saturating_mul(rtxcur.max(0) as u64));
        self.srtt = Time(n.tick.0.saturating_mul(n.srtt as u64) / 8);
        n.backoff = 1;
        self.timeout = ns2_timeout(n, self.rto, self.min_rto, self.max_rto);
    }

    /// Ends ns-2's backoff without a sample (Sack1, on a partial ACK in recovery).
    pub fn end_backoff(&mut self) {
        if let Formula::Ns2(n) = &mut self.formula {
            n.backoff = 1;
            self.timeout = ns2_timeout(n, self.rto, self.min_rto, self.max_rto);
        }
    }

    /// Takes one RTT measurement `r`; `acked` is the subflow's new cumulative acknowledgement
    /// and `next` its next sequence to send (Linux's formula tracks rounds with them). Whether
    /// a sample is valid (Karn's rule, timestamps) is the caller's decision. Returns whether it
    /// is a new minimum. (ns-2's formula counts ticks between two instants: see
    /// [`RttEstimator::sample_at`]; given only `r`, it takes the send at a tick's start.)
    #[inline]
    pub fn sample(&mut self, r: Time, acked: u64, next: u64) -> bool {
        self.sample_at(Time::ZERO, r, acked, next)
    }

    #[inline]
    fn sample_rfc6298(&mut self, r: Time) {
        if self.srtt == Time::NEVER {
            // (2.2) SRTT <- R, RTTVAR <- R/2
            self.srtt = r;
            self.rttvar = Time(r.0 / 2);
        } else {
            // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, then SRTT <- 7/8 SRTT + 1/8 R'
            let err = self.srtt.0.abs_diff(r.0);
            self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
            self.srtt = Time((7 * self.srtt.0 + r.0) / 8);
        }
        // RTO <- SRTT + max(G, 4 RTTVAR), with a clock granularity G of one picosecond; (2.4) floor.
        // (Both terms come from samples: finite.)
        self.rto = self.srtt.plus(Time((4 * self.rttvar.0).max(1))).max(self.min_rto).min(self.max_rto);
    }

    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto`, with `rttvar` holding `mdev` (not
    /// scaled by 4 here: the factor is applied where Linux's scaled value is used).
    #[inline(never)]
    fn sample_linux(&mut self, r: Time, acked: u64, next: u64) {
        let Formula::Linux(round) = &mut self.formula else { return };
        let m = r.0 as i128;
        if self.srtt == Time::NEVER {
            // srtt = m, mdev = m/2, so that RTO = 3·RTT before the floor.
            self.srtt = r;
            self.rttvar = Time(r.0 / 2);
            round.rttvar = Time(4 * self.rttvar.0).max(self.min_rto);
            round.mdev_max = round.rttvar;
            round.round_end = next;
        } else {
            let err = m - self.srtt.0 as i128;
            self.srtt = Time((self.srtt.0 as i128 + err / 8) as u64);
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
            if scaled > round.mdev_max {
                round.mdev_max = scaled;
                round.rttvar = round.rttvar.max(scaled);
            }
            if acked > round.round_end {
                // Once per round trip: let the variance term decay towards this round's
                // largest deviation, and start the next round with the floor.
                if round.mdev_max < round.rttvar {
                    round.rttvar = round.rttvar - Time((round.rttvar - round.mdev_max).0 / 4);
                }
                round.round_end = next;
                round.mdev_max = self.min_rto;
            }
        }
        self.rto = (self.srtt + round.rttvar).min(self.max_rto);
    }

    /// Doubles the timeout after an expiry (RFC 6298 (5.5)).
    pub fn back_off(&mut self) {
        if let Formula::Ns2(n) = &mut self.formula {
            // tcp.cc `rtt_backoff`: double while below 64 or the ceiling; past 8, forget SRTT
            // (kept in RTTVAR) so that the next sample starts the estimate again.
            if n.backoff < 64 || self.timeout < self.max_rto {
                n.backoff <<= 1;
            }
            if n.backoff > 8 {
                n.rttvar = n.rttvar.wrapping_add(n.srtt >> 3);
                n.srtt = 0;
            }
            self.timeout = ns2_timeout(n, self.rto, self.min_rto, self.max_rto);
            return;
        }
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
        (self.srtt != Time::NEVER).then_some(self.srtt)
    }

    /// Smallest RTT sampled, if any.
    pub fn min_rtt(&self) -> Option<Time> {
        (self.srtt != Time::NEVER).then_some(self.min_rtt)
    }
}

/// tcp.cc `rtt_timeout`: the floor before the backoff, the ceiling, at least two ticks.
fn ns2_timeout(n: &Ns2Timer, rto: Time, min_rto: Time, max_rto: Time) -> Time {
    let base = if rto < min_rto { min_rto } else { rto };
    base.saturating_mul(n.backoff as u64).min(max_rto).max(Time(n.tick.0.saturating_mul(2)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimator(formula: RtoFormula) -> RttEstimator {
        RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60), formula, Time::from_ms(10))
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

    #[test]
    fn ns2_counts_ticks_in_fixed_point() {
        let ms = Time::from_ms;
        let mut e = estimator(RtoFormula::Ns2);
        // Before a sample: the initial timeout (ns-2's rtxcur_init_), floored, doubled.
        assert_eq!(e.timeout(), Time::from_secs(1));
        // 123 ms from a tick's start: 12 ticks. SRTT 12, RTTVAR 6 ticks: RTO 36 ticks.
        e.sample_at(Time::ZERO, ms(123), 1, 2);
        assert_eq!((e.srtt(), e.timeout()), (Some(ms(120)), ms(360)));
        // 120 ms again, now from 200 ms to 320 ms: 12 ticks; RTTVAR 6 - 6/4 -> 4.5 (18/4).
        e.sample_at(ms(200), ms(320), 2, 3);
        assert_eq!(e.timeout(), ms(300));
        // The tick boundaries count, not the time: 2 ms across one boundary is one tick,
        // 18 ms within one tick is at least one.
        let mut f = estimator(RtoFormula::Ns2);
        f.sample_at(ms(9), ms(11), 1, 2);
        assert_eq!(f.srtt(), Some(ms(10)));
        // A steady 500 ms: RTTVAR decays to 3/4 of a tick, so RTO stays 30 ms above SRTT.
        let mut g = estimator(RtoFormula::Ns2);
        for i in 0..200u64 {
            g.sample_at(ms(1000 * i), ms(1000 * i + 500), i + 1, i + 2);
        }
        assert_eq!((g.srtt(), g.timeout()), (Some(ms(500)), ms(530)));
        // Backoff: doubles; past 8 SRTT is forgotten, and the next sample starts afresh.
        for k in [2, 4, 8, 16] {
            g.back_off();
            assert_eq!(g.timeout(), ms(530 * k));
        }
        g.sample_at(ms(300_000), ms(300_100), 201, 202);
        assert_eq!((g.srtt(), g.timeout()), (Some(ms(100)), ms(300)));
    }
}
