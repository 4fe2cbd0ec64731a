//! Packet captures of simulated TCP and MPTCP traffic, as pcapng files Wireshark and tshark
//! dissect and analyse like a real trace.
//!
//! The simulator knows segments, bytes and times; network engineers debug with Wireshark. This
//! crate is the bridge, and it knows nothing of the simulator: the caller hands it neutral
//! [`Segment`] records (what a sniffer on one link saw) and gets a file with real
//! Ethernet/IPv4/TCP headers — sequence and ACK numbers, window, SACK blocks, timestamps and
//! MPTCP v1 options (MP_CAPABLE, MP_JOIN, DSS) — so Wireshark's own TCP and MPTCP analysis
//! (retransmissions, duplicate ACKs, subflows grouped into one connection) becomes an
//! independent check of the simulator.
//!
//! ```no_run
//! use capture::{Capture, Segment};
//! let mut cap = Capture::create("bottleneck.pcapng")?;
//! cap.write(&Segment { time_ps: 1_000_000, syn: true, window: 65_535, ..Default::default() })?;
//! cap.finish()?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! What the file holds, and the choices made for what the simulator does not have:
//!
//! - **Headers only.** Each packet's captured bytes are its Ethernet, IPv4 and TCP headers; the
//!   original length is the packet's size on the wire ([`Segment::wire_len`]), and the IPv4
//!   total length counts the uncaptured payload, so `tcp.len` is the real segment length.
//! - **Times** are simulation time in nanoseconds since the Unix epoch (`if_tsresol = 9`),
//!   rounded down from picoseconds.
//! - **Per capture** ([`Options`]): the capture point's name (`frame.interface_name`), the
//!   window scale shift announced on SYNs, and the MSS option on SYNs.
//! - **Addresses, ports, ISNs** are derived from (flow, subflow): see [`addressing`].
//! - **MPTCP keys** are derived from the flow, tokens, IDSNs and HMACs from the keys as
//!   RFC 8684 specifies: see [`mptcp`].
//! - **Dropped packets** (queue drops at the capture point, seen by a sniffer before the queue)
//!   are written like the others, with the pcapng packet comment [`DROPPED_COMMENT`]
//!   (`"dropped"`): filter them with `frame.comment == "dropped"`, hide them with
//!   `!(frame.comment == "dropped")`.
//! - **Size**: at most [`MAX_BYTES_PER_PACKET`] (144) bytes per packet plus
//!   [`MAX_FILE_OVERHEAD`] (512) per file; [`estimated_size`] gives the bound for a packet
//!   count. Typical packets take 100 (TCP with timestamps) to 128 bytes (with MPTCP DSS).
//! - **Cost**: about 0.3 µs of CPU per packet, 0.4 µs with the file write (measured with
//!   `cargo run --release -p capture --example cost`); nothing when no capture is made.
//!
//! Modules: [`segment`] (the input record), [`addressing`] and [`mptcp`] (what is derived),
//! [`frame`] (header bytes), [`writer`] (the pcapng stream).

pub mod addressing;
pub mod frame;
pub mod mptcp;
pub mod segment;
pub mod writer;

pub use segment::{Dss, MAX_SACK_BLOCKS, Mptcp, Segment};
pub use writer::{Capture, DROPPED_COMMENT, IpCapture, MAX_BYTES_PER_PACKET, MAX_FILE_OVERHEAD, Options, estimated_size};
