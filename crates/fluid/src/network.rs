//! The input: links, and flows whose subflows follow fixed paths over them.

use mptcp_cc::{Algorithm, CoupledController};

use crate::error::FluidError;

/// A link (a queue and its output line), in the units of the fluid model: packets and seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Its name, used in errors and results.
    pub name: String,
    /// Service rate, packets per second; `f64::INFINITY` for a link that never congests (its
    /// only loss is the exogenous one).
    pub capacity: f64,
    /// One-way propagation delay, seconds; a subflow without an explicit RTT has twice the sum
    /// of its links' delays.
    pub delay: f64,
    /// Exogenous loss probability per packet (random loss independent of the load), in [0, 1).
    pub loss: f64,
    /// Buffer, packets: in trajectories its queue adds `q/c` of queueing delay and, with the
    /// price loss model, drops only when full. `None`: no queue (no queueing delay).
    pub buffer: Option<f64>,
    /// The largest queue the link holds at equilibrium, packets (price model): a link at
    /// capacity holds between 0 and this many packets, and loses packets only when it is full;
    /// the queueing delay is part of the RTT of every path through it. `None`: no queueing
    /// delay at equilibrium (the papers' models).
    pub standing_queue: Option<f64>,
}

impl Link {
    /// A link of `capacity` packets per second with no delay, no exogenous loss and no buffer.
    pub fn new(name: impl Into<String>, capacity: f64) -> Link {
        Link { name: name.into(), capacity, delay: 0.0, loss: 0.0, buffer: None, standing_queue: None }
    }

    /// A link that never congests and drops each packet with probability `loss`: the
    /// "exogenous drops" of seed 001 §3.2.
    pub fn lossy(name: impl Into<String>, loss: f64) -> Link {
        Link { loss, ..Link::new(name, f64::INFINITY) }
    }

    /// The same link with one-way propagation delay `seconds`.
    pub fn with_delay(self, seconds: f64) -> Link {
        Link { delay: seconds, ..self }
    }

    /// The same link with exogenous loss probability `loss`.
    pub fn with_loss(self, loss: f64) -> Link {
        Link { loss, ..self }
    }

    /// The same link with a buffer of `packets`.
    pub fn with_buffer(self, packets: f64) -> Link {
        Link { buffer: Some(packets), ..self }
    }

    /// The same link holding a queue of up to `packets` at equilibrium (see
    /// [`Link::standing_queue`]).
    pub fn with_standing_queue(self, packets: f64) -> Link {
        Link { standing_queue: Some(packets), ..self }
    }

    /// Whether the link has a finite capacity, so that its loss depends on its load.
    pub fn congestible(&self) -> bool {
        self.capacity.is_finite()
    }
}

/// One subflow: a path (link indices, in order) and its propagation round-trip time.
#[derive(Clone, Debug, PartialEq)]
pub struct Subflow {
    /// Indices into [`Network::links`] of the links the data crosses.
    pub links: Vec<usize>,
    /// Propagation RTT, seconds; `None`: twice the sum of the links' one-way delays.
    pub rtt: Option<f64>,
}

impl Subflow {
    /// A subflow over `links` whose RTT is twice the sum of their delays.
    pub fn new(links: Vec<usize>) -> Subflow {
        Subflow { links, rtt: None }
    }

    /// A subflow over `links` with propagation RTT `rtt` seconds (the links' delays ignored).
    pub fn with_rtt(links: Vec<usize>, rtt: f64) -> Subflow {
        Subflow { links, rtt: Some(rtt) }
    }
}

/// A connection: one window law over one or more subflows.
#[derive(Debug)]
pub struct Flow {
    /// Its name, used in errors and results.
    pub name: String,
    /// The window law, exactly as the packet-level transport runs it.
    pub law: Box<dyn CoupledController>,
    /// Its subflows (a single-path TCP has one).
    pub subflows: Vec<Subflow>,
}

impl Flow {
    /// A flow with window law `law` and no subflows yet.
    pub fn new(name: impl Into<String>, law: Box<dyn CoupledController>) -> Flow {
        Flow { name: name.into(), law, subflows: Vec::new() }
    }

    /// A flow running `algorithm` (see [`mptcp_cc::Algorithm::from_params`]).
    pub fn with_algorithm(name: impl Into<String>, algorithm: &Algorithm) -> Flow {
        Flow::new(name, algorithm.build())
    }

    /// The same flow with one more subflow.
    pub fn subflow(mut self, subflow: Subflow) -> Flow {
        self.subflows.push(subflow);
        self
    }
}

/// Links and the flows over them.
#[derive(Debug, Default)]
pub struct Network {
    /// The links, addressed by index.
    pub links: Vec<Link>,
    /// The flows, addressed by index.
    pub flows: Vec<Flow>,
}

impl Network {
    /// An empty network.
    pub fn new() -> Network {
        Network::default()
    }

    /// Adds `link` and returns its index, for use in [`Subflow::links`].
    pub fn add_link(&mut self, link: Link) -> usize {
        self.links.push(link);
        self.links.len() - 1
    }

    /// Adds `flow` and returns its index.
    pub fn add_flow(&mut self, flow: Flow) -> usize {
        self.flows.push(flow);
        self.flows.len() - 1
    }

    /// The propagation RTT of subflow `r` of flow `f`, seconds.
    pub fn propagation_rtt(&self, f: usize, r: usize) -> f64 {
        let s = &self.flows[f].subflows[r];
        s.rtt.unwrap_or_else(|| 2.0 * s.links.iter().map(|&l| self.links[l].delay).sum::<f64>())
    }

    /// Checks every value is in range, so the solvers never see a NaN or an index out of
    /// bounds.
    pub fn validate(&self) -> Result<(), FluidError> {
        let bad = |m: String| Err(FluidError::InvalidNetwork(m));
        for l in &self.links {
            if l.capacity.is_nan() || l.capacity <= 0.0 {
                return bad(format!("link \"{}\": capacity {} must be > 0 packets/s (or infinite)", l.name, l.capacity));
            }
            if !(l.delay >= 0.0 && l.delay.is_finite()) {
                return bad(format!("link \"{}\": delay {} must be a finite number of seconds ≥ 0", l.name, l.delay));
            }
            if !(0.0..1.0).contains(&l.loss) {
                return bad(format!("link \"{}\": loss {} must be in [0, 1)", l.name, l.loss));
            }
            if let Some(b) = l.buffer.filter(|b| !(*b >= 0.0 && b.is_finite())) {
                return bad(format!("link \"{}\": buffer {b} must be a finite number of packets ≥ 0", l.name));
            }
            if let Some(q) = l.standing_queue.filter(|q| !(*q >= 0.0 && q.is_finite())) {
                return bad(format!("link \"{}\": standing queue {q} must be a finite number of packets ≥ 0", l.name));
            }
        }
        for (f, flow) in self.flows.iter().enumerate() {
            if flow.subflows.is_empty() {
                return bad(format!("flow \"{}\" has no subflows", flow.name));
            }
            for (r, s) in flow.subflows.iter().enumerate() {
                if s.links.is_empty() {
                    return bad(format!("flow \"{}\" subflow {r}: the path has no links", flow.name));
                }
                if let Some(&l) = s.links.iter().find(|&&l| l >= self.links.len()) {
                    return bad(format!("flow \"{}\" subflow {r}: link index {l} (there are {} links)", flow.name, self.links.len()));
                }
                let rtt = self.propagation_rtt(f, r);
                if !(rtt > 0.0 && rtt.is_finite()) {
                    return bad(format!("flow \"{}\" subflow {r}: propagation RTT {rtt} s must be finite and > 0", flow.name));
                }
            }
        }
        Ok(())
    }

    /// Fails if some flow has a path with neither exogenous loss nor a congestible link: its
    /// window there (and so its total, by C5 of seed 000) grows without bound.
    pub fn check_bounded(&self) -> Result<(), FluidError> {
        for flow in &self.flows {
            for (r, s) in flow.subflows.iter().enumerate() {
                if s.links.iter().all(|&l| self.links[l].loss == 0.0 && !self.links[l].congestible()) {
                    return Err(FluidError::NoEquilibrium {
                        flow: flow.name.clone(),
                        reason: format!("subflow {r} crosses no lossy and no finite-capacity link, so its window grows without bound"),
                    });
                }
            }
        }
        Ok(())
    }
}
