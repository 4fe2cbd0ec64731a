//! `run --capture LINK[+LINK…][:FLOW,…]` and `[[capture]]`: the sink that turns a run's
//! captured segments into pcapng files, written beside the tables (and, like them, all or
//! nothing).

use std::sync::{Arc, Mutex};

use topologies::model::CaptureModel;

/// Parses `--capture` values: `LINK`, `LINK+LINK…` (one file for several links) and either
/// with `:FLOW,FLOW…` (a flow's name or a counted flow's group name).
pub fn parse(values: &[String]) -> Result<Vec<CaptureModel>, String> {
    values
        .iter()
        .map(|v| {
            let (link, flows) = match v.split_once(':') {
                Some((link, flows)) => (link, Some(flows.split(',').map(str::to_string).collect::<Vec<_>>())),
                None => (v.as_str(), None),
            };
            let links: Vec<String> = link.split('+').map(str::to_string).collect();
            if links.iter().any(String::is_empty) || flows.as_ref().is_some_and(|f| f.iter().any(String::is_empty)) {
                return Err(format!("--capture {v}: expected LINK, LINK+LINK…, or either with :FLOW,FLOW…"));
            }
            Ok(CaptureModel { key: "--capture".into(), links, flows, from: Default::default(), until: None })
        })
        .collect()
}

/// Per capture: its label (its links' names joined by `+`) and its file's name, unique in the
/// run's output (`capture-LINK.pcapng`, then `-2`, `-3` … for repeats).
pub fn file_names(captures: &[CaptureModel]) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = Vec::with_capacity(captures.len());
    for c in captures {
        let label = c.links.join("+");
        let base = format!("capture-{}", label.replace(['/', '\\'], "_"));
        let mut name = format!("{base}.pcapng");
        let mut k = 2;
        while names.iter().any(|(_, n)| *n == name) {
            name = format!("{base}-{k}.pcapng");
            k += 1;
        }
        names.push((label, name));
    }
    names
}

/// The pcapng files of a run's captures, in memory until the run's outputs are written.
struct Files {
    captures: Vec<capture::Capture<Vec<u8>>>,
    error: Option<String>,
}

/// The run's capture sink; the files stay reachable through [`Captured`] after the run.
struct Sink(Arc<Mutex<Files>>);

impl tcp::CaptureSink for Sink {
    fn write(&mut self, index: usize, segment: &capture::Segment) {
        let mut files = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if files.error.is_none()
            && let Err(e) = files.captures[index].write(segment)
        {
            files.error = Some(format!("capture {index}: {e}"));
        }
    }
}

/// The captures of one run, to be collected once it has ended.
pub struct Captured {
    files: Arc<Mutex<Files>>,
    names: Vec<String>,
}

impl Captured {
    /// A sink for `captures` (named after their links, in order), and the handle that collects
    /// the files after the run.
    pub fn new(captures: &[CaptureModel], mss: u32) -> Result<(Box<dyn tcp::CaptureSink>, Captured), String> {
        let mut names: Vec<String> = Vec::new();
        let mut files = Vec::new();
        for (label, name) in file_names(captures) {
            let options =
                capture::Options { interface: label.clone(), mss: Some(mss.min(u16::MAX as u32) as u16), ..capture::Options::default() };
            files.push(capture::Capture::new(Vec::new(), &options).map_err(|e| format!("capture of {label}: {e}"))?);
            names.push(name);
        }
        let files = Arc::new(Mutex::new(Files { captures: files, error: None }));
        Ok((Box::new(Sink(files.clone())), Captured { files, names }))
    }

    /// The names of the files the captures will be written to.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The files' names and bytes, and how many packets each holds.
    pub fn finish(self) -> Result<Vec<(String, Vec<u8>, u64)>, String> {
        let files = Arc::try_unwrap(self.files).map_err(|_| "the capture sink outlived its run".to_string())?;
        let files = files.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = files.error {
            return Err(e);
        }
        self.names
            .into_iter()
            .zip(files.captures)
            .map(|(name, c)| {
                let packets = c.packets();
                c.finish().map(|bytes| (name, bytes, packets)).map_err(|e| e.to_string())
            })
            .collect()
    }
}
