//! The neutral per-packet record a capture is made of.
//!
//! A [`Segment`] says what a sniffer on a link saw, in the simulator's own terms (picoseconds,
//! byte offsets from the start of each sequence space, flow and subflow indices). Everything a
//! real packet has beyond that (addresses, ports, initial sequence numbers, MPTCP keys, nonces,
//! HMACs) is derived by the writer, deterministically, so that a record stays small, needs no
//! knowledge of TCP wire formats, and the same run always gives the same file.

/// At most this many SACK blocks are carried per segment: the most a TCP header can hold
/// (four, without timestamps). Fewer are written when other options need the space (see
/// [`Segment::sack`]).
pub const MAX_SACK_BLOCKS: usize = 4;

/// One packet as a sniffer on a link sees it.
///
/// # Sequence numbers
///
/// All numbers are *relative*, in bytes, exactly as Wireshark shows them with its default
/// "relative sequence numbers": each direction of a subflow counts from its own SYN, which has
/// sequence number 0, so the first data byte is 1. The writer adds a per-subflow, per-direction
/// initial sequence number (and wraps modulo 2^32), so a decoded `tcp.seq`, `tcp.ack`,
/// `tcp.options.sack_le` or `tcp.options.sack_re` equals the value given here.
///
/// `seq` is in the sending side's space; `ack` and the SACK edges are in the other side's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Simulator time, picoseconds since the start of the run. Written with nanosecond
    /// resolution (rounded down), as that many nanoseconds after the Unix epoch, so Wireshark's
    /// `frame.time_epoch` / `frame.time_relative` read as simulation time.
    pub time_ps: u64,
    /// Flow (connection) index: picks the addresses and ports (see [`crate::addressing`]).
    pub flow: u32,
    /// Subflow index within the flow (0 for single-path TCP): a separate TCP stream.
    pub subflow: u32,
    /// `false`: the data direction (sender to receiver); `true`: the ACK direction (receiver
    /// to sender).
    pub from_receiver: bool,
    /// Original length on the wire, bytes, as the Ethernet frame the sniffer saw (the
    /// simulator's packet size). Only the headers are captured. The length written is the
    /// larger of this and the length the headers imply (14 + 20 + TCP header + `payload_len`),
    /// so that the IPv4 total length always agrees with `payload_len`.
    pub wire_len: u32,
    /// Sequence number of the first byte (or of the SYN / FIN), relative (see above).
    pub seq: u64,
    /// Cumulative acknowledgement, relative to the other side's SYN; `None` only on the first
    /// SYN (no ACK flag).
    pub ack: Option<u64>,
    /// TCP payload bytes the segment carries (0 for pure ACKs and SYNs). At most
    /// 65535 − 20 − TCP header length.
    pub payload_len: u32,
    /// SYN flag (SYN when `ack` is `None`, SYN-ACK otherwise).
    pub syn: bool,
    /// FIN flag.
    pub fin: bool,
    /// Advertised receive window, bytes. On SYNs it is written unscaled (capped at 65535), as
    /// RFC 7323 requires; every SYN carries a window scale option with the writer's shift
    /// ([`crate::Options::window_shift`]), and later segments carry `window >> shift`, capped
    /// at 65535.
    pub window: u32,
    /// SACK blocks (left edge, right edge), relative, most recent first as RFC 2018 asks.
    /// Blocks are written in order while they fit in the 40 bytes of TCP options left by the
    /// MPTCP option and timestamps: 4 without timestamps, 3 with, 1 with timestamps and an
    /// MPTCP data ACK. The rest are dropped, as a real stack would.
    pub sack: [Option<(u64, u64)>; MAX_SACK_BLOCKS],
    /// TCP timestamps option: (TSval, TSecr).
    pub timestamps: Option<(u32, u32)>,
    /// The MPTCP option this segment carries, if any.
    pub mptcp: Option<Mptcp>,
    /// The queue at the capture point dropped this packet: the sniffer, placed before the
    /// queue, still saw it. Marked with the pcapng packet comment [`crate::DROPPED_COMMENT`]
    /// (filter `frame.comment == "dropped"`); the headers are written as usual.
    pub dropped: bool,
}

impl Segment {
    /// The SACK blocks present, in order.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack.iter().flatten().copied()
    }
}

/// The MPTCP option (RFC 8684, version 1) a segment carries.
///
/// Keys, tokens, nonces and HMACs are not given: the writer derives the two keys of a flow
/// from its index ([`crate::mptcp::Keys::of_flow`]) and the rest from them as RFC 8684
/// specifies, so that Wireshark links every MP_JOIN subflow to its MP_CAPABLE connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mptcp {
    /// MP_CAPABLE, on the first subflow's handshake. The form follows the flags: on a SYN the
    /// bare option, on a SYN-ACK the receiver's key, on the third ACK (no SYN) both keys.
    Capable,
    /// MP_JOIN, on the handshake of any other subflow: on a SYN the receiver's token and the
    /// sender's nonce, on a SYN-ACK the truncated HMAC and nonce, on the third ACK the
    /// 160-bit HMAC. The address ID is the subflow index (mod 256).
    Join {
        /// The backup flag (B) of the SYN and SYN-ACK forms.
        backup: bool,
    },
    /// A Data Sequence Signal: a mapping, a data ACK, or both.
    Dss(Dss),
}

/// A Data Sequence Signal (RFC 8684 §3.3). Written with 8-octet data sequence numbers and data
/// ACKs, and no checksum (the connection does not negotiate DSS checksums).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dss {
    /// Data-level sequence number of this segment's first payload byte, relative to the
    /// sending side's IDSN (the first data byte of the connection is 1, as Wireshark shows it
    /// with `mptcp.relative_sequence_numbers`). The mapping covers this segment's payload (and
    /// the DATA_FIN, if set): subflow sequence number = the segment's `seq`, data-level length
    /// = `payload_len` (+1 with `data_fin`). `None`: no mapping.
    pub data_seq: Option<u64>,
    /// Data-level cumulative acknowledgement, relative to the other side's IDSN. `None`: no
    /// data ACK.
    pub data_ack: Option<u64>,
    /// DATA_FIN: the mapping ends the data stream (needs `data_seq`).
    pub data_fin: bool,
}
