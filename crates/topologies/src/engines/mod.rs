//! Stage 3, the engines: the plain [`crate::Scenario`] to what an engine runs. [`packet`] builds
//! the packet-level `tcp::Simulation`, checking what needs the whole scenario (names, paths,
//! thresholds against the packet size, the sizes of what a run records). What both engines
//! derive the same way (link names, rates, window laws, TCP settings) is here.

pub mod capture;
pub mod fluid;
pub mod ns2;
pub mod packet;

use mptcp_cc::Algorithm;
use sim_core::Rate;
use tcp::{Profile, TcpConfig};

use crate::error::{Result, ScenarioError, suggestion};
use crate::model::{FlowModel, MAX_FLOWS, MAX_SAMPLES, RedVariant, Scenario};
use crate::units::{BufferValue, RateValue};

/// Link names sorted for lookups, each with its position in [`Scenario::links`]: flows name
/// links by name, in any order.
pub(crate) type LinkNames<'a> = Vec<(&'a str, usize)>;

/// What both engines check and derive from the plain model the same way.
impl Scenario {
    /// Refuses a run whose recorded sizes would not fit in memory: time-series rows and flows.
    pub(crate) fn check_sizes(&self) -> Result<()> {
        if self.flows.len() > MAX_FLOWS {
            return Err(self.error("flow", format!("{} flows; at most {MAX_FLOWS} in one run", self.flows.len())));
        }
        if let Some(dt) = self.sim.sample_interval {
            let subflows: usize = self.flows.iter().map(|f| f.paths.len()).sum();
            let rows = (self.sim.duration.as_ps() / dt.as_ps().max(1)).saturating_mul(subflows as u64);
            if rows > MAX_SAMPLES {
                return Err(self.error(
                    "sim.sample_interval",
                    format!(
                        "{dt} over {} for {subflows} subflows makes {rows} time-series rows; at most {MAX_SAMPLES}: sample less often",
                        self.sim.duration
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn error(&self, key: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(&self.file, key, message)
    }

    /// Every link by name; two links of one name are an error.
    pub(crate) fn link_index(&self) -> Result<LinkNames<'_>> {
        let mut index: LinkNames = self.links.iter().enumerate().map(|(i, l)| (l.name.as_str(), i)).collect();
        index.sort_unstable_by_key(|&(n, _)| n);
        if let Some(w) = index.windows(2).find(|w| w[0].0 == w[1].0) {
            let link = &self.links[w[1].1];
            return Err(self.error(format!("{}.name", link.key), format!("two links are named \"{}\"", link.name)));
        }
        Ok(index)
    }

    /// Two flows of one name are an error (records and random streams go by name).
    /// A set rather than a sort: cheaper per flow for thousands of flows (docs/performance.md).
    pub(crate) fn check_flow_names(&self) -> Result<()> {
        let mut seen = std::collections::HashSet::with_capacity(self.flows.len());
        let Some(twice) = self.flows.iter().find(|f| !seen.insert(f.name.as_str())) else { return Ok(()) };
        // Point at the table of the first flow of that name.
        let flow = self.flows.iter().find(|f| f.name == twice.name).expect("it is there");
        Err(self.error(format!("{}.name", flow.key), format!("two flows are named \"{}\"", flow.name)))
    }

    pub(crate) fn rate(&self, key: &str, rate: RateValue) -> Result<Rate> {
        let bps = match rate {
            RateValue::Bps(b) => b,
            RateValue::Pps(p) => p * self.sim.mss as f64 * 8.0,
        };
        if !(1.0..=1e15).contains(&bps) {
            return Err(self.error(key, format!("expected a rate between 1bps and 1000Tbps, got {bps} b/s")));
        }
        Ok(Rate::bps(bps.round() as u64))
    }

    /// Whose RED a queue of `variant` runs: unset, ns-2's when `[tcp]` names the `ns2-sack`
    /// profile (a scenario that claims to be ns-2's runs ns-2's RED), else Floyd and Jacobson's.
    pub fn red_variant(&self, variant: Option<RedVariant>) -> RedVariant {
        variant.unwrap_or(if self.tcp.profile == Some(Profile::Ns2Sack) { RedVariant::Ns2 } else { RedVariant::Floyd })
    }

    /// A buffer or threshold in bytes; a time is that long at the link's rate.
    pub(crate) fn bytes(&self, value: BufferValue, rate: Rate) -> f64 {
        match value {
            BufferValue::Size(s) => s.bytes(self.sim.mss),
            BufferValue::Time(t) => rate.as_bps() as f64 * t.as_secs_f64() / 8.0,
        }
    }

    /// A flow's TCP settings: its profile's (the flow's, else the scenario's, else the
    /// default), then the scenario's `[tcp]` keys, then the flow's own.
    pub(crate) fn tcp_config(&self, flow: &FlowModel) -> Result<TcpConfig> {
        let (scenario, own) = (&self.tcp, &flow.tcp);
        let profile = own.profile.or(scenario.profile).unwrap_or(Profile::SCENARIO_DEFAULT);
        let mut config = profile.config();
        scenario.apply(&mut config);
        own.apply(&mut config);
        config.validate().map_err(|(keys, message)| {
            // Point at a conflicting key the flow's own table sets, else one `[tcp]` sets.
            let at = match (keys.iter().find(|k| own.given().contains(k)), keys.iter().find(|k| scenario.given().contains(k))) {
                (Some(key), _) => format!("{}.tcp.{key}", flow.key),
                (None, Some(key)) => format!("tcp.{key}"),
                (None, None) if own.profile.is_some() => format!("{}.tcp.profile", flow.key),
                (None, None) => "tcp.profile".to_string(),
            };
            self.error(at, format!("{message} (profile \"{}\")", profile.name()))
        })?;
        Ok(config)
    }

    /// The window law of `flow`, which the file's reading resolved, refused if the flow has
    /// more subflows than the law takes.
    pub(crate) fn algorithm(&self, flow: &FlowModel) -> Result<Algorithm> {
        let algorithm = &*flow.cc;
        if flow.paths.len() > algorithm.max_subflows() {
            return Err(self.error(
                format!("{}.paths", flow.key),
                format!("\"{}\" takes at most {} subflows, got {}", algorithm.name(), algorithm.max_subflows(), flow.paths.len()),
            ));
        }
        Ok(algorithm.clone())
    }

    /// The positions of the links `names`, a path at key path `key()`, made only for an error:
    /// ten thousand flows are routed on the way to none (docs/performance.md).
    /// `at` turns a position into what the caller addresses links by.
    pub(crate) fn route<T>(
        &self,
        key: impl Fn() -> String,
        names: &[String],
        index: &LinkNames,
        at: impl Fn(usize) -> T,
    ) -> Result<Vec<T>> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| match index.binary_search_by(|(n, _)| (*n).cmp(name.as_str())) {
                Ok(found) => Ok(at(index[found].1)),
                Err(_) => Err(self.error(
                    format!("{}[{i}]", key()),
                    format!("no link named \"{name}\"{} (links: {})", suggestion(name, index.iter().map(|(n, _)| *n)), self.link_list()),
                )),
            })
            .collect()
    }

    fn link_list(&self) -> String {
        let names: Vec<&str> = self.links.iter().map(|l| l.name.as_str()).take(20).collect();
        let more = if self.links.len() > 20 { ", …" } else { "" };
        format!("{}{more}", names.join(", "))
    }
}
