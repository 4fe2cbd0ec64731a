//! Newton's method for the equilibrium, globalized by pseudo-transient continuation.
//!
//! Each step solves `(I/Δt − J)·(Δu, Δv) = (G, H)` (see [`crate::solver`] for the unknowns and
//! residuals): a backward-Euler step of `du/dt = G`, `dv/dt = H` that becomes Newton's step as
//! `Δt` grows. With `A = ∂G/∂u` (block diagonal: one block per flow, by central differences of
//! the flow's own window law), `Bm = ∂G/∂v` (through the path losses and, on a link within its
//! queue, through the RTTs a coupled law reads, by finite differences), `C = ∂H/∂u` (through the
//! loads), `D = ∂H/∂v` (−1 for a loss curve; for prices, a queue's delay lowering the rates
//! through every link its paths share) and `P = I/Δt − A`:
//! `Δu = P⁻¹(G + Bm·Δv)` and `(I/Δt − D − C·P⁻¹·Bm)·Δv = H + C·P⁻¹·G`, a dense system with one
//! row per active congestible link. Rows that barely move anything (a price near 0, a coupled
//! law's own window) are damped so that one step moves them by about 3 at most. Subflows and
//! links pinned at a floor by complementarity take no step, and a step that would cross a floor
//! pins its variable there and is solved again (an active-set method); a link crossing the end
//! of its queue stops there likewise, and the next step sees the other side's slopes. An
//! iteration that has not halved its merit in 40 steps gives up, for the dynamics' march (in 10
//! once within the precision floor).
//!
//! The step is scaled so that no price and no growing window moves by more than 3 in log terms,
//! then shortened until the relative residuals fall (Armijo); `Δt` grows tenfold after a full
//! step that helps and shrinks after one that does not.

use crate::error::FluidError;
use crate::linalg::Lu;
use crate::model::{Damping, LOSS_FLOOR};
use crate::options::LossModel;
use crate::solver::{Eval, PRECISION_FLOOR, Solution, Solver, State, snap_ties};

/// Newton's iteration from `state` for at most `max_iterations` steps: the solution, or the
/// last state, the error and the iterations spent.
pub(crate) fn run(solver: &mut Solver, mut state: State, max_iterations: usize) -> Result<Solution, (State, FluidError, usize)> {
    let m = solver.m;
    let v_max = solver.v_max.clone();
    let mut eval = solver.evaluate(&state);
    let mut best = eval.merit;
    let mut dt = 1e4;
    let mut iterations = 0;
    // The merits of the last iterations: one that has not halved its merit in the stall window
    // is stalled.
    let mut history: std::collections::VecDeque<f64> = std::collections::VecDeque::new();
    while iterations < max_iterations && dt > 1e-10 {
        history.push_back(eval.merit);
        if history.len() > STALL_WINDOW + 1 {
            history.pop_front();
        }
        // Within the precision floor a shorter window applies.
        let window = if eval.worst.0 <= PRECISION_FLOOR { FLOOR_WINDOW } else { STALL_WINDOW };
        if history.len() > window && eval.merit > 0.5 * history[history.len() - 1 - window] {
            break;
        }
        if eval.worst.0 <= solver.tolerance {
            return Ok(Solution::new(eval, &state, iterations));
        }
        iterations += 1;
        let (du, dv) = match constrained_step(solver, &state, &eval, dt) {
            Ok(step) => step,
            Err(StepFailure::Singular) => {
                dt *= 0.1;
                continue;
            }
            // No Δt helps: the iteration is stalled, and the caller's march takes over.
            Err(StepFailure::NotFinite) => break,
        };
        // Scale the whole step, keeping its direction, so that no price variable and no growing
        // window moves by more than 3 (a factor of 20 in the window); a shrinking window and a
        // falling price may move by 40, towards their floors.
        let reach = dv.iter().fold(0.0, |a: f64, &d| a.max(d / 3.0).max(-d / 40.0));
        let reach = du.iter().zip(&eval.g).fold(reach, |a: f64, (&d, &g)| a.max(d / 3.0).max(-d / if g < 0.0 { 40.0 } else { 3.0 }));
        let full = 1.0 / reach.max(1.0);
        // Backtrack until the residual falls (Armijo). Failing that, take the first trial anyway
        // unless it is far worse than the best seen (the continuation tolerates a transient
        // rise), and shorten the pseudo-time step.
        let mut alpha = full;
        let mut fallback = None;
        let mut accepted = None;
        while alpha >= full / 16.0 {
            let mut trial = state.moved(&du, &dv, alpha, solver.u_min, &v_max);
            snap_ties(m, &mut trial.u, &eval.rtt, &eval.path_loss);
            let next = solver.evaluate(&trial);
            if next.merit < (1.0 - 1e-4 * alpha) * eval.merit || next.worst.0 <= solver.tolerance {
                accepted = Some((trial, next));
                break;
            }
            fallback.get_or_insert((trial, next));
            alpha *= 0.5;
        }
        if let Some((trial, next)) = accepted {
            let gain = eval.merit / next.merit.max(1e-300);
            dt = if alpha == full { (dt * gain.clamp(1.0, 10.0)).min(1e12) } else { dt * 0.5 };
            (state, eval) = (trial, next);
        } else if let Some((trial, next)) = fallback.filter(|(_, next)| next.merit <= 10.0 * best) {
            dt *= 0.5;
            (state, eval) = (trial, next);
        } else {
            dt *= 0.1;
        }
        best = best.min(eval.merit);
    }
    if eval.worst.0 <= solver.tolerance {
        return Ok(Solution::new(eval, &state, iterations));
    }
    Err((state, FluidError::NotConverged { worst: eval.worst.1, residual: eval.worst.0, iterations }, iterations))
}

/// Iterations after which Newton's iteration gives up unless it has halved its merit since.
const STALL_WINDOW: usize = 40;

/// The stall window once every residual is within [`PRECISION_FLOOR`], where a solve that
/// stops is accepted ([`crate::solver::solve`]). LIA's uniqueness check on seed 002's k = 8
/// FatTree reached a worst residual of 2.3e-9 in 56 iterations and then crept down by about
/// 1 % per iteration for 40 more, stopping at 1.3e-9; with this window it stops 35 iterations
/// earlier (0.13 s).
const FLOOR_WINDOW: usize = 10;

/// The step for pseudo-time step `dt`, with an active-set pass: links whose price the step
/// would take below 0, and subflows whose window it would take below the floor, are pinned
/// there and the step solved again without them (complementarity). Likewise a link the step
/// would take across the end of its queue (see [`crate::solver::Prices`]) stops there: the
/// next step sees the slopes of the other side, where delay gives way to loss. That check
/// comes before the floor's: the other way round, a link at 1.02 stepped to 0 past its whole
/// queue, and a flow's residual through it moved by −4.0e-3 where the linear model said
/// +7e-5 (LIA, k = 8 FatTree). A link at the queue's end that the step takes downwards is
/// solved again with the queue's slopes (delay, no loss) rather than the loss side's. A pinned
/// link's move is part of the solve (see [`step`]), so the flows through it step knowing where
/// it goes.
fn constrained_step(solver: &mut Solver, state: &State, eval: &Eval, dt: f64) -> Result<(Vec<f64>, Vec<f64>), StepFailure> {
    let mut links = eval.active_link.clone();
    let mut pinned: Vec<Option<f64>> = vec![None; links.len()];
    let mut subflows = eval.active_subflow.clone();
    // `eval` with the queue's slopes at links that leave a full queue downwards.
    let mut below: Option<Eval> = None;
    // The flows' parts of the step, kept from pass to pass but for the flows a pass changes.
    let flows = solver.m.net.flows.len();
    let mut parts = Parts { parts: (0..flows).map(|_| None).collect(), stale: vec![true; flows] };
    for _ in 0..8 {
        let fixed: Vec<Option<f64>> = pinned.iter().zip(&state.v).map(|(p, v)| p.map(|p| p - v)).collect();
        let e = below.as_ref().unwrap_or(eval);
        let (mut du, mut dv) = step(solver, e, &subflows, &links, &fixed, dt, &mut parts)?;
        let mut changed = false;
        let mut leaving = Vec::new();
        for l in 0..dv.len() {
            if !links[l] {
                continue;
            }
            let (v, next) = (state.v[l], state.v[l] + dv[l]);
            let queue = solver.prices.has_queue(l);
            let stop = if queue && v == 1.0 && next < 1.0 && e.delay_slope[l] == 0.0 {
                // At the queue's end, the step was solved with the loss side's slopes but goes
                // the other way: solve again with the queue's.
                leaving.push(l);
                None
            } else if queue && v == 1.0 && next > 1.0 && e.delay_slope[l] > 0.0 {
                // Neither side's slopes move it away from the queue's end: it stays there.
                Some(1.0)
            } else if queue && v != 1.0 && (v < 1.0) != (next < 1.0) {
                Some(1.0)
            } else if next < 0.0 {
                Some(0.0)
            } else {
                None
            };
            if stop.is_some() {
                links[l] = false;
                pinned[l] = stop;
                changed = true;
            }
        }
        for &l in &leaving {
            let e = below.get_or_insert_with(|| eval.clone());
            e.delay_slope[l] = solver.prices.delay_slope(l, 0.0);
            e.loss_slope[l] = 0.0;
            changed = true;
        }
        let m = solver.m;
        for f in 0..flows {
            for r in m.range(f) {
                if subflows[r] && eval.g[r] < 0.0 && state.u[r] + du[r] < solver.u_min {
                    subflows[r] = false;
                    parts.stale[f] = true;
                    changed = true;
                }
                if m.paths[r].iter().any(|l| leaving.contains(l)) {
                    parts.stale[f] = true;
                }
            }
        }
        if !changed {
            for l in (0..dv.len()).filter(|&l| !links[l] && eval.active_link[l]) {
                dv[l] = pinned[l].unwrap_or(0.0) - state.v[l];
            }
            for r in (0..du.len()).filter(|&r| !subflows[r] && eval.active_subflow[r]) {
                du[r] = solver.u_min - state.u[r];
            }
            return Ok((du, dv));
        }
    }
    Err(StepFailure::Singular)
}

/// Why no step was found.
#[derive(Debug, PartialEq)]
enum StepFailure {
    /// A system was singular at this `Δt` (or the active-set passes did not settle): a smaller
    /// `Δt` makes `I/Δt` dominate.
    Singular,
    /// The links' system holds a number that is not finite, whatever `Δt`: a path with no loss
    /// at all through a link at its queue's end, where the balance's slope in the path loss,
    /// `−1/q`, is infinite. In the first phase on seed 002's k = 8 FatTree with queues, fourteen
    /// iterations then shrank `Δt` to nothing before the march, which now starts at once (same
    /// outcomes for every law of docs/performance.md's FatTree table). Setting that slope to 0
    /// instead (the balance is clamped there) made LIA's solve slower (47 iterations of the law
    /// rather than 28).
    NotFinite,
}

/// Central-difference step in `ln w` and `ln τ`. A law with a kink (LIA's `min` with Reno's
/// increase and its `max` over the paths) has there two one-sided slopes; a central difference
/// of this width averages them near the kink, where a forward one picks a side the step then
/// leaves. With forward differences of 1e-7, LIA on seed 002's FatTree with queues stopped at
/// residuals of 6.8e-5 (k = 4) and 5.8e-4 (k = 8); with these it solves (121 and 28
/// iterations).
const DELTA: f64 = 1e-5;

/// A flow's part of the step: its active subflows (global indices), the active links its paths
/// cross (link indices), and `P⁻¹·[G | Bm]` (one row per active subflow, one column for G and
/// one per link).
struct FlowPart {
    subflows: Vec<usize>,
    links: Vec<usize>,
    x: Vec<Vec<f64>>,
}

/// Per flow, its part of the step (`None`: no active subflow) and whether it must be made
/// again. The passes of one step share the Schur rows (a fixed link keeps its row) and differ
/// only for the flows that lose a subflow to the floor or cross a link whose slopes change:
/// reusing the others' parts took LIA on the k = 8 FatTree with queues from 1.37 to 1.20 s,
/// with the same tables to the byte.
struct Parts {
    parts: Vec<Option<FlowPart>>,
    stale: Vec<bool>,
}

/// The step `(Δu, Δv)` for pseudo-time step `dt` with the subflows of `active_subflow` and the
/// links of `active_link` free, the links of `fixed` moved by the amount given, and the others
/// staying; or `None` if a system is singular. A fixed link keeps its Schur row, as the
/// equation `Δv_l = fixed`, so that the flows through it step knowing where it goes. The
/// flows' parts are made again where `parts` says they are stale.
fn step(
    solver: &mut Solver,
    e: &Eval,
    active_subflow: &[bool],
    active_link: &[bool],
    fixed: &[Option<f64>],
    dt: f64,
    parts: &mut Parts,
) -> Result<(Vec<f64>, Vec<f64>), StepFailure> {
    let m = solver.m;
    let links = &m.net.links;
    // Schur rows: the active and the fixed congestible links.
    let mut row = vec![usize::MAX; links.len()];
    let mut k = 0;
    for l in 0..links.len() {
        if links[l].congestible() && (active_link[l] || fixed[l].is_some()) {
            row[l] = k;
            k += 1;
        }
    }
    let mut s = vec![0.0; k * k];
    let mut rhs = vec![0.0; k];
    for l in (0..links.len()).filter(|&l| row[l] != usize::MAX) {
        let d = if matches!(m.opts.loss_model, LossModel::Price) { 0.0 } else { -1.0 };
        s[row[l] * k + row[l]] = 1.0 / dt - d;
        rhs[row[l]] = e.h[l];
    }
    // −D: a queue's delay lowers the rates, so the load, of every path through it.
    for (r, path) in m.paths.iter().enumerate() {
        let x_r = e.w[r] / e.rtt[r];
        for &l in path.iter().filter(|&&l| row[l] != usize::MAX) {
            for &l2 in path.iter().filter(|&&l2| row[l2] != usize::MAX && e.delay_slope[l2] > 0.0) {
                s[row[l] * k + row[l2]] += load_slope(solver, e, l) * x_r / e.loads[l] * e.delay_slope[l2] / e.rtt[r];
            }
        }
    }
    let mut scratch = (e.w.clone(), e.rtt.clone());
    for f in 0..m.net.flows.len() {
        if parts.stale[f] {
            parts.parts[f] = flow_part(solver, e, f, active_subflow, &row, dt, &mut scratch);
            if parts.parts[f].is_none() && m.range(f).any(|r| active_subflow[r]) {
                return Err(StepFailure::Singular);
            }
            parts.stale[f] = false;
        }
        let Some(part) = &parts.parts[f] else { continue };
        // Accumulate C·P⁻¹·[G | Bm] into the Schur system.
        for (i, &r) in part.subflows.iter().enumerate() {
            let x_r = e.w[r] / e.rtt[r];
            for &l in m.paths[r] {
                if row[l] == usize::MAX {
                    continue;
                }
                let c = load_slope(solver, e, l) * x_r / e.loads[l];
                rhs[row[l]] += c * part.x[i][0];
                for (cc, &l2) in part.links.iter().enumerate() {
                    s[row[l] * k + row[l2]] -= c * part.x[i][1 + cc];
                }
            }
        }
    }
    // A link whose price barely moves any flow (a price near 0 in the linear range of the
    // variable) has a nearly empty row; damp it so that its step stays within about 3 (which
    // rows: see `Damping`).
    for a in 0..k {
        let limit = rhs[a].abs() / 3.0;
        let damped = match m.damping {
            Damping::SmallDiagonal => true,
            Damping::EmptyRows => s[a * k..(a + 1) * k].iter().all(|x| x.abs() < limit),
        };
        if damped {
            s[a * k + a] = s[a * k + a].max(limit);
        }
    }
    for (l, d) in fixed.iter().enumerate().filter(|(l, _)| row[*l] != usize::MAX) {
        if let Some(d) = d {
            let a = row[l];
            s[a * k..(a + 1) * k].fill(0.0);
            s[a * k + a] = 1.0;
            rhs[a] = *d;
        }
    }
    // A fold without an early exit, which vectorizes: `any` scanned the k² entries one by one,
    // 5 % of LIA's solve on the k = 8 FatTree.
    if !s.iter().chain(&rhs).fold(true, |finite, x| finite & x.is_finite()) {
        return Err(StepFailure::NotFinite);
    }
    if k > 0 {
        Lu::new(k, s).ok_or(StepFailure::Singular)?.solve(&mut rhs);
    }
    let mut dv = vec![0.0; links.len()];
    for l in (0..links.len()).filter(|&l| row[l] != usize::MAX) {
        dv[l] = rhs[row[l]];
    }
    let mut du = vec![0.0; m.subflows()];
    for part in parts.parts.iter().flatten() {
        for (i, &r) in part.subflows.iter().enumerate() {
            du[r] = part.x[i][0] + part.links.iter().enumerate().map(|(c, &l)| part.x[i][1 + c] * dv[l]).sum::<f64>();
        }
    }
    Ok((du, dv))
}

/// Flow `f`'s part of the step (`None` if it has no active subflow or its `P` is singular):
/// `P = I/dt − ∂G/∂u` by finite differences of its law, and `Bm = ∂G/∂v` through its own
/// path losses and, on links within their queue, through its subflows' RTTs (a coupled law
/// reads its siblings' RTTs), the latter by finite differences too. `scratch` holds copies of
/// the windows and RTTs of `e`, perturbed and restored here.
#[allow(clippy::too_many_arguments)]
fn flow_part(
    solver: &mut Solver,
    e: &Eval,
    f: usize,
    active_subflow: &[bool],
    row: &[usize],
    dt: f64,
    (w, rtt): &mut (Vec<f64>, Vec<f64>),
) -> Option<FlowPart> {
    let m = solver.m;
    let range = m.range(f);
    let act: Vec<usize> = range.clone().filter(|&r| active_subflow[r]).collect();
    let na = act.len();
    if na == 0 {
        return None;
    }
    let (mut up, mut down) = (vec![0.0; range.len()], vec![0.0; range.len()]);
    // P = I/dt − ∂G/∂u over the active subflows.
    let mut p = vec![0.0; na * na];
    for (j, &rj) in act.iter().enumerate() {
        for (sign, g) in [(1.0, &mut up), (-1.0, &mut down)] {
            w[rj] = e.w[rj] * (sign * DELTA).exp();
            solver.flow_residuals(f, w, &e.rtt, &e.path_loss, g);
        }
        w[rj] = e.w[rj];
        for (i, &ri) in act.iter().enumerate() {
            let k = ri - range.start;
            p[i * na + j] = -(up[k] - down[k]) / (2.0 * DELTA);
        }
        p[j * na + j] += 1.0 / dt;
    }
    // A subflow whose balance barely depends on its own window (a coupled law) takes at most a
    // step of about 3 upwards from its own row; downwards it may fall.
    for (i, &r) in act.iter().enumerate() {
        if e.g[r] > 0.0 {
            p[i * na + i] = p[i * na + i].max(e.g[r] / 3.0);
        }
    }
    let lu = Lu::new(na, p)?;
    // The links this flow's active paths cross.
    let mut flow_links: Vec<usize> = Vec::new();
    for &r in &act {
        for &l in m.paths[r] {
            if row[l] != usize::MAX && !flow_links.contains(&l) {
                flow_links.push(l);
            }
        }
    }
    // Columns: G, then ∂G/∂v_l for each of the flow's links.
    let mut cols = vec![vec![0.0; na]; 1 + flow_links.len()];
    for (i, &r) in act.iter().enumerate() {
        cols[0][i] = e.g[r];
        let q = e.path_loss[r];
        let dg_dq = if m.opts.small_loss { -1.0 / q } else { -1.0 / (1.0 - q) - 1.0 / q };
        for (c, &l) in flow_links.iter().enumerate() {
            if m.paths[r].contains(&l) {
                cols[1 + c][i] = dg_dq * path_slope(solver, e, r, l);
            }
        }
    }
    // Through the RTTs: ∂G_i/∂ln τ_j by perturbing subflow j's RTT, times ∂ln τ_j/∂v_l.
    for rj in range.clone() {
        let queued: Vec<usize> =
            (0..flow_links.len()).filter(|&c| e.delay_slope[flow_links[c]] > 0.0 && m.paths[rj].contains(&flow_links[c])).collect();
        if queued.is_empty() {
            continue;
        }
        for (sign, g) in [(1.0, &mut up), (-1.0, &mut down)] {
            rtt[rj] = e.rtt[rj] * (sign * DELTA).exp();
            solver.flow_residuals(f, &e.w, rtt, &e.path_loss, g);
        }
        rtt[rj] = e.rtt[rj];
        for (i, &ri) in act.iter().enumerate() {
            let k = ri - range.start;
            let dg = (up[k] - down[k]) / (2.0 * DELTA);
            for &c in &queued {
                cols[1 + c][i] += dg * e.delay_slope[flow_links[c]] / e.rtt[rj];
            }
        }
    }
    for col in cols.iter_mut() {
        lu.solve(col);
    }
    let x = (0..na).map(|i| cols.iter().map(|c| c[i]).collect()).collect();
    Some(FlowPart { subflows: act, links: flow_links, x })
}

/// `∂q_r/∂v_l`: how subflow `r`'s path loss moves with link `l`'s price variable.
fn path_slope(solver: &Solver, e: &Eval, r: usize, l: usize) -> f64 {
    let m = solver.m;
    let dp_dv = e.loss_slope[l];
    if m.opts.small_loss {
        dp_dv
    } else {
        let exo = m.net.links[l].loss;
        let p_link = m.link_loss(l, e.congestion[l]);
        (1.0 - e.path_loss[r]) / (1.0 - p_link) * (1.0 - exo) * dp_dv
    }
}

/// `∂H_l/∂ln y_l`.
fn load_slope(solver: &Solver, e: &Eval, l: usize) -> f64 {
    let m = solver.m;
    match m.opts.loss_model {
        LossModel::Price => {
            if e.loads[l] > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        LossModel::Curve { exponent } => {
            let target = m.curve(l, e.loads[l], exponent);
            if target >= 1.0 - 1e-12 || target <= LOSS_FLOOR {
                0.0
            } else if m.opts.small_loss {
                exponent
            } else {
                exponent / (1.0 - target)
            }
        }
    }
}
