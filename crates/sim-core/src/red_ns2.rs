//! RED as ns-2.35 computes it (`REDQueue::enque`, `estimator`, `drop_early`, `calculate_p_new`
//! and `modify_p` in queue/red.cc), step for step and in the same floating-point operations,
//! so that with the same random numbers ([`crate::mrg32k3a`]) a queue drops the same packets
//! at the same instants as ns-2's.
//!
//! Where it departs from Floyd and Jacobson's RED ([`crate::Red`]), each per arrival:
//!
//! - The average follows the packets *waiting*, not counting the one in service, measured
//!   before the arrival joins them, in packets (`queue_in_bytes_ = false`) or bytes.
//! - After an idle period the average decays as if `m = ⌊ptc · idle⌋` packets had arrived to
//!   an empty queue, `ptc` being the link's packets per second at `mean_pktsize_` bytes, and
//!   the arrival is then averaged in: `m + 1` factors of `1 − w` in all, multiplied one by one.
//! - `count` counts every arrival since the last drop (forced drops and overflows included).
//!   Nothing is dropped early while fewer than two packets wait, and the first arrival that
//!   finds the average at or above `min` (again) only restarts `count` at 1.
//! - The probability is `max_p·(avg − min)/(max − min)`, in gentle mode `max_p` to 1 between
//!   `max` and `2·max`, then 1; spread by `count` as `p/(1 − count·p)`, or with `wait` as 0
//!   until `count·p` reaches 1, then `p/(2 − count·p)`, then 1; in byte mode (`bytes_`) count
//!   is whole `mean_pktsize_` units of bytes and the result scales by size / `mean_pktsize_`.
//! - A uniform number is drawn for every arrival that reaches that test, even when the
//!   probability is 0 or 1, and the packet dropped if it is at most the probability. With
//!   `use_mark_p_` on, ns-2's default, a high average is not a forced drop but this test at
//!   probability 1.
//! - An arrival that overflows the buffer (the drop-tail fallback, `drop_tail_`: the arrival
//!   is the one dropped) also restarts `count` at 0.

use rand::RngExt;

use crate::mrg32k3a::Mrg32k3a;
use crate::rng::Stream;
use crate::time::Time;

/// What ns-2's RED measures its queue in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedUnit {
    /// Packets waiting (`queue_in_bytes_ false`, `bytes_ false`).
    Packets,
    /// Bytes waiting, thresholds in bytes, and the probability scaled by the packet's size
    /// (`queue_in_bytes_ true`, `bytes_ true`: ns-2's defaults since 2004).
    Bytes,
}

/// ns-2.35's RED on one queue.
#[derive(Clone, Debug)]
pub struct Ns2Red {
    unit: RedUnit,
    /// The thresholds, in `unit`.
    th_min: f64,
    th_max: f64,
    q_w: f64,
    wait: bool,
    gentle: bool,
    mean_pktsize: u32,
    /// Packets of `mean_pktsize` bytes the link sends per second (`ptc`).
    ptc: f64,
    max_p: f64,
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    ave: f64,
    count: i32,
    count_bytes: i32,
    /// Whether the last arrival found the average at or above `min` and two packets waiting.
    old: bool,
    idle_since: Option<Time>,
    /// ns-2's own generator, else the link's stream.
    rng: Option<Mrg32k3a>,
}

impl Ns2Red {
    /// RED with thresholds `th_min` < `th_max` in `unit`, the drop probability `max_p` at
    /// `th_max`, averaging weight `q_w`, on a link of `rate_bps`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        unit: RedUnit,
        th_min: f64,
        th_max: f64,
        max_p: f64,
        q_w: f64,
        gentle: bool,
        wait: bool,
        mean_pktsize: u32,
        rate_bps: f64,
    ) -> Ns2Red {
        // ns-2 is given `linterm_ = 1/max_p` and takes `cur_max_p = 1/linterm_`.
        let max_p = 1.0 / (1.0 / max_p);
        let th_diff = th_max - th_min;
        Ns2Red {
            unit,
            th_min,
            th_max,
            q_w,
            wait,
            gentle,
            mean_pktsize,
            ptc: rate_bps / (8.0 * f64::from(mean_pktsize)),
            max_p,
            v_a: 1.0 / th_diff,
            v_b: -th_min / th_diff,
            v_c: (1.0 - max_p) / th_max,
            v_d: 2.0 * max_p - 1.0,
            ave: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: Some(Time::ZERO),
            rng: None,
        }
    }

    /// Draws from ns-2's default generator, after discarding `skip` draws (those ns-2 takes
    /// before the first packet), instead of the link's stream.
    pub fn with_ns2_rng(mut self, skip: u64) -> Ns2Red {
        let mut rng = Mrg32k3a::ns2_default();
        rng.skip(skip);
        self.rng = Some(rng);
        self
    }

    /// The average queue, in the queue's unit.
    pub fn average(&self) -> f64 {
        self.ave
    }

    /// The queue went idle at `now`: its last packet finished service.
    #[inline]
    pub fn on_idle(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    /// Whether to admit an arrival of `size` bytes at `now`, with `waiting` packets and
    /// `waiting_bytes` bytes queued behind the one in service and `fits` whether the buffer
    /// has room for it.
    #[inline]
    pub fn admit(&mut self, waiting: u32, waiting_bytes: u64, size: u32, fits: bool, now: Time, stream: &mut Stream) -> bool {
        let qlen = match self.unit {
            RedUnit::Packets => f64::from(waiting),
            RedUnit::Bytes => waiting_bytes as f64,
        };
        let mut m = 0i64;
        if let Some(since) = self.idle_since.take() {
            // The idle time from the exact difference: a whole number of packet times gives a
            // whole m, where two rounded clock readings could give one less.
            let idle = (now - since).as_ps() as f64 / 1e12;
            m = (self.ptc * idle) as i64;
        }
        self.estimate(qlen, m);
        self.count = self.count.wrapping_add(1);
        self.count_bytes = self.count_bytes.wrapping_add(size as i32);
        let mut early = false;
        if self.ave >= self.th_min && qlen > 1.0 {
            if !self.old {
                self.count = 1;
                self.count_bytes = size as i32;
                self.old = true;
            } else {
                let p = self.spread(self.probability(), size);
                let u = match &mut self.rng {
                    Some(r) => r.next_uniform(),
                    None => stream.random::<f64>(),
                };
                if u <= p {
                    self.count = 0;
                    self.count_bytes = 0;
                    early = true;
                }
            }
        } else {
            self.old = false;
        }
        if !early && !fits {
            self.count = 0;
            self.count_bytes = 0;
        }
        fits && !early
    }

    /// The average after `m` idle packet times and then a sample of `qlen`.
    fn estimate(&mut self, qlen: f64, m: i64) {
        let keep = 1.0 - self.q_w;
        let mut ave = self.ave;
        let mut left = m;
        // Once the average is 0 it stays 0: a long idle period need not be multiplied out.
        while left > 0 && ave != 0.0 {
            ave *= keep;
            left -= 1;
        }
        ave *= keep;
        ave += self.q_w * qlen;
        self.ave = ave;
    }

    /// The drop probability at the current average, before spreading by count.
    fn probability(&self) -> f64 {
        let p = if self.ave >= self.th_max {
            if self.gentle { self.v_c * self.ave + self.v_d } else { 1.0 }
        } else {
            (self.v_a * self.ave + self.v_b) * self.max_p
        };
        p.min(1.0)
    }

    /// `p` spread over the arrivals since the last drop, for an arrival of `size` bytes.
    fn spread(&self, p: f64, size: u32) -> f64 {
        let bytes = self.unit == RedUnit::Bytes;
        let count = if bytes { f64::from(self.count_bytes / self.mean_pktsize as i32) } else { f64::from(self.count) };
        let since = count * p;
        let mut p = if self.wait {
            if since < 1.0 {
                0.0
            } else if since < 2.0 {
                p / (2.0 - since)
            } else {
                1.0
            }
        } else if since < 1.0 {
            p / (1.0 - since)
        } else {
            1.0
        };
        if bytes && p < 1.0 {
            p = p * f64::from(size) / f64::from(self.mean_pktsize);
        }
        p.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn red(wait: bool, gentle: bool) -> Ns2Red {
        // 5-15 packets, max_p 0.1, weight 0.002, 1000-byte packets at 8 Mb/s: 1000 packets/s.
        Ns2Red::new(RedUnit::Packets, 5.0, 15.0, 0.1, 0.002, gentle, wait, 1000, 8e6)
    }

    #[test]
    fn the_average_follows_waiting_packets_one_weight_per_arrival() {
        let mut r = red(true, true);
        let mut s = stream(1, "t");
        // Arriving at an idle queue at time 0: no idle time, one factor.
        r.admit(0, 0, 1000, true, Time::ZERO, &mut s);
        assert_eq!(r.average(), 0.0);
        r.admit(4, 4000, 1000, true, Time::from_us(1), &mut s);
        assert_eq!(r.average(), 0.002 * 4.0);
        r.admit(4, 4000, 1000, true, Time::from_us(2), &mut s);
        assert_eq!(r.average(), 0.008 * (1.0 - 0.002) + 0.002 * 4.0);
    }

    #[test]
    fn an_idle_queue_decays_one_factor_per_packet_time() {
        let mut r = red(true, true);
        let mut s = stream(1, "t");
        r.ave = 10.0;
        r.idle_since = None;
        r.on_idle(Time::from_ms(1));
        // 2.5 ms idle at 1000 packets/s: m = 2, then the arrival: three factors.
        r.admit(0, 0, 1000, true, Time::from_us(3500), &mut s);
        let k = 1.0 - 0.002;
        assert_eq!(r.average(), 10.0 * k * k * k);
    }

    #[test]
    fn no_early_drop_below_two_waiting_nor_on_crossing_min() {
        let mut r = red(false, true);
        let mut s = stream(1, "t");
        r.ave = 14.9; // p_b close to max_p
        r.idle_since = None;
        // One packet waiting: never dropped, however high the average.
        assert!((0..1000).all(|i| r.admit(1, 1000, 1000, true, Time::from_us(i), &mut s)));
        assert!(!r.old);
        // The first arrival with two waiting only starts count at 1.
        r.ave = 14.9;
        assert!(r.admit(2, 2000, 1000, true, Time::from_ms(2), &mut s));
        assert_eq!((r.count, r.old), (1, true));
    }

    #[test]
    fn count_spreads_drops_uniformly_and_wait_holds_them_back() {
        for (wait, lo, hi) in [(false, 1, 20), (true, 20, 40)] {
            let mut r = red(wait, false);
            r.q_w = 1.0; // the average is the queue: 10 waiting, p_b = 0.05
            let mut s = stream(3, "t");
            let drops: Vec<u64> = (0..20_000u64).filter(|&i| !r.admit(10, 10_000, 1000, true, Time::from_us(i), &mut s)).collect();
            let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(gaps.iter().all(|g| (lo..=hi).contains(g)), "wait {wait}: {:?}", &gaps[..10]);
        }
    }

    #[test]
    fn gentle_ramps_to_one_at_twice_max_and_plain_red_drops_all_above_max() {
        let mut r = red(false, true);
        r.ave = 20.0;
        assert!((r.probability() - 0.4).abs() < 1e-12);
        r.ave = 30.0;
        assert_eq!(r.probability(), 1.0);
        let mut r = red(false, false);
        r.ave = 15.0;
        assert_eq!(r.probability(), 1.0);
    }

    #[test]
    fn an_overflow_restarts_count() {
        let mut r = red(false, true);
        let mut s = stream(1, "t");
        r.idle_since = None;
        assert!(!r.admit(0, 0, 1000, false, Time::from_us(1), &mut s));
        assert_eq!(r.count, 0);
    }

    #[test]
    fn byte_mode_counts_whole_mean_packets_and_scales_by_size() {
        let mut r = Ns2Red::new(RedUnit::Bytes, 5000.0, 15000.0, 0.1, 0.002, true, false, 1000, 8e6);
        r.ave = 10_000.0;
        r.count_bytes = 2999; // two whole mean packets
        let p = r.probability();
        assert!((r.spread(p, 500) - 0.05 / (1.0 - 2.0 * 0.05) * 0.5).abs() < 1e-15);
    }
}
