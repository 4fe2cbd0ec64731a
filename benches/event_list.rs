//! The event list's hold operation (pop the earliest event, schedule one later) at several
//! pending-event populations: the classic priority-queue benchmark.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sim_core::{EventList, Time};

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_list_hold");
    for &size in &[16usize, 1_024, 65_536] {
        let mut list: EventList<u32> = EventList::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Time(x % 1_000_000)
        };
        for i in 0..size {
            list.schedule(next(), i as u32);
        }
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, _| {
            b.iter(|| {
                let (t, e) = list.pop().expect("never empty");
                list.schedule(t + next(), e);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
