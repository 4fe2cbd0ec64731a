//! Checks the scenario tests share: what no run may report.

/// What no run can report: a loss rate outside [0, 1], a link busy more than all the time, a
/// flow (or subflow) faster than the links into its receiver, or, for flows that start after
/// the warm-up, faster than the slowest link of its paths. (Goodput counts what the receiver
/// got within the measured interval, so every bit counted crossed the last link of its path
/// then; a flow the warm-up cuts may still deliver what a slower link further up passed before
/// it, queued behind a faster one.)
pub fn within_physics(name: &str, out: &tcp::RunOutput, warmup: f64) {
    let rate =
        |link: String| out.links.iter().find(|l| l.link == link).map(|l| l.rate_bps).unwrap_or_else(|| panic!("{name}: no link {link:?}"));
    for l in &out.links {
        assert!((0.0..=1.0).contains(&l.loss_rate), "{name}: link {} loss rate {}", l.link, l.loss_rate);
        assert!(l.utilization <= 1.0 + 1e-12, "{name}: link {} utilization {}", l.link, l.utilization);
    }
    for f in &out.flows {
        let subflows: Vec<_> = out.subflows.iter().filter(|s| s.flow == f.flow).collect();
        let mut into_receiver = 0.0;
        for s in &subflows {
            let last = rate(path_links(&s.path, out).pop().expect("a path has a link"));
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
        let subflows: Vec<_> = out.subflows.iter().filter(|s| s.flow == f.flow).collect();
        let mut capacity = 0.0;
        for s in &subflows {
            let bottleneck = path_links(&s.path, out).into_iter().map(rate).fold(f64::INFINITY, f64::min);
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
fn path_links(path: &str, out: &tcp::RunOutput) -> Vec<String> {
    let pieces: Vec<&str> = path.split('>').collect();
    let mut links = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        let j = (i + 1..=pieces.len()).find(|&j| out.links.iter().any(|l| l.link == pieces[i..j].join(">"))).expect("a link");
        links.push(pieces[i..j].join(">"));
        i = j;
    }
    links
}
