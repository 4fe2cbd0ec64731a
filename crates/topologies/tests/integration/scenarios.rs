//! Scenario files: what they expand to, and an error for each class of mistake.

use crate::common::within_physics;
use sim_core::Time;
use topologies::load_text;

const GOOD: &str = r#"
[meta]
name = "two-flows"

[sim]
duration = "2s"
warmup = "500ms"
seed = 3

[tcp]
min_rto = "250ms"
initial_ssthresh = 100

[[link]]
name = "bottleneck"
rate = "1000pps"
delay = "5ms"
buffer = "20pkt"

[[link]]
name = "wifi{i}"
count = 3
rate = "10Mbps"
delay = "1ms"
buffer = "10ms"
queue = { kind = "red", min = "3pkt", max = "9pkt" }

[[flow]]
name = "f"
count = 3
paths = [["wifi{i}", "bottleneck"]]
start = "100ms"
stagger = "10ms"
tcp = { delayed_ack = true }
"#;

fn error(text: &str, sets: &[(&str, &str)]) -> String {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let err = load_text("bad.toml", text, &sets).and_then(|s| s.build().map(|_| ())).expect_err("should be rejected");
    err.to_string()
}

fn with(line_from: &str, line_to: &str) -> String {
    assert!(GOOD.contains(line_from), "{line_from}");
    GOOD.replacen(line_from, line_to, 1)
}

#[test]
fn a_good_scenario_expands_counts_and_names() {
    let s = load_text("good.toml", GOOD, &[]).unwrap();
    let links: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(links, ["bottleneck", "wifi0", "wifi1", "wifi2"]);
    let flows: Vec<_> = s.flows.iter().map(|f| (f.name.as_str(), f.paths[0].join(">"), f.start)).collect();
    assert_eq!(flows[2], ("f.2", "wifi2>bottleneck".to_string(), Time::from_ms(120)));
    assert_eq!(s.flows[0].tcp.delayed_ack, Some(true));
    assert!(s.text.contains("bottleneck"), "the effective scenario text is kept");
    let out = s.build().unwrap().run();
    assert_eq!(out.flows.len(), 3);
    // 1000 pps of 1500 B packets is 12 Mb/s
    assert_eq!(out.links[0].rate_bps, 12e6);
    assert!(out.links[0].utilization > 0.9);
}

#[test]
fn multipath_flows_take_any_law_with_parameters() {
    let sets = [
        ("flow.f.paths".to_string(), "[[\"wifi{i}\", \"bottleneck\"], [\"bottleneck\"]]".to_string()),
        ("flow.f.cc".to_string(), "{ algorithm = \"semicoupled-phi\", phi = 0.5, a = \"adaptive\" }".to_string()),
        ("flow.f.receive_buffer".to_string(), "\"64pkt\"".to_string()),
        ("flow.f.size".to_string(), "\"300KB\"".to_string()),
    ];
    let s = load_text("good.toml", GOOD, &sets).unwrap();
    let out = s.build().unwrap().run();
    assert!(out.flows.iter().all(|f| f.subflows == 2 && f.algorithm == "semicoupled-phi"));
    assert!(out.flows.iter().all(|f| f.completion_time_s.is_some()), "the finite multipath transfers complete: {:?}", out.flows);
    assert_eq!(out.subflows.len(), 6);
    // time in a parameter is read as seconds
    let rsf = [("flow.f.cc".to_string(), "{ algorithm = \"rsf-db\", d = \"50ms\" }".to_string())];
    assert!(load_text("good.toml", GOOD, &rsf).unwrap().build().is_ok());
}

#[test]
fn set_overrides_any_key() {
    let sets = [("flow.f.count".to_string(), "5".to_string()), ("link.bottleneck.loss".to_string(), "0.01".to_string())];
    let s = load_text("good.toml", GOOD, &sets).unwrap();
    assert_eq!(s.flows.len(), 5);
    assert_eq!(s.links[0].loss, 0.01);
}

#[test]
fn each_class_of_mistake_names_file_key_and_expectation() {
    // (scenario text, --set overrides, the error's expected beginning)
    type Case<'a> = (String, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (with("rate = \"1000pps\"", "rat = \"1000pps\""), vec![], "bad.toml: link.bottleneck.rat: unknown key; did you mean \"rate\"?"),
        (with("rate = \"1000pps\"", "rate = 1000"), vec![], "bad.toml: link.bottleneck.rate: expected a rate with a unit"),
        (with("rate = \"1000pps\"", "rate = \"1000\""), vec![], "bad.toml: link.bottleneck.rate: expected a rate with a unit"),
        (with("delay = \"5ms\"", "delay = \"-5ms\""), vec![], "bad.toml: link.bottleneck.delay: expected a non-negative time"),
        (
            with("\"wifi{i}\", \"bottleneck\"", "\"wifi{i}\", \"botleneck\""),
            vec![],
            "bad.toml: flow.f.paths[0][1]: no link named \"botleneck\"; did you mean \"bottleneck\"?",
        ),
        (with("paths = ", "cc = \"lai\"\npaths = "), vec![], "bad.toml: flow.f.cc: unknown algorithm \"lai\""),
        (
            with("[[flow]]\nname = \"f\"", "[[flow]]\nname = \"f\"\ncc = { algorithm = \"reno\", phi = 1 }"),
            vec![],
            "bad.toml: flow.f.cc.phi: \"reno\" has no parameter \"phi\"",
        ),
        (with("warmup = \"500ms\"", "warmup = \"5s\""), vec![], "bad.toml: sim.warmup: must be shorter than sim.duration"),
        (with("[sim]", "[smi]"), vec![], "bad.toml: smi: unknown key; did you mean \"sim\"?"),
        (
            with("seed = 3", "seed = 3\nwarm_up = \"1s\""),
            vec![],
            "bad.toml: sim.warm_up: unknown key; did you mean \"warmup\"? (valid keys here: ack_size, duration, mss, sample_interval, seed, serialization, warmup)",
        ),
        (
            with("buffer = \"20pkt\"", "buffer = \"100B\""),
            vec![],
            "bad.toml: link.bottleneck.buffer: 100 bytes cannot hold one 1500-byte packet",
        ),
        (
            with("min = \"3pkt\", max = \"9pkt\"", "min = \"9pkt\", max = \"3pkt\""),
            vec![],
            "bad.toml: link.wifi{i}.queue.max: the maximum threshold",
        ),
        (
            with("queue = { kind = \"red\"", "queue = { kind = \"redd\""),
            vec![],
            "bad.toml: link.wifi{i}.queue.kind: unknown queue kind \"redd\"; did you mean \"red\"?",
        ),
        (with("name = \"wifi{i}\"", "name = \"wifi\""), vec![], "bad.toml: link.wifi.name: a counted link needs `{i}`"),
        (with("seed = 3", "seed = -3"), vec![], "bad.toml: sim.seed: expected a non-negative integer, got -3"),
        (with("seed = 3", "seed = \"three\""), vec![], "bad.toml: sim.seed: expected a non-negative integer, got a string"),
        (
            with("start = \"100ms\"", "start = \"100ms\"\nstop = \"50ms\""),
            vec![],
            "bad.toml: flow.f.stop: stops at 50ms, not after it starts",
        ),
        (
            with("[[flow]]", "[[flow]]\nname = \"g\"\npaths = [[\"bottleneck\"]]\n[[flow]]"),
            vec![("flow.g.name", "\"f.0\"")],
            "bad.toml: flow.f.0.name: two flows are named \"f.0\"",
        ),
        (with("duration = \"2s\"", "duration = \"2s\"\nduration = \"3s\""), vec![], "bad.toml: not valid TOML"),
        (GOOD.to_string(), vec![("link.wan.rate", "1Mbps")], "bad.toml: --set link.wan.rate: no link named \"wan\""),
        (GOOD.to_string(), vec![("sim.duration.x", "1")], "bad.toml: --set sim.duration.x: "),
        (GOOD.to_string(), vec![("sim.duration", "0s")], "bad.toml: sim.duration: must be longer than zero"),
        (
            GOOD.to_string(),
            vec![("link.bottleneck.loss", "1.5")],
            "bad.toml: link.bottleneck.loss: expected a probability in [0, 1], got 1.5",
        ),
        (
            GOOD.to_string(),
            vec![("link.bottleneck.events", "[{ at = \"1s\", state = \"off\" }]")],
            "bad.toml: link.bottleneck.events[0].state: expected \"up\" or \"down\"",
        ),
        (GOOD.to_string(), vec![("flow.f.paths", "[[\"bottleneck\"], []]")], "bad.toml: flow.f.paths[1]: a path crosses at least one link"),
        (GOOD.to_string(), vec![("tcp.initial_ssthresh", "0")], "bad.toml: tcp.initial_ssthresh: expected \"inf\" or a number of packets"),
        (GOOD.to_string(), vec![("tcp.min_ssthresh", "0.5")], "bad.toml: tcp.min_ssthresh: expected a number of packets ≥ 1, got 0.5"),
        (
            GOOD.to_string(),
            vec![("tcp.profile", "\"bsd\"")],
            "bad.toml: tcp.profile: unknown profile \"bsd\" (valid: linux, linux-6, htsim, ns2-sack, newreno)",
        ),
        (
            GOOD.to_string(),
            vec![("tcp.sack", "false")],
            "bad.toml: tcp.sack: RACK needs SACK: set sack = true, or rack = false (profile \"linux\")",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.tcp", "{ profile = \"newreno\", tlp = true }")],
            "bad.toml: flow.f.tcp.tlp: tail loss probes need RACK: set rack = true, or tlp = false (profile \"newreno\")",
        ),
        (
            GOOD.to_string(),
            vec![("tcp.profile", "\"linux-6\""), ("tcp.ack_latency_p99", "\"10us\"")],
            "bad.toml: tcp.ack_latency_p99: must be at least ack_latency_median (50us), got 10us (profile \"linux-6\")",
        ),
        (
            GOOD.to_string(),
            vec![("tcp.profile", "\"linux-6\""), ("tcp.ack_latency_p99", "\"40ms\"")],
            "bad.toml: tcp.ack_latency_p99: a receiver's ACK never waits past its delayed-ACK timer: must be below delayed_ack_timeout (40ms), got 40ms (profile \"linux-6\")",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.tcp", "{ profile = \"linux-6\", delayed_ack = false }")],
            "bad.toml: flow.f.tcp.delayed_ack: a receiver's ACK waits for its reader only with delayed ACKs: set delayed_ack = true, or ack_latency_median and ack_latency_p99 to \"0s\" (profile \"linux-6\")",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.tcp", "{ profile = \"linux-6\", ack_latency_median = \"0s\" }")],
            "bad.toml: flow.f.tcp.ack_latency_median: must be above zero with ack_latency_p99 (1200us), or both \"0s\" for no ACK latency (profile \"linux-6\")",
        ),
        (GOOD.to_string(), vec![("tcp.initial_rto", "\"0s\"")], "bad.toml: tcp.initial_rto: must be at least 1us, got 0"),
        (GOOD.to_string(), vec![("tcp.initial_rto", "\"1e-13s\"")], "bad.toml: tcp.initial_rto: must be at least 1us"),
        (GOOD.to_string(), vec![("tcp.max_rto", "\"100ms\"")], "bad.toml: tcp.max_rto: must be at least min_rto (250ms), got 100ms"),
        (
            GOOD.to_string(),
            vec![("flow.f.tcp", "{ max_rto = \"100ms\" }")],
            "bad.toml: flow.f.tcp.max_rto: must be at least min_rto (250ms), got 100ms (profile \"linux\")",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.tcp.initial_cwnd", "1e9")],
            "bad.toml: flow.f.tcp.initial_cwnd: at most 1000000 packets, got 1000000000",
        ),
        (GOOD.to_string(), vec![("sim.sample_interval", "\"1ps\"")], "bad.toml: sim.sample_interval: 1ps over 2s for 3 subflows makes"),
        (
            GOOD.to_string(),
            vec![("sim.serialization", "\"ns2\"")],
            "bad.toml: sim.serialization: unknown serialization \"ns2\" (valid: exact, htsim)",
        ),
        (GOOD.to_string(), vec![("tcp.recovery", "\"prr2\"")], "bad.toml: tcp.recovery: unknown recovery \"prr2\"; did you mean \"prr\"?"),
        (GOOD.to_string(), vec![("tcp.jitter", "5")], "bad.toml: tcp.jitter: "),
        (GOOD.to_string(), vec![("tcp.syn_size", "\"2pkt\"")], "bad.toml: tcp.syn_size: expected a size in bytes"),
        (
            GOOD.to_string(),
            vec![("flow.f.cc", "lai")],
            "bad.toml: flow.f.cc: unknown algorithm \"lai\"; did you mean \"lia\"? (valid: reno, mult-tcp, uncoupled, coupled, semicoupled-phi",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.cc", "{ algorithm = \"semicoupled-phi\", phi = 2.5 }")],
            "bad.toml: flow.f.cc.phi: expected φ in [0, 2], got 2.5",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.cc", "{ algorithm = \"generalized\", beta = -1 }")],
            "bad.toml: flow.f.cc.beta: expected β ≥ 0, got -1",
        ),
        (
            GOOD.to_string(),
            vec![("flow.f.cc", "{ algorithm = \"generalized\", n = 0.5 }")],
            "bad.toml: flow.f.cc.n: expected n ≥ 1 or \"inf\", got 0.5",
        ),
        (GOOD.to_string(), vec![("flow.f.cc", "{ algorithm = \"uncoupled\", a = 0 }")], "bad.toml: flow.f.cc.a: expected a > 0, got 0"),
        (
            GOOD.to_string(),
            vec![("flow.f.cc", "{ algorithm = \"lia\", phi = 1 }")],
            "bad.toml: flow.f.cc.phi: \"lia\" has no parameter \"phi\" (it takes none)",
        ),
        (GOOD.to_string(), vec![("flow.f.cc", "mult-tcp")], "bad.toml: flow.f.cc.n: missing; mult-tcp needs n"),
        (
            GOOD.to_string(),
            vec![("flow.f.receive_buffer", "\"100B\"")],
            "bad.toml: flow.f.receive_buffer: must hold at least one 1500-byte packet",
        ),
    ];
    for (text, sets, expected) in cases {
        let got = error(&text, &sets);
        assert!(got.starts_with(expected), "expected an error starting with\n  {expected}\ngot\n  {got}");
    }
}

#[test]
fn instant_acks_take_no_reverse_path_and_shorten_the_fluid_round_trip() {
    let e = error(&with("tcp = { delayed_ack = true }", "tcp = { instant_acks = true }\nreverse_paths = [[\"bottleneck\"]]"), &[]);
    assert_eq!(
        e,
        "bad.toml: flow.f.reverse_paths: ACKs that arrive at once (tcp.instant_acks = true) cross no link: remove reverse_paths, or set instant_acks = false"
    );
    // The fluid model's propagation RTT: the data's way alone (1 ms + 5 ms), not twice it.
    let rtt = |sets: &[(String, String)]| {
        let s = load_text("good.toml", GOOD, sets).unwrap_or_else(|e| panic!("{e}"));
        s.build_fluid().unwrap_or_else(|e| panic!("{e}")).network.propagation_rtt(0, 0)
    };
    assert!((rtt(&[]) - 0.012).abs() < 1e-12, "{}", rtt(&[]));
    let instant = rtt(&[("tcp.instant_acks".into(), "true".into())]);
    assert!((instant - 0.006).abs() < 1e-12, "{instant}");
}

#[test]
fn a_missing_file_is_named() {
    let err = topologies::load(std::path::Path::new("no/such/file.toml"), &[]).unwrap_err();
    assert!(err.to_string().starts_with("no/such/file.toml: cannot read the file"), "{err}");
}

/// The TOML files of the repository's directory `dir`, sorted.
fn shipped(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(dir);
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    files
}

#[test]
fn every_shipped_scenario_runs_a_short_variant() {
    for file in shipped("scenarios") {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.display().to_string();
        let quick = |sets: &[(&str, &str)]| sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
        let model = topologies::load_experiment_text(&name, &text, &[]).unwrap_or_else(|e| panic!("{e}"));
        match model {
            topologies::Experiment::Packet(_) => {
                // 3 s, unless the file's own `[quick]` variant says otherwise.
                let mut sets = quick(&[("sim.duration", "3s"), ("sim.warmup", "1s")]);
                sets.extend(topologies::quick_sets(&file).unwrap_or_else(|e| panic!("{e}")));
                let scenario = topologies::load(&file, &sets).unwrap_or_else(|e| panic!("{e}"));
                let out = scenario.build().unwrap_or_else(|e| panic!("{e}")).run();
                assert!(out.flows.iter().map(|f| f.bytes_delivered).sum::<u64>() > 0, "{name}: nothing delivered");
                within_physics(&name, &out, scenario.sim.warmup.as_secs_f64());
            }
            topologies::Experiment::Aimd(_) => {
                let sets = quick(&[("aimd.events", "1000"), ("aimd.warmup_events", "10")]);
                let Ok(topologies::Experiment::Aimd(s)) = topologies::load_experiment(&file, &sets) else { panic!("{name}") };
                let report = aimd::run(&s.model).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(report.utilization(s.model.capacity) > 0.5, "{name}");
            }
        }
    }
}

const AIMD: &str = r#"
[meta]
name = "aimd"

[aimd]
policy = "rate-independent"
events = 1000

[[aimd.group]]
name = "a"
count = 2
weight = 0.25

[[aimd.group]]
name = "b"
count = 3
beta = 0.8
"#;

#[test]
fn an_aimd_scenario_reads_into_the_model_with_its_errors_named() {
    let e = topologies::load_experiment_text("m.toml", AIMD, &[]).unwrap();
    let topologies::Experiment::Aimd(s) = e else { panic!("an [aimd] file is an AIMD scenario") };
    assert_eq!(s.model.connections.len(), 5);
    assert_eq!((s.model.connections[1].weight, s.model.connections[4].beta), (0.25, 0.8));
    assert_eq!((s.group_of(1), s.group_of(2)), ("a", "b"));
    let err = |sets: &[(&str, &str)], text: &str| {
        let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        topologies::load_experiment_text("m.toml", text, &sets).unwrap_err().to_string()
    };
    assert_eq!(
        err(&[("aimd.group.b.beta", "1.5")], AIMD),
        "m.toml: aimd.group.b.beta: expected a number strictly between 0 and 1, got 1.5"
    );
    assert!(err(&[("aimd.policy", "\"beatdwn\"")], AIMD).contains("did you mean \"beatdown\""));
    assert!(err(&[("aimd.group.a.etaa", "2")], AIMD).contains("aimd.group.a.etaa"));
    assert!(err(&[("aimd.group.b.count", "0")], AIMD).contains("aimd.group.b.count"));
    assert!(err(&[], &AIMD.replace("[[aimd.group]]\nname = \"b\"", "[[aimd.group]]\nname = \"a\"")).contains("names two groups"));
    assert!(err(&[], &format!("{AIMD}\n[[link]]\nname = \"l\"")).contains("no links, flows or [tcp]"));
    assert!(err(&[], "[aimd]\npolicy = \"all\"").contains("aimd.group: missing"));
    assert!(err(&[("sim.duration", "10s")], AIMD).contains("sim.duration"));
}

#[test]
fn red_settings_out_of_range_are_refused_naming_the_key() {
    let red = |settings: &str| {
        error(
            &with("queue = { kind = \"red\", min = \"3pkt\", max = \"9pkt\" }", &format!("queue = {{ kind = \"red\", {settings} }}")),
            &[],
        )
    };
    let key = "link.wifi{i}.queue";
    for (settings, expected) in [
        ("min = \"3pkt\", max = \"9pkt\", weight = 0", format!("{key}.weight: expected a weight above 0 and at most 1, got 0")),
        ("min = \"3pkt\", max = \"9pkt\", weight = 1.5", format!("{key}.weight: expected a probability in [0, 1], got 1.5")),
        ("min = \"3pkt\", max = \"9pkt\", weight = -0.1", format!("{key}.weight: expected a probability in [0, 1], got -0.1")),
        ("min = \"3pkt\", max = \"9pkt\", max_p = 0", format!("{key}.max_p: expected a probability above 0 and at most 1, got 0")),
        ("min = \"3pkt\", max = \"9pkt\", max_p = 2", format!("{key}.max_p: expected a probability in [0, 1], got 2")),
        ("min = \"3pkt\", max = \"9pkt\", variant = \"ns3\"", format!("{key}.variant: unknown variant \"ns3\"")),
        ("min = \"3pkt\", max = \"9pkt\", mode = \"bytes\", variant = \"floyd\"", format!("{key}.mode: only ns-2's RED has it")),
        ("min = \"3pkt\", max = \"9pkt\", rng = \"ns2\", variant = \"floyd\"", format!("{key}.rng: only ns-2's RED has it")),
        ("min = \"3pkt\", max = \"9pkt\", mean_pktsize = \"0B\"", format!("{key}.mean_pktsize: expected a whole number of bytes")),
    ] {
        let e = red(settings);
        assert!(e.contains(&expected), "{settings}: {e}");
    }
    // Thresholds are compared once the link's rate turns times into bytes, at build.
    for (min, max) in [("9pkt", "9pkt"), ("9pkt", "3pkt"), ("20ms", "9pkt")] {
        let e = red(&format!("min = \"{min}\", max = \"{max}\", variant = \"ns2\""));
        assert!(e.contains(&format!("{key}.max: the maximum threshold")), "{min} {max}: {e}");
    }
}

#[test]
fn every_shipped_sweep_reads_and_every_point_builds() {
    for file in shipped("sweeps") {
        let sweep = topologies::sweep::Sweep::load(&file).unwrap_or_else(|e| panic!("{e}"));
        // One replicate of every point: the points differ in their values, replicates only in seeds.
        for run in sweep.runs().iter().filter(|r| r.replicate == 0) {
            match sweep.scenario(run).unwrap_or_else(|e| panic!("{}: point {}: {e}", file.display(), run.point)) {
                topologies::Experiment::Packet(s) => {
                    s.build().unwrap_or_else(|e| panic!("{}: point {}: {e}", file.display(), run.point));
                }
                topologies::Experiment::Aimd(_) => {}
            }
        }
    }
}

#[test]
fn a_level_refused_at_its_own_key_names_the_key_once() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let text = "scenario = \"parallel-red.toml\"\n[grid]\n\"link.bottleneck.queue.max_p\" = [0.1, 0.0]\n";
    let e = topologies::sweep::Sweep::from_text("s.toml", text, &dir).map(|_| ()).expect_err("max_p = 0").to_string();
    assert_eq!(e, "s.toml: link.bottleneck.queue.max_p: expected a probability above 0 and at most 1, got 0");
}

#[test]
fn sweep_sizes_are_limited_before_anything_is_allocated() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let error = |text: &str| topologies::sweep::Sweep::from_text("s.toml", text, &dir).map(|_| ()).expect_err("too large").to_string();
    let e = error("scenario = \"dumbbell.toml\"\nreplicates = 1000000000\n");
    assert!(e.starts_with("s.toml: replicates: expected 1 to 10000000 replicates, got 1000000000"), "{e}");
    let levels = |n: usize| (0..n).map(|i| format!("{}", 1 + i)).collect::<Vec<_>>().join(", ");
    let grid = format!(
        "scenario = \"dumbbell.toml\"\n[grid]\n\"sim.seed\" = [{}]\n\"link.bottleneck.loss\" = [{}]\n\"flow.near.count\" = [{}]\n",
        levels(200),
        (0..200).map(|i| format!("{}", i as f64 / 1000.0)).collect::<Vec<_>>().join(", "),
        levels(30)
    );
    let e = error(&grid);
    assert!(e.starts_with("s.toml: grid: the factors' levels (200 × 200 × 30) multiply to more than 1000000 points"), "{e}");
    let e = error(&format!("scenario = \"dumbbell.toml\"\nreplicates = 100000\n[grid]\n\"sim.seed\" = [{}]\n", levels(200)));
    assert!(e.starts_with("s.toml: replicates: 200 points × 100000 replicates is more than 10000000 runs"), "{e}");
}

/// The measured interval's edges: a link going down at the end of the warm-up, a link
/// saturated across it, and a flow stopping while data it sent is still arriving.
#[test]
fn reported_values_stay_within_physics() {
    let text = r#"
[sim]
duration = "6s"
warmup = "2s"

[tcp]
profile = "newreno"

[[link]]
name = "down"
rate = "10Mbps"
delay = "20ms"
buffer = "200pkt"
events = [{ at = "2s", state = "down" }, { at = "3s", state = "up" }]

[[link]]
name = "busy"
rate = "10Mbps"
delay = "20ms"
buffer = "400pkt"

[[flow]]
name = "a"
paths = [["down"]]

[[flow]]
name = "b"
paths = [["busy"]]

[[link]]
name = "alone"
rate = "10Mbps"
delay = "20ms"
buffer = "1000pkt"

[[flow]]
name = "stopping"
paths = [["alone"]]
stop = "3s"
"#;
    let out = load_text("physics.toml", text, &[]).unwrap().build().unwrap().run();
    within_physics("physics.toml", &out, 0.0);
    let down = out.links.iter().find(|l| l.link == "down").unwrap();
    assert!(down.down_drops > 0 && down.loss_rate > 0.0, "the queue was dropped: {down:?}");
    // The stopping flow's backlog (its slow start overfilled a 1 000-packet buffer) is still
    // recovered after its stop: counted in bytes delivered (14.2 Mbit since the warm-up), not
    // in its goodput over [2 s, 3 s] (once 14.2 Mb/s on this 10 Mb/s link).
    let stopping = out.flows.iter().find(|f| &*f.flow == "stopping").unwrap();
    assert!(stopping.bytes_delivered as f64 * 8.0 > 10e6, "{stopping:?}");
}

/// A link saturated across the warm-up: the segment it was serializing then is the warm-up's,
/// so neither goodput nor utilization exceeds the link (counted whole, that segment made a
/// 1 Gb/s flow 1.000005 Gb/s).
#[test]
fn a_saturated_link_is_never_exceeded_at_the_warm_up() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/random-loss.toml");
    let sets: Vec<(String, String)> = [("sim.duration", "1s"), ("sim.warmup", "200ms"), ("link.path.loss", "0")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let out = topologies::load(&file, &sets).unwrap().build().unwrap().run();
    let (flow, link) = (&out.flows[0], &out.links[0]);
    assert_eq!(link.rate_bps, 1e9);
    assert!(flow.goodput_bps <= 1e9 && out.subflows[0].goodput_bps <= 1e9, "{flow:?}\n{:?}", out.subflows[0]);
    assert!(flow.bytes_delivered * 8 <= 800_000_000, "{flow:?}");
    assert!(link.utilization <= 1.0, "{link:?}");
    // Saturated all the while: short of the link by less than a segment in the 0.8 s.
    assert!(flow.goodput_bps > 1e9 - 2.0 * 1500.0 * 8.0 / 0.8, "{flow:?}");
    within_physics("random-loss.toml", &out, 0.0);
}

#[test]
fn a_capture_table_is_checked_by_key() {
    let base = format!("{GOOD}\n[[capture]]\n");
    let cases = [
        ("link = \"bottlenek\"\n", "capture[0].link[0]: no link named \"bottlenek\"; did you mean \"bottleneck\"?"),
        ("link = 3\n", "capture[0].link: expected a link name or an array of them, got an integer"),
        ("link = \"bottleneck\"\nflows = [\"x\"]\n", "capture[0].flows[0]: no flow named \"x\""),
        ("link = \"bottleneck\"\nfrom = \"3s\"\n", "capture[0].until: must be after `from`"),
        ("link = \"bottleneck\"\nlnk = 1\n", "capture[0].lnk: unknown key"),
        ("flows = [\"f\"]\n", "capture[0].link: missing"),
    ];
    for (table, expected) in cases {
        let err = error(&format!("{base}{table}"), &[]);
        assert!(err.contains(expected), "{table}: {err}");
    }
    // A counted flow's group name stands for its copies; a valid table builds.
    let s = load_text("good.toml", &format!("{base}link = [\"bottleneck\", \"wifi0\"]\nflows = [\"f\"]\nuntil = \"1s\"\n"), &[]).unwrap();
    assert_eq!(s.captures[0].links, ["bottleneck", "wifi0"]);
    s.build().expect("the capture builds");
}

#[test]
fn a_generator_that_draws_no_flow_is_checked_as_one_that_does() {
    // One arrival in 100 s on average: a 1 s run draws none (seed 1 here).
    let text = |cc: &str, path: &str| {
        format!(
            "[sim]\nduration = \"1s\"\nseed = 1\n[[link]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nbuffer = \"20pkt\"\n\
             [[flow]]\nname = \"f\"\npaths = [[\"l\"]]\n\
             [[traffic]]\nname = \"t\"\nkind = \"poisson\"\ncc = {cc}\npaths = [[\"{path}\"]]\ninterval = \"100s\"\nsize = \"70KB\"\n"
        )
    };
    // A window law is resolved when the file is read, paths when the scenario is built.
    let build = |cc: &str, path: &str| {
        let s = topologies::load_text("g.toml", &text(cc, path), &[]).map_err(|e| e.to_string())?;
        assert_eq!(s.flows.len(), 1, "the generator drew no flow");
        s.build().map(|_| ()).map_err(|e| e.to_string())
    };
    build("\"reno\"", "l").unwrap();
    let e = build("\"no-such-law\"", "l").unwrap_err();
    assert!(e.starts_with("g.toml: traffic.t.cc: "), "{e}");
    let e = build("\"{i}\"", "l").unwrap_err();
    assert!(e.starts_with("g.toml: traffic.t.cc: "), "{e}");
    let e = build("\"reno\"", "no-such-link").unwrap_err();
    assert!(e.starts_with("g.toml: traffic.t.paths[0][0]: no link named \"no-such-link\""), "{e}");
    let e = build("{ algorithm = \"lia\", nonsense = 1 }", "l").unwrap_err();
    assert!(e.starts_with("g.toml: traffic.t.cc.nonsense"), "{e}");
}
