//! The progress of one long run on a terminal: simulated time, wall time, events per second
//! and the time left, on standard error once a run has taken more than a second (nothing when
//! standard error is not a terminal); and the stage a long fluid solve is in.

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

/// The stage of a fluid equilibrium solve ([`fluid::equilibrium_observed`]) on one line of
/// standard error, with the time spent, once the solve has taken more than a second (nothing
/// when standard error is not a terminal); cleared when dropped.
pub struct FluidStages {
    started: Instant,
    terminal: bool,
    line: Option<ProgressBar>,
    /// Whether the uniqueness check has started: later stages are its own.
    checking: bool,
}

impl FluidStages {
    /// Stages timed from now.
    pub fn start() -> FluidStages {
        FluidStages { started: Instant::now(), terminal: std::io::stderr().is_terminal(), line: None, checking: false }
    }

    /// Shows the stage the solver entered.
    pub fn observe(&mut self, stage: fluid::Stage) {
        let message = if self.checking { format!("uniqueness check: {stage}") } else { stage.to_string() };
        self.checking |= stage == fluid::Stage::Uniqueness;
        if !self.terminal || self.line.is_none() && self.started.elapsed() < SHOW_AFTER {
            return;
        }
        let started = self.started;
        let line = self.line.get_or_insert_with(|| {
            let line = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_elapsed(started.elapsed());
            line.set_style(ProgressStyle::with_template("{spinner} fluid model: {msg} ({elapsed} in all)").expect("a valid template"));
            line.enable_steady_tick(Duration::from_millis(200));
            line
        });
        line.set_message(message);
    }
}

impl Drop for FluidStages {
    fn drop(&mut self) {
        if let Some(line) = &self.line {
            line.finish_and_clear();
        }
    }
}

/// The progress of a run in real time (the testbed): a bar of elapsed against total seconds
/// on standard error (nothing when standard error is not a terminal); cleared when dropped.
pub struct RealTime {
    bar: Option<ProgressBar>,
}

impl RealTime {
    /// A bar for a run of `total`, drawn unless `quiet` or standard error is no terminal.
    pub fn start(total: Duration, quiet: bool) -> RealTime {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total.as_millis() as u64), ProgressDrawTarget::stderr());
            bar.set_style(ProgressStyle::with_template("{bar:40} {msg}").expect("a valid template"));
            bar
        });
        RealTime { bar }
    }

    /// `elapsed` of the run has passed; `note` says what the run is doing.
    pub fn update(&self, elapsed: Duration, total: Duration, note: &str) {
        if let Some(bar) = &self.bar {
            bar.set_position(elapsed.as_millis() as u64);
            bar.set_message(format!("{:.1} of {:.1} s in real time{note}", elapsed.as_secs_f64(), total.as_secs_f64()));
        }
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
