//! Checks the scenario tests share: what no run may report.

use std::collections::BTreeMap;

/// What no run can report: a loss rate outside [0, 1], a link busy more than all the time, a
/// flow (or subflow) faster than the links into its receiver, or, for flows that start after
/// the warm-up, faster than the slowest link of its paths. (Goodput counts what the receiver
/// got within the measured interval, so every bit counted crossed the last link of its path
/// then; a flow the warm-up cuts may still deliver what a slower link further up passed before
/// it, queued behind a faster one.)
pub fn within_physics(name: &str, out: &tcp::RunOutput, warmup: f64) {
    // Indexed by name, so that the check stays linear in the flows (runs of a million).
    let rates: BTreeMap<&str, f64> = out.links.iter().map(|l| (l.link.as_str(), l.rate_bps)).collect();
    let rate = |link: &str| *rates.get(link).unwrap_or_else(|| panic!("{name}: no link {link:?}"));
    let mut subflows_of: BTreeMap<&str, Vec<&tcp::SubflowRecord>> = BTreeMap::new();
    for s in &out.subflows {
        subflows_of.entry(&*s.flow).or_default().push(s);
    }
    let subflows_of = |flow: &str| subflows_of.get(flow).map_or(&[][..], Vec::as_slice);
    for l in &out.links {
        assert!((0.0..=1.0).contains(&l.loss_rate), "{name}: link {} loss rate {}", l.link, l.loss_rate);
        assert!(l.utilization <= 1.0 + 1e-12, "{name}: link {} utilization {}", l.link, l.utilization);
    }
    for f in &out.flows {
        let mut into_receiver = 0.0;
        for s in subflows_of(&f.flow) {
            let last = rate(path_links(&s.path, &rates).pop().expect("a path has a link"));
            assert!(
                s.goodput_bps <= last * (1.0 + 1e-9),
                "{name}: {} subflow {} at {} b/s into {}",
                f.flow,
                s.subflow,
                s.goodput_bps,
                s.path
            );
            into_receiver += last;
        }
        assert!(
            f.goodput_bps <= into_receiver * (1.0 + 1e-9),
            "{name}: {} at {} b/s, the links into its receiver carry {into_receiver}",
            f.flow,
            f.goodput_bps
        );
    }
    for f in out.flows.iter().filter(|f| f.start_s >= warmup) {
        let mut capacity = 0.0;
        for s in subflows_of(&f.flow) {
            let bottleneck = path_links(&s.path, &rates).into_iter().map(rate).fold(f64::INFINITY, f64::min);
            assert!(
                s.goodput_bps <= bottleneck * (1.0 + 1e-9),
                "{name}: {} subflow {} at {} b/s over {}",
                f.flow,
                s.subflow,
                s.goodput_bps,
                s.path
            );
            capacity += bottleneck;
        }
        assert!(f.goodput_bps <= capacity * (1.0 + 1e-9), "{name}: {} at {} b/s, its paths carry {capacity}", f.flow, f.goodput_bps);
    }
}

/// The links of a subflow's `path` (names joined by `>`; generated link names contain `>`
/// themselves, so the shortest run of pieces naming a link is taken each time).
fn path_links<'a>(path: &str, links: &BTreeMap<&'a str, f64>) -> Vec<&'a str> {
    let pieces: Vec<&str> = path.split('>').collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        let (j, link) = (i + 1..=pieces.len())
            .find_map(|j| links.get_key_value(pieces[i..j].join(">").as_str()).map(|(k, _)| (j, *k)))
            .expect("a link");
        found.push(link);
        i = j;
    }
    found
}
