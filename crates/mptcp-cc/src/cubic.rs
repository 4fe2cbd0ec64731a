//! CUBIC (RFC 9438) as Linux's tcp_cubic.c computes it: the window follows
//! `W(t) = C·(t − K)³ + W_max` from the last reduction, with the Reno-friendly estimate as a
//! floor, `β = 717/1024` and fast convergence; each subflow on its own (uncoupled). Slow start
//! ends early by HyStart, as Linux's does.

use crate::controller::{CoupledController, SlowStartSample};
use crate::state::SubflowState;

/// The multiplicative decrease, Linux's `beta` over `BICTCP_BETA_SCALE`.
pub const BETA: f64 = 717.0 / 1024.0;
/// The cubic's scale, packets per second³: Linux's `bic_scale · 10 / 1024` (RFC 9438's 0.4).
pub const C: f64 = 410.0 / 1024.0;
/// ACKed packets per window of the Reno-friendly estimate's one-packet increase, over the
/// window: Linux's `beta_scale` (`8·(1024 + 717)/3/(1024 − 717)`, 15 in integer arithmetic)
/// over 8, so that the estimate grows by 8/15 of a packet per window acknowledged (RFC 9438's
/// `3(1 − β)/(1 + β)` is 0.53).
const FRIENDLY_ACKS_PER_WINDOW: f64 = 15.0 / 8.0;
/// Before the first loss Linux lets the window grow by at most one packet in 20 ACKed (5 % per
/// round trip) on the cubic alone.
const FIRST_EPOCH_MAX_CNT: f64 = 20.0;

/// HyStart's settings, Linux's defaults (`hystart_low_window`, `hystart_ack_delta_us`,
/// `HYSTART_MIN_SAMPLES`, `HYSTART_DELAY_MIN`/`MAX`): it watches slow start from a window of 16
/// packets; an ACK train is a run of ACKs at most 2 ms apart; a round's RTT is the least of its
/// first 8 samples; the delay threshold is an eighth of the minimum RTT, within 4 to 16 ms.
const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_ACK_DELTA: f64 = 0.002;
const HYSTART_MIN_SAMPLES: u8 = 8;
const HYSTART_DELAY_MIN: f64 = 0.004;
const HYSTART_DELAY_MAX: f64 = 0.016;

/// One subflow's HyStart state: the round trip being watched (Linux's `round_start`,
/// `end_seq`, `last_ack`, `curr_rtt`, `sample_cnt`, `found`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct SlowStart {
    /// Slow start has been ended: HyStart watches no more.
    found: bool,
    /// Whether a round has begun (the first sample begins one).
    watching: bool,
    /// When the round began, seconds.
    round_start: f64,
    /// The round ends once the ACKs pass this sequence number (the next to send when it began).
    end_seq: u64,
    /// When the last ACK of the current train arrived, seconds.
    last_ack: f64,
    /// The least RTT of the round's samples so far, seconds, and how many were taken.
    round_rtt: f64,
    samples: u8,
}

impl SlowStart {
    /// A new round from `now`, ending at `end_seq`.
    fn begin_round(&mut self, now: f64, end_seq: u64) {
        *self = SlowStart { watching: true, round_start: now, end_seq, last_ack: now, round_rtt: f64::INFINITY, samples: 0, ..*self };
    }

    /// HyStart on one sample (Linux's `hystart_update`): whether slow start ends, because the
    /// round's ACK train has lasted past half the minimum RTT (the window fills the path) or
    /// the round's RTT rose above the minimum by the delay threshold (a queue is building).
    fn on_sample(&mut self, x: SlowStartSample, min_rtt: f64) -> bool {
        let now = x.now_ps as f64 * 1e-12;
        if !self.watching || x.snd_una > self.end_seq {
            self.begin_round(now, x.snd_nxt);
        }
        if now - self.last_ack <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            // Half the minimum RTT: an unpaced sender's train (Linux halves it without pacing).
            if now - self.round_start > min_rtt / 2.0 {
                self.found = true;
            }
        }
        self.round_rtt = self.round_rtt.min(x.rtt);
        if self.samples < HYSTART_MIN_SAMPLES {
            self.samples += 1;
        } else if self.round_rtt > min_rtt + (min_rtt / 8.0).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX) {
            self.found = true;
        }
        self.found
    }
}

/// One subflow's CUBIC state between ACKs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Epoch {
    /// The window before the last reduction (Linux's `last_max_cwnd`), packets; 0 before the
    /// first loss.
    w_max: f64,
    /// When the current epoch began (the first ACK in congestion avoidance after a loss),
    /// seconds; `None` until then.
    start: Option<f64>,
    /// Time from the epoch's start to the plateau at `origin`, seconds.
    k: f64,
    /// The window at the plateau, packets.
    origin: f64,
    /// The Reno-friendly estimate of the window (Linux's `tcp_cwnd`), packets.
    friendly: f64,
    /// Packets acknowledged in the epoch and not yet counted into `friendly`.
    acked: f64,
}

/// CUBIC on every subflow, independently: per packet acknowledged in congestion avoidance the
/// window grows by `1/cnt` with `cnt = w/(W(t + d_min) − w)` (at most one packet per two
/// acknowledged, `100·w` when the cubic is below the window), `cnt` no larger than what keeps
/// up with the Reno-friendly estimate; on a loss `W_max` is the window (or `w·(1 + β)/2`
/// below the last `W_max`: fast convergence) and the window shrinks by `(1 − β)·w`.
///
/// In slow start, HyStart ([`SlowStart`]) ends it before a loss when the ACKs of a round trip
/// keep coming for longer than half the minimum RTT or the round's RTT rises by an eighth of
/// the minimum (4 to 16 ms).
///
/// Linux recomputes `cnt` at most once per jiffy and when the (whole) window changes; this
/// recomputes it on every ACK, from the fractional window. Not modelled: the reset of `W_max`
/// and of HyStart after a retransmission timeout, the shift of the epoch over idle periods,
/// and ignoring RTT samples for a second after a loss.
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// Whether HyStart watches slow start.
    hystart: bool,
    /// Per subflow, grown on first use.
    epochs: Vec<Epoch>,
    /// Per subflow, grown on first use.
    slow_starts: Vec<SlowStart>,
}

/// `list[r]`, the list grown with defaults to hold it.
fn grown<T: Default + Clone>(list: &mut Vec<T>, r: usize) -> &mut T {
    if list.len() <= r {
        list.resize(r + 1, T::default());
    }
    &mut list[r]
}

impl Cubic {
    /// CUBIC, with HyStart (Linux's default) or without.
    pub fn new(hystart: bool) -> Cubic {
        Cubic { hystart, ..Cubic::default() }
    }

    fn epoch(&mut self, r: usize) -> &mut Epoch {
        grown(&mut self.epochs, r)
    }
}

/// ACKs per packet of growth for a window `w` at `elapsed` seconds into `epoch` (round trip
/// included), before the Reno-friendly bound.
fn cubic_cnt(epoch: &Epoch, w: f64, elapsed: f64) -> f64 {
    let target = epoch.origin + C * (elapsed - epoch.k).powi(3);
    let cnt = if target > w { w / (target - w) } else { 100.0 * w };
    if epoch.w_max == 0.0 { cnt.min(FIRST_EPOCH_MAX_CNT) } else { cnt }
}

impl CoupledController for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// Reno's `1/w`: CUBIC's growth depends on the time since its last loss, which only
    /// [`grow`](Self::grow) is given.
    fn increase(&self, subflows: &[SubflowState], r: usize) -> f64 {
        1.0 / subflows[r].cwnd
    }

    fn grow(&mut self, subflows: &[SubflowState], r: usize, newly: u64, now_ps: u64) -> f64 {
        let now = now_ps as f64 * 1e-12;
        let s = &subflows[r];
        let (w, d_min) = (s.cwnd, s.min_rtt);
        let epoch = self.epoch(r);
        let newly = newly as f64;
        let start = match epoch.start {
            Some(t) => {
                epoch.acked += newly;
                t
            }
            None => {
                epoch.start = Some(now);
                epoch.acked = newly;
                epoch.friendly = w;
                if epoch.w_max <= w {
                    (epoch.k, epoch.origin) = (0.0, w);
                } else {
                    (epoch.k, epoch.origin) = (((epoch.w_max - w) / C).cbrt(), epoch.w_max);
                }
                now
            }
        };
        let mut cnt = cubic_cnt(epoch, w, now - start + d_min);
        let per_increment = w * FRIENDLY_ACKS_PER_WINDOW;
        while epoch.acked > per_increment {
            epoch.acked -= per_increment;
            epoch.friendly += 1.0;
        }
        if epoch.friendly > w {
            cnt = cnt.min(w / (epoch.friendly - w));
        }
        newly / cnt.max(2.0)
    }

    /// `(1 − β)·w_r`.
    fn decrease(&self, subflows: &[SubflowState], r: usize) -> f64 {
        (1.0 - BETA) * subflows[r].cwnd
    }

    fn watches_slow_start(&self) -> bool {
        self.hystart
    }

    fn slow_start_sample(&mut self, subflows: &[SubflowState], r: usize, sample: SlowStartSample) -> bool {
        let s = &subflows[r];
        let state = grown(&mut self.slow_starts, r);
        if state.found || s.cwnd < HYSTART_LOW_WINDOW {
            return false;
        }
        state.on_sample(sample, s.min_rtt)
    }

    /// A new epoch starts with the next ACK; `W_max` is the window, or less with fast
    /// convergence (the window is below the last `W_max`: another flow is taking bandwidth).
    fn on_loss(&mut self, subflows: &[SubflowState], r: usize) {
        let w = subflows[r].cwnd;
        let epoch = self.epoch(r);
        epoch.start = None;
        epoch.w_max = if w < epoch.w_max { w * (1.0 + BETA) / 2.0 } else { w };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds as the transport's clock gives them.
    fn ps(seconds: f64) -> u64 {
        (seconds * 1e12).round() as u64
    }

    fn state(cwnd: f64, rtt: f64) -> Vec<SubflowState> {
        vec![SubflowState { min_rtt: rtt, ..SubflowState::with_window(cwnd, rtt) }]
    }

    #[test]
    fn after_a_loss_the_window_follows_the_cubic_to_w_max_at_k() {
        let mut cubic = Cubic::new(true);
        // A loss at 100 packets: W_max = 100, the window shrinks by 100·307/1024 = 29.98 (to
        // 70 once the transport rounds ssthresh down, as Linux's 100·717/1024 does).
        cubic.on_loss(&state(100.0, 0.1), 0);
        assert!((cubic.decrease(&state(100.0, 0.1), 0) - 29.98046875).abs() < 1e-9);
        // RFC 9438 eq. 2: K = cbrt((W_max − w)/C) = cbrt(30/0.4004) = 4.2158 s.
        let k = (30.0 / C).cbrt();
        assert!((k - 4.2158).abs() < 1e-4, "{k}");
        // The first ACK starts the epoch at t = 0: the cubic at t + d_min = 0.1 s lies
        // C·(K − 0.1)³ below W_max; growth per packet is 1/cnt, cnt = w/(W(t) − w).
        let g = cubic.grow(&state(70.0, 0.1), 0, 1, ps(10.0));
        let target = 100.0 - C * (k - 0.1f64).powi(3);
        assert!((g - (target - 70.0) / 70.0).abs() < 1e-12, "growth {g}, target {target}");
        // At t = K − d_min the cubic is at its plateau, W_max: a window there hardly grows
        // (cnt = 100·w), unless the Reno-friendly estimate is above it.
        let g = cubic.grow(&state(100.0, 0.1), 0, 1, ps(10.0 + k - 0.1));
        assert!((g - 1.0 / 10_000.0).abs() < 1e-12, "{g}");
        // Beyond the plateau it probes: at K + 2 s the cubic is 0.4004·8 = 3.2 packets above.
        let g = cubic.grow(&state(100.0, 0.1), 0, 1, ps(10.0 + k + 2.0 - 0.1));
        assert!((g - 8.0 * C / 100.0).abs() < 1e-9, "{g}");
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_last_one() {
        let mut cubic = Cubic::new(true);
        cubic.on_loss(&state(100.0, 0.1), 0);
        cubic.on_loss(&state(80.0, 0.1), 0);
        assert!((cubic.epochs[0].w_max - 80.0 * (1.0 + BETA) / 2.0).abs() < 1e-9);
        cubic.on_loss(&state(90.0, 0.1), 0);
        assert_eq!(cubic.epochs[0].w_max, 90.0);
    }

    #[test]
    fn at_short_round_trips_the_reno_friendly_estimate_sets_the_pace() {
        // W_max = 100, then 70 packets at 1 ms: the cubic needs K = 4.2 s to come back, while
        // the estimate grows by 8/15 of a packet per window acknowledged.
        let mut cubic = Cubic::new(true);
        cubic.on_loss(&state(100.0, 0.001), 0);
        let w = 70.0;
        let mut t = 0.0;
        let mut grown = 0.0;
        // Ten windows of ACKs, one per ms, the window held at 70.
        for _ in 0..700 {
            grown += cubic.grow(&state(w, 0.001), 0, 1, ps(t));
            t += 0.001 / w;
        }
        let friendly = cubic.epochs[0].friendly;
        assert!((friendly - (70.0 + 5.0)).abs() < 1e-9, "the estimate gained 5 packets in 10 windows: {friendly}");
        // Once the estimate is above the window, growth keeps up with it: cnt ≤ w/(est − w).
        let g = cubic.grow(&state(w, 0.001), 0, 1, ps(t));
        assert!(g >= (friendly - w) / w - 1e-12, "{g}");
        assert!(grown > 0.0);
    }

    #[test]
    fn before_the_first_loss_the_window_grows_at_most_5_percent_a_round_trip_on_the_cubic() {
        let mut cubic = Cubic::new(true);
        // No loss yet: W_max = 0, the origin is the window, the cubic barely rises at first.
        let g = cubic.grow(&state(50.0, 0.1), 0, 1, 0);
        assert!((g - 1.0 / FIRST_EPOCH_MAX_CNT).abs() < 1e-12, "{g}");
    }

    #[test]
    fn growth_is_at_most_one_packet_per_two_acknowledged() {
        let mut cubic = Cubic::new(true);
        cubic.on_loss(&state(1000.0, 0.1), 0);
        // Far below W_max the cubic is far above the window: cnt floors at 2.
        assert_eq!(cubic.grow(&state(10.0, 0.1), 0, 4, 0), 2.0);
    }

    #[test]
    fn subflows_are_independent() {
        let mut cubic = Cubic::new(true);
        let s = vec![SubflowState::with_window(100.0, 0.1), SubflowState::with_window(40.0, 0.05)];
        cubic.on_loss(&s, 1);
        assert_eq!(cubic.epochs[0], Epoch::default());
        assert_eq!(cubic.epochs[1].w_max, 40.0);
    }

    /// One ACK of a slow start on a 100 ms path, `t` seconds in, acknowledging up to `una`
    /// with `nxt` the next to send.
    fn slow_start_ack(cubic: &mut Cubic, cwnd: f64, t: f64, rtt: f64, una: u64, nxt: u64) -> bool {
        let subflows = vec![SubflowState { min_rtt: 0.1, ssthresh: f64::INFINITY, ..SubflowState::with_window(cwnd, 0.1) }];
        cubic.slow_start_sample(&subflows, 0, SlowStartSample { rtt, now_ps: ps(t), snd_una: una, snd_nxt: nxt })
    }

    #[test]
    fn hystart_ends_slow_start_when_a_rounds_ack_train_outlasts_half_the_minimum_rtt() {
        let mut cubic = Cubic::new(true);
        // ACKs 1 ms apart (a train), at the minimum RTT, all within the round that began with
        // the first, at 1 s (it ends past 200): the train passes 50 ms (half of 100 ms) with an
        // ACK at 1.0505 s.
        for i in 0..50 {
            let t = 1.0 + i as f64 * 0.001;
            assert!(!slow_start_ack(&mut cubic, 32.0, t, 0.1, 100 + i, 200), "ended at {t}");
        }
        assert!(slow_start_ack(&mut cubic, 32.0, 1.0505, 0.1, 150, 200));
        // Once ended, it stays ended.
        assert!(!slow_start_ack(&mut cubic, 64.0, 1.2, 0.3, 200, 264));
    }

    #[test]
    fn hystart_ends_slow_start_when_the_rounds_rtt_rises_by_the_delay_threshold() {
        // ACKs 5 ms apart (no train). The threshold at 100 ms: 100/8 = 12.5 ms (within 4-16).
        let run = |extra: f64| -> Option<usize> {
            let mut cubic = Cubic::new(true);
            (0..20).find(|&i| slow_start_ack(&mut cubic, 32.0, 1.0 + i as f64 * 0.005, 0.1 + extra, 100 + i as u64, 200))
        };
        // 13 ms above the minimum: the round's least of 8 samples is, and the 9th sample ends it.
        assert_eq!(run(0.013), Some(8));
        assert_eq!(run(0.012), None);
    }

    #[test]
    fn hystart_watches_from_16_packets_and_a_new_round_once_the_acks_pass_its_end() {
        let mut cubic = Cubic::new(true);
        // Below 16 packets nothing is watched, however long the train.
        for i in 0..100 {
            assert!(!slow_start_ack(&mut cubic, 15.9, 1.0 + i as f64 * 0.001, 0.1, 100 + i, 116));
        }
        // A train of 40 ms, then the ACKs pass the round's end (132): a new round begins there,
        // and its train must last 50 ms of its own.
        for i in 0..40 {
            assert!(!slow_start_ack(&mut cubic, 32.0, 2.0 + i as f64 * 0.001, 0.1, 100 + i, 132));
        }
        for i in 0..50 {
            assert!(!slow_start_ack(&mut cubic, 32.0, 2.040 + i as f64 * 0.001, 0.1, 133 + i, 190), "round 2 ended at {i} ms");
        }
        assert!(slow_start_ack(&mut cubic, 32.0, 2.0905, 0.1, 183, 190));
    }
}
