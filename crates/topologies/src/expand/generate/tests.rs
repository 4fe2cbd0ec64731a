use super::*;
use crate::load_text;
use crate::model::QueueModel;
use crate::model::Scenario;
use crate::read::{PathChoice, Subflows};
use crate::units::{BufferValue, RateValue, SizeValue};
use sim_core::rng::stream;

fn scenario(body: &str) -> Scenario {
    load_text("t.toml", &format!("[sim]\nduration = \"10s\"\nseed = 7\n{body}"), &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn error(body: &str) -> String {
    load_text("t.toml", &format!("[sim]\nduration = \"10s\"\n{body}"), &[]).map(|_| ()).unwrap_err().to_string()
}

const FAT_TREE: &str = "[topology]\nkind = \"fat-tree\"\nk = 8\nrate = \"100Mbps\"\ndelay = \"10us\"\nbuffer = \"100pkt\"\n";

#[test]
fn the_k8_fat_tree_has_128_hosts_80_switches_and_equal_cost_paths() {
    let s = scenario(&format!("{FAT_TREE}[[flow]]\nname = \"f\"\nfrom = \"h0\"\nto = \"h127\"\n"));
    // 128 hosts × 2 directions + 8 pods × 16 edge–aggregation pairs × 2 + 8 × 16 aggregation–core pairs × 2.
    assert_eq!(s.links.len(), 256 + 256 + 256);
    let mut switches: Vec<&str> = s.links.iter().flat_map(|l| l.name.split('>')).filter(|n| !n.starts_with('h')).collect();
    switches.sort_unstable();
    switches.dedup();
    assert_eq!(switches.len(), 80);
    // Between pods: one path per core switch, (k/2)² = 16, each of six links.
    assert_eq!(s.flows[0].paths.len(), 16);
    assert!(s.flows[0].paths.iter().all(|p| p.len() == 6 && p[0] == "h0>e0_0" && p[5] == "e7_3>h127"));
    let mut cores: Vec<&str> = s.flows[0].paths.iter().map(|p| p[2].split('>').nth(1).expect("core")).collect();
    cores.sort_unstable();
    cores.dedup();
    assert_eq!(cores.len(), 16, "every core switch once");
    let tree = FatTree { k: 8 };
    assert_eq!(tree.paths(0, 1).len(), 1, "same edge switch");
    assert_eq!(tree.paths(0, 4).len(), 4, "same pod: one path per aggregation switch");
    assert!(tree.paths(0, 4).iter().all(|p| p.len() == 4));
    // Every link of every path exists.
    for p in tree.paths(5, 100).iter().chain(&tree.paths(0, 4)) {
        for l in p {
            assert!(s.links.iter().any(|m| &m.name == l), "{l}");
        }
    }
}

#[test]
fn oversubscription_slows_the_links_above_the_edge() {
    let s = scenario(&format!("{FAT_TREE}oversubscription = 4\n[[flow]]\nname = \"f\"\nfrom = \"h0\"\nto = \"h9\"\n"));
    let rate = |name: &str| s.links.iter().find(|l| l.name == name).expect("link").rate;
    assert_eq!(rate("h0>e0_0"), RateValue::Bps(100e6));
    assert_eq!(rate("e0_0>a0_0"), RateValue::Bps(25e6));
    assert_eq!(rate("a0_0>c0"), RateValue::Bps(25e6));
    assert_eq!(s.links.iter().filter(|l| l.group == "core").count(), 256);
}

#[test]
fn a_nic_buffer_is_the_hosts_uplinks_own_and_drop_tail() {
    let queue = "queue = { kind = \"random-drop\", zone = \"3pkt\", probability = 0.1 }\n";
    let flow = "[[flow]]\nname = \"f\"\nfrom = \"h0\"\nto = \"h9\"\n";
    let s = scenario(&format!("{FAT_TREE}{queue}nic_buffer = \"10000pkt\"\n{flow}"));
    let link = |name: &str| s.links.iter().find(|l| l.name == name).expect("link");
    assert_eq!(link("h0>e0_0").buffer, BufferValue::Size(SizeValue::Packets(10_000.0)));
    assert_eq!(link("h0>e0_0").queue, QueueModel::DropTail);
    for other in ["e0_0>h0", "e0_0>a0_0", "a0_0>c0", "c0>a0_0"] {
        assert_eq!(link(other).buffer, BufferValue::Size(SizeValue::Packets(100.0)), "{other}");
        assert!(matches!(link(other).queue, QueueModel::RandomDrop { .. }), "{other}");
    }
    // Without it, every link has the topology's buffer and queue.
    let s = scenario(&format!("{FAT_TREE}{queue}{flow}"));
    assert!(s.links.iter().all(|l| l.buffer == BufferValue::Size(SizeValue::Packets(100.0)) && l.queue != QueueModel::DropTail));
}

#[test]
fn a_round_robin_nic_serves_the_hosts_uplinks_alone() {
    let flow = "[[flow]]\nname = \"f\"\nfrom = \"h0\"\nto = \"h9\"\n";
    let s = scenario(&format!("{FAT_TREE}nic_service = \"round-robin\"\n{flow}"));
    let uplinks = s.links.iter().filter(|l| l.name.starts_with('h'));
    assert!(uplinks.clone().count() == 128 && uplinks.clone().all(|l| l.round_robin));
    assert!(s.links.iter().filter(|l| !l.name.starts_with('h')).all(|l| !l.round_robin));
    assert!(scenario(&format!("{FAT_TREE}nic_service = \"fifo\"\n{flow}")).links.iter().all(|l| !l.round_robin));
    assert!(scenario(&format!("{FAT_TREE}{flow}")).links.iter().all(|l| !l.round_robin), "first come, first served unless set");
    let e = error(&format!("{FAT_TREE}nic_service = \"fair\"\n{flow}"));
    assert!(e.contains("t.toml") && e.contains("topology.nic_service") && e.contains("fifo, round-robin"), "{e}");
}

#[test]
fn subflows_take_distinct_random_paths_decided_by_the_seed() {
    let body = format!("{FAT_TREE}[[flow]]\nname = \"mp\"\ncount = 4\ncc = \"lia\"\nfrom = \"h{{i}}\"\nto = \"h100\"\nsubflows = 8\n");
    let a = scenario(&body);
    for f in &a.flows {
        let mut p = (*f.paths).clone();
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 8, "distinct while there are enough paths");
    }
    assert_ne!(a.flows[0].paths, a.flows[1].paths, "each flow draws its own");
    let b = scenario(&body);
    assert_eq!(a.flows[2].paths, b.flows[2].paths, "the same seed, the same paths");
    let other = load_text("t.toml", &format!("[sim]\nduration = \"10s\"\nseed = 8\n{body}"), &[]).expect("valid");
    assert_ne!(a.flows[0].paths, other.flows[0].paths, "another seed, other paths");
    // More subflows than paths: all of them, then repeats.
    let route = vec![one("a"), one("b")];
    let distinct = Some(Subflows { count: 5, choice: PathChoice::Distinct });
    let chosen = choose_paths(&route, distinct, &mut stream(1, "x"));
    assert_eq!(chosen.len(), 5);
    assert!(chosen.contains(&one("a")) && chosen.contains(&one("b")));
}

#[test]
fn independent_draws_may_share_a_path_and_take_no_more_subflows_than_paths() {
    let route: Vec<Vec<String>> = (0..16).map(|i| one(&format!("p{i}"))).collect();
    let independent = |count| Some(Subflows { count, choice: PathChoice::Independent });
    // Four draws among 16 paths share one with probability 1 − (16·15·14·13)/16⁴ ≈ 0.33: over
    // 200 flows some do, where distinct draws never do.
    let mut shared = 0;
    for f in 0..200 {
        let mut chosen = choose_paths(&route, independent(4), &mut stream(1, &format!("f{f}")));
        assert_eq!(chosen.len(), 4);
        chosen.sort();
        chosen.dedup();
        shared += (chosen.len() < 4) as u32;
        let distinct = choose_paths(&route, Some(Subflows { count: 4, choice: PathChoice::Distinct }), &mut stream(1, &format!("f{f}")));
        assert!(distinct.iter().enumerate().all(|(i, p)| !distinct[..i].contains(p)));
    }
    assert!((40..95).contains(&shared), "{shared} of 200 flows share a path");
    // One path between hosts under the same edge switch: one subflow.
    assert_eq!(choose_paths(&route[..1], independent(4), &mut stream(1, "x")).len(), 1);
    // In a scenario, with `subflows`; without it, `path_choice` has nothing to draw.
    let body = |extra: &str| format!("{FAT_TREE}[[flow]]\nname = \"mp\"\ncc = \"lia\"\nfrom = \"h0\"\nto = \"h1\"\n{extra}");
    assert_eq!(scenario(&body("subflows = 4\npath_choice = \"independent\"\n")).flows[0].paths.len(), 1);
    assert_eq!(scenario(&body("subflows = 4\n")).flows[0].paths.len(), 4);
    assert_eq!(
        error(&body("path_choice = \"independent\"\n")),
        "t.toml: flow.mp.path_choice: draws the paths of `subflows`: set subflows too, or remove path_choice"
    );
}

#[test]
fn small_topologies_name_their_routes_and_links_can_be_changed_by_name() {
    let s = scenario(
        "[topology]\nkind = \"torus\"\nrate = \"1000pps\"\ndelay = \"50ms\"\nbuffer = \"100ms\"\n\
         [topology.links.l2]\nrate = \"250pps\"\n\
         [[flow]]\nname = \"f{i}\"\ncount = 5\ncc = \"lia\"\nroute = \"r{i}\"\n",
    );
    assert_eq!(s.links.len(), 5);
    assert_eq!(s.links[2].rate, RateValue::Pps(250.0));
    assert_eq!(s.links[1].rate, RateValue::Pps(1000.0));
    assert_eq!(*s.flows[4].paths, vec![one("l4"), one("l0")], "a ring");
    let isp = scenario(
        "[topology]\nkind = \"isp\"\nrate = \"100Mbps\"\ndelay = \"25ms\"\nbuffer = \"50pkt\"\n\
         [[flow]]\nname = \"red\"\ncc = \"lia\"\nroute = \"red-multipath\"\n",
    );
    assert_eq!(*isp.flows[0].paths, vec![vec!["t".to_string(), "y".into()], vec!["t".to_string(), "x".into()]]);
    let d = scenario(
        "[topology]\nkind = \"dumbbell\"\nhosts = 3\nrate = \"10Mbps\"\ndelay = \"10ms\"\nbuffer = \"50pkt\"\naccess_delay = \"1ms\"\n\
         [[flow]]\nname = \"f\"\ncount = 3\nroute = \"h{i}\"\n",
    );
    assert_eq!(*d.flows[2].paths, vec![vec!["access2".to_string(), "bottleneck".into()]]);
    assert_eq!(d.links[1].rate, RateValue::Bps(100e6), "access links ten times the bottleneck");
    // A generated topology and a written link together.
    let mixed = scenario(
        "[topology]\nkind = \"two-link\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nbuffer = \"50pkt\"\n\
         [[link]]\nname = \"extra\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nbuffer = \"10pkt\"\n\
         [[flow]]\nname = \"mp\"\ncc = \"lia\"\nroute = \"both\"\n[[flow]]\nname = \"sp\"\npaths = [[\"extra\"]]\n",
    );
    assert_eq!(mixed.links.len(), 3);
    mixed.build().expect("builds");
}

#[test]
fn generator_errors_name_the_key() {
    let torus = "[topology]\nkind = \"torus\"\nrate = \"1000pps\"\ndelay = \"50ms\"\nbuffer = \"100ms\"\n";
    assert_eq!(
        error("[topology]\nkind = \"fat-tre\"\n[[flow]]\nname = \"f\"\nroute = \"x\"\n"),
        "t.toml: topology.kind: unknown topology kind \"fat-tre\"; did you mean \"fat-tree\"? (valid: dumbbell, two-link, torus, isp, shared-bottleneck, fat-tree)"
    );
    assert_eq!(
        error(&format!("{torus}[topology.links.l9]\nrate = \"1pps\"\n[[flow]]\nname = \"f\"\nroute = \"r0\"\n")),
        "t.toml: topology.links.l9: no generated link named \"l9\"; did you mean \"l0\"? (links: l0, l1, l2, l3, l4)"
    );
    assert_eq!(
        error(&format!("{torus}[topology.links.l1]\nrate = 5\n[[flow]]\nname = \"f\"\nroute = \"r0\"\n")),
        "t.toml: topology.links.l1.rate: expected a rate with a unit (bps, Kbps, Mbps, Gbps, pps) such as \"100Mbps\", got \"5\""
    );
    assert!(
        error(&format!("{torus}[[flow]]\nname = \"f\"\nroute = \"r7\"\n"))
            .starts_with("t.toml: flow.f.route: the torus topology has no route \"r7\"")
    );
    assert_eq!(
        error(&format!("{FAT_TREE}[[flow]]\nname = \"f\"\nfrom = \"h0\"\nto = \"h128\"\n")),
        "t.toml: flow.f.to: no host \"h128\" (hosts are h0 … h127)"
    );
    assert_eq!(
        error(
            "[topology]\nkind = \"fat-tree\"\nk = 7\nrate = \"1Gbps\"\ndelay = \"1us\"\nbuffer = \"10pkt\"\n[[flow]]\nname = \"f\"\nfrom = \"h0\"\nto = \"h1\"\n"
        ),
        "t.toml: topology.k: expected an even number of ports from 2 to 48, got 7"
    );
    assert_eq!(
        error("[[link]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nbuffer = \"10pkt\"\n[[flow]]\nname = \"f\"\nroute = \"both\"\n"),
        "t.toml: flow.f.route: there is no [topology] generator to take it from; write `paths` instead"
    );
    assert_eq!(
        error(&format!("{torus}[[flow]]\nname = \"f\"\nroute = \"r0\"\npaths = [[\"l0\"]]\n")),
        "t.toml: flow.f.paths: give the paths one way: `paths`, `route`, or `from` and `to`"
    );
}

/// The copies of a template share one path list exactly when their paths cannot differ: no
/// `{i}` and no random choice of subflows.
#[test]
fn copies_share_their_paths_only_when_they_cannot_differ() {
    let shared = |s: &Scenario| std::sync::Arc::ptr_eq(&s.flows[0].paths, &s.flows[1].paths);
    let alike = scenario(&format!("{FAT_TREE}[[flow]]\nname = \"f\"\ncount = 3\nfrom = \"h0\"\nto = \"h127\"\n"));
    assert!(shared(&alike));
    assert_eq!(alike.flows[2].paths.len(), 16);
    let indexed = scenario(&format!("{FAT_TREE}[[flow]]\nname = \"f\"\ncount = 3\nfrom = \"h{{i}}\"\nto = \"h127\"\n"));
    assert!(!shared(&indexed));
    assert_ne!(indexed.flows[0].paths, indexed.flows[2].paths);
    let drawn = scenario(&format!("{FAT_TREE}[[flow]]\nname = \"f\"\ncount = 3\nfrom = \"h0\"\nto = \"h127\"\nsubflows = 4\n"));
    assert!(!shared(&drawn));
    assert_eq!(drawn.flows[1].paths.len(), 4);
}
