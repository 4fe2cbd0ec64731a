//! The senders' counters read straight from the kernel: a `sock_diag` netlink dump of the TCP
//! sockets in a namespace (MPTCP subflows included), each with its `tcp_info`. This is what
//! `ss -ti` reads, without depending on the fields one version of `ss` prints: the count of
//! retransmission timeouts (`tcpi_total_rto`, Linux 6.7) is in no `ss` of Debian 12.

use std::io::Read;

use socket2::{Domain, Protocol, Socket, Type};

use super::addresses;
use super::hosts::{PORT, SocketInfo};

const AF_NETLINK: i32 = 16;
const AF_INET: u8 = 2;
const IPPROTO_TCP: u8 = 6;
const NETLINK_SOCK_DIAG: i32 = 4;
const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
/// `INET_DIAG_INFO`, the attribute that carries `struct tcp_info`.
const INET_DIAG_INFO: u16 = 2;
/// `struct nlmsghdr` and `struct inet_diag_msg`, bytes.
const HEADER: usize = 16;
const DIAG_MSG: usize = 72;

/// Byte offsets of the `struct tcp_info` fields read (include/uapi/linux/tcp.h).
mod tcp_info {
    pub const SND_MSS: usize = 16;
    pub const RTT_US: usize = 68;
    pub const SND_CWND: usize = 80;
    pub const TOTAL_RETRANS: usize = 100;
    pub const BYTES_ACKED: usize = 120;
    pub const MIN_RTT_US: usize = 148;
    pub const DATA_SEGS_OUT: usize = 156;
    /// `tcpi_total_rto` (u16) and, from here, the length a kernel with it gives.
    pub const TOTAL_RTO: usize = 240;
    pub const WITH_TOTAL_RTO: usize = 248;
}

/// The request: a dump of IPv4 TCP sockets in every state, with their `tcp_info`.
fn request() -> Vec<u8> {
    let mut m = Vec::with_capacity(HEADER + 56);
    m.extend_from_slice(&((HEADER + 56) as u32).to_ne_bytes());
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    m.extend_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    m.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel fills it in
    // struct inet_diag_req_v2: family, protocol, extensions wanted, pad, states, socket id.
    m.extend_from_slice(&[AF_INET, IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1), 0]);
    m.extend_from_slice(&u32::MAX.to_ne_bytes());
    m.extend_from_slice(&[0; 48]);
    m
}

/// Reads the TCP sockets of the calling thread's namespace whose peer is a receiver: per
/// sender address (global subflow), its counters.
pub fn read_sockets() -> Result<Vec<(usize, SocketInfo)>, String> {
    let cannot = |e: std::io::Error| format!("cannot read the kernel's socket counters (sock_diag netlink): {e}");
    let socket = Socket::new(Domain::from(AF_NETLINK), Type::DGRAM, Some(Protocol::from(NETLINK_SOCK_DIAG))).map_err(cannot)?;
    socket.send(&request()).map_err(cannot)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = (&socket).read(&mut buf).map_err(cannot)?;
        match parse(&buf[..n], &mut out) {
            Ok(true) => return Ok(out),
            Ok(false) => {}
            Err(e) => return Err(format!("cannot read the kernel's socket counters: {e}")),
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(b[at..at + 4].try_into().expect("four bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(b[at..at + 8].try_into().expect("eight bytes"))
}

/// Parses one datagram of the dump's answer into `out`; true once the dump is done.
fn parse(datagram: &[u8], out: &mut Vec<(usize, SocketInfo)>) -> Result<bool, String> {
    let mut at = 0;
    while at + HEADER <= datagram.len() {
        let len = u32_at(datagram, at) as usize;
        if len < HEADER || at + len > datagram.len() {
            return Err(format!("a netlink message of {len} bytes at {at} of {}", datagram.len()));
        }
        let message = &datagram[at..at + len];
        match u16_at(message, 4) {
            NLMSG_DONE => return Ok(true),
            NLMSG_ERROR => {
                let code = if len >= HEADER + 4 { -(u32_at(message, HEADER) as i32) } else { 0 };
                return Err(format!("the kernel refused the dump: {}", std::io::Error::from_raw_os_error(code)));
            }
            SOCK_DIAG_BY_FAMILY if len >= HEADER + DIAG_MSG => {
                if let Some(socket) = sender(&message[HEADER..]) {
                    out.push(socket);
                }
            }
            _ => {}
        }
        at += (len + 3) & !3;
    }
    Ok(false)
}

/// One `inet_diag_msg` and its attributes: the sender's subflow and counters, if it is a
/// connection to a receiver with its `tcp_info`.
fn sender(msg: &[u8]) -> Option<(usize, SocketInfo)> {
    // The socket id (ports in network order, then the addresses) starts at byte 4.
    let peer_port = u16::from_be_bytes([msg[6], msg[7]]);
    if peer_port != PORT {
        return None;
    }
    let local = std::net::Ipv4Addr::new(msg[8], msg[9], msg[10], msg[11]);
    let g = addresses::subflow_of_sender(local)?;
    let mut at = DIAG_MSG;
    while at + 4 <= msg.len() {
        let (len, kind) = (u16_at(msg, at) as usize, u16_at(msg, at + 2));
        if len < 4 || at + len > msg.len() {
            return None;
        }
        if kind == INET_DIAG_INFO {
            return info(&msg[at + 4..at + len]).map(|i| (g, i));
        }
        at += (len + 3) & !3;
    }
    None
}

/// The counters of one `struct tcp_info` (`None` if it is shorter than the fields read).
fn info(t: &[u8]) -> Option<SocketInfo> {
    use tcp_info::*;
    if t.len() < DATA_SEGS_OUT + 4 {
        return None;
    }
    Some(SocketInfo {
        cwnd: u32_at(t, SND_CWND) as f64,
        srtt_s: u32_at(t, RTT_US) as f64 / 1e6,
        min_rtt_s: u32_at(t, MIN_RTT_US) as f64 / 1e6,
        data_segs_out: u32_at(t, DATA_SEGS_OUT) as u64,
        retransmitted: u32_at(t, TOTAL_RETRANS) as u64,
        bytes_acked: u64_at(t, BYTES_ACKED),
        mss: u32_at(t, SND_MSS) as u64,
        timeouts: (t.len() >= WITH_TOTAL_RTO).then(|| u16_at(t, TOTAL_RTO) as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A datagram as the kernel answers: one sender's message with its `tcp_info`, one of a
    /// listening socket, then the end of the dump.
    #[test]
    fn a_dump_gives_each_sender_its_counters() {
        let mut tcp = vec![0u8; 248];
        let put = |t: &mut Vec<u8>, at: usize, v: &[u8]| t[at..at + v.len()].copy_from_slice(v);
        put(&mut tcp, tcp_info::SND_MSS, &1448u32.to_ne_bytes());
        put(&mut tcp, tcp_info::RTT_US, &12_500u32.to_ne_bytes());
        put(&mut tcp, tcp_info::SND_CWND, &17u32.to_ne_bytes());
        put(&mut tcp, tcp_info::TOTAL_RETRANS, &2u32.to_ne_bytes());
        put(&mut tcp, tcp_info::BYTES_ACKED, &725_000u64.to_ne_bytes());
        put(&mut tcp, tcp_info::MIN_RTT_US, &10_200u32.to_ne_bytes());
        put(&mut tcp, tcp_info::DATA_SEGS_OUT, &598u32.to_ne_bytes());
        put(&mut tcp, tcp_info::TOTAL_RTO, &3u16.to_ne_bytes());
        let message = |local: [u8; 4], peer_port: u16, attrs: &[u8]| {
            let mut m = vec![0u8; HEADER + DIAG_MSG];
            let len = (m.len() + attrs.len()) as u32;
            m[..4].copy_from_slice(&len.to_ne_bytes());
            m[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
            m[HEADER + 6..HEADER + 8].copy_from_slice(&peer_port.to_be_bytes());
            m[HEADER + 8..HEADER + 12].copy_from_slice(&local);
            m.extend_from_slice(attrs);
            m
        };
        let mut attr = ((4 + tcp.len()) as u16).to_ne_bytes().to_vec();
        attr.extend_from_slice(&INET_DIAG_INFO.to_ne_bytes());
        attr.extend_from_slice(&tcp);
        let local = addresses::sender(1).octets();
        let mut datagram = message(local, PORT, &attr);
        datagram.extend(message([198, 18, 0, 254], 22, &[]));
        let mut done = vec![0u8; HEADER];
        done[..4].copy_from_slice(&(HEADER as u32).to_ne_bytes());
        done[4..6].copy_from_slice(&NLMSG_DONE.to_ne_bytes());
        datagram.extend(done);

        let mut out = Vec::new();
        assert_eq!(parse(&datagram, &mut out), Ok(true));
        assert_eq!(out.len(), 1, "the socket of another port is not a sender");
        let (g, i) = out[0];
        assert_eq!(g, 1);
        assert_eq!(i.cwnd, 17.0);
        assert!((i.srtt_s - 0.0125).abs() < 1e-12 && (i.min_rtt_s - 0.0102).abs() < 1e-12);
        assert_eq!((i.data_segs_out, i.retransmitted, i.bytes_acked, i.mss, i.timeouts), (598, 2, 725_000, 1448, Some(3)));
        // A kernel older than 6.7 gives a shorter `tcp_info`: no count of timeouts.
        assert_eq!(info(&tcp[..232]).map(|i| i.timeouts), Some(None));
    }

    #[test]
    fn a_truncated_message_is_an_error_not_a_panic() {
        let mut m = vec![0u8; HEADER];
        m[..4].copy_from_slice(&100u32.to_ne_bytes());
        assert!(parse(&m, &mut Vec::new()).is_err());
    }
}
