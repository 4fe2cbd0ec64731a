//! A `[[flow]]` template to its copies.

use std::sync::Arc;

use super::draw_start;
use super::routes::{Routing, with_index};
use crate::error::{Result, ScenarioError};
use crate::model::FlowModel;
use crate::read::{FlowDecl, StartModel, expand_name};

/// The flows of `decl`: one, or `count` copies named `name.{i}` (or by the `{i}` in the name),
/// each on its own paths and started `stagger` after the one before.
pub(super) fn copies(decl: &FlowDecl, routing: Routing) -> Result<Vec<FlowModel>> {
    let n = decl.copies.unwrap_or(1);
    let mut flows = Vec::with_capacity(n as usize);
    let (key, cc, tcp): (Arc<str>, _, _) = (decl.key.as_str().into(), Arc::new(decl.cc.clone()), Arc::new(decl.tcp.clone()));
    // Copies whose paths are all alike share one list.
    let alike = decl.paths.same_for_every_copy();
    let mut shared: Option<Arc<Vec<Vec<String>>>> = None;
    for i in 0..n {
        let name = match decl.copies {
            Some(_) if !decl.name.contains("{i}") => numbered(&decl.name, i),
            _ => expand_name(&decl.name, i),
        };
        // Paths per copy: `{i}` in a route or link name is the copy's index.
        let paths = match &shared {
            Some(paths) => paths.clone(),
            None => Arc::new(routing.paths(&decl.paths, i, &name)?),
        };
        if alike && shared.is_none() {
            shared = Some(paths.clone());
        }
        let reverse_paths = decl.reverse_paths.as_ref().map(|rev| with_index(rev, i));
        if let Some(rev) = &reverse_paths
            && rev.len() != paths.len()
        {
            return Err(ScenarioError::new(
                routing.file,
                format!("{}.reverse_paths", decl.key),
                format!("one reverse path per path: {} paths, {} reverse paths", paths.len(), rev.len()),
            ));
        }
        let offset = decl.stagger.saturating_mul(i);
        let start = match decl.start {
            StartModel::At(t) => StartModel::At(t + offset),
            StartModel::Uniform(lo, hi) => StartModel::Uniform(lo + offset, hi + offset),
        };
        flows.push(FlowModel {
            start: draw_start(start, routing.seed, &name),
            name,
            key: key.clone(),
            cc: cc.clone(),
            paths,
            reverse_paths,
            stop: decl.stop,
            size: decl.size,
            receive_buffer: decl.receive_buffer,
            tcp: tcp.clone(),
        });
    }
    Ok(flows)
}

/// `base.i`. Writing the index alone into a string of the right size costs less per copy than
/// `format!` of both (docs/performance.md).
fn numbered(base: &str, i: u64) -> String {
    use std::fmt::Write;
    let digits = i.checked_ilog10().map_or(1, |d| d as usize + 1);
    let mut name = String::with_capacity(base.len() + 1 + digits);
    name.push_str(base);
    name.push('.');
    write!(name, "{i}").expect("a String takes any text");
    name
}
