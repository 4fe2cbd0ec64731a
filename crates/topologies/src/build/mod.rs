//! Stage 3, build: the plain [`crate::Scenario`] to what an engine runs. [`packet`] builds
//! the packet-level `tcp::Simulation`, checking what needs the whole scenario (names, paths,
//! thresholds against the packet size, the sizes of what a run records).

pub mod packet;
