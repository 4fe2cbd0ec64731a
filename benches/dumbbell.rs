//! htsim's dumbbell D2 end to end, at 10, 100, 1 000 and 10 000 flows, ten simulated seconds (as htsim's runs)
//! each. Building the simulation is outside the timed part. Throughput is reported in delivered
//! data packets, so criterion's "elem/s" is delivered packets per second.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use equipoise_benches::d2;

fn dumbbell(c: &mut Criterion) {
    let mut group = c.benchmark_group("htsim_d2");
    group.sample_size(10);
    for &flows in &[10u64, 100, 1_000, 10_000] {
        let duration = "10s";
        let delivered = d2(flows, duration, "0s").run().stats.data_delivered;
        group.throughput(Throughput::Elements(delivered));
        group.bench_with_input(BenchmarkId::from_parameter(flows), &flows, |b, &n| {
            b.iter_batched(|| d2(n, duration, "0s"), |sim| sim.run(), BatchSize::LargeInput)
        });
    }
    group.finish();
}

/// One `linux`-profile flow whose slow start overshoots a 20 000-packet buffer at 1 Gb/s and
/// 100 ms RTT: thousands of segments lost at once, recovered with SACK and RACK. A SACK
/// scoreboard that scans its window per acknowledgement made this 20× slower (4.48 s against
/// 0.22 s for `equipoise run` of the same scenario).
const LARGE_WINDOW: &str = r#"
[sim]
duration = "20s"
seed = 1

[tcp]
profile = "linux"

[[link]]
name = "path"
rate = "1Gbps"
delay = "50ms"
buffer = "20000pkt"
loss = 0.00001

[[flow]]
name = "tcp"
paths = [["path"]]
"#;

fn large_window_recovery(c: &mut Criterion) {
    let build = || topologies::load_text("large-window.toml", LARGE_WINDOW, &[]).expect("parses").build().expect("builds");
    let mut group = c.benchmark_group("sack_recovery");
    group.sample_size(10);
    group.throughput(Throughput::Elements(build().run().stats.data_delivered));
    group.bench_function("large_window", |b| b.iter_batched(build, |sim| sim.run(), BatchSize::LargeInput));
    group.finish();
}

/// The cost of a delivered packet with a window of a million packets against a hundred
/// (`equipoise_benches::two_path_recovery`): recovery, timeouts and reinjection at that scale.
fn window_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("window_scaling");
    group.sample_size(10);
    for window in [100u64, 1_000_000] {
        group.throughput(Throughput::Elements(equipoise_benches::two_path_recovery(window).run().stats.data_delivered));
        group.bench_with_input(BenchmarkId::from_parameter(window), &window, |b, &w| {
            b.iter_batched(|| equipoise_benches::two_path_recovery(w), |sim| sim.run(), BatchSize::LargeInput)
        });
    }
    group.finish();
}

criterion_group!(benches, dumbbell, large_window_recovery, window_scaling);
criterion_main!(benches);
