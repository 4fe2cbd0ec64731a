//! `[fluid]`: how the fluid model of the scenario is set up (`equipoise fluid`, `sweep --fluid`).

use super::reader::Reader;
use crate::error::Result;
use crate::model::{FluidConstant, FluidIntegrator, FluidLoss, FluidModel};

/// Reads `[fluid]`.
pub(super) fn read_fluid(mut t: Reader) -> Result<FluidModel> {
    let constant = t
        .choice(
            "constant",
            &[
                ("auto", FluidConstant::Auto),
                ("papers", FluidConstant::Papers),
                ("packet", FluidConstant::Packet),
                ("packet-delayed-ack", FluidConstant::PacketDelayedAck),
            ],
        )?
        .unwrap_or(FluidConstant::Auto);
    let curve = t.choice("loss", &[("price", false), ("curve", true)])?.unwrap_or(false);
    let exponent = t.number("curve_exponent")?;
    let loss = match (curve, exponent) {
        (false, None) => FluidLoss::Price,
        (false, Some(_)) => return Err(t.error("curve_exponent", "only with loss = \"curve\"")),
        (true, None) => return Err(t.missing("curve_exponent", "missing; the loss curve p = (y/c)^B needs its exponent B, such as 10")),
        (true, Some(b)) if b > 0.0 && b.is_finite() => FluidLoss::Curve(b),
        (true, Some(b)) => return Err(t.error("curve_exponent", format!("expected a positive number, got {b}"))),
    };
    let small_loss = t.boolean("small_loss")?.unwrap_or(false);
    let queueing = t.choice("queueing", &[("standing", true), ("none", false)])?.unwrap_or(true);
    let adaptive = t.choice("integrator", &[("adaptive", true), ("rk4", false)])?.unwrap_or(true);
    let step = t.time("step")?;
    let tolerance = t.number("tolerance")?;
    if let Some(tol) = tolerance
        && !(tol > 0.0 && tol < 1.0)
    {
        return Err(t.error("tolerance", format!("expected a relative tolerance between 0 and 1, such as 1e-6, got {tol}")));
    }
    let integrator = if adaptive {
        if step.is_some() {
            return Err(t.error("step", "the adaptive integrator chooses its own steps: give `step` with integrator = \"rk4\""));
        }
        FluidIntegrator::Adaptive { tolerance: tolerance.unwrap_or(1e-6) }
    } else {
        if tolerance.is_some() {
            return Err(t.error("tolerance", "a fixed-step integrator has no tolerance: give `step` with integrator = \"rk4\""));
        }
        let step = step.unwrap_or(sim_core::Time::from_ms(1));
        if step == sim_core::Time::ZERO {
            return Err(t.error("step", "must be longer than zero"));
        }
        FluidIntegrator::Rk4 { step }
    };
    t.finish()?;
    Ok(FluidModel { constant, loss, small_loss, queueing, integrator })
}
