//! What a run reports: one record per flow, subflow and link, and time-series samples.
//!
//! Units are in the field names' documentation and in the column names the CLI writes.

use std::sync::Arc;

/// One row per flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRecord {
    /// Flow name (`sp.3` for the fourth of a counted group), shared with its subflows' records.
    pub flow: Arc<str>,
    /// The window law's configuration name (`lia`, …), without its parameters.
    pub algorithm: &'static str,
    /// Subflows the flow opened, one per path.
    pub subflows: u32,
    /// Start time, seconds.
    pub start_s: f64,
    /// Bits per second received over the flow's measured interval: from the warm-up (or the
    /// flow's start) to the end of the run (or its stop, or its last byte's arrival).
    ///
    /// Each data segment counts once, when its first copy is received whole, in order or not:
    /// what the receiver holds out of order at the end of the interval is the interval's, and
    /// what it held at its start, or was receiving then (first bit before it), is the warm-up's,
    /// though delivered after it. Counting in-order delivery instead leaves out what is held at
    /// the end while the warm-up's held data is already left out: one-sided, it undercounts a
    /// multipath flow by what its fast paths deliver ahead of its slow ones. Every bit counted
    /// crossed the links into the receiver within the interval, so no flow is faster than they
    /// are (counted whole, a segment partly received at the warm-up would make a flow alone on
    /// a saturated 1 Gb/s link 1.000005 Gb/s).
    pub goodput_bps: f64,
    /// Bytes received after the warm-up, counted as for goodput (each data segment once, in
    /// order or not), up to the end of the run.
    pub bytes_delivered: u64,
    /// Data packets sent after the warm-up, retransmissions included.
    pub packets_sent: u64,
    /// Data packets retransmitted after the warm-up.
    pub retransmissions: u64,
    /// Retransmission timeouts after the warm-up.
    pub timeouts: u64,
    /// Loss events (fast retransmits and timeouts) after the warm-up.
    pub loss_events: u64,
    /// Transfer size, bytes (`None` for bulk flows).
    pub size_bytes: Option<u64>,
    /// Time from start to the last byte's arrival, seconds (finite flows that completed).
    pub completion_time_s: Option<f64>,
    /// Window oscillation (seed 000 §III-F): the mean, over loss events after the warm-up, of
    /// the throughput the window law's decrease removes, relative to the flow's throughput just
    /// before (rates as cwnd/srtt). 0.5 for a single-path Reno flow; `None` without loss events.
    pub mean_relative_drop: Option<f64>,
}

/// One row per subflow.
#[derive(Clone, Debug, PartialEq)]
pub struct SubflowRecord {
    /// Name of the flow it belongs to (joins with [`FlowRecord::flow`]).
    pub flow: Arc<str>,
    /// Subflow number within the flow, from 0.
    pub subflow: u32,
    /// Links crossed, joined by `>` (shared by the records of the subflows on the same path).
    pub path: Arc<str>,
    /// Bits per second this subflow's receiver got over the flow's measured interval, counted
    /// as [`FlowRecord::goodput_bps`] counts the flow's (each of its segments once, in order or
    /// not).
    pub goodput_bps: f64,
    /// Time-average congestion window after the warm-up, packets.
    pub mean_cwnd_pkts: f64,
    /// Mean smoothed RTT over the RTT samples after the warm-up, seconds.
    pub mean_srtt_s: f64,
    /// Smallest RTT measured over the whole run, warm-up included, seconds (0 without a
    /// sample): the round trip's propagation and serialization delay, if queues were ever empty.
    pub min_rtt_s: f64,
    /// Data packets sent after the warm-up.
    pub packets_sent: u64,
    /// Data packets retransmitted after the warm-up.
    pub retransmissions: u64,
    /// Fast retransmits after the warm-up.
    pub fast_retransmits: u64,
    /// Duplicate acknowledgements the sender received.
    pub duplicate_acks: u64,
    /// Retransmission timeouts after the warm-up.
    pub timeouts: u64,
}

/// One row per link (its forward direction).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRecord {
    /// The link's name in the scenario (`{i}` expanded), as paths name it.
    pub link: String,
    /// Capacity, bits per second.
    pub rate_bps: f64,
    /// One-way propagation delay, seconds.
    pub delay_s: f64,
    /// Fraction of the measured interval spent serializing.
    pub utilization: f64,
    /// Packets that arrived after the warm-up.
    pub arrivals: u64,
    /// Packets the link had to carry after the warm-up: arrivals plus those queued at its end
    /// (every drop is one of them).
    pub offered: u64,
    /// Packets that left after the warm-up.
    pub departures: u64,
    /// Packets dropped by the queue discipline.
    pub queue_drops: u64,
    /// Packets lost to exogenous random loss.
    pub random_losses: u64,
    /// Packets dropped while the link was down.
    pub down_drops: u64,
    /// All drops divided by arrivals.
    pub loss_rate: f64,
    /// Time-average queue length, packets (the packet in service included).
    pub mean_queue_pkts: f64,
    /// Largest queue after the warm-up, packets.
    pub max_queue_pkts: u32,
    /// Time-average queue length, bytes.
    pub mean_queue_bytes: f64,
    /// Largest queue after the warm-up, bytes.
    pub max_queue_bytes: u64,
}

impl LinkRecord {
    /// The record of link `name` (its `rate` and propagation `delay`) from its counters over a
    /// measured interval of `span` (the warm-up to the end).
    pub fn measured(
        name: &str,
        rate: sim_core::Rate,
        delay: sim_core::Time,
        c: &sim_core::LinkCounters,
        span: sim_core::Time,
    ) -> LinkRecord {
        let ps = span.as_ps().max(1) as f64;
        LinkRecord {
            link: name.to_string(),
            rate_bps: rate.as_bps() as f64,
            delay_s: delay.as_secs_f64(),
            utilization: c.busy.as_ps() as f64 / ps,
            arrivals: c.arrivals,
            offered: c.offered,
            departures: c.departures,
            queue_drops: c.queue_drops,
            random_losses: c.random_losses,
            down_drops: c.down_drops,
            loss_rate: if c.offered > 0 { c.drops() as f64 / c.offered as f64 } else { 0.0 },
            mean_queue_pkts: c.queue_packet_ps as f64 / ps,
            max_queue_pkts: c.max_queue_packets,
            mean_queue_bytes: c.queue_byte_ps as f64 / ps,
            max_queue_bytes: c.max_queue_bytes,
        }
    }
}

/// One time-series row: a subflow at a sampling instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Sampling time, seconds.
    pub time_s: f64,
    /// Index of the flow in the flows table.
    pub flow: u32,
    /// Subflow number within the flow.
    pub subflow: u32,
    /// Congestion window, packets.
    pub cwnd_pkts: f64,
    /// Smoothed RTT, seconds (0 before the first sample).
    pub srtt_s: f64,
    /// Bits per second acknowledged since the previous sample.
    pub rate_bps: f64,
    /// The window law's internal state, where it has one.
    pub cc_state: Option<f64>,
}

/// Whole-run counts, for the summary and for conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunStats {
    /// Events executed over the whole run: its cost, for speed comparisons.
    pub events: u64,
    /// Simulated time, seconds: always the configured duration (a run stopped by its event
    /// budget reports no records).
    pub simulated_s: f64,
    /// Data packets that reached a receiver (whole run).
    pub data_delivered: u64,
    /// Data packets sent (whole run).
    pub data_sent: u64,
    /// Data packets dropped in the network (whole run).
    pub data_dropped: u64,
    /// Data packets still in queues or pipes at the end.
    pub data_in_flight: u64,
    /// Most packets alive at once (arena slots).
    pub peak_packets: u64,
}

/// Everything a run produces.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    /// One record per flow, in the order the flows were added.
    pub flows: Vec<FlowRecord>,
    /// One record per subflow, grouped by flow in the same order.
    pub subflows: Vec<SubflowRecord>,
    /// One record per link, in the order the links were added.
    pub links: Vec<LinkRecord>,
    /// Time series (empty unless a sample interval was set).
    pub samples: Vec<Sample>,
    /// Counts over the whole run, warm-up included, for conservation checks.
    pub stats: RunStats,
}
