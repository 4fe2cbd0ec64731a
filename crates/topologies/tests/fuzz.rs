//! The scenario fuzzer: scenario text generated from the format's grammar, valid and nearly
//! valid (wrong types, extreme numbers, keys removed or duplicated, unknown names), must either
//! run with every packet accounted for, nothing reported beyond physics and no value infinite
//! or NaN in any table (a quantity that does not exist is null), or fail with an
//! error naming the file (and the key, where there is one). Never a panic, never an abort, and
//! never a run stuck at one instant: each case is bounded in simulated events.
//!
//! `PROPTEST_CASES` sets the number of cases (2 000 by default here) and `PROPTEST_RNG_SEED`
//! the seed; `scripts/fuzz` runs long campaigns.

mod common;

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

/// Where an edit lands: a table path and a key in it.
const KEYS: &[(&str, &str)] = &[
    ("sim", "duration"),
    ("sim", "warmup"),
    ("sim", "seed"),
    ("sim", "mss"),
    ("sim", "ack_size"),
    ("sim", "sample_interval"),
    ("sim", "bogus"),
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
    ("flow.1", "cc"),
    ("flow.1", "paths"),
    ("flow.1", "stagger"),
    ("flow.1", "receive_buffer"),
    ("flow.1", "tcp"),
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
    // (An accepted window of 10^5 packets or more makes RACK's per-ACK scan, linear in the
    // window while retransmissions are out, take minutes per case: left out.)
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
    let mut root: Table = BASE.parse().expect("the base scenario is valid TOML");
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

fn check(text: &str) -> Result<(), TestCaseError> {
    let built = topologies::load_text("fuzz.toml", text, &[]).and_then(|s| s.build().map(|sim| (s, sim)));
    let (scenario, sim) = match built {
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.starts_with("fuzz.toml: ") && message.len() > "fuzz.toml: ".len(), "an error names the file: {message}");
            return Ok(());
        }
        Ok(built) => built,
    };
    match sim.run_budgeted(BUDGET) {
        Ok(out) => {
            let s = out.stats;
            prop_assert_eq!(s.data_sent, s.data_delivered + s.data_dropped + s.data_in_flight, "packets conserved: {:?}", s);
            common::within_physics("fuzz.toml", &out, scenario.sim.warmup.as_secs_f64());
            // Every column of every table: the records and the metrics computed from them.
            let metrics = scenario.metrics(&out);
            let tables = [
                ("flows", format!("{:?}", out.flows)),
                ("subflows", format!("{:?}", out.subflows)),
                ("links", format!("{:?}", out.links)),
                ("timeseries", format!("{:?}", out.samples)),
                ("stats", format!("{:?}", out.stats)),
                ("metrics", format!("{metrics:?}")),
            ];
            for (table, text) in &tables {
                let bad = non_finite(text);
                prop_assert!(bad.is_empty(), "{table}: {} not finite", bad.join(", "));
            }
        }
        Err((progress, advancing)) => {
            prop_assert!(advancing, "stuck at {} after {} events", progress.simulated, progress.events);
        }
    }
    Ok(())
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

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_generated_scenario_runs_or_fails_naming_a_key(edits in prop::collection::vec(edit(), 0..6)) {
        let text = scenario(&edits);
        check(&text)?;
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
