//! Stage 2, expand: the [`Declared`] scenario to the plain [`Scenario`]: generators become
//! links and routes, counted flows their copies, routes and host pairs lists of link names,
//! traffic generators their flows, random starts their times.
//!
//! Every random draw of a scenario happens here, each from a stream named after what it
//! decides (`flow.<name>.start`, `flow.<name>.paths`, `traffic.<name>.<source>`, …), so the
//! plain model depends only on the file and the run seed, never on the order of expansion.

mod flows;
pub mod generate;
mod routes;
mod traffic;

use rand::RngExt;
use sim_core::Time;
use sim_core::rng::stream;

use crate::error::{Result, ScenarioError};
use crate::model::MAX_FLOWS;
use crate::model::Scenario;
use crate::read::{Declared, StartModel};
use routes::Routing;

/// Expands `d` into the plain model.
pub fn expand(d: Declared) -> Result<Scenario> {
    let topology = d.topology.as_ref().map(|t| generate::generate(t, &d.file)).transpose()?;
    let mut links = topology.as_ref().map(|t| t.links.clone()).unwrap_or_default();
    links.extend(d.links);
    let routing = Routing { file: &d.file, topology: topology.as_ref(), seed: d.sim.seed };
    let mut out = Vec::new();
    for flow in &d.flows {
        out.extend(flows::copies(flow, routing)?);
    }
    let mut generated = 0;
    let mut idle_traffic = Vec::new();
    for g in &d.traffic {
        let flows = traffic::generate(g, routing, d.sim.duration)?;
        if flows.is_empty() {
            idle_traffic.push(traffic::template(g, routing)?);
        }
        generated += flows.len();
        if generated > MAX_FLOWS {
            return Err(ScenarioError::new(
                &d.file,
                &g.key,
                format!("the [[traffic]] tables make more than {MAX_FLOWS} in all; at most {MAX_FLOWS} in one run"),
            ));
        }
        out.extend(flows);
    }
    // A generator may draw no flow in a short run: that run is valid, with empty flow tables.
    if d.flows.is_empty() && d.traffic.is_empty() {
        return Err(ScenarioError::new(&d.file, "flow", "no flows; add at least one [[flow]] or [[traffic]] table"));
    }
    Ok(Scenario {
        file: d.file,
        text: d.text,
        meta: d.meta,
        sim: d.sim,
        tcp: d.tcp,
        links,
        flows: out,
        metrics: d.metrics,
        fluid: d.fluid,
        captures: d.captures,
        idle_traffic,
    })
}

/// When flow `name` starts: the fixed time, or a time drawn uniformly from the interval.
fn draw_start(start: StartModel, seed: u64, name: &str) -> Time {
    match start {
        StartModel::At(t) => t,
        StartModel::Uniform(lo, hi) => Time(stream(seed, &format!("flow.{name}.start")).random_range(lo.as_ps()..=hi.as_ps())),
    }
}
