//! The papers' small networks, each a handful of links and named routes.

use super::{FatTree, one};
use crate::model::LinkModel;
use crate::read::LinkDefaults;

/// What a generator produces: links, named routes, and host routing if it has hosts.
pub(super) type Generated = (Vec<LinkModel>, Vec<(String, Vec<Vec<String>>)>, Option<FatTree>);

fn route(name: impl Into<String>, paths: &[&[&str]]) -> (String, Vec<Vec<String>>) {
    (name.into(), paths.iter().map(|p| p.iter().map(|l| l.to_string()).collect()).collect())
}

/// A dumbbell: `hosts` senders, each behind its own access link `access{i}`, share one link
/// `bottleneck`. Route `h{i}` is host i's path.
pub(super) fn dumbbell(d: &LinkDefaults, hosts: u64, a: &LinkDefaults) -> Generated {
    let mut links = vec![d.link("bottleneck".into(), "bottleneck")];
    let mut routes = Vec::new();
    for i in 0..hosts {
        let name = format!("access{i}");
        routes.push(route(format!("h{i}"), &[&[&name, "bottleneck"]]));
        links.push(a.link(name, "access"));
    }
    (links, routes, None)
}

/// Two links `l1` and `l2` (seed 000 Fig. 2; seed 002 scenarios A and C; seed 001 Figs. 2, 9
/// and 10). Routes: `l1`, `l2` (single-path users) and `both` (multipath users).
pub(super) fn two_link(d: &LinkDefaults) -> Generated {
    let links = vec![d.link("l1".into(), "l1"), d.link("l2".into(), "l2")];
    let routes = vec![route("l1", &[&["l1"]]), route("l2", &[&["l2"]]), route("both", &[&["l1"], &["l2"]])];
    (links, routes, None)
}

/// A ring of `size` links `l0`, `l1`, …; route `r{i}` has two paths, over `l{i}` and
/// `l{i+1}` (seed 001 Fig. 4: five links, each crossed by two two-path flows).
pub(super) fn torus(d: &LinkDefaults, size: u64) -> Generated {
    let links = (0..size).map(|i| d.link(format!("l{i}"), "ring")).collect();
    let routes = (0..size).map(|i| (format!("r{i}"), vec![one(&format!("l{i}")), one(&format!("l{}", (i + 1) % size))])).collect();
    (links, routes, None)
}

/// Seed 002 scenario B (Fig. 3): the access links of ISPs `x`, `y`, `z` and `t`, data flowing
/// from the servers to the users. Blue users download from Z over X (route `blue`, path z>x)
/// and over Y, whose traffic enters through T (z>t>y); red users download from T over Y (route
/// `red`, t>y), and once upgraded to multipath also over X (`red-multipath`, t>y and t>x). With
/// red users on Y alone this is scenario C (blue multipath over X and T, red single-path on T),
/// as the paper says, and the aggregate is bounded by the cut {X, T}: the paper's 63 Mb/s.
pub(super) fn isp(d: &LinkDefaults) -> Generated {
    let links = ["x", "y", "z", "t"].iter().map(|n| d.link(n.to_string(), "isp")).collect();
    let routes = vec![
        route("blue", &[&["z", "x"], &["z", "t", "y"]]),
        route("red", &[&["t", "y"]]),
        route("red-multipath", &[&["t", "y"], &["t", "x"]]),
    ];
    (links, routes, None)
}

/// Seed 001 Fig. 12: one link `bottleneck` behind access links `a0`, `a1`, `a2`. Route
/// `multipath` has two paths (over `a1` and `a2`), route `single` one (over `a0`); give the
/// access links delays to make the paths' round-trip times differ.
pub(super) fn shared_bottleneck(d: &LinkDefaults, a: &LinkDefaults) -> Generated {
    let mut links = vec![d.link("bottleneck".into(), "bottleneck")];
    links.extend(["a0", "a1", "a2"].iter().map(|n| a.link(n.to_string(), "access")));
    let routes = vec![route("multipath", &[&["a1", "bottleneck"], &["a2", "bottleneck"]]), route("single", &[&["a0", "bottleneck"]])];
    (links, routes, None)
}
