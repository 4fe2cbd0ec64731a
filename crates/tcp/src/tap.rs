//! Packet captures: what a sniffer in front of a link saw, as [`capture::Segment`] records
//! handed to a [`CaptureSink`] (the command line writes one pcapng file per capture).
//!
//! A capture sees both directions of its link, as a sniffer on a full-duplex cable does: the
//! network copies every packet arriving at the link ([`sim_core::Network::tap`]), dropped ones
//! included, and every packet entering its reverse direction ([`sim_core::Network::tap_pipe`]),
//! where the ACKs of the flows that cross it travel (a flow with explicit `reverse_paths`
//! sends its ACKs elsewhere: capture those links too); the simulation turns the copies into segments after each of at least
//! 1000 slices of the run. A run without captures taps nothing: routes over a tapped link
//! cross it as a hop of its own kind, so untapped links cost nothing more.
//!
//! The simulator counts segments; the capture shows bytes, as Wireshark's relative sequence
//! numbers: each direction's SYN is 0 and segment `n` starts at byte `1 + n·mss` (a finite
//! transfer's last segment is shown full-sized). The receiver sends no data, so its
//! segments carry sequence number 1; data segments acknowledge 1. The advertised window is a
//! constant 8 MiB (the simulator has no window advertisement beyond its receive buffer).

use sim_core::{Hop, PacketKind, Tapped, Time};

use crate::simulation::LinkIndex;

/// One capture point.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureSpec {
    /// The links whose arrivals (and reverse directions) are captured, into one file.
    pub links: Vec<LinkIndex>,
    /// The flows captured, as indices in the order flows were added; `None`: every flow.
    pub flows: Option<Vec<u32>>,
    /// Arrivals at or after this time…
    pub from: Time,
    /// …and before this one.
    pub until: Time,
}

/// Where captured segments go.
pub trait CaptureSink: Send {
    /// `segment` was seen at capture `index` (captures numbered in the order they were added).
    fn write(&mut self, index: usize, segment: &capture::Segment);
}

/// The constant advertised window, bytes.
const WINDOW: u32 = 8 << 20;

/// What the simulation knows about the flow a tapped packet belongs to.
pub(crate) struct FlowView {
    pub flow: u32,
    pub subflow: u32,
    pub multipath: bool,
    pub timestamps: bool,
}

/// The endpoint at the end of the route a packet is on: the global subflow and whether the
/// packet goes to its receiver.
pub(crate) fn destination(hops: &[Hop]) -> Option<(u32, bool)> {
    hops.iter().find_map(|h| match h {
        Hop::Deliver(e) => Some((e / 2, e % 2 == 1)),
        _ => None,
    })
}

/// Relative byte number of segment `n`'s first byte.
fn byte(n: u64, mss: u32) -> u64 {
    1 + n * u64::from(mss)
}

/// The segment a sniffer saw for tapped packet `t`, going to the receiver (`to_receiver`) or
/// back to the sender.
pub(crate) fn segment(t: &Tapped, to_receiver: bool, view: &FlowView, mss: u32) -> capture::Segment {
    let p = &t.packet;
    let mut s = capture::Segment {
        time_ps: t.time.as_ps(),
        flow: view.flow,
        subflow: view.subflow,
        from_receiver: !to_receiver,
        wire_len: p.size,
        window: WINDOW,
        dropped: t.dropped,
        ..capture::Segment::default()
    };
    let ms = |time: Time| (time.as_ps() / 1_000_000_000) as u32;
    match p.kind {
        PacketKind::Handshake => {
            s.syn = true;
            s.seq = 0;
            s.ack = (!to_receiver).then_some(1);
            if view.multipath {
                s.mptcp = Some(if view.subflow == 0 { capture::Mptcp::Capable } else { capture::Mptcp::Join { backup: false } });
            }
        }
        PacketKind::Data => {
            s.seq = byte(p.seq, mss);
            s.ack = Some(1);
            s.payload_len = mss;
            if view.timestamps {
                s.timestamps = Some((ms(p.timestamp), 0));
            }
            if view.multipath {
                s.mptcp = Some(capture::Mptcp::Dss(capture::Dss { data_seq: Some(byte(p.data_seq, mss)), ..capture::Dss::default() }));
            }
        }
        PacketKind::Ack => {
            s.seq = 1;
            s.ack = Some(byte(p.seq, mss));
            for (slot, &(start, end)) in s.sack.iter_mut().zip(&p.sack) {
                if end > 0 {
                    *slot = Some((byte(p.seq + u64::from(start), mss), byte(p.seq + u64::from(end), mss)));
                }
            }
            if view.timestamps {
                s.timestamps = Some((ms(t.time), ms(p.timestamp)));
            }
            if view.multipath {
                s.mptcp = Some(capture::Mptcp::Dss(capture::Dss { data_ack: Some(byte(p.data_seq, mss)), ..capture::Dss::default() }));
            }
        }
    }
    s
}
