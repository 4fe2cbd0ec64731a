//! Traffic generators to their flows.
//!
//! - `onoff`: sources alternating between active and idle periods of random length, exponential
//!   by default or `periods = "uniform"` on [0, 2 × mean] (htsim's drivers for seed 001 Fig. 5);
//!   each active period is a new bulk connection, so it slow-starts.
//! - `poisson`: flows arriving as a Poisson process from each sender, finite with a size
//!   distribution (seed 002 Table 3: 70 KB every 200 ms on average per host), or bulk for a
//!   random duration (seed 003 scenario 7: 1 to 30 s).
//! - `permutation`: every sender opens one flow to its partner in a random derangement of the
//!   hosts (each host sends to exactly one other and receives from exactly one).
//!
//! All randomness comes from streams named after the generator, so the expansion depends only
//! on the scenario and the run seed. The derangement is one per run: `poisson` and
//! `permutation` generators with `destination = "permutation"` share partners.

use std::sync::Arc;

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, Exp, Pareto};
use sim_core::Time;
use sim_core::rng::{Stream, stream};

use super::draw_start;
use super::generate::{Topology, choose_paths};
use super::routes::Routing;
use crate::error::{Result, ScenarioError};
use crate::model::FlowModel;
use crate::model::MAX_FLOWS;
use crate::read::{PathDecl, PoissonTarget, Senders, SizeDistribution, Subflows, TrafficDecl, TrafficKind};
use crate::units::SizeValue;

/// The flows of generator `g`; `end` is the end of the run.
pub(super) fn generate(g: &TrafficDecl, routing: Routing, end: Time) -> Result<Vec<FlowModel>> {
    let until = |stop: Option<Time>| stop.unwrap_or(end).min(end);
    match &g.kind {
        TrafficKind::OnOff { on, off, uniform, sources, start, stop, paths } => {
            onoff(g, routing, OnOff { on: *on, off: *off, uniform: *uniform, sources: *sources }, (*start, until(*stop)), paths)
        }
        TrafficKind::Poisson { interval, lifetime, sizes, start, stop, target } => {
            let law = Poisson { interval: *interval, lifetime: *lifetime, sizes: *sizes };
            match target {
                PoissonTarget::Paths(paths) => poisson_on_paths(g, routing, &law, (*start, until(*stop)), paths),
                PoissonTarget::Hosts { senders, permutation, subflows } => {
                    let topology = routing.host_topology(&format!("{}.kind", g.key))?;
                    let from = chosen_senders(g, routing, topology, senders)?;
                    let to =
                        Destinations { partner: permutation.then(|| derangement(routing.seed, topology.hosts())), hosts: topology.hosts() };
                    poisson_between_hosts(g, routing, &law, (*start, until(*stop)), (topology, &from, &to, *subflows))
                }
            }
        }
        TrafficKind::Permutation { senders, subflows, size, start, stop } => {
            let topology = routing.host_topology(&format!("{}.kind", g.key))?;
            let from = chosen_senders(g, routing, topology, senders)?;
            let partner = derangement(routing.seed, topology.hosts());
            let mut flows = Vec::new();
            for src in from {
                let name = format!("{}.h{src}", g.name);
                let mut rng = stream(routing.seed, &format!("flow.{name}.paths"));
                let paths = choose_paths(&topology.host_paths(src, partner[src as usize]), *subflows, &mut rng);
                let start = draw_start(*start, routing.seed, &name);
                flows.push(flow(g, name, paths, start, *stop, *size));
            }
            Ok(flows)
        }
    }
}

/// One flow as generator `g` would draw it (the first of its first source, starting at 0), for
/// checking a generator that drew none in this run: its window law, TCP settings and paths are
/// checked as a drawn flow's are, so a mistake there is found in a short run too.
pub(super) fn template(g: &TrafficDecl, routing: Routing) -> Result<FlowModel> {
    let name = format!("{}.template", g.name);
    let between_hosts = |subflows: Option<Subflows>| -> Result<Vec<Vec<String>>> {
        let topology = routing.host_topology(&format!("{}.kind", g.key))?;
        let mut rng = stream(routing.seed, &format!("flow.{name}.paths"));
        Ok(if topology.hosts() >= 2 { choose_paths(&topology.host_paths(0, 1), subflows, &mut rng) } else { Vec::new() })
    };
    let paths = match &g.kind {
        TrafficKind::OnOff { paths, .. } | TrafficKind::Poisson { target: PoissonTarget::Paths(paths), .. } => {
            routing.paths(paths, 0, &name)?
        }
        TrafficKind::Poisson { target: PoissonTarget::Hosts { subflows, .. }, .. } | TrafficKind::Permutation { subflows, .. } => {
            between_hosts(*subflows)?
        }
    };
    Ok(flow(g, name, paths, Time::ZERO, None, None))
}

/// A generated flow.
fn flow(g: &TrafficDecl, name: String, paths: Vec<Vec<String>>, start: Time, stop: Option<Time>, size: Option<SizeValue>) -> FlowModel {
    FlowModel {
        name,
        key: g.key.as_str().into(),
        cc: g.cc.clone(),
        paths: Arc::new(paths),
        reverse_paths: None,
        start,
        stop,
        size,
        receive_buffer: None,
        tcp: g.tcp.clone(),
    }
}

/// An exponentially distributed time of mean `mean`.
fn exponential(rng: &mut Stream, mean: Time) -> Time {
    let x: f64 = Exp::new(1.0).expect("rate 1 is valid").sample(rng);
    Time((x * mean.as_ps() as f64).round() as u64)
}

/// Refuses a generator that would create more flows than one run may have, before it does.
fn check_generated(g: &TrafficDecl, routing: Routing, flows: usize) -> Result<()> {
    if flows > MAX_FLOWS {
        let message = format!("generates more than {MAX_FLOWS} flows before it stops; shorten the run or its stop, or make arrivals rarer");
        return Err(ScenarioError::new(routing.file, &g.key, message));
    }
    Ok(())
}

/// An on/off generator's law.
struct OnOff {
    on: Time,
    off: Time,
    uniform: bool,
    sources: u64,
}

fn onoff(g: &TrafficDecl, routing: Routing, law: OnOff, (start, stop): (Time, Time), paths: &PathDecl) -> Result<Vec<FlowModel>> {
    let mut flows = Vec::new();
    for i in 0..law.sources {
        let mut rng = stream(routing.seed, &format!("traffic.{}.{i}", g.name));
        // Begin in the stationary state: active with probability on / (on + off).
        let mut active = rng.random::<f64>() < law.on.as_secs_f64() / (law.on + law.off).as_secs_f64();
        let mut now = start;
        let mut period = 0;
        while now < stop {
            let mean = if active { law.on } else { law.off };
            let length =
                if law.uniform { Time((rng.random::<f64>() * 2.0 * mean.as_ps() as f64) as u64) } else { exponential(&mut rng, mean) };
            if active && length > Time::ZERO {
                let name = format!("{}.{i}.{period}", g.name);
                let paths = routing.paths(paths, i, &name)?;
                let until = now + length;
                flows.push(flow(g, name, paths, now, (until < stop).then_some(until), None));
                check_generated(g, routing, flows.len())?;
                period += 1;
            }
            now += length;
            active = !active;
        }
    }
    Ok(flows)
}

/// A Poisson generator's law.
struct Poisson {
    interval: Time,
    lifetime: Option<(Time, Time)>,
    sizes: Option<SizeDistribution>,
}

impl Poisson {
    /// The arrivals of one sender in `[start, stop)` from its stream `rng`, appended to `flows`:
    /// `place` names the k-th flow and gives its paths (drawing from `rng` if it needs to).
    fn arrivals(
        &self,
        g: &TrafficDecl,
        routing: Routing,
        rng: &mut Stream,
        (start, stop): (Time, Time),
        flows: &mut Vec<FlowModel>,
        mut place: impl FnMut(&mut Stream, u64) -> Result<(String, Vec<Vec<String>>)>,
    ) -> Result<()> {
        let mut now = start + exponential(rng, self.interval);
        let mut k = 0;
        while now < stop {
            let (name, paths) = place(rng, k)?;
            let (size, until) = self.draw(rng, now);
            flows.push(flow(g, name, paths, now, until, size));
            check_generated(g, routing, flows.len())?;
            now += exponential(rng, self.interval);
            k += 1;
        }
        Ok(())
    }

    /// A flow's size, or its stop time if it lives for a random duration.
    fn draw(&self, rng: &mut Stream, now: Time) -> (Option<SizeValue>, Option<Time>) {
        match (&self.sizes, self.lifetime) {
            (Some(d), _) => (Some(sample(d, rng)), None),
            (None, Some((lo, hi))) => (None, Some(now + Time(rng.random_range(lo.as_ps()..=hi.as_ps())))),
            (None, None) => unreachable!("one of the two is read"),
        }
    }
}

fn sample(d: &SizeDistribution, rng: &mut Stream) -> SizeValue {
    let bytes = match *d {
        SizeDistribution::Fixed(b) => b,
        SizeDistribution::Exponential(m) => Exp::new(1.0 / m).expect("positive mean").sample(rng),
        SizeDistribution::Pareto { scale, shape } => Pareto::new(scale, shape).expect("checked").sample(rng),
    };
    SizeValue::Bytes(bytes.round().max(1.0))
}

/// One sender along written paths or a route.
fn poisson_on_paths(
    g: &TrafficDecl,
    routing: Routing,
    law: &Poisson,
    (start, stop): (Time, Time),
    paths: &PathDecl,
) -> Result<Vec<FlowModel>> {
    let mut flows = Vec::new();
    let mut rng = stream(routing.seed, &format!("traffic.{}", g.name));
    law.arrivals(g, routing, &mut rng, (start, stop), &mut flows, |_, k| {
        let name = format!("{}.{k}", g.name);
        let paths = routing.paths(paths, k, &name)?;
        Ok((name, paths))
    })?;
    Ok(flows)
}

/// From each of `from` to its destination, on `subflows` random equal-cost paths.
fn poisson_between_hosts(
    g: &TrafficDecl,
    routing: Routing,
    law: &Poisson,
    (start, stop): (Time, Time),
    (topology, from, to, subflows): (&Topology, &[u32], &Destinations, Option<Subflows>),
) -> Result<Vec<FlowModel>> {
    let mut flows = Vec::new();
    for &src in from {
        let mut rng = stream(routing.seed, &format!("traffic.{}.h{src}", g.name));
        law.arrivals(g, routing, &mut rng, (start, stop), &mut flows, |rng, k| {
            let dst = to.of(src, rng);
            Ok((format!("{}.h{src}.{k}", g.name), choose_paths(&topology.host_paths(src, dst), subflows, rng)))
        })?;
    }
    Ok(flows)
}

/// The hosts a generator's flows come from: every host; a range (`senders = "h0-h42"`); or a
/// share of the hosts in a run-wide random order (`senders = { share = [0.0, 0.3333] }`), so
/// that generators taking complementary shares split the hosts between them at random.
fn chosen_senders(g: &TrafficDecl, routing: Routing, topology: &Topology, senders: &Senders) -> Result<Vec<u32>> {
    let n = topology.hosts();
    match senders {
        Senders::All => Ok((0..n).collect()),
        Senders::Range(range) => {
            let parsed = range.split_once('-').and_then(|(a, b)| Some((topology.host_index(a.trim())?, topology.host_index(b.trim())?)));
            match parsed {
                Some((a, b)) if a <= b => Ok((a..=b).collect()),
                _ => Err(ScenarioError::new(
                    routing.file,
                    format!("{}.senders", g.key),
                    format!("expected a range of hosts such as \"h0-h42\" within h0 … h{}, got \"{range}\"", n.saturating_sub(1)),
                )),
            }
        }
        Senders::Share(from, to) => {
            let mut order: Vec<u32> = (0..n).collect();
            order.shuffle(&mut stream(routing.seed, "traffic.senders"));
            let (lo, hi) = ((from * n as f64).round() as usize, (to * n as f64).round() as usize);
            let mut chosen = order[lo..hi].to_vec();
            chosen.sort_unstable();
            Ok(chosen)
        }
    }
}

/// The run's derangement of `n` hosts: host i sends to `partner[i]`, never to itself.
fn derangement(seed: u64, n: u32) -> Vec<u32> {
    let mut rng = stream(seed, "traffic.permutation");
    let mut partner: Vec<u32> = (0..n).collect();
    loop {
        partner.shuffle(&mut rng);
        if partner.iter().enumerate().all(|(i, &p)| i as u32 != p) {
            return partner;
        }
    }
}

/// Where each sender's flows go.
struct Destinations {
    partner: Option<Vec<u32>>,
    hosts: u32,
}

impl Destinations {
    fn of(&self, src: u32, rng: &mut Stream) -> u32 {
        match &self.partner {
            Some(p) => p[src as usize],
            None => {
                let d = rng.random_range(0..self.hosts - 1);
                if d >= src { d + 1 } else { d }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::load_text;
    use crate::model::Scenario;
    use crate::units::SizeValue;
    use sim_core::Time;

    const FAT_TREE: &str = "[topology]\nkind = \"fat-tree\"\nk = 8\nrate = \"100Mbps\"\ndelay = \"10us\"\nbuffer = \"100pkt\"\n";

    fn scenario(body: &str) -> Scenario {
        load_text("t.toml", &format!("[sim]\nduration = \"100s\"\nseed = 3\n{body}"), &[]).unwrap_or_else(|e| panic!("{e}"))
    }

    fn start(t: &Time) -> f64 {
        t.as_secs_f64()
    }

    /// The host a flow's first path ends at.
    fn destination(paths: &[Vec<String>]) -> String {
        paths[0].last().expect("a link").split('>').nth(1).expect("to a host").to_string()
    }

    #[test]
    fn permutation_traffic_sends_from_every_host_to_one_other_and_poisson_flows_share_partners() {
        let s = scenario(&format!(
            "{FAT_TREE}[[traffic]]\nname = \"long\"\nkind = \"permutation\"\ncc = \"lia\"\nsubflows = 8\nsenders = \"h0-h42\"\n\
             [[traffic]]\nname = \"short\"\nkind = \"poisson\"\nsenders = \"h43-h127\"\ninterval = \"2s\"\nsize = \"70KB\"\n"
        ));
        let long: Vec<_> = s.flows.iter().filter(|f| &*f.key == "traffic.long").collect();
        assert_eq!(long.len(), 43);
        assert!(long.iter().all(|f| f.paths.len() == 8 && f.size.is_none()));
        let mut partners: Vec<String> =
            s.flows.iter().filter(|f| f.name.ends_with(".0") || &*f.key == "traffic.long").map(|f| destination(&f.paths)).collect();
        let n = partners.len();
        partners.sort();
        partners.dedup();
        assert_eq!(partners.len(), n, "a permutation: no host receives from two senders' first flows");
        for f in &s.flows {
            let src = f.name.split('.').nth(1).expect("sender");
            assert_ne!(destination(&f.paths), src, "never to itself");
        }
        // Each short sender's flows all go to its one partner.
        let of = |h: &str| {
            s.flows.iter().filter(|f| f.name.starts_with(&format!("short.{h}."))).map(|f| destination(&f.paths)).collect::<Vec<_>>()
        };
        let h50 = of("h50");
        assert!(h50.len() > 10 && h50.iter().all(|d| *d == h50[0]));
    }

    #[test]
    fn complementary_shares_split_the_hosts_at_random() {
        let s = scenario(&format!(
            "{FAT_TREE}[[traffic]]\nname = \"long\"\nkind = \"permutation\"\nsenders = {{ share = [0.0, 0.3333] }}\n\
             [[traffic]]\nname = \"rest\"\nkind = \"permutation\"\nsenders = {{ share = [0.3333, 1.0] }}\n"
        ));
        let hosts = |key: &str| {
            s.flows.iter().filter(|f| &*f.key == key).map(|f| f.name.split('.').nth(1).expect("host").to_string()).collect::<Vec<_>>()
        };
        let (long, rest) = (hosts("traffic.long"), hosts("traffic.rest"));
        assert_eq!((long.len(), rest.len()), (43, 85));
        assert!(long.iter().all(|h| !rest.contains(h)), "disjoint, so together every host once");
        let pods: Vec<u32> = long.iter().map(|h| h[1..].parse::<u32>().expect("index") / 16).collect();
        assert!((0..8).all(|p| pods.contains(&p)), "spread over the pods, not the first third of them: {pods:?}");
    }

    #[test]
    fn poisson_arrivals_come_at_the_given_mean_rate_with_the_given_mean_size() {
        let s = scenario(&format!(
            "{FAT_TREE}[[traffic]]\nname = \"short\"\nkind = \"poisson\"\ninterval = \"200ms\"\nsize = {{ exponential = \"70KB\" }}\ndestination = \"random\"\nstart = \"10s\"\n"
        ));
        // 128 hosts × 90 s / 0.2 s = 57 600 expected; the count's deviation is 240.
        let n = s.flows.len() as f64;
        assert!((n - 57_600.0).abs() < 1_000.0, "{n} flows");
        assert!(s.flows.iter().all(|f| (10.0..100.0).contains(&start(&f.start))));
        let mean = s.flows.iter().map(|f| f.size.expect("finite").bytes(1500)).sum::<f64>() / n;
        assert!((mean / 70_000.0 - 1.0).abs() < 0.02, "mean size {mean}");
        let fixed = scenario(&format!("{FAT_TREE}[[traffic]]\nname = \"s\"\nkind = \"poisson\"\ninterval = \"1s\"\nsize = \"70KB\"\n"));
        assert!(fixed.flows.iter().all(|f| f.size == Some(SizeValue::Bytes(70_000.0))));
    }

    #[test]
    fn onoff_sources_are_active_the_expected_share_of_the_time() {
        let s = scenario(
            "[[link]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nbuffer = \"50pkt\"\n\
             [[traffic]]\nname = \"bg\"\nkind = \"onoff\"\ncount = 40\non = \"5s\"\noff = \"15s\"\npaths = [[\"l\"]]\n",
        );
        let mut active = 0.0;
        for f in &s.flows {
            let (a, b) = (start(&f.start), f.stop.map_or(100.0, Time::as_secs_f64));
            assert!(a < b && b <= 100.0);
            active += b - a;
        }
        // 40 sources × 100 s × 5/(5+15); periods of mean 5 s make the share vary by a few percent.
        let share = active / 4000.0;
        assert!((share - 0.25).abs() < 0.04, "active {share}");
        // Periods of one source do not overlap.
        let mut one: Vec<_> = s
            .flows
            .iter()
            .filter(|f| f.name.starts_with("bg.3."))
            .map(|f| (start(&f.start), f.stop.map_or(100.0, Time::as_secs_f64)))
            .collect();
        one.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(one.windows(2).all(|w| w[0].1 <= w[1].0));
    }

    #[test]
    fn uniform_periods_stay_within_twice_their_mean() {
        // htsim's on/off sources: periods uniform on [0, 2 × mean], so none is longer than 2 s
        // here, where exponential periods of mean 1 s exceed it one time in e².
        let s = scenario(
            "[[link]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nbuffer = \"50pkt\"\n\
             [[traffic]]\nname = \"bg\"\nkind = \"onoff\"\ncount = 20\non = \"1s\"\noff = \"1s\"\nperiods = \"uniform\"\npaths = [[\"l\"]]\n",
        );
        let lengths: Vec<f64> = s.flows.iter().filter_map(|f| f.stop.map(|b| b.as_secs_f64() - start(&f.start))).collect();
        assert!(lengths.len() > 500, "{} periods", lengths.len());
        assert!(lengths.iter().all(|&l| l <= 2.0), "a period longer than twice the mean");
        let mean = lengths.iter().sum::<f64>() / lengths.len() as f64;
        assert!((mean - 1.0).abs() < 0.1, "mean active period {mean}");
    }

    #[test]
    fn traffic_errors_name_the_key() {
        let err = |body: &str| load_text("t.toml", &format!("[sim]\nduration = \"10s\"\n{body}"), &[]).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            err(
                "[[link]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nbuffer = \"9pkt\"\n[[traffic]]\nname = \"p\"\nkind = \"permutation\"\n"
            ),
            "t.toml: traffic.p.kind: this generator picks hosts: it needs a [topology] with hosts, such as kind = \"fat-tree\""
        );
        assert_eq!(
            err(&format!(
                "{FAT_TREE}[[traffic]]\nname = \"p\"\nkind = \"poisson\"\ninterval = \"1s\"\nsize = {{ pareto = \"70KB\", shape = 1 }}\n"
            )),
            "t.toml: traffic.p.size.shape: expected a shape above 1 (a finite mean), got 1"
        );
        assert_eq!(
            err(&format!("{FAT_TREE}[[traffic]]\nname = \"p\"\nkind = \"permutation\"\nsenders = \"h5-h200\"\n")),
            "t.toml: traffic.p.senders: expected a range of hosts such as \"h0-h42\" within h0 … h127, got \"h5-h200\""
        );
        assert_eq!(
            err(&format!("{FAT_TREE}[[traffic]]\nname = \"p\"\nkind = \"burst\"\n")),
            "t.toml: traffic.p.kind: unknown kind \"burst\" (valid: onoff, poisson, permutation)"
        );
        assert_eq!(
            err(&format!("{FAT_TREE}[[traffic]]\nname = \"p\"\nkind = \"onoff\"\non = \"1s\"\npaths = [[\"h0>e0_0\"]]\n")),
            "t.toml: traffic.p.off: missing; expected the mean idle period, such as \"5s\""
        );
    }
}
