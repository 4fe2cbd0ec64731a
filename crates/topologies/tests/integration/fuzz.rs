//! The scenario fuzzer: scenario text generated from the format's grammar, valid and nearly
//! valid (wrong types, extreme numbers, keys removed or duplicated, unknown names), must either
//! run with every packet accounted for, nothing reported beyond physics and no value infinite
//! or NaN in any table (a quantity that does not exist is null), or fail with an
//! error naming the file (and the key, where there is one). Never a panic, never an abort, and
//! never a run stuck at one instant: each case is bounded in simulated events, CPU time and
//! memory.
//!
//! Cases come in classes ([`Class`]): edits of a small scenario, and the heavy classes (huge
//! windows through timeouts, a send jitter over huge windows, huge counts); edits of a scenario
//! the ns-2 export takes, names full of Tcl's and the shell's special characters among them;
//! links fast and long enough to pass ns-2's 32-bit counters; traffic generators that draw no
//! flow in the run. Every case the simulator refuses, the ns-2 export refuses too; with
//! `FUZZ_NS2` set (and ns-2's `ns` installed), every script the export writes runs in ns-2,
//! which must run no name as a command and give counts that agree with each other, and with the
//! simulator's where the network is deterministic.
//! `PROPTEST_CASES` sets the number of cases (2 000 by default here), `PROPTEST_RNG_SEED`
//! the seed, `FUZZ_WEIGHTS` the classes' shares and `FUZZ_COUNTS` a file to write each
//! class's count to; `scripts/fuzz-campaign` runs long campaigns on every core.

use proptest::prelude::*;
use toml::{Table, Value};

/// A small scenario every edit starts from: two links, a single-path and a two-path flow.
const BASE: &str = r#"
[sim]
duration = "2s"
warmup = "500ms"
sample_interval = "100ms"

[tcp]
profile = "linux"

[[link]]
name = "a"
rate = "10Mbps"
delay = "5ms"
buffer = "30pkt"

[[link]]
name = "b"
rate = "5Mbps"
delay = "20ms"
buffer = "20ms"
queue = { kind = "red", min = "5pkt", max = "15pkt" }

[[flow]]
name = "tcp"
paths = [["a"]]

[[flow]]
name = "mp"
cc = "lia"
paths = [["a"], ["b"]]
tcp = { min_ssthresh = 1 }
"#;

/// The base of the ns-2 class: what the export takes (ns-2's TCP, single-path Reno flows,
/// drop-tail and RED), with the tables of [`BASE`], so that the same edits apply.
const BASE_NS2: &str = r#"
[sim]
duration = "2s"
warmup = "500ms"

[tcp]
profile = "ns2-sack"

[[link]]
name = "a"
rate = "10Mbps"
delay = "5ms"
buffer = "30pkt"

[[link]]
name = "b"
rate = "5Mbps"
delay = "20ms"
buffer = "20pkt"
queue = { kind = "red", min = "5pkt", max = "15pkt" }

[[flow]]
name = "tcp"
cc = "reno"
paths = [["a"]]

[[flow]]
name = "other"
cc = "reno"
paths = [["b"]]
receive_buffer = "64pkt"
"#;

/// Where an edit lands: a table path and a key in it.
const KEYS: &[(&str, &str)] = &[
    ("sim", "duration"),
    ("sim", "warmup"),
    ("sim", "seed"),
    ("sim", "mss"),
    ("sim", "ack_size"),
    ("sim", "sample_interval"),
    ("sim", "serialization"),
    ("sim", "bogus"),
    ("meta", "name"),
    ("tcp", "profile"),
    ("tcp", "min_rto"),
    ("tcp", "max_rto"),
    ("tcp", "initial_rto"),
    ("tcp", "rto_formula"),
    ("tcp", "timer_granularity"),
    ("tcp", "initial_cwnd"),
    ("tcp", "initial_ssthresh"),
    ("tcp", "growth"),
    ("tcp", "min_ssthresh"),
    ("tcp", "delayed_ack"),
    ("tcp", "delayed_ack_timeout"),
    ("tcp", "quick_acks"),
    ("tcp", "recovery"),
    ("tcp", "full_ack"),
    ("tcp", "partial_ack_timer"),
    ("tcp", "sack"),
    ("tcp", "rack"),
    ("tcp", "tlp"),
    ("tcp", "timestamps"),
    ("tcp", "rtt_every_ack"),
    ("tcp", "handshake"),
    ("tcp", "syn_size"),
    ("tcp", "jitter"),
    ("link.0", "rate"),
    ("link.0", "delay"),
    ("link.0", "buffer"),
    ("link.0", "queue"),
    ("link.0", "loss"),
    ("link.0", "count"),
    ("link.0", "name"),
    ("link.1", "rate"),
    ("link.1", "buffer"),
    ("link.1", "events"),
    ("link.1", "loss"),
    ("flow.0", "count"),
    ("flow.0", "cc"),
    ("flow.0", "paths"),
    ("flow.0", "start"),
    ("flow.0", "stop"),
    ("flow.0", "size"),
    ("flow.0", "receive_buffer"),
    ("flow.0", "tcp"),
    ("flow.0", "name"),
    ("flow.1", "cc"),
    ("flow.1", "paths"),
    ("flow.1", "stagger"),
    ("flow.1", "receive_buffer"),
    ("flow.1", "tcp"),
    ("flow.1", "name"),
];

/// Names with every character Tcl or a shell treats specially: the export must write each as
/// text, never as a command (`CANARY` would be the file a command made).
const NAMES: &[&str] = &[
    r#""f[exec touch CANARY]""#,
    r#""]""#,
    r#""$env(HOME)""#,
    r#""a\\b""#,
    r#""a\\""#,
    r#""q\"q""#,
    r#""{""#,
    r#""}""#,
    r#""x;exec touch CANARY""#,
    r#""x\nexec touch CANARY\n""#,
    r#""$(touch CANARY)`touch CANARY`""#,
    r#""a b\t\r#c""#,
    r#""ü\u0001""#,
    r#""""#,
];

/// Values of the kind each key takes, extremes included, by the kind's name.
fn typed(key: &str) -> &'static [&'static str] {
    const TIMES: &[&str] = &[
        "\"0s\"",
        "\"1ps\"",
        "\"1e-13s\"",
        "\"1us\"",
        "\"1ms\"",
        "\"10ms\"",
        "\"250ms\"",
        "\"1s\"",
        "\"3s\"",
        "\"1000s\"",
        "\"-1s\"",
        "5",
        "\"\"",
    ];
    const COUNTS: &[&str] = &["0", "1", "2", "3", "16", "100", "1000", "100000", "4294967296", "-1", "1.5"];
    // (Accepted windows of 10^5 packets and more are the huge-window class's, which runs them
    // through timeouts, loss and reinjection.)
    const PACKETS: &[&str] = &["0.5", "1", "2", "10", "1000", "1000001", "2147483647", "1e9", "1e308", "\"inf\"", "-3"];
    const RATES: &[&str] = &["\"1bps\"", "\"9600bps\"", "\"1Mbps\"", "\"10Gbps\"", "\"1000Tbps\"", "\"1pps\"", "\"0bps\"", "10"];
    const SIZES: &[&str] =
        &["\"1B\"", "\"40B\"", "\"1500B\"", "\"9000B\"", "\"1pkt\"", "\"1000pkt\"", "\"0B\"", "\"1e12B\"", "\"10ms\"", "\"1ps\""];
    const BOOLS: &[&str] = &["true", "false", "1", "\"yes\""];
    match key {
        "duration"
        | "warmup"
        | "sample_interval"
        | "min_rto"
        | "max_rto"
        | "initial_rto"
        | "timer_granularity"
        | "delay"
        | "delayed_ack_timeout"
        | "jitter"
        | "start"
        | "stop"
        | "stagger" => TIMES,
        "seed" | "count" | "quick_acks" => COUNTS,
        "initial_cwnd" | "initial_ssthresh" | "min_ssthresh" | "loss" => PACKETS,
        "rate" => RATES,
        "mss" | "ack_size" | "buffer" | "size" | "receive_buffer" | "syn_size" => SIZES,
        "delayed_ack" | "sack" | "rack" | "tlp" | "timestamps" | "rtt_every_ack" | "handshake" => BOOLS,
        "serialization" => &["\"exact\"", "\"htsim\"", "\"ns2\"", "true"],
        "name" => NAMES,
        _ => &["\"linux\"", "\"htsim\"", "\"ns2-sack\"", "\"newreno\"", "\"prr\"", "\"per-ack\"", "\"linux\"", "\"olia\""],
    }
}

const WORDS: &[&str] = &[
    "10Mbps",
    "1Tbps",
    "1000Tbps",
    "1bps",
    "100pps",
    "0s",
    "1ps",
    "1e-13s",
    "-5ms",
    "50ms",
    "2s",
    "1e9s",
    "inf",
    "",
    "abc",
    "100pkt",
    "0pkt",
    "1B",
    "70KB",
    "1e300B",
    "reno",
    "lia",
    "olia",
    "balia",
    "coupled",
    "uncoupled",
    "linux",
    "htsim",
    "ns2-sack",
    "newreno",
    "prr",
    "rfc6298",
    "per-ack",
    "flight",
    "slow-but-steady",
    "a",
    "b",
    "droptail",
    "red",
];
const INTEGERS: &[i64] = &[0, 1, -1, 2, 3, 40, 1500, 65_535, 1_000_000, 10_000_000, i64::MAX, i64::MIN];
const FLOATS: &[f64] = &[0.0, 0.5, 1.0, 1.5, 1e-9, 1e-300, 1e308, -0.1, f64::INFINITY, f64::NAN];

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop::sample::select(WORDS).prop_map(|w| Value::String(w.to_string())),
        2 => prop::sample::select(INTEGERS).prop_map(Value::Integer),
        2 => prop::sample::select(FLOATS).prop_map(Value::Float),
        1 => any::<bool>().prop_map(Value::Boolean),
        1 => prop::collection::vec(prop::sample::select(&["a", "b", "c"][..]), 0..3)
            .prop_map(|v| Value::Array(vec![Value::Array(v.into_iter().map(|s| Value::String(s.into())).collect())])),
        1 => prop::sample::select(&[r#"{ kind = "random-drop", zone = "10pkt" }"#, r#"{ kind = "red", min = "1pkt", max = "2pkt", max_p = 1.0 }"#,
            r#"{ uniform = ["0s", "1s"] }"#, r#"{ profile = "htsim", sack = true }"#, r#"{ algorithm = "generalized", beta = 0.2 }"#,
            r#"{ kind = "threshold-dropper", threshold = "3pkt", hold = "100ms" }"#, r#"[{ at = "1s", state = "down" }]"#, "{}"][..])
            .prop_map(|t| format!("v = {t}").parse::<Table>().expect("valid")["v"].clone()),
    ]
}

/// One change to the base scenario.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, Value),
    Remove(usize),
    /// A line of the text written twice (a duplicated key, or a table opened twice).
    DuplicateLine(usize),
}

/// A value of the kind key `k` takes (as TOML text).
fn typed_value(k: usize) -> impl Strategy<Value = Value> {
    prop::sample::select(typed(KEYS[k].1)).prop_map(|t| format!("v = {t}").parse::<Table>().expect("valid")["v"].clone())
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        8 => (0..KEYS.len()).prop_flat_map(|k| typed_value(k).prop_map(move |v| Edit::Set(k, v))),
        3 => (0..KEYS.len(), value()).prop_map(|(k, v)| Edit::Set(k, v)),
        2 => (0..KEYS.len()).prop_map(Edit::Remove),
        1 => (0..40usize).prop_map(Edit::DuplicateLine),
    ]
}

/// The table at `path` (`sim`, `link.0`) of `root`, created if missing.
fn table_at<'a>(root: &'a mut Table, path: &str) -> Option<&'a mut Table> {
    match path.split_once('.') {
        None => root.entry(path).or_insert_with(|| Value::Table(Table::new())).as_table_mut(),
        Some((array, index)) => root.get_mut(array)?.as_array_mut()?.get_mut(index.parse::<usize>().ok()?)?.as_table_mut(),
    }
}

fn scenario(edits: &[Edit]) -> String {
    edited(BASE, edits)
}

/// Scenario `base` with `edits` applied.
fn edited(base: &str, edits: &[Edit]) -> String {
    let mut root: Table = base.parse().expect("the base scenario is valid TOML");
    let mut duplicates = Vec::new();
    for e in edits {
        match e {
            Edit::Set(k, v) => {
                let (path, key) = KEYS[*k];
                if let Some(t) = table_at(&mut root, path) {
                    t.insert(key.to_string(), v.clone());
                }
            }
            Edit::Remove(k) => {
                let (path, key) = KEYS[*k];
                if let Some(t) = table_at(&mut root, path) {
                    t.remove(key);
                }
            }
            Edit::DuplicateLine(i) => duplicates.push(*i),
        }
    }
    let text = toml::to_string(&root).expect("a table serializes");
    let mut lines: Vec<&str> = text.lines().collect();
    for i in duplicates {
        if !lines.is_empty() {
            let line = lines[i % lines.len()];
            lines.insert(i % lines.len(), line);
        }
    }
    lines.join("\n")
}

/// Events one case may take (about 10 ms of wall time): a run stuck at one instant shows in
/// far fewer.
const BUDGET: u64 = 200_000;

/// What became of a case that passed.
enum Outcome {
    /// Refused with this error, which names the file.
    Refused(topologies::ScenarioError),
    /// Ran to its end.
    Completed,
    /// Advanced through its budget of events before its end.
    Budgeted,
}

fn check(text: &str) -> Result<Outcome, TestCaseError> {
    let built = topologies::load_text("fuzz.toml", text, &[]).and_then(|s| s.build().map(|sim| (s, sim)));
    let (scenario, sim) = match built {
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.starts_with("fuzz.toml: ") && message.len() > "fuzz.toml: ".len(), "an error names the file: {message}");
            return Ok(Outcome::Refused(e));
        }
        Ok(built) => built,
    };
    let mut run = sim.run_budgeted(BUDGET);
    if let Err((_, false)) = run {
        // Time that stands still through the budget's second half may be one busy instant:
        // every subflow starting at once, or each segment of initial windows in a send jitter
        // too short to spread them. Given a few events for each, the run must move on.
        let (_, flows) = scenario.specs().expect("the scenario was built");
        let jittered = |f: &tcp::FlowSpec| if f.tcp.jitter > sim_core::Time::ZERO { f.tcp.initial_cwnd.ceil() as u64 } else { 0 };
        let instant: u64 = flows.iter().map(|f| f.paths.len() as u64 * (1 + jittered(f))).sum();
        if instant * 4 > BUDGET {
            run = scenario.build().expect("the scenario was built").run_budgeted(BUDGET + 4 * instant);
        }
    }
    match run {
        Ok(out) => {
            let s = out.stats;
            prop_assert_eq!(s.data_sent, s.data_delivered + s.data_dropped + s.data_in_flight, "packets conserved: {:?}", s);
            crate::common::within_physics("fuzz.toml", &out, scenario.sim.warmup.as_secs_f64());
            // Every column of every table: the records and the metrics computed from them,
            // record by record (a run may have a million).
            let metrics = scenario.metrics(&out);
            fn each<T: std::fmt::Debug>(records: &[T]) -> impl Iterator<Item = String> + '_ {
                records.iter().map(|r| format!("{r:?}"))
            }
            let tables: [(&str, Box<dyn Iterator<Item = String>>); 6] = [
                ("flows", Box::new(each(&out.flows))),
                ("subflows", Box::new(each(&out.subflows))),
                ("links", Box::new(each(&out.links))),
                ("timeseries", Box::new(each(&out.samples))),
                ("stats", Box::new(std::iter::once(format!("{:?}", out.stats)))),
                ("metrics", Box::new(each(&metrics))),
            ];
            for (table, records) in tables {
                for record in records {
                    let bad = non_finite(&record);
                    prop_assert!(bad.is_empty(), "{table}: {} not finite", bad.join(", "));
                }
            }
        }
        Err((progress, advancing)) => {
            prop_assert!(advancing, "stuck at {} after {} events", progress.simulated, progress.events);
            return Ok(Outcome::Budgeted);
        }
    }
    Ok(Outcome::Completed)
}

/// The fields of `debug` (records' `Debug` text) holding a float that is not finite, with the
/// text before each; names and other strings are quoted there, so an unquoted `NaN` or `inf`
/// is a number.
fn non_finite(debug: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in ["NaN", "inf"] {
        for (at, _) in debug.match_indices(word) {
            let before = debug[..at].trim_end_matches('-');
            let after = &debug[at + word.len()..];
            if (before.ends_with(": ") || before.ends_with('(')) && after.starts_with([',', ')', ' ', '}', ']']) {
                found.push(debug[before.len().saturating_sub(40)..at + word.len()].to_string());
            }
        }
    }
    found
}

/// The classes of generated cases, counted apart in a campaign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// The base scenario under random edits: wrong types, extreme numbers, keys removed or
    /// duplicated, unknown names.
    Edits,
    /// Initial windows up to the limit of 10^6 packets into small buffers, with random loss
    /// and links going down and up: timeouts of huge windows, whose segments a multipath
    /// flow reinjects on its other path.
    HugeWindows,
    /// A send jitter of 1-5 ms over windows up to 10^6 packets and up to thousands of flows:
    /// runs that fit, and runs the memory estimate refuses at a window or buffer key.
    JitterWindows,
    /// `count` and traffic generators up to and past the limits of copies, flows and
    /// time-series rows: refused from the numbers or the memory estimate, or built and run
    /// (a million flows take seconds and 1.5 to 3 GB, as the limits allow).
    HugeCounts,
    /// Edits of a scenario the ns-2 export takes, names with Tcl's special characters among
    /// them.
    Ns2,
    /// One to three flows through one link of 1-4 Gb/s, long enough that ns-2's 32-bit byte
    /// counters pass 2^32: ns-2 and the simulator must count the same bytes.
    WideCounters,
    /// A traffic generator whose arrivals all fall after the run's end, its window law, paths
    /// and TCP settings edited: refused at the same key as the same generator drawing flows.
    UndrawnGenerators,
}

const CLASSES: [Class; 7] =
    [Class::Edits, Class::HugeWindows, Class::JitterWindows, Class::HugeCounts, Class::Ns2, Class::WideCounters, Class::UndrawnGenerators];

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Edits => "edits",
            Class::HugeWindows => "huge-windows",
            Class::JitterWindows => "jitter-windows",
            Class::HugeCounts => "huge-counts",
            Class::Ns2 => "ns2",
            Class::WideCounters => "wide-counters",
            Class::UndrawnGenerators => "undrawn-generators",
        }
    }
}

/// A generated scenario and its class; shown as the text itself, so that a failing case can
/// be pasted into a file and run.
#[derive(Clone)]
struct Case {
    class: Class,
    text: String,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} case:\n{}\n", self.class.name(), self.text)
    }
}

fn pick(values: &'static [&'static str]) -> prop::sample::Select<&'static str> {
    prop::sample::select(values)
}

/// Times within the short runs of the heavy classes, some beyond their end.
const AT: &[&str] = &["0s", "10ms", "100ms", "250ms", "400ms", "700ms", "1s", "1.5s", "3s"];

/// A link's down and up events (`events = […]`), from up to four instants, in order or not.
fn link_events() -> impl Strategy<Value = String> {
    (prop::collection::vec(pick(AT), 0..5), any::<bool>()).prop_map(|(mut at, sorted)| {
        if sorted {
            at.sort_by(|a, b| seconds(a).total_cmp(&seconds(b)));
        }
        let events: Vec<String> = at
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{{ at = \"{t}\", state = \"{}\" }}", if i % 2 == 0 { "down" } else { "up" }))
            .collect();
        format!("[{}]", events.join(", "))
    })
}

fn seconds(t: &str) -> f64 {
    match t.strip_suffix("ms") {
        Some(ms) => ms.parse::<f64>().unwrap() / 1e3,
        None => t.trim_end_matches('s').parse().unwrap(),
    }
}

/// Windows of the heavy classes: up to the limit, and just past it.
const WINDOWS: &[&str] = &["1000", "65536", "100000", "999999.5", "1000000", "1000001"];

/// One `[[link]]` of the huge-window class: small buffers, random loss, events.
fn lossy_link(name: &'static str) -> impl Strategy<Value = String> {
    (
        pick(&["\"1Mbps\"", "\"10Mbps\"", "\"50Mbps\""]),
        pick(&["\"1ms\"", "\"10ms\"", "\"50ms\""]),
        pick(&["\"1pkt\"", "\"2pkt\"", "\"5pkt\"", "\"30pkt\"", "\"20ms\""]),
        pick(&["0.0", "0.0", "0.001", "0.01", "0.1", "0.5", "1.0"]),
        link_events(),
    )
        .prop_map(move |(rate, delay, buffer, loss, events)| {
            format!("[[link]]\nname = \"{name}\"\nrate = {rate}\ndelay = {delay}\nbuffer = {buffer}\nloss = {loss}\nevents = {events}\n\n")
        })
}

fn huge_windows() -> impl Strategy<Value = Case> {
    (
        (pick(&["\"300ms\"", "\"1s\"", "\"2s\""]), pick(&["\"linux\"", "\"linux-6\"", "\"htsim\"", "\"ns2-sack\"", "\"newreno\""])),
        (pick(WINDOWS), pick(&["\"inf\"", "2", "1000000"]), pick(&["\"per-ack\"", "\"per-segment\""])),
        (pick(&["\"1ms\"", "\"10ms\"", "\"200ms\""]), pick(&["\"10ms\"", "\"1s\""]), pick(&["\"250ms\"", "\"1s\"", "\"120s\""])),
        lossy_link("a"),
        lossy_link("b"),
        (pick(&["1", "2", "3"]), pick(&["\"lia\"", "\"olia\"", "\"balia\"", "\"coupled\"", "\"uncoupled\"", "\"reno\""])),
        (pick(&["\"inf\"", "\"64pkt\"", "\"1000000pkt\""]), prop::option::of(pick(WINDOWS))),
    )
        .prop_map(|((duration, profile), (window, ssthresh, growth), (min_rto, initial_rto, max_rto), a, b, (count, cc), (receive, own))| {
            let own = own.map_or(String::new(), |w| format!(", initial_cwnd = {w}"));
            let text = format!(
                "[sim]\nduration = {duration}\nwarmup = \"0s\"\n\n[tcp]\nprofile = {profile}\ninitial_cwnd = {window}\n\
                 initial_ssthresh = {ssthresh}\ngrowth = {growth}\nmin_rto = {min_rto}\ninitial_rto = {initial_rto}\nmax_rto = {max_rto}\n\n\
                 {a}{b}[[flow]]\nname = \"tcp\"\ncount = {count}\npaths = [[\"a\"]]\n\n\
                 [[flow]]\nname = \"mp\"\ncc = {cc}\npaths = [[\"a\"], [\"b\"]]\nreceive_buffer = {receive}\ntcp = {{ min_ssthresh = 1{own} }}\n"
            );
            Case { class: Class::HugeWindows, text }
        })
}

fn jitter_windows() -> impl Strategy<Value = Case> {
    (
        (pick(&["\"1ms\"", "\"2ms\"", "\"3.5ms\"", "\"5ms\""]), pick(&["\"200ms\"", "\"1s\""])),
        // Copies and their window: runs of up to 2·10^4 segments, which can end within the
        // event budget, of 10^6 to 2·10^6, which fit, and of 10^8 or more, which the estimate
        // refuses (nothing between: a run the estimate lets through may hold what it
        // estimates, gigabytes a case must not take).
        pick(&[
            "1 10000",
            "10 1000",
            "100 100",
            "1000 10",
            "2000 10",
            "1 1000000",
            "2 999999.5",
            "10 100000",
            "1000 1000",
            "100 1000000",
            "2000 1000000",
            "1000 100000",
            "20000 10000",
        ]),
        (pick(&["\"1Mbps\"", "\"10Mbps\"", "\"100Mbps\""]), pick(&["\"1pkt\"", "\"10pkt\"", "\"1000pkt\"", "\"100000000pkt\""])),
        (any::<bool>(), pick(&["\"lia\"", "\"olia\"", "\"uncoupled\""])),
    )
        .prop_map(|((jitter, duration), flows, (rate, buffer), (multipath, cc))| {
            let (count, window) = flows.split_once(' ').unwrap();
            let (paths, cc) = if multipath { ("[[\"a\"], [\"b\"]]", cc) } else { ("[[\"a\"]]", "\"reno\"") };
            let text = format!(
                "[sim]\nduration = {duration}\n\n[tcp]\njitter = {jitter}\ninitial_cwnd = {window}\n\n\
                 [[link]]\nname = \"a\"\nrate = {rate}\ndelay = \"5ms\"\nbuffer = {buffer}\n\n\
                 [[link]]\nname = \"b\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\nbuffer = \"20pkt\"\n\n\
                 [[flow]]\nname = \"f\"\ncount = {count}\ncc = {cc}\npaths = {paths}\nstart = {{ uniform = [\"0s\", \"10ms\"] }}\n"
            );
            Case { class: Class::JitterWindows, text }
        })
}

/// The sizes of a huge-count case: copies of the link `c{i}`, of the flows `f` and `g` (zero:
/// no `g`), and a traffic generator's table (empty: none).
type Counts = (&'static str, &'static str, &'static str, &'static str);

/// Traffic generators: Poisson arrivals every microsecond (10^5 flows in a case's 100 ms) or
/// every 10 ms, and on-off sources up to the limit of 10^5 and past it.
const POISSON_FAST: &str = "kind = \"poisson\"\ninterval = \"1us\"\nsize = \"1pkt\"";
const POISSON_SLOW: &str = "kind = \"poisson\"\ninterval = \"10ms\"\nsize = \"70KB\"";
const ONOFF_LIMIT: &str = "kind = \"onoff\"\ncount = 100000\non = \"1s\"\noff = \"1s\"";
const ONOFF_PAST: &str = "kind = \"onoff\"\ncount = 100001\non = \"1s\"\noff = \"1s\"";

/// Shapes of a huge-count case, drawn so that the costly ones are rare: an accepted million
/// flows takes seconds to build, run and check (about 1.5 kB a flow), and one of past two
/// million flows is refused only when they are made.
fn counts() -> impl Strategy<Value = Counts> {
    let small = pick(&["1", "1000", "10000"]);
    let past = pick(&["1000001", "2000001", "4294967296", "9223372036854775807", "-1", "1e6"]);
    prop_oneof![
        // Accepted, up to 10^4 flows.
        40 => (pick(&["1", "1000"]), small.clone(), pick(&["0", "1", "1000"]), pick(&["", "", POISSON_SLOW])),
        // A count past a limit, refused from the number.
        40 => (pick(&["1", "1000", "1000001", "4294967296"]), prop_oneof![small.clone(), past.clone()], prop_oneof![Just("0"), past], pick(&["", ONOFF_PAST])),
        // Up to 10^5 flows, or 10^5 from a generator.
        3 => (Just("1"), pick(&["1", "100000"]), pick(&["0", "1000"]), pick(&["", POISSON_FAST, ONOFF_LIMIT])),
        // Past the totals (10^6 links; 2·10^6 flows and a generator's), refused once made.
        2 => (pick(&["1", "1000000"]), Just("1000000"), Just("1000000"), Just(POISSON_FAST)),
        // A million links or a million flows, accepted: up to 3 GB. (Both at once, or two
        // million flows, are accepted too, and take 4 to 5 GB: more than a case may.)
        1 => pick(&["999998 1", "1 999999", "1 1000000"]).prop_map(|pair| {
            let (l, f) = pair.split_once(' ').unwrap();
            (l, f, "0", "")
        }),
    ]
}

fn huge_counts() -> impl Strategy<Value = Case> {
    (
        (pick(&["\"10ms\"", "\"100ms\""]), pick(&["", "sample_interval = \"1us\"\n", "sample_interval = \"100ms\"\n"])),
        counts(),
        (pick(&["[[\"l\"]]", "[[\"l\"]]", "[[\"c{i}\"]]", "[[\"l\"], [\"m\"]]"]), pick(&["\"0s\"", "\"1us\""])),
    )
        .prop_map(|((duration, sampling), (links, count, second, traffic), (paths, stagger))| {
            let mut text = format!(
                "[sim]\nduration = {duration}\n{sampling}\n\
                 [[link]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\nbuffer = \"10pkt\"\n\n\
                 [[link]]\nname = \"m\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\nbuffer = \"10pkt\"\n\n\
                 [[link]]\nname = \"c{{i}}\"\ncount = {links}\nrate = \"1Mbps\"\ndelay = \"1ms\"\nbuffer = \"2pkt\"\n\n\
                 [[flow]]\nname = \"f\"\ncount = {count}\ncc = \"lia\"\npaths = {paths}\nstagger = {stagger}\n\n"
            );
            if second != "0" {
                text += &format!(
                    "[[flow]]\nname = \"g\"\ncount = {second}\ncc = \"olia\"\npaths = [[\"l\"], [\"m\"]]\nstagger = {stagger}\n\n"
                );
            }
            if !traffic.is_empty() {
                text += &format!("[[traffic]]\nname = \"t\"\n{traffic}\npaths = [[\"l\"]]\n\n");
            }
            Case { class: Class::HugeCounts, text }
        })
}

fn wide_counters() -> impl Strategy<Value = Case> {
    // Rate and duration: 7.5 to 10 GB through a busy link (4.3 GB even at 60 % busy), in
    // 9000-byte packets (ns-2 runs one case in a second or two).
    (pick(&["1Gbps 60s", "1Gbps 80s", "2Gbps 30s", "4Gbps 15s", "4Gbps 20s"]), 1..=3usize, pick(&["0s", "1s", "5s"]), pick(&["50pkt", "200pkt", "2000pkt"]))
        .prop_map(|(rate_duration, flows, warmup, buffer)| {
            let (rate, duration) = rate_duration.split_once(' ').unwrap();
            let mut text = format!(
                "[sim]\nduration = \"{duration}\"\nwarmup = \"{warmup}\"\nmss = \"9000B\"\n[tcp]\nprofile = \"ns2-sack\"\ninitial_ssthresh = 20000\n\
                 [[link]]\nname = \"l\"\nrate = \"{rate}\"\ndelay = \"1ms\"\nbuffer = \"{buffer}\"\n"
            );
            for i in 0..flows {
                text += &format!("[[flow]]\nname = \"f{i}\"\ncc = \"reno\"\npaths = [[\"l\"]]\nstart = \"{}ms\"\nreceive_buffer = \"20000pkt\"\n", 137 * i);
            }
            Case { class: Class::WideCounters, text }
        })
}

/// The generator of an undrawn-generator case, arriving every `interval`.
fn generator_text(duration: &str, interval: &str, (cc, path, tcp, size): (&str, &str, &str, &str)) -> String {
    format!(
        "[sim]\nduration = \"{duration}\"\n\
         [[link]]\nname = \"a\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\nbuffer = \"30pkt\"\n\
         [[flow]]\nname = \"f\"\npaths = [[\"a\"]]\n\
         [[traffic]]\nname = \"t\"\nkind = \"poisson\"\ncc = {cc}\npaths = [[\"{path}\"]]\ninterval = \"{interval}\"\n{size}\ntcp = {tcp}\n"
    )
}

/// The parts of a generator a run only meets in the flows it draws.
type GeneratorParts = (&'static str, &'static str, &'static str, &'static str);

fn generator_parts() -> impl Strategy<Value = GeneratorParts> {
    (
        pick(&[
            "\"reno\"",
            "\"lia\"",
            "\"no-such-law\"",
            "\"{i}\"",
            "{ algorithm = \"generalized\", beta = 2 }",
            "{ algorithm = \"lia\", bogus = 1 }",
            "3",
        ]),
        pick(&["a", "a", "no-such-link", "{i}", ""]),
        pick(&["{}", "{ min_rto = \"0s\" }", "{ rack = true }", "{ initial_cwnd = 1e9 }", "{ bogus = 1 }", "{ profile = \"htsim\" }"]),
        pick(&["size = \"70KB\"", "duration = { uniform = [\"1s\", \"2s\"] }"]),
    )
}

fn undrawn_generators() -> impl Strategy<Value = Case> {
    (pick(&["100ms", "1s"]), generator_parts()).prop_map(|(duration, parts)| Case {
        class: Class::UndrawnGenerators,
        // An arrival every 10^6 s on average: none in a run of a second (checked: the run's
        // seed and the generator's name fix when its first arrival falls).
        text: generator_text(duration, "1000000s", parts),
    })
}

/// Each class's share of the cases: `FUZZ_WEIGHTS` (`edits=12,huge-windows=3,…`; a class
/// not named keeps its weight here). The heavy classes are few by default, so that the
/// suite's 2 000 cases stay fast; campaigns (`scripts/fuzz-campaign`) draw more of them.
fn weights() -> [u32; CLASSES.len()] {
    let mut weights = [800, 16, 8, 1, 100, 2, 50];
    for item in std::env::var("FUZZ_WEIGHTS").unwrap_or_default().split(',').filter(|i| !i.is_empty()) {
        let (name, weight) = item.split_once('=').unwrap_or_else(|| panic!("FUZZ_WEIGHTS: expected CLASS=WEIGHT, got {item:?}"));
        let i = CLASSES.iter().position(|c| c.name() == name).unwrap_or_else(|| panic!("FUZZ_WEIGHTS: no class {name:?}"));
        weights[i] = weight.parse().unwrap_or_else(|_| panic!("FUZZ_WEIGHTS: {item:?}: expected a whole number"));
    }
    weights
}

fn case() -> impl Strategy<Value = Case> {
    let classes: [BoxedStrategy<Case>; CLASSES.len()] = [
        prop::collection::vec(edit(), 0..6).prop_map(|edits| Case { class: Class::Edits, text: scenario(&edits) }).boxed(),
        huge_windows().boxed(),
        jitter_windows().boxed(),
        huge_counts().boxed(),
        prop::collection::vec(edit(), 0..4).prop_map(|edits| Case { class: Class::Ns2, text: edited(BASE_NS2, &edits) }).boxed(),
        wide_counters().boxed(),
        undrawn_generators().boxed(),
    ];
    let weighted: Vec<(u32, BoxedStrategy<Case>)> = weights().into_iter().zip(classes).filter(|(w, _)| *w > 0).collect();
    assert!(!weighted.is_empty(), "FUZZ_WEIGHTS: every class has weight 0");
    prop::strategy::Union::new_weighted(weighted)
}

/// Whether a refusal by the memory estimate names a key that sets what it counts: a window,
/// a buffer, or how many flows and subflows there are.
fn names_a_size(e: &topologies::ScenarioError) -> bool {
    ["tcp.initial_cwnd", ".buffer", ".count", ".paths"].iter().any(|k| e.key.ends_with(k)) || e.key.starts_with("traffic.")
}

/// Checks one case as [`check`] does, and what its class adds: a scenario that is not an edit
/// is well-formed TOML, so a refusal names a key; a memory refusal names a size's key, and in the
/// jitter class (few links, flows of one window) a window's or buffer's.
fn check_case(case: &Case) -> Result<Outcome, TestCaseError> {
    let outcome = check(&case.text)?;
    // The heavy classes' refusals are the simulator's; their sizes would only double the cost.
    if matches!(case.class, Class::Edits | Class::Ns2 | Class::WideCounters | Class::UndrawnGenerators) {
        check_export(case, &outcome)?;
    }
    if case.class == Class::UndrawnGenerators {
        check_undrawn(case, &outcome)?;
    }
    if let Outcome::Refused(e) = &outcome {
        let edited = matches!(case.class, Class::Edits | Class::Ns2);
        prop_assert!(edited || !e.key.is_empty(), "a refusal names a key: {e}");
        if e.message.contains("of memory") {
            prop_assert!(names_a_size(e), "the memory estimate names a size's key: {e}");
            let window_or_buffer = e.key.ends_with("tcp.initial_cwnd") || e.key.ends_with(".buffer");
            prop_assert!(case.class != Class::JitterWindows || window_or_buffer, "the memory estimate names a window or buffer: {e}");
        }
    }
    Ok(outcome)
}

/// The ns-2 export of a case: refused where the simulator refuses it (one set of checks
/// guards every engine; only the simulator's memory estimate is its own), else refused naming a key, or written with every name as text. With
/// `FUZZ_NS2` set, the script runs in ns-2 ([`check_in_ns2`]).
fn check_export(case: &Case, outcome: &Outcome) -> Result<(), TestCaseError> {
    let Ok(scenario) = topologies::load_text("fuzz.toml", &case.text, &[]) else { return Ok(()) };
    let script = scenario.ns2_script();
    match (outcome, script) {
        // The memory estimate is the packet simulator's own limit; ns-2 has its own.
        (Outcome::Refused(e), Ok(_)) => prop_assert!(e.message.contains("of memory"), "the export takes what the simulator refuses: {e}"),
        (_, Err(e)) => {
            let message = e.to_string();
            prop_assert!(message.starts_with("fuzz.toml: ") && !e.key.is_empty(), "the export's refusal names a key: {message}");
            prop_assert!(case.class != Class::WideCounters, "the export refuses a wide-counter case: {message}");
        }
        (_, Ok(script)) => {
            let lines: Vec<&str> = script.lines().collect();
            prop_assert!(lines.len() > 1 && lines[1].starts_with("# Run it with"), "the header comment is one line: {:?}", &lines[..2]);
            let names: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("puts $results \"N ")).collect();
            prop_assert_eq!(names.len(), scenario.flows.len(), "one line per flow's name");
            for name in names {
                let bare = name.strip_suffix('"').map(unescaped_specials);
                prop_assert_eq!(bare, Some(String::new()), "a name written with Tcl's special characters bare: {}", name);
            }
            if case.class == Class::WideCounters {
                prop_assert!(script.contains("\n$ns at ") && script.contains("\"tally "), "no tally of the counters in:\n{script}");
            }
            if std::env::var_os("FUZZ_NS2").is_some() {
                check_in_ns2(case, &scenario, &script)?;
            }
        }
    }
    Ok(())
}

/// The characters of `text` that Tcl would substitute or split at: those no backslash escapes.
fn unescaped_specials(text: &str) -> String {
    let mut bare = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' | ']' | '$' | '"' | '{' | '}' | ';' | '\n' | '\r' => bare.push(c),
            _ => {}
        }
    }
    bare
}

/// The longest ns-2 may run one case, wall time: beyond it the case is not checked there.
const NS2_SECONDS: u64 = 20;

/// Runs `script` in ns-2 in a directory of its own, bounded in time; `None` when it took too
/// long.
fn run_ns2(script: &str) -> Option<(std::process::ExitStatus, String, bool, String)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!("equipoise-fuzz-ns2-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    std::fs::write(dir.join("run.tcl"), script).expect("the script is written");
    let mut child = std::process::Command::new("ns")
        .args(["run.tcl", "results.txt"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ns starts (FUZZ_NS2 is set: ns-2 must be installed)");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("ns is waited for") {
            break Some(status);
        }
        if started.elapsed().as_secs() > NS2_SECONDS {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let mut said = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut said);
    }
    let results = std::fs::read_to_string(dir.join("results.txt")).unwrap_or_default();
    // A name run as a command would have made this file (or another) here.
    let canary = std::fs::read_dir(&dir).map(|d| d.count() != 2).unwrap_or(true) || dir.join("CANARY").exists();
    let _ = std::fs::remove_dir_all(&dir);
    status.map(|status| (status, results, canary, said))
}

/// The script of an exported case, run in ns-2: it runs no name as a command, runs to the
/// end, and its results read back into counts that agree with each other (bytes and packets
/// through each link, the data a flow delivered and sent), loss rates and utilizations within
/// [0, 1]; a wide-counter
/// case (drop-tail, no random draw) delivers in all what the simulator's does, to 1 %.
fn check_in_ns2(case: &Case, scenario: &topologies::Scenario, script: &str) -> Result<(), TestCaseError> {
    let Some((status, results, canary, said)) = run_ns2(script) else { return Ok(()) };
    prop_assert!(!canary, "ns-2 made a file beside its results: a name ran as a command");
    prop_assert!(status.success(), "ns-2 failed on a script the export wrote ({status}): {said}");
    let read = scenario.read_ns2_results(&results).map_err(|e| TestCaseError::fail(format!("ns-2's results do not read back: {e}")))?;
    let out = &read.output;
    let warmup = scenario.sim.warmup.as_secs_f64();
    // (Not `within_physics`: ns-2's sink counts data when it is delivered in order, so a flow
    // whose packets arrived out of order before the warm-up can deliver them all after it.)
    for l in &out.links {
        prop_assert!((0.0..=1.0).contains(&l.loss_rate) && (0.0..=1.0).contains(&l.utilization), "link {}: {l:?}", l.link);
    }
    let measured = scenario.sim.duration.as_secs_f64() - warmup;
    let mss = f64::from(scenario.sim.mss);
    for l in &out.links {
        // Only data segments (and 40-byte SYNs) cross a scenario link: its bytes are its packets.
        let bytes = l.utilization * l.rate_bps * measured / 8.0;
        let packets = l.departures as f64;
        prop_assert!(
            bytes <= packets * mss + 1.0 && bytes + 1.0 >= packets * 40.0,
            "link {}: {bytes} bytes departed in {packets} packets of at most {mss} bytes",
            l.link
        );
    }
    // From the start, no flow delivers more than it sent (after a warm-up it may: data sent
    // before it arrives after).
    for f in out.flows.iter().filter(|_| warmup == 0.0) {
        prop_assert!(f.bytes_delivered as f64 <= f.packets_sent as f64 * mss, "flow {}: delivered more than it sent", f.flow);
    }
    if case.class == Class::WideCounters {
        // The flows' shares part where packets meet at one instant (decimal timing), their sum
        // does not: what the link carried.
        let ours = scenario.build().expect("the simulator took it").run();
        let total = |o: &tcp::RunOutput| o.flows.iter().map(|f| f.bytes_delivered as f64).sum::<f64>();
        let (a, b) = (total(&ours), total(out));
        prop_assert!((a - b).abs() <= 0.01 * b, "the flows delivered {a} bytes in all, in ns-2 {b}");
        prop_assert!(b > 4_294_967_296.0 || warmup > 0.0, "the case did not pass 2^32 bytes: {b}");
    }
    Ok(())
}

/// An undrawn generator is refused at the same key as the same generator drawing flows (its
/// arrivals every millisecond), or taken as it is.
fn check_undrawn(case: &Case, outcome: &Outcome) -> Result<(), TestCaseError> {
    let Ok(undrawn) = topologies::load_text("fuzz.toml", &case.text, &[]) else { return Ok(()) };
    prop_assert_eq!(undrawn.idle_traffic.len(), 1, "the generator drew a flow");
    let drawn = case.text.replace("interval = \"1000000s\"", "interval = \"1ms\"");
    let drawn = topologies::load_text("fuzz.toml", &drawn, &[]).and_then(|s| s.build().map(|_| ()));
    let key = |r: Option<&topologies::ScenarioError>| r.map(|e| e.key.clone());
    let undrawn_key = key(if let Outcome::Refused(e) = outcome { Some(e) } else { None });
    prop_assert_eq!(undrawn_key, key(drawn.as_ref().err()), "undrawn and drawn generators are checked alike");
    Ok(())
}

/// What a campaign reports of each class: cases (refused, run to the end, cut by the event
/// budget), their total and longest CPU time, and the most one of them grew the resident
/// memory by.
#[derive(Default)]
struct Tally {
    cases: u64,
    refused: u64,
    completed: u64,
    budgeted: u64,
    seconds: f64,
    slowest: f64,
    growth_bytes: u64,
}

/// The process's resident memory now and its peak since the last [`reset_peak_memory`],
/// where Linux reports them.
fn resident_memory() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kilobytes = |field: &str| -> Option<u64> { status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok() };
    Some((kilobytes("VmRSS:")? * 1024, kilobytes("VmHWM:")? * 1024))
}

fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The CPU time this thread has had, in seconds, where Linux reports it (its scheduler
/// statistics, to the nanosecond); otherwise the wall time since `since`. A case's cost is
/// its CPU time: on a loaded machine its wall time says more of the other work than of it.
fn thread_cpu_seconds(since: std::time::Instant) -> f64 {
    let read = || -> Option<f64> {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        Some(stat.split_whitespace().next()?.parse::<f64>().ok()? * 1e-9)
    };
    read().unwrap_or_else(|| since.elapsed().as_secs_f64())
}

/// The most CPU time one case may take, and the most its resident memory may grow by: a
/// case stuck inside one event (where the event budget cannot see it) or allocating more than
/// a million flows need (about 1.5 kB each) fails here.
const CASE_SECONDS: f64 = 60.0;
const CASE_BYTES: u64 = 4_000_000_000;

/// Runs `PROPTEST_CASES` cases (2 000 by default) from `PROPTEST_RNG_SEED`, and writes each
/// class's [`Tally`] to the file `FUZZ_COUNTS` names, if set.
#[test]
fn any_generated_scenario_runs_or_fails_naming_a_key() {
    let config = ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let tallies: [std::cell::RefCell<Tally>; CLASSES.len()] = Default::default();
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let result = runner.run(&case(), |case| {
        reset_peak_memory();
        let before = resident_memory().map_or(0, |(now, _)| now);
        let clock = std::time::Instant::now();
        let started = thread_cpu_seconds(clock);
        let checked = check_case(&case);
        let seconds = thread_cpu_seconds(clock) - started;
        let growth = resident_memory().map_or(0, |(_, peak)| peak.saturating_sub(before));
        let mut t = tallies[CLASSES.iter().position(|&c| c == case.class).unwrap()].borrow_mut();
        t.cases += 1;
        t.seconds += seconds;
        t.slowest = t.slowest.max(seconds);
        t.growth_bytes = t.growth_bytes.max(growth);
        match checked? {
            Outcome::Refused(_) => t.refused += 1,
            Outcome::Completed => t.completed += 1,
            Outcome::Budgeted => t.budgeted += 1,
        }
        prop_assert!(seconds < CASE_SECONDS, "the case took {seconds:.1} s of CPU time");
        prop_assert!(growth < CASE_BYTES, "the case grew the resident memory by {:.2} GB", growth as f64 / 1e9);
        Ok(())
    });
    if let Ok(path) = std::env::var("FUZZ_COUNTS") {
        let lines: String = CLASSES
            .iter()
            .zip(&tallies)
            .map(|(c, t)| {
                let t = t.borrow();
                let (name, cases, refused, completed, budgeted) = (c.name(), t.cases, t.refused, t.completed, t.budgeted);
                format!("{name} {cases} {refused} {completed} {budgeted} {:.3} {:.3} {}\n", t.seconds, t.slowest, t.growth_bytes)
            })
            .collect();
        std::fs::write(&path, lines).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    if let Err(e) = result {
        panic!("{e}\n{runner}");
    }
}

#[test]
fn non_finite_values_are_found_in_records_and_names_are_not() {
    let text = r#"[Metric { metric: "jain_index", group: "inf", value: Some(NaN), unit: "1" }, L { a: -inf, b: 1.0, c: inf }]"#;
    assert_eq!(non_finite(text).len(), 3, "{:?}", non_finite(text));
    assert!(non_finite(r#"[Metric { group: "NaN", value: None }]"#).is_empty());
}

#[test]
fn the_base_scenario_runs() {
    check(BASE).unwrap();
    let out = topologies::load_text("fuzz.toml", BASE, &[]).unwrap().build().unwrap().run_budgeted(BUDGET).unwrap();
    assert!(out.flows.iter().all(|f| f.bytes_delivered > 0));
}
