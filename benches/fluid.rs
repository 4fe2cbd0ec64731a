//! The fluid model's cost: one point of a sweep on the two-link network (read, expand, build
//! the fluid network, solve the equilibrium with its uniqueness check), and seed 002's FatTree
//! (k = 8, 128 hosts × 8 LIA subflows, at propagation RTTs and with standing queues; OLIA, the
//! scenario's own law, at propagation RTTs). docs/performance.md, "The fluid solver".

use criterion::{Criterion, criterion_group, criterion_main};

/// Two links, five LIA users over both and five TCP users on each.
const TWO_LINK: &str = "[sim]\nduration = \"60s\"\n\
    [topology]\nkind = \"two-link\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\nbuffer = \"100pkt\"\n\
    [topology.links.l2]\nrate = \"5Mbps\"\n\
    [[flow]]\nname = \"mp\"\ncount = 5\ncc = \"lia\"\nroute = \"both\"\n\
    [[flow]]\nname = \"a\"\ncount = 5\nroute = \"l1\"\n\
    [[flow]]\nname = \"b\"\ncount = 5\nroute = \"l2\"\n";

fn point(text: &str) -> fluid::Equilibrium {
    let system = topologies::load_text("two-link.toml", text, &[]).and_then(|s| s.build_fluid()).expect("the scenario builds");
    fluid::equilibrium(&system.network, &system.options).expect("it has an equilibrium")
}

fn fluid(c: &mut Criterion) {
    let mut group = c.benchmark_group("fluid");
    group.bench_function("two_link_point", |b| b.iter(|| point(TWO_LINK)));
    group.sample_size(10);
    for (name, cc, queueing) in
        [("fat_tree_lia", "lia", "none"), ("fat_tree_lia_queues", "lia", "standing"), ("fat_tree_olia", "olia", "none")]
    {
        let sets = [("traffic.perm.cc".to_string(), cc.to_string()), ("fluid.queueing".to_string(), queueing.to_string())];
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/seed002-fig13.toml");
        let fat_tree = topologies::load(std::path::Path::new(path), &sets).and_then(|s| s.build_fluid()).expect("the FatTree builds");
        group.bench_function(name, |b| b.iter(|| fluid::equilibrium(&fat_tree.network, &fat_tree.options).expect("it converges")));
    }
    group.finish();
}

criterion_group!(benches, fluid);
criterion_main!(benches);
