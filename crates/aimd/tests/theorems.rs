//! The engine against seed 004's closed forms: Theorem 1 for every ONE policy, eq. (6) for ALL,
//! Theorem 2's second moments for two connections (with the beatdown value corrected).

use aimd::{Model, Policy, run, theory};

const ONE: [Policy; 4] = [Policy::RateProportional, Policy::LargestRate, Policy::RateIndependent, Policy::Beatdown];

#[test]
fn theorem1_holds_within_one_percent_for_every_one_policy() {
    for beta in [0.5, 0.8] {
        for policy in ONE {
            for n in 1..=10 {
                // Beatdown events are taggings, each a cascade of cuts: fewer are needed.
                let events = if policy == Policy::Beatdown { 20_000 } else { 200_000 };
                let r = run(&Model::identical(n, beta, policy.clone(), events, 7)).unwrap();
                let (got, want) = (r.utilization(1.0), theory::theorem1(n, beta));
                assert!((got / want - 1.0).abs() < 0.01, "{} β={beta} N={n}: {got:.5} vs {want:.5}", policy.name());
            }
        }
    }
}

#[test]
fn all_gives_the_single_connection_throughput_whatever_n() {
    for beta in [0.5, 0.8] {
        for n in [1, 2, 5, 10] {
            let r = run(&Model::identical(n, beta, Policy::All, 1_000, 7)).unwrap();
            assert!((r.utilization(1.0) - theory::all(beta)).abs() < 1e-9, "β={beta} N={n}: {}", r.utilization(1.0));
        }
    }
}

#[test]
fn theorem2_second_moments_for_two_connections() {
    for (policy, want) in [
        (Policy::RateIndependent, 5.0 / 24.0),
        (Policy::RateProportional, 679.0 / 3396.0),
        (Policy::LargestRate, 4.0 / 21.0),
        // Printed as 1/3; see theory::theorem2_beatdown_corrected for the slip and the redo.
        (Policy::Beatdown, theory::theorem2_beatdown_corrected()),
    ] {
        let events = if policy == Policy::Beatdown { 10_000 } else { 2_000_000 };
        let r = run(&Model::identical(2, 0.5, policy.clone(), events, 11)).unwrap();
        for c in &r.connections {
            assert!((c.second_moment / want - 1.0).abs() < 0.004, "{}: {:.5} vs {want:.5}", policy.name(), c.second_moment);
        }
    }
    let printed = theory::theorem2_printed("beatdown").unwrap();
    let r = run(&Model::identical(2, 0.5, Policy::Beatdown, 10_000, 11)).unwrap();
    assert!(r.connections[0].second_moment < printed * 0.8, "the printed 1/3 is not what beatdown gives");
    assert!((r.utilization(1.0) - 6.0 / 7.0).abs() < 1e-6, "Theorem 3: beatdown is throughput-insensitive");
}

#[test]
fn example_1_biased_selection_moves_throughput_between_classes_not_in_aggregate() {
    // Four connections, selection probabilities [σ, σ, 1−σ, 1−σ]/2 (Fig. 3).
    for sigma in [0.125, 0.5, 0.875] {
        let mut m = Model::identical(4, 0.5, Policy::RateIndependent, 200_000, 3);
        for (i, c) in m.connections.iter_mut().enumerate() {
            c.weight = if i < 2 { sigma } else { 1.0 - sigma };
        }
        let r = run(&m).unwrap();
        assert!((r.utilization(1.0) / theory::theorem1(4, 0.5) - 1.0).abs() < 0.01, "σ={sigma}");
        let (first, second) = (r.connections[0].mean_rate, r.connections[2].mean_rate);
        match sigma {
            s if s < 0.5 => assert!(first > second * 1.2, "σ={sigma}: the rarely cut class gets more"),
            s if s > 0.5 => assert!(second > first * 1.2, "σ={sigma}"),
            _ => assert!((first / second - 1.0).abs() < 0.03, "σ=1/2: equal shares"),
        }
    }
}
