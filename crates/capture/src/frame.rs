//! One segment to the captured bytes of an Ethernet/IPv4/TCP frame (headers only).
//!
//! Lengths are the real ones: the IPv4 total length counts the payload that is not captured,
//! so Wireshark's `tcp.len`, and with it its whole sequence analysis, sees the segment the
//! simulator sent. Checksums are real too: the IPv4 header checksum as usual, and the TCP
//! checksum as if the payload were all zero bytes (zero words do not change a ones' complement
//! sum, so the payload need not exist); Wireshark only checks it on request and then calls it
//! unverifiable for a truncated segment, but any tool that recomputes it gets a consistent
//! answer.

use std::io;

use etherparse::{EtherType, Ethernet2Header, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, TcpOptions, checksum::Sum16BitWords};

use crate::addressing::{self, Endpoint};
use crate::mptcp::{self, Connection};
use crate::segment::{MAX_SACK_BLOCKS, Segment};

/// The longest frame captured: Ethernet (14) + IPv4 without options (20) + TCP with the full
/// 40 bytes of options (60).
pub const MAX_CAPTURED_LEN: usize = 14 + 20 + 60;

/// TCP option space, bytes.
const OPTION_SPACE: usize = 40;

/// What the writer keeps per subflow so that nothing is hashed per packet.
#[derive(Clone, Copy, Debug)]
pub struct Subflow {
    /// (data sender, data receiver).
    pub ends: (Endpoint, Endpoint),
    /// Initial sequence numbers: (data direction, ACK direction).
    pub isn: (u32, u32),
    /// The flow's MPTCP keys and IDSNs.
    pub mptcp: Connection,
}

impl Subflow {
    /// The derived identity of subflow `subflow` of flow `flow`.
    pub fn new(flow: u32, subflow: u32) -> Subflow {
        Subflow {
            ends: addressing::endpoints(flow, subflow),
            isn: (addressing::isn(flow, subflow, false), addressing::isn(flow, subflow, true)),
            mptcp: Connection::of_flow(flow),
        }
    }
}

/// The per-capture choices that shape headers.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Window scale shift (see [`crate::Options::window_shift`]).
    pub window_shift: u8,
    /// MSS option on SYNs (see [`crate::Options::mss`]).
    pub mss: Option<u16>,
}

/// Writes the frame of `seg` into `out` (cleared first); returns the frame's length on the wire
/// as the headers describe it (Ethernet header included, payload included).
pub fn build(seg: &Segment, sf: &Subflow, settings: &Settings, out: &mut Vec<u8>) -> io::Result<u32> {
    let (src, dst) = if seg.from_receiver { (sf.ends.1, sf.ends.0) } else { (sf.ends.0, sf.ends.1) };
    let (own_isn, other_isn) = if seg.from_receiver { (sf.isn.1, sf.isn.0) } else { (sf.isn.0, sf.isn.1) };
    // Relative numbers to absolute ones: TCP sequence space is 32 bits and wraps.
    let abs = |isn: u32, rel: u64| isn.wrapping_add(rel as u32);

    let mut tcp = TcpHeader::new(src.port, dst.port, abs(own_isn, seg.seq), window(seg, settings.window_shift));
    tcp.syn = seg.syn;
    tcp.fin = seg.fin;
    if let Some(ack) = seg.ack {
        tcp.ack = true;
        tcp.acknowledgment_number = abs(other_isn, ack);
    }
    tcp.psh = seg.payload_len > 0;
    tcp.options = options(seg, sf, settings, other_isn)?;

    let tcp_len = tcp.header_len() + seg.payload_len as usize;
    let ip_payload = u16::try_from(tcp_len)
        .ok()
        .filter(|&l| l as usize <= u16::MAX as usize - Ipv4Header::MIN_LEN)
        .ok_or_else(|| invalid(format!("payload_len {} does not fit in one IPv4 packet", seg.payload_len)))?;
    tcp.checksum = Sum16BitWords::new()
        .add_4bytes(src.ip)
        .add_4bytes(dst.ip)
        .add_2bytes([0, IpNumber::TCP.0])
        .add_2bytes(ip_payload.to_be_bytes())
        .add_slice(&tcp.to_bytes())
        .ones_complement()
        .to_be();

    let mut ip = Ipv4Header::new(ip_payload, 64, IpNumber::TCP, src.ip, dst.ip).map_err(|e| invalid(e.to_string()))?;
    ip.header_checksum = ip.calc_header_checksum();
    let eth = Ethernet2Header { source: src.mac, destination: dst.mac, ether_type: EtherType::IPV4 };

    out.clear();
    eth.write(out)?;
    ip.write(out)?;
    tcp.write(out)?;
    Ok((Ethernet2Header::LEN + Ipv4Header::MIN_LEN) as u32 + tcp_len as u32)
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// The window field: RFC 7323 never scales a SYN's window; everything else is shifted.
fn window(seg: &Segment, shift: u8) -> u16 {
    let w = if seg.syn { seg.window } else { seg.window >> shift };
    w.min(u16::MAX as u32) as u16
}

/// The options, Linux-style: NOPs keep each standard option 4-byte aligned, the MPTCP option
/// goes last and SACK blocks take whatever room is left.
fn options(seg: &Segment, sf: &Subflow, settings: &Settings, other_isn: u32) -> io::Result<TcpOptions> {
    use TcpOptionElement::{MaximumSegmentSize, Noop, SelectiveAcknowledgement, SelectiveAcknowledgementPermitted, Timestamp, WindowScale};
    let mut elems: [TcpOptionElement; 8] = [const { Noop }; 8];
    let mut n = 0;
    let mut push = |e: TcpOptionElement| {
        elems[n] = e;
        n += 1;
    };
    let mptcp = seg.mptcp.map(|m| mptcp::encode(&m, seg, &sf.mptcp));
    let mptcp_len = mptcp.as_ref().map_or(0, |m| m.as_slice().len());
    if seg.syn {
        if let Some(mss) = settings.mss {
            push(MaximumSegmentSize(mss));
        }
        if let Some((val, ecr)) = seg.timestamps {
            push(SelectiveAcknowledgementPermitted);
            push(Timestamp(val, ecr));
        } else {
            push(Noop);
            push(Noop);
            push(SelectiveAcknowledgementPermitted);
        }
        push(Noop);
        push(WindowScale(settings.window_shift));
    } else {
        let mut used = mptcp_len;
        if let Some((val, ecr)) = seg.timestamps {
            push(Noop);
            push(Noop);
            push(Timestamp(val, ecr));
            used += 12;
        }
        let room = OPTION_SPACE.saturating_sub(used.next_multiple_of(4) + 4) / 8;
        let mut blocks = seg
            .sack_blocks()
            .take(room.min(MAX_SACK_BLOCKS))
            .map(|(l, r)| (other_isn.wrapping_add(l as u32), other_isn.wrapping_add(r as u32)));
        if let Some(first) = blocks.next() {
            let mut rest = [None; 3];
            for (slot, b) in rest.iter_mut().zip(blocks) {
                *slot = Some(b);
            }
            push(Noop);
            push(Noop);
            push(SelectiveAcknowledgement(first, rest));
        }
    }
    let standard = TcpOptions::try_from_elements(&elems[..n]).map_err(|e| invalid(e.to_string()))?;
    let mut buf = [0u8; OPTION_SPACE];
    let std_len = standard.as_slice().len();
    buf[..std_len].copy_from_slice(standard.as_slice());
    let mut len = std_len;
    if let Some(m) = mptcp {
        let bytes = m.as_slice();
        if len + bytes.len() > OPTION_SPACE {
            return Err(invalid(format!("TCP options need {} bytes, more than 40", len + bytes.len())));
        }
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    }
    // The rest up to a 4-byte boundary stays zero: end-of-option-list padding.
    TcpOptions::try_from_slice(&buf[..len]).map_err(|e| invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::{Dss, Mptcp};

    const SETTINGS: Settings = Settings { window_shift: 7, mss: Some(1460) };

    fn parse(frame: &[u8]) -> (Ipv4Header, TcpHeader) {
        let (_, rest) = Ethernet2Header::from_slice(frame).unwrap();
        let (ip, rest) = Ipv4Header::from_slice(rest).unwrap();
        let (tcp, rest) = TcpHeader::from_slice(rest).unwrap();
        assert!(rest.is_empty(), "headers only");
        (ip, tcp)
    }

    #[test]
    fn tcp_checksum_equals_that_of_a_zero_payload() {
        let seg = Segment { seq: 1001, ack: Some(1), payload_len: 1448, window: 65_536, timestamps: Some((5, 7)), ..Default::default() };
        let sf = Subflow::new(4, 0);
        let mut out = Vec::new();
        let wire = build(&seg, &sf, &SETTINGS, &mut out).unwrap();
        let (ip, tcp) = parse(&out);
        assert_eq!(wire as usize, 14 + ip.total_len as usize);
        assert_eq!(ip.payload_len().unwrap() as usize, tcp.header_len() + 1448);
        let zeros = vec![0u8; 1448];
        assert_eq!(tcp.checksum, tcp.calc_checksum_ipv4(&ip, &zeros).unwrap());
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        assert_eq!(tcp.window_size, 512);
    }

    #[test]
    fn sack_blocks_yield_to_timestamps_and_mptcp() {
        let sack = [Some((10, 20)), Some((30, 40)), Some((50, 60)), Some((70, 80))];
        let sf = Subflow::new(1, 0);
        let count = |seg: &Segment| {
            let mut out = Vec::new();
            build(seg, &sf, &SETTINGS, &mut out).unwrap();
            let (_, tcp) = parse(&out);
            // etherparse does not know MPTCP (kind 30) and stops there: it is the last option.
            tcp.options_iterator()
                .map_while(Result::ok)
                .filter_map(|o| match o {
                    TcpOptionElement::SelectiveAcknowledgement(_, rest) => Some(1 + rest.iter().flatten().count()),
                    _ => None,
                })
                .sum::<usize>()
        };
        let mut seg = Segment { ack: Some(1), from_receiver: true, sack, ..Default::default() };
        assert_eq!(count(&seg), 4);
        seg.timestamps = Some((1, 2));
        assert_eq!(count(&seg), 3);
        seg.mptcp = Some(Mptcp::Dss(Dss { data_ack: Some(1), ..Default::default() }));
        assert_eq!(count(&seg), 1);
    }

    #[test]
    fn every_handshake_form_fits_beside_mss_timestamps_and_window_scale() {
        let sf = Subflow::new(9, 1);
        for opt in [Mptcp::Capable, Mptcp::Join { backup: true }] {
            for (syn, ack) in [(true, None), (true, Some(1)), (false, Some(1))] {
                let seg = Segment { syn, ack, seq: u64::from(!syn), timestamps: Some((1, 2)), mptcp: Some(opt), ..Default::default() };
                let mut out = Vec::new();
                build(&seg, &sf, &SETTINGS, &mut out).unwrap();
                let (_, tcp) = parse(&out);
                let opts: Vec<_> = tcp.options_iterator().map_while(Result::ok).collect();
                assert!(opts.contains(&TcpOptionElement::Timestamp(1, 2)), "{opt:?} {syn} {ack:?}: {opts:?}");
                assert_eq!(opts.contains(&TcpOptionElement::MaximumSegmentSize(1460)), syn);
            }
        }
    }
}
