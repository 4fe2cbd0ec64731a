//! The threshold-dropper of seed 004 §V-D: a queue that makes packet-level TCP flows follow the
//! AIMD model's assumption ONE (one connection signalled per congestion event).
//!
//! The buffer is meant to be very large; drops come only from a threshold. While armed, the
//! first arrival that finds `threshold` packets or more queued triggers a selection: the policy
//! picks a connection, and that connection's next arrival is dropped (at once if it is the
//! arriving one). After the drop nothing is dropped for `hold` (the paper uses a multiple of the
//! round-trip time), so no other connection loses in the same congestion event. Connections are
//! told apart by their route (a packet's hop index is unique to its route at a given link).

use rand::RngExt;

use crate::rng::Stream;
use crate::time::Time;

/// How the threshold-dropper picks the connection to signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropperPolicy {
    /// The connection whose packet crossed the threshold: arrivals come in proportion to
    /// sending rates, so this is the model's rate-proportional policy (the paper's basic rule).
    RateProportional,
    /// Every connection seen at the queue equally likely, whatever its rate.
    RateIndependent,
    /// The connection with the most arrivals since the previous drop.
    LargestRate,
}

impl DropperPolicy {
    /// Every policy with its configuration name.
    pub const NAMES: [(&'static str, DropperPolicy); 3] = [
        ("rate-proportional", DropperPolicy::RateProportional),
        ("rate-independent", DropperPolicy::RateIndependent),
        ("largest-rate", DropperPolicy::LargestRate),
    ];
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// The next arrival above the threshold starts a congestion event.
    Armed,
    /// Connection `key` is to lose its next arrival (given up at `until`, if it sends nothing).
    Selected { key: u32, until: Time },
    /// Nothing is dropped before `until`.
    Holding { until: Time },
}

/// The dropper's configuration and state.
#[derive(Clone, Debug)]
pub struct ThresholdDropper {
    /// Queue length, packets, at and above which an arrival starts a congestion event.
    pub threshold: u32,
    /// Quiet time after each drop, so one congestion event costs one connection one packet
    /// (the paper uses a multiple of the round-trip time).
    pub hold: Time,
    /// How the connection to lose a packet is chosen, which is what seed 004's model varies.
    pub policy: DropperPolicy,
    state: State,
    /// Connections seen (route keys, sorted) and their arrivals since the last drop.
    seen: Vec<(u32, u64)>,
}

impl ThresholdDropper {
    /// A dropper armed from the start: the first arrival that finds `threshold` packets
    /// queued starts a congestion event.
    pub fn new(threshold: u32, hold: Time, policy: DropperPolicy) -> ThresholdDropper {
        ThresholdDropper { threshold, hold, policy, state: State::Armed, seen: Vec::new() }
    }

    fn count_arrival(&mut self, key: u32) {
        match self.seen.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => self.seen[i].1 += 1,
            Err(i) => self.seen.insert(i, (key, 1)),
        }
    }

    fn choose(&self, arriving: u32, rng: &mut Stream) -> u32 {
        match self.policy {
            DropperPolicy::RateProportional => arriving,
            DropperPolicy::RateIndependent => self.seen[rng.random_range(0..self.seen.len())].0,
            DropperPolicy::LargestRate => {
                // The first of the largest, in key order: deterministic.
                let mut best = self.seen[0];
                for &s in &self.seen[1..] {
                    if s.1 > best.1 {
                        best = s;
                    }
                }
                best.0
            }
        }
    }

    fn drop_now(&mut self, now: Time) -> bool {
        self.state = State::Holding { until: now + self.hold };
        self.seen.iter_mut().for_each(|s| s.1 = 0);
        false
    }

    /// Whether an arrival of connection `key` finding `queued` packets is admitted (the
    /// buffer limit is the caller's).
    pub fn admit(&mut self, key: u32, queued: u32, now: Time, rng: &mut Stream) -> bool {
        self.count_arrival(key);
        loop {
            match self.state {
                State::Holding { until } | State::Selected { until, .. } if now >= until => self.state = State::Armed,
                State::Holding { .. } => return true,
                State::Selected { key: selected, .. } => return if key == selected { self.drop_now(now) } else { true },
                State::Armed if queued < self.threshold => return true,
                State::Armed => {
                    let chosen = self.choose(key, rng);
                    if chosen == key {
                        return self.drop_now(now);
                    }
                    self.state = State::Selected { key: chosen, until: now + self.hold };
                    return true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn one_drop_per_congestion_event_then_a_quiet_hold() {
        let mut d = ThresholdDropper::new(3, Time::from_ms(100), DropperPolicy::RateProportional);
        let mut rng = stream(1, "t");
        assert!(d.admit(1, 2, Time::ZERO, &mut rng), "below the threshold");
        assert!(!d.admit(2, 3, Time::from_ms(1), &mut rng), "the crossing arrival is dropped");
        for ms in 2..100 {
            assert!(d.admit(1 + ms as u32 % 2, 50, Time::from_ms(ms), &mut rng), "holding at {ms} ms");
        }
        assert!(!d.admit(1, 50, Time::from_ms(101), &mut rng), "armed again after the hold");
    }

    #[test]
    fn largest_rate_waits_for_the_chosen_connection() {
        let mut d = ThresholdDropper::new(3, Time::from_ms(100), DropperPolicy::LargestRate);
        let mut rng = stream(1, "t");
        for _ in 0..5 {
            d.admit(7, 0, Time::ZERO, &mut rng);
        }
        d.admit(9, 0, Time::ZERO, &mut rng);
        assert!(d.admit(9, 3, Time::from_ms(1), &mut rng), "9 crosses, but 7 sent most: 9 passes");
        assert!(d.admit(9, 4, Time::from_ms(2), &mut rng), "only the selected connection can lose");
        assert!(!d.admit(7, 5, Time::from_ms(3), &mut rng), "7's next arrival is dropped");
        assert!(d.admit(7, 6, Time::from_ms(4), &mut rng), "then the hold");
    }

    #[test]
    fn rate_independent_spreads_drops_evenly_whatever_the_rates() {
        let mut d = ThresholdDropper::new(1, Time(1_000), DropperPolicy::RateIndependent);
        let mut rng = stream(5, "t");
        let mut drops = [0u32; 2];
        let mut t = 0;
        for i in 0..200_000u64 {
            t += 10;
            // connection 0 sends nine packets for each of connection 1's
            let key = u32::from(i % 10 == 0);
            if !d.admit(key, 5, Time(t), &mut rng) {
                drops[key as usize] += 1;
            }
        }
        let share = drops[1] as f64 / (drops[0] + drops[1]) as f64;
        assert!((0.45..0.55).contains(&share), "share of drops to the slow connection {share} ({drops:?})");
    }
}
