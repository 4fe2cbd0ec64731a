//! The k-ary fat-tree (Al-Fares et al.), as seed 002 §6.2 uses it after [2]: k pods of k/2 edge
//! and k/2 aggregation switches, (k/2)² core switches, k³/4 hosts (k = 8: 128 hosts and 80
//! switches).
//!
//! Links are one direction each, named `<from>><to>`: hosts `h{i}`, edge switches `e{pod}_{j}`,
//! aggregation switches `a{pod}_{j}`, core switches `c{j}`. Their groups are `host` (host to
//! edge and back), `aggregation` (edge to aggregation and back) and `core` (aggregation to core
//! and back: the network core whose utilization seed 002 Table 3 reports).
//!
//! Oversubscription r:1 divides the rate of every link above the edge by r, so that an edge
//! switch's hosts can send r times what its uplinks carry. A NIC buffer gives each host's link
//! to its edge switch a drop-tail buffer of its own (htsim's host queue never drops, so a
//! deep one stands for it).

use crate::model::{LinkModel, QueueModel};
use crate::read::LinkDefaults;
use crate::units::{BufferValue, RateValue};

/// Host-to-host routing in a fat-tree.
#[derive(Clone, Debug)]
pub struct FatTree {
    pub(super) k: u32,
}

impl FatTree {
    /// Number of hosts, k³/4.
    pub fn hosts(&self) -> u32 {
        self.k * self.k * self.k / 4
    }

    fn half(&self) -> u32 {
        self.k / 2
    }

    /// (pod, edge switch in the pod) of host `h`.
    fn place(&self, h: u32) -> (u32, u32) {
        let per_pod = self.half() * self.half();
        (h / per_pod, (h % per_pod) / self.half())
    }

    /// Every shortest path from host `src` to host `dst` (the equal-cost set ECMP spreads over).
    pub fn paths(&self, src: u32, dst: u32) -> Vec<Vec<String>> {
        let ((ps, es), (pd, ed)) = (self.place(src), self.place(dst));
        let up = format!("h{src}>e{ps}_{es}");
        let down = format!("e{pd}_{ed}>h{dst}");
        if (ps, es) == (pd, ed) {
            return vec![vec![up, down]];
        }
        let mut paths = Vec::new();
        for m in 0..self.half() {
            let (agg_s, agg_d) = (format!("a{ps}_{m}"), format!("a{pd}_{m}"));
            if ps == pd {
                paths.push(vec![up.clone(), format!("e{ps}_{es}>{agg_s}"), format!("{agg_s}>e{pd}_{ed}"), down.clone()]);
                continue;
            }
            for n in 0..self.half() {
                let core = format!("c{}", m * self.half() + n);
                paths.push(vec![
                    up.clone(),
                    format!("e{ps}_{es}>{agg_s}"),
                    format!("{agg_s}>{core}"),
                    format!("{core}>{agg_d}"),
                    format!("{agg_d}>e{pd}_{ed}"),
                    down.clone(),
                ]);
            }
        }
        paths
    }
}

/// The links of the k-ary fat-tree, those above the edge at `1/ratio` of the rate, the hosts'
/// own with a drop-tail buffer of `nic` when given, and served round robin among their flows
/// with `nic_round_robin`.
pub(super) fn build(d: &LinkDefaults, k: u32, ratio: f64, nic: Option<BufferValue>, nic_round_robin: bool) -> (Vec<LinkModel>, FatTree) {
    let mut upper = d.clone();
    upper.rate = match d.rate {
        RateValue::Bps(b) => RateValue::Bps(b / ratio),
        RateValue::Pps(p) => RateValue::Pps(p / ratio),
    };
    let mut host = d.clone();
    if let Some(buffer) = nic {
        host.buffer = buffer;
        host.queue = QueueModel::DropTail;
    }
    let tree = FatTree { k };
    let half = k / 2;
    let mut links = Vec::new();
    for h in 0..tree.hosts() {
        let (p, e) = tree.place(h);
        links.push(LinkModel { round_robin: nic_round_robin, ..host.link(format!("h{h}>e{p}_{e}"), "host") });
        links.push(d.link(format!("e{p}_{e}>h{h}"), "host"));
    }
    for p in 0..k {
        for e in 0..half {
            for m in 0..half {
                links.push(upper.link(format!("e{p}_{e}>a{p}_{m}"), "aggregation"));
                links.push(upper.link(format!("a{p}_{m}>e{p}_{e}"), "aggregation"));
            }
        }
        for m in 0..half {
            for n in 0..half {
                let core = m * half + n;
                links.push(upper.link(format!("a{p}_{m}>c{core}"), "core"));
                links.push(upper.link(format!("c{core}>a{p}_{m}"), "core"));
            }
        }
    }
    (links, tree)
}
