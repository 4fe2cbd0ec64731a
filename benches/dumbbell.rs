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

criterion_group!(benches, dumbbell);
criterion_main!(benches);
