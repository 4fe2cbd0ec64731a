//! `[[capture]]` to the simulation's capture points: names resolved (with the nearest valid
//! name on a typo) and the capture's size bounded before anything is written.

use tcp::{CaptureSpec, LinkIndex, Simulation};

use super::LinkNames;
use crate::error::{Result, suggestion};
use crate::model::{CaptureModel, Scenario};

/// The most a run's captures may take in all, bytes (a capture is held in memory until the
/// run's outputs are written): 256 MiB, about 1.8 million packets.
pub const MAX_CAPTURE_BYTES: u64 = 256 << 20;

impl Scenario {
    /// Adds the scenario's captures to `sim` (its links and flows already added).
    pub(crate) fn add_captures(&self, sim: &mut Simulation, index: &LinkNames) -> Result<()> {
        for spec in self.resolve_captures(index)? {
            sim.add_capture(spec);
        }
        Ok(())
    }

    /// The scenario's captures with their links and flows resolved, refused if their window
    /// is empty or they could take more than [`MAX_CAPTURE_BYTES`] in all (what any engine
    /// capturing the scenario checks before it runs).
    pub fn capture_specs(&self) -> Result<Vec<CaptureSpec>> {
        self.resolve_captures(&self.link_index()?)
    }

    fn resolve_captures(&self, index: &LinkNames) -> Result<Vec<CaptureSpec>> {
        let mut specs = Vec::with_capacity(self.captures.len());
        let mut total = 0u64;
        for c in &self.captures {
            let links = self.route(|| format!("{}.link", c.key), &c.links, index, |l| l)?;
            let flows = c.flows.as_ref().map(|names| self.capture_flows(c, names)).transpose()?;
            let until = c.until.unwrap_or(self.sim.duration).min(self.sim.duration);
            if until <= c.from {
                return Err(self.error(format!("{}.until", c.key), format!("must be after `from` ({}) and within the run", c.from)));
            }
            // Arrivals are at most what a link carries plus what it drops: bounded by twice its
            // rate in full-sized packets, and as many ACKs the other way (with a flow filter,
            // that share of the flows crossing it).
            let span = until - c.from;
            let seconds = span.as_secs_f64();
            let mut bps = 0.0;
            for (&link, name) in links.iter().zip(&c.links) {
                let rate = self.rate(&format!("{}.rate", self.links[link].key), self.links[link].rate)?.as_bps() as f64;
                let share = match &flows {
                    Some(f) => {
                        let crossing = self.flows.iter().filter(|fl| fl.paths.iter().any(|p| p.contains(name))).count().max(1);
                        (f.len() as f64 / crossing as f64).min(1.0)
                    }
                    None => 1.0,
                };
                bps += rate * share;
            }
            let packets = 4.0 * bps * seconds / (8.0 * self.sim.mss as f64);
            total += capture::estimated_size(packets.ceil() as u64);
            if total > MAX_CAPTURE_BYTES {
                let (estimate, cap) = crate::units::sizes_apart(total as f64, MAX_CAPTURE_BYTES as f64);
                return Err(self.error(
                    &c.key,
                    format!(
                        "the captures could take up to {estimate} ({} for {span}); at most {cap}: narrow them with `from`/`until` or a `flows` filter",
                        c.links.join(" + "),
                    ),
                ));
            }
            specs.push(CaptureSpec { links: links.iter().map(|&l| LinkIndex(l as u32)).collect(), flows, from: c.from, until });
        }
        Ok(specs)
    }

    /// The indices of the flows `names` stands for: a flow's name, or a counted flow's group
    /// name (every `name.N`).
    fn capture_flows(&self, c: &CaptureModel, names: &[String]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let prefix = format!("{name}.");
            let before = out.len();
            out.extend(
                self.flows.iter().enumerate().filter(|(_, f)| f.name == *name || f.name.starts_with(&prefix)).map(|(k, _)| k as u32),
            );
            if out.len() == before {
                let valid = self.flows.iter().map(|f| f.name.as_str());
                return Err(self.error(format!("{}.flows[{i}]", c.key), format!("no flow named \"{name}\"{}", suggestion(name, valid))));
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}
