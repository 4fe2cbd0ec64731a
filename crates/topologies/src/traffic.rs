//! Traffic generators: `[[traffic]]` tables that expand into ordinary flows.
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

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, Exp, Pareto};
use sim_core::Time;
use sim_core::rng::{Stream, stream};
use toml::Value;

use crate::error::Result;
use crate::flows::{Routing, read_cc, read_size, read_start};
use crate::generate::{Topology, choose_paths};
use crate::model::{CcModel, FlowModel, StartModel, TcpModel};
use crate::parse::read_tcp;
use crate::reader::{Reader, type_name};
use crate::units::{SizeValue, parse_size};

/// The `kind`s a `[[traffic]]` table accepts (see the module documentation).
pub const KINDS: &[&str] = &["onoff", "poisson", "permutation"];

/// Reads one `[[traffic]]` table into its flows; `end` is the end of the run.
pub(crate) fn read_traffic(mut t: Reader, routing: Routing, end: Time) -> Result<Vec<FlowModel>> {
    let name = t.required_string("name")?.to_string();
    let kind = t.choice("kind", &[("onoff", 0), ("poisson", 1), ("permutation", 2)])?;
    let Some(kind) = kind else { return Err(t.missing("kind", format!("missing; expected one of {}", KINDS.join(", ")))) };
    let template = Template::read(&mut t, &name)?;
    let flows = match kind {
        0 => onoff(&mut t, &template, routing, end)?,
        1 => poisson(&mut t, &template, routing, end)?,
        _ => permutation(&mut t, &template, routing)?,
    };
    t.finish()?;
    Ok(flows)
}

/// What every generated flow shares.
struct Template {
    name: String,
    key: String,
    cc: CcModel,
    tcp: TcpModel,
}

impl Template {
    fn read(t: &mut Reader, name: &str) -> Result<Template> {
        let cc = read_cc(t)?;
        let tcp = match t.table("tcp")? {
            Some(table) => read_tcp(table)?,
            None => TcpModel::default(),
        };
        Ok(Template { name: name.to_string(), key: t.path().to_string(), cc, tcp })
    }

    fn flow(&self, name: String, paths: Vec<Vec<String>>, start: Time, stop: Option<Time>, size: Option<SizeValue>) -> FlowModel {
        FlowModel {
            name,
            key: self.key.clone(),
            cc: self.cc.clone(),
            paths,
            reverse_paths: None,
            start: StartModel::At(start),
            stop,
            size,
            receive_buffer: None,
            tcp: self.tcp.clone(),
        }
    }
}

/// An exponentially distributed time of mean `mean`.
fn exponential(rng: &mut Stream, mean: Time) -> Time {
    let x: f64 = Exp::new(1.0).expect("rate 1 is valid").sample(rng);
    Time((x * mean.as_ps() as f64).round() as u64)
}

/// A required positive mean time.
fn mean_time(t: &mut Reader, key: &'static str, what: &str) -> Result<Time> {
    match t.time(key)? {
        Some(m) if m > Time::ZERO => Ok(m),
        Some(_) => Err(t.error(key, "must be longer than zero")),
        None => Err(t.missing(key, format!("missing; expected the mean {what}, such as \"5s\""))),
    }
}

/// The window `[start, stop)` in which a generator is active.
fn window(t: &mut Reader, end: Time) -> Result<(Time, Time)> {
    let start = t.time("start")?.unwrap_or(Time::ZERO);
    let stop = t.time("stop")?;
    if let Some(s) = stop
        && s <= start
    {
        return Err(t.error("stop", format!("must be after start ({start}), got {s}")));
    }
    Ok((start, stop.unwrap_or(end).min(end)))
}

/// Refuses a generator that would create more flows than one run may have, before it does.
fn check_generated(t: &Reader, flows: usize) -> Result<()> {
    if flows > crate::build::MAX_FLOWS {
        let message = format!(
            "generates more than {} flows before it stops; shorten the run or its stop, or make arrivals rarer",
            crate::build::MAX_FLOWS
        );
        return Err(crate::error::ScenarioError::new(t.file(), t.path(), message));
    }
    Ok(())
}

fn onoff(t: &mut Reader, tpl: &Template, routing: Routing, end: Time) -> Result<Vec<FlowModel>> {
    let on = mean_time(t, "on", "active period")?;
    let off = mean_time(t, "off", "idle period")?;
    let uniform = t.choice("periods", &[("exponential", false), ("uniform", true)])?.unwrap_or(false);
    let sources = t.bounded("count", 1..=100_000, "sources")?.unwrap_or(1);
    let (start, stop) = window(t, end)?;
    let mut flows = Vec::new();
    for i in 0..sources {
        let mut rng = stream(routing.seed, &format!("traffic.{}.{i}", tpl.name));
        // Begin in the stationary state: active with probability on / (on + off).
        let mut active = rng.random::<f64>() < on.as_secs_f64() / (on + off).as_secs_f64();
        let mut now = start;
        let mut period = 0;
        while now < stop {
            let mean = if active { on } else { off };
            let length = if uniform { Time((rng.random::<f64>() * 2.0 * mean.as_ps() as f64) as u64) } else { exponential(&mut rng, mean) };
            if active && length > Time::ZERO {
                let name = format!("{}.{i}.{period}", tpl.name);
                let paths = routing.paths(&mut Reader::new(t.file(), t.path().to_string(), t.table_ref()), i, &name)?;
                let until = now + length;
                flows.push(tpl.flow(name, paths, now, (until < stop).then_some(until), None));
                check_generated(t, flows.len())?;
                period += 1;
            }
            now += length;
            active = !active;
        }
    }
    Routing::mark_keys(t);
    Ok(flows)
}

/// `duration = { uniform = ["1s", "30s"] }`: how long bulk flows of a Poisson generator live.
fn read_lifetime(t: &mut Reader) -> Result<Option<(Time, Time)>> {
    let Some(mut d) = t.table("duration")? else { return Ok(None) };
    let shape = "expected duration = { uniform = [\"1s\", \"30s\"] }";
    let (lo, hi) = d.interval("uniform", shape)?.ok_or_else(|| d.missing("uniform", shape))?;
    if hi == Time::ZERO {
        return Err(d.error("uniform", "expected positive durations"));
    }
    d.finish()?;
    Ok(Some((lo, hi)))
}

/// How big the flows of a Poisson generator are.
enum SizeDistribution {
    Fixed(f64),
    Exponential(f64),
    Pareto { scale: f64, shape: f64 },
}

impl SizeDistribution {
    fn read(t: &mut Reader, mss: u32) -> Result<SizeDistribution> {
        let shape_hint = "expected a size (\"70KB\"), { exponential = \"70KB\" } or { pareto = \"70KB\", shape = 1.5 } (means)";
        match t.value("size") {
            None => Err(t.missing("size", format!("missing; {shape_hint}"))),
            Some(Value::String(_)) => Ok(SizeDistribution::Fixed(read_size(t)?.expect("present").bytes(mss))),
            Some(Value::Table(_)) => {
                let mut d = t.table("size")?.expect("present");
                let mean = |d: &Reader, v: Option<&Value>, key: &str| -> Result<f64> {
                    let text = v.and_then(Value::as_str).ok_or_else(|| d.error(key, "expected the mean size, such as \"70KB\""))?;
                    let b = parse_size(text).map_err(|m| d.error(key, m))?.bytes(mss);
                    if b >= 1.0 { Ok(b) } else { Err(d.error(key, "must be at least one byte")) }
                };
                let dist = if let Some(v) = d.value("exponential") {
                    SizeDistribution::Exponential(mean(&d, Some(v), "exponential")?)
                } else if let Some(v) = d.value("pareto") {
                    let m = mean(&d, Some(v), "pareto")?;
                    let shape = d.number("shape")?.ok_or_else(|| d.missing("shape", "missing; expected the Pareto shape, above 1"))?;
                    if !(shape > 1.0 && shape.is_finite()) {
                        return Err(d.error("shape", format!("expected a shape above 1 (a finite mean), got {shape}")));
                    }
                    SizeDistribution::Pareto { scale: m * (shape - 1.0) / shape, shape }
                } else {
                    return Err(d.missing("exponential", shape_hint));
                };
                d.finish()?;
                Ok(dist)
            }
            Some(v) => Err(t.error("size", format!("{shape_hint}, got {}", type_name(v)))),
        }
    }

    fn sample(&self, rng: &mut Stream) -> SizeValue {
        let bytes = match *self {
            SizeDistribution::Fixed(b) => b,
            SizeDistribution::Exponential(m) => Exp::new(1.0 / m).expect("positive mean").sample(rng),
            SizeDistribution::Pareto { scale, shape } => Pareto::new(scale, shape).expect("checked").sample(rng),
        };
        SizeValue::Bytes(bytes.round().max(1.0))
    }
}

/// The hosts a generator's flows come from: every host; a range (`senders = "h0-h42"`); or a
/// share of the hosts in a run-wide random order (`senders = { share = [0.0, 0.3333] }`), so
/// that generators taking complementary shares split the hosts between them at random.
fn senders(t: &mut Reader, topology: &Topology, seed: u64) -> Result<Vec<u32>> {
    let n = topology.hosts();
    match t.value("senders") {
        None => Ok((0..n).collect()),
        Some(Value::String(range)) => {
            let parsed = range.split_once('-').and_then(|(a, b)| Some((topology.host_index(a.trim())?, topology.host_index(b.trim())?)));
            match parsed {
                Some((a, b)) if a <= b => Ok((a..=b).collect()),
                _ => Err(t.error(
                    "senders",
                    format!("expected a range of hosts such as \"h0-h42\" within h0 … h{}, got \"{range}\"", n.saturating_sub(1)),
                )),
            }
        }
        Some(Value::Table(_)) => {
            let mut share = t.table("senders")?.expect("present");
            let shape = "expected share = [from, to], fractions with 0 ≤ from < to ≤ 1, such as [0.0, 0.3333]";
            let bounds: Option<Vec<f64>> = share
                .value("share")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))).collect());
            let (from, to) = match bounds.as_deref() {
                Some(&[a, b]) if 0.0 <= a && a < b && b <= 1.0 => (a, b),
                _ => return Err(share.error("share", shape)),
            };
            share.finish()?;
            let mut order: Vec<u32> = (0..n).collect();
            order.shuffle(&mut stream(seed, "traffic.senders"));
            let (lo, hi) = ((from * n as f64).round() as usize, (to * n as f64).round() as usize);
            let mut chosen = order[lo..hi].to_vec();
            chosen.sort_unstable();
            Ok(chosen)
        }
        Some(v) => Err(t.error("senders", format!("expected a range \"h0-h42\" or {{ share = [0.0, 0.3333] }}, got {}", type_name(v)))),
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
    fn read(t: &mut Reader, topology: &Topology, seed: u64) -> Result<Destinations> {
        let permutation = t.choice("destination", &[("permutation", true), ("random", false)])?.unwrap_or(true);
        let hosts = topology.hosts();
        Ok(Destinations { partner: permutation.then(|| derangement(seed, hosts)), hosts })
    }

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

/// A topology with hosts, which host-to-host generators need.
fn host_topology<'a>(t: &Reader, routing: Routing<'a>) -> Result<&'a Topology> {
    match routing.topology {
        Some(topology) if topology.hosts() >= 2 => Ok(topology),
        _ => Err(t.error("kind", "this generator picks hosts: it needs a [topology] with hosts, such as kind = \"fat-tree\"")),
    }
}

/// Subflows per generated flow: one (a single-path flow on a random equal-cost path) unless set.
fn subflows(t: &mut Reader) -> Result<Option<usize>> {
    Ok(Some(t.bounded("subflows", 1..=64, "subflows")?.unwrap_or(1) as usize))
}

fn poisson(t: &mut Reader, tpl: &Template, routing: Routing, end: Time) -> Result<Vec<FlowModel>> {
    let interval = mean_time(t, "interval", "time between a sender's flows")?;
    let lifetime = read_lifetime(t)?;
    let sizes = match lifetime {
        Some(_) if t.table_ref().contains_key("size") => {
            return Err(t.error("duration", "give a flow's `size` or its `duration`, not both"));
        }
        Some(_) => None,
        None => Some(SizeDistribution::read(t, routing.mss)?),
    };
    // A flow's size, or its stop time if it lives for a random duration.
    let draw = |rng: &mut Stream, now: Time| -> (Option<SizeValue>, Option<Time>) {
        match (&sizes, lifetime) {
            (Some(d), _) => (Some(d.sample(rng)), None),
            (None, Some((lo, hi))) => (None, Some(now + Time(rng.random_range(lo.as_ps()..=hi.as_ps())))),
            (None, None) => unreachable!("one of the two is read"),
        }
    };
    let (start, stop) = window(t, end)?;
    let mut flows = Vec::new();
    // Between hosts of a topology, or along a route or written paths (one sender).
    let host_based = t.table_ref().get("route").is_none() && t.table_ref().get("paths").is_none();
    if !host_based {
        let mut rng = stream(routing.seed, &format!("traffic.{}", tpl.name));
        let mut now = start + exponential(&mut rng, interval);
        let mut k = 0;
        while now < stop {
            let name = format!("{}.{k}", tpl.name);
            let paths = routing.paths(&mut Reader::new(t.file(), t.path().to_string(), t.table_ref()), k, &name)?;
            let (size, until) = draw(&mut rng, now);
            flows.push(tpl.flow(name, paths, now, until, size));
            check_generated(t, flows.len())?;
            now += exponential(&mut rng, interval);
            k += 1;
        }
        Routing::mark_keys(t);
        return Ok(flows);
    }
    let topology = host_topology(t, routing)?;
    let from = senders(t, topology, routing.seed)?;
    let to = Destinations::read(t, topology, routing.seed)?;
    let subflows = subflows(t)?;
    for src in from {
        let mut rng = stream(routing.seed, &format!("traffic.{}.h{src}", tpl.name));
        let mut now = start + exponential(&mut rng, interval);
        let mut k = 0;
        while now < stop {
            let dst = to.of(src, &mut rng);
            let name = format!("{}.h{src}.{k}", tpl.name);
            let paths = choose_paths(&topology.host_paths(src, dst), subflows, &mut rng);
            let (size, until) = draw(&mut rng, now);
            flows.push(tpl.flow(name, paths, now, until, size));
            check_generated(t, flows.len())?;
            now += exponential(&mut rng, interval);
            k += 1;
        }
    }
    Ok(flows)
}

fn permutation(t: &mut Reader, tpl: &Template, routing: Routing) -> Result<Vec<FlowModel>> {
    let topology = host_topology(t, routing)?;
    let from = senders(t, topology, routing.seed)?;
    let partner = derangement(routing.seed, topology.hosts());
    let subflows = subflows(t)?;
    let size = read_size(t)?;
    let start = read_start(t)?;
    let stop = t.time("stop")?;
    let mut flows = Vec::new();
    for src in from {
        let name = format!("{}.h{src}", tpl.name);
        let mut rng = stream(routing.seed, &format!("flow.{name}.paths"));
        let paths = choose_paths(&topology.host_paths(src, partner[src as usize]), subflows, &mut rng);
        let mut flow = tpl.flow(name, paths, Time::ZERO, stop, size);
        flow.start = start;
        flows.push(flow);
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use crate::load_text;
    use crate::model::{Scenario, StartModel};
    use crate::units::SizeValue;
    use sim_core::Time;

    const FAT_TREE: &str = "[topology]\nkind = \"fat-tree\"\nk = 8\nrate = \"100Mbps\"\ndelay = \"10us\"\nbuffer = \"100pkt\"\n";

    fn scenario(body: &str) -> Scenario {
        load_text("t.toml", &format!("[sim]\nduration = \"100s\"\nseed = 3\n{body}"), &[]).unwrap_or_else(|e| panic!("{e}"))
    }

    fn start(s: &StartModel) -> f64 {
        match s {
            StartModel::At(t) => t.as_secs_f64(),
            StartModel::Uniform(..) => panic!("generated flows start at a time"),
        }
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
        let long: Vec<_> = s.flows.iter().filter(|f| f.key == "traffic.long").collect();
        assert_eq!(long.len(), 43);
        assert!(long.iter().all(|f| f.paths.len() == 8 && f.size.is_none()));
        let mut partners: Vec<String> =
            s.flows.iter().filter(|f| f.name.ends_with(".0") || f.key == "traffic.long").map(|f| destination(&f.paths)).collect();
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
            s.flows.iter().filter(|f| f.key == key).map(|f| f.name.split('.').nth(1).expect("host").to_string()).collect::<Vec<_>>()
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
