//! Queue disciplines: which arriving packets a queue admits.
//!
//! A closed enum rather than a trait object, because the decision is on the per-packet path.

use rand::RngExt;

use crate::red_ns2::Ns2Red;
use crate::rng::Stream;
use crate::threshold::ThresholdDropper;
use crate::time::Time;

/// The most a buffer holds, counting the packet in service.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferLimit {
    /// At most this many bytes.
    Bytes(u64),
    /// At most this many packets, whatever their size.
    Packets(u32),
}

impl BufferLimit {
    /// Whether a queue holding `packets`/`bytes` has room for `size` more bytes.
    #[inline]
    pub fn admits(self, packets: u32, bytes: u64, size: u32) -> bool {
        match self {
            BufferLimit::Bytes(limit) => bytes + size as u64 <= limit,
            BufferLimit::Packets(limit) => packets < limit,
        }
    }

    /// The limit in bytes, counting `mss` bytes per packet for a packet limit.
    pub fn in_bytes(self, mss: u32) -> u64 {
        match self {
            BufferLimit::Bytes(b) => b,
            BufferLimit::Packets(p) => p as u64 * mss as u64,
        }
    }
}

/// Random Early Detection (Floyd and Jacobson, 1993), byte mode.
#[derive(Clone, Debug)]
pub struct Red {
    /// No early drops while the average queue is below this many bytes.
    pub min_bytes: u64,
    /// Every arrival is dropped above this average (above twice this in gentle mode).
    pub max_bytes: u64,
    /// Drop probability as the average reaches `max_bytes`.
    pub max_p: f64,
    /// Averaging weight of the EWMA of the queue length.
    pub weight: f64,
    /// Gentle mode: between `max` and `2·max` the probability rises from `max_p` to 1.
    pub gentle: bool,
    /// ns-2's `wait`: no drop until `1/p` arrivals since the last one, then the probability
    /// spread over the next `1/p` (drops at least `1/p` apart, instead of `1/(2p)` on average).
    pub wait: bool,
    /// Transmission time of a typical packet, to age the average over idle periods.
    pub typical_packet_time: Time,
    avg: f64,
    count: i64,
    idle_since: Option<Time>,
}

impl Red {
    /// A RED discipline with an empty average.
    pub fn new(min_bytes: u64, max_bytes: u64, max_p: f64, weight: f64, gentle: bool, typical_packet_time: Time) -> Red {
        Red {
            min_bytes,
            max_bytes,
            max_p,
            weight,
            gentle,
            wait: false,
            typical_packet_time,
            avg: 0.0,
            count: -1,
            idle_since: Some(Time::ZERO),
        }
    }

    /// The current average queue length, bytes.
    pub fn average(&self) -> f64 {
        self.avg
    }

    fn update_average(&mut self, queued_bytes: u64, now: Time) {
        if let Some(since) = self.idle_since.take() {
            // Floyd's idle correction: decay as if m small packets had gone by.
            let m = (now - since).as_ps() / self.typical_packet_time.as_ps().max(1);
            self.avg *= (1.0 - self.weight).powf(m as f64);
        }
        self.avg += self.weight * (queued_bytes as f64 - self.avg);
    }

    fn drop_probability(&mut self) -> f64 {
        let (min, max) = (self.min_bytes as f64, self.max_bytes as f64);
        if self.avg < min {
            self.count = -1;
            return 0.0;
        }
        let pb = if self.avg < max {
            self.max_p * (self.avg - min) / (max - min).max(1.0)
        } else if self.gentle && self.avg < 2.0 * max {
            self.max_p + (1.0 - self.max_p) * (self.avg - max) / max.max(1.0)
        } else {
            self.count = 0;
            return 1.0;
        };
        self.count += 1;
        let since = self.count as f64 * pb;
        if self.wait {
            if since < 1.0 {
                0.0
            } else if since < 2.0 {
                pb / (2.0 - since)
            } else {
                1.0
            }
        } else if since < 1.0 {
            (pb / (1.0 - since)).min(1.0)
        } else {
            1.0
        }
    }
}

/// How a queue decides to drop an arriving packet.
#[derive(Clone, Debug)]
pub enum Discipline {
    /// Drop arrivals that do not fit in the buffer.
    DropTail,
    /// Random Early Detection in front of the buffer limit.
    Red(Red),
    /// RED as ns-2.35 computes it. It averages the packets waiting behind the one in service,
    /// which only the link knows: [`crate::Link`] decides its arrivals, and
    /// [`Discipline::admit`] takes the one in service to be of the arrival's size. Boxed: one
    /// per link, and the other variants stay small.
    RedNs2(Box<Ns2Red>),
    /// A random drop zone: arrivals that would fill the top `zone` of the buffer are
    /// dropped at random, which breaks the phase effects of plain drop-tail. With
    /// `probability`, at that fixed probability (htsim's `RandomQueue`, 0.1); without, with a
    /// probability rising linearly from 0 at the bottom of the zone to 1 at the top.
    RandomDropZone {
        /// Depth of the zone at the top of the buffer, in the buffer's own unit: the top
        /// packet slots of a packet-counted buffer (a 40-byte ACK fills a slot as a full
        /// segment does), the top bytes of a byte-counted one.
        depth: u64,
        /// The fixed drop probability in the zone, if not the linear ramp.
        probability: Option<f64>,
    },
    /// Seed 004's threshold-dropper: one connection signalled per congestion event.
    ThresholdDropper(ThresholdDropper),
}

/// Why a queue refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full (or the discipline chose to drop).
    Queue,
    /// Exogenous random loss on the link.
    Random,
    /// The link was down ([`crate::Network::set_link_up`]): path failure, not congestion.
    Down,
}

impl Discipline {
    /// Decides whether an arrival of `size` bytes at a queue holding `packets`/`bytes` is admitted.
    /// `route` tells connections apart (the packet's hop index, unique to its route here).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn admit(&mut self, limit: BufferLimit, packets: u32, bytes: u64, size: u32, route: u32, now: Time, rng: &mut Stream) -> bool {
        let fits = limit.admits(packets, bytes, size);
        match self {
            Discipline::DropTail => fits,
            Discipline::ThresholdDropper(d) => d.admit(route, packets, now, rng) && fits,
            Discipline::Red(red) => {
                red.update_average(bytes, now);
                let p = red.drop_probability();
                let early = p > 0.0 && (p >= 1.0 || rng.random::<f64>() < p);
                if early {
                    red.count = 0;
                }
                fits && !early
            }
            Discipline::RedNs2(red) => {
                let busy = u32::from(packets > 0);
                red.admit(packets - busy, bytes.saturating_sub(u64::from(busy * size)), size, fits, now, rng)
            }
            Discipline::RandomDropZone { depth, probability } => {
                let depth = *depth;
                // (occupancy after the arrival, capacity) in the buffer's unit, the zone's too
                let (after, capacity) = match limit {
                    BufferLimit::Packets(l) => (packets as u64 + 1, l as u64),
                    BufferLimit::Bytes(l) => (bytes + size as u64, l),
                };
                let floor = capacity.saturating_sub(depth);
                if !fits || after <= floor || depth == 0 {
                    return fits;
                }
                let p = probability.unwrap_or((after - floor) as f64 / depth as f64);
                rng.random::<f64>() >= p
            }
        }
    }

    /// Tells the discipline the queue just became empty (RED ages its average while idle).
    #[inline]
    pub fn on_empty(&mut self, now: Time) {
        match self {
            Discipline::Red(red) => red.idle_since = Some(now),
            Discipline::RedNs2(red) => red.on_idle(now),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn red_never_drops_below_min_threshold() {
        let mut d = Discipline::Red(Red::new(15_000, 45_000, 0.1, 0.002, false, Time::from_us(120)));
        let mut rng = stream(7, "red");
        for i in 0..100_000u64 {
            // a queue oscillating between 0 and 14 999 bytes: the average stays below min
            let q = (i * 7919) % 15_000;
            assert!(d.admit(BufferLimit::Bytes(1_000_000), 10, q, 1500, 0, Time(i), &mut rng));
        }
    }

    #[test]
    fn red_drops_everything_far_above_max_and_some_between() {
        let mut red = Red::new(15_000, 45_000, 0.1, 1.0, false, Time::from_us(120));
        let mut rng = stream(7, "red");
        let mut d = Discipline::Red(red.clone());
        assert!(!d.admit(BufferLimit::Bytes(1_000_000), 40, 60_000, 1500, 0, Time(1), &mut rng));
        let mut dropped = 0;
        for i in 0..10_000 {
            if !d.admit(BufferLimit::Bytes(1_000_000), 20, 30_000, 1500, 0, Time(2 + i), &mut rng) {
                dropped += 1;
            }
        }
        // pb = 0.05 at the midpoint; count-spreading makes drops about every 1/pb/2 .. 1/pb arrivals
        assert!((500..=1100).contains(&dropped), "dropped {dropped}");
        red.gentle = true;
        red.update_average(60_000, Time(0));
        let p = red.drop_probability();
        assert!(p > 0.1 && p < 1.0, "gentle region probability {p}");
    }

    #[test]
    fn red_with_wait_spaces_drops_at_least_one_over_p_apart() {
        // Weight 1: the average is the queue, held at the midpoint, pb = 0.05: with `wait` no
        // two drops are closer than 20 arrivals, and they come every 20 to 40.
        let mut red = Red::new(15_000, 45_000, 0.1, 1.0, false, Time::from_us(120));
        red.wait = true;
        let mut d = Discipline::Red(red);
        let mut rng = stream(7, "red");
        let drops: Vec<u64> =
            (0..20_000).filter(|&i| !d.admit(BufferLimit::Bytes(1_000_000), 20, 30_000, 1500, 0, Time(1 + i), &mut rng)).collect();
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| (20..=40).contains(&g)), "{:?}", &gaps[..10]);
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((26.0..34.0).contains(&mean), "mean gap {mean}");
    }

    #[test]
    fn random_zone_only_drops_in_the_zone() {
        let mut d = Discipline::RandomDropZone { depth: 15_000, probability: None };
        let mut rng = stream(3, "zone");
        let limit = BufferLimit::Bytes(150_000);
        for _ in 0..1000 {
            assert!(d.admit(limit, 80, 133_500, 1500, 0, Time(0), &mut rng)); // ends at the zone floor
            assert!(!d.admit(limit, 99, 149_000, 1500, 0, Time(0), &mut rng)); // does not fit
        }
        let admitted = (0..10_000).filter(|_| d.admit(limit, 90, 141_000, 1500, 0, Time(0), &mut rng)).count();
        // 142 500 B is half-way into the zone: dropped with p = 0.5
        assert!((4700..5300).contains(&admitted), "admitted {admitted}");
    }

    #[test]
    fn a_packet_zone_counts_slots_whatever_the_packet_size() {
        // htsim's RandomQueue on a 103-packet buffer: 10 % drops in the top 3 slots only.
        let mut d = Discipline::RandomDropZone { depth: 3, probability: Some(0.1) };
        let mut rng = stream(3, "slots");
        let limit = BufferLimit::Packets(103);
        // A 1-byte SYN or a 40-byte ACK at a short queue is never in the zone.
        for (packets, size) in [(0, 1), (5, 40), (99, 1500)] {
            assert!((0..1000).all(|_| d.admit(limit, packets, packets as u64 * 1500, size, 0, Time(0), &mut rng)));
        }
        // In the top three slots, whatever the size: about 10 % dropped.
        for size in [1, 40, 1500] {
            let admitted = (0..10_000).filter(|_| d.admit(limit, 101, 101 * 1500, size, 0, Time(0), &mut rng)).count();
            assert!((8_800..9_200).contains(&admitted), "size {size}: admitted {admitted}");
        }
        assert!(!d.admit(limit, 103, 103 * 1500, 40, 0, Time(0), &mut rng));
    }
}
