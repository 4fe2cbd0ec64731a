//! The progress of one long run on a terminal: simulated time, wall time, events per second
//! and the time left, on standard error once a run has taken more than a second (nothing when
//! standard error is not a terminal).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tcp::Progress;

/// Runs shorter than this show nothing.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A callback for [`tcp::Simulation::run_observed`] that draws a bar on standard error.
pub fn observer(started: Instant) -> impl FnMut(&Progress) {
    let terminal = std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    move |p: &Progress| {
        let elapsed = started.elapsed();
        let finished = p.simulated >= p.duration;
        if !terminal || bar.is_none() && (elapsed < SHOW_AFTER || finished) {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(Some(p.duration.as_ps() / 1_000_000_000), ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{bar:40} {msg}").expect("a valid template"));
            bar
        });
        bar.set_position(p.simulated.as_ps() / 1_000_000_000);
        let wall = elapsed.as_secs_f64();
        let done = p.simulated.as_secs_f64() / p.duration.as_secs_f64().max(1e-12);
        let left = if done > 0.0 { wall * (1.0 - done) / done } else { f64::NAN };
        bar.set_message(format!(
            "{:.1} of {:.1} s simulated in {wall:.0} s, {:.1} M events/s, about {left:.0} s left",
            p.simulated.as_secs_f64(),
            p.duration.as_secs_f64(),
            p.events as f64 / wall.max(1e-9) / 1e6
        ));
        if finished {
            bar.finish_and_clear();
        }
    }
}
