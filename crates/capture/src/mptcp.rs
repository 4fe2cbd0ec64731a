//! MPTCP version 1 (RFC 8684): keys, tokens, IDSNs, MP_JOIN authentication, and the option
//! bytes.
//!
//! Wireshark groups subflows into one MPTCP connection (`mptcp.stream`) by recomputing the
//! token from the key it saw in MP_CAPABLE and matching it with the token of each MP_JOIN SYN,
//! and it turns data sequence numbers into relative ones by subtracting the IDSN derived from
//! the same key. So the cryptography has to be the real one (SHA-256, HMAC-SHA256), not a
//! placeholder. etherparse has no MPTCP option, so the option bytes are laid out here, as
//! RFC 8684 §3 draws them.
//!
//! What this asks of a capture: the handshakes must be in it (Wireshark learns the keys from
//! the MP_CAPABLE SYN-ACK and third ACK, and the subflow from the MP_JOIN SYN); without them
//! the subflows stay separate TCP streams. A version 1 MP_CAPABLE SYN carries no key, so
//! Wireshark (4.0) gives that one packet no `mptcp.stream`; every later packet of every
//! subflow gets the connection's.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::segment::{Dss, Mptcp, Segment};

/// TCP option kind of every MPTCP option.
const KIND: u8 = 30;
const SUBTYPE_CAPABLE: u8 = 0;
const SUBTYPE_JOIN: u8 = 1;
const SUBTYPE_DSS: u8 = 2;
/// MP_CAPABLE version 1, flags with only H (HMAC-SHA256) set: no DSS checksums.
const VERSION: u8 = 1;
const FLAG_HMAC_SHA256: u8 = 0x01;
/// The longest MPTCP option written: MP_DSS with an 8-octet data ACK and a full mapping.
pub const MAX_LEN: usize = 26;

/// The two keys of a connection, as exchanged in MP_CAPABLE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keys {
    /// The data sender's (connection initiator's) key, "Key-A".
    pub sender: u64,
    /// The data receiver's (responder's) key, "Key-B".
    pub receiver: u64,
}

impl Keys {
    /// The keys the writer uses for flow `flow`: fixed per flow, so that runs are reproducible.
    pub fn of_flow(flow: u32) -> Keys {
        let key = |side: &[u8]| {
            let d = Sha256::new().chain_update(b"equipoise mptcp key").chain_update(side).chain_update(flow.to_be_bytes()).finalize();
            u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
        };
        Keys { sender: key(b"sender"), receiver: key(b"receiver") }
    }
}

/// A connection's keys with their IDSNs, worked out once: hashing per packet would be most of
/// the cost of writing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connection {
    /// The keys.
    pub keys: Keys,
    /// IDSNs of (sender's key, receiver's key).
    pub idsn: (u64, u64),
}

impl Connection {
    /// The connection of flow `flow` (keys from [`Keys::of_flow`]).
    pub fn of_flow(flow: u32) -> Connection {
        let keys = Keys::of_flow(flow);
        Connection { keys, idsn: (idsn(keys.sender), idsn(keys.receiver)) }
    }
}

/// The token of `key`: the most significant 32 bits of SHA-256 of the key (RFC 8684 §3.2).
pub fn token(key: u64) -> u32 {
    let d = Sha256::digest(key.to_be_bytes());
    u32::from_be_bytes(d[..4].try_into().expect("4 bytes"))
}

/// The initial data sequence number of `key`: the least significant 64 bits of SHA-256 of the
/// key (RFC 8684 §3.1).
pub fn idsn(key: u64) -> u64 {
    let d = Sha256::digest(key.to_be_bytes());
    u64::from_be_bytes(d[24..32].try_into().expect("8 bytes"))
}

/// HMAC-SHA256 with the two keys (first, second) concatenated as key and the two nonces
/// (first, second) as message: the MP_JOIN authentication code (RFC 8684 §3.2).
fn join_hmac(first_key: u64, second_key: u64, first_nonce: u32, second_nonce: u32) -> [u8; 32] {
    let mut key = [0; 16];
    key[..8].copy_from_slice(&first_key.to_be_bytes());
    key[8..].copy_from_slice(&second_key.to_be_bytes());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    mac.update(&first_nonce.to_be_bytes());
    mac.update(&second_nonce.to_be_bytes());
    mac.finalize().into_bytes().into()
}

/// The MP_JOIN nonce ("random number") of one side of a subflow.
pub fn nonce(flow: u32, subflow: u32, from_receiver: bool) -> u32 {
    let d = Sha256::new()
        .chain_update(b"equipoise mptcp nonce")
        .chain_update(flow.to_be_bytes())
        .chain_update(subflow.to_be_bytes())
        .chain_update([u8::from(from_receiver)])
        .finalize();
    u32::from_be_bytes(d[..4].try_into().expect("4 bytes"))
}

/// Encoded option bytes (no padding): a fixed buffer, since options are built per packet.
#[derive(Clone, Copy, Debug)]
pub struct OptionBytes {
    buf: [u8; MAX_LEN],
    len: usize,
}

impl OptionBytes {
    fn new(len: u8, subtype_byte: u8, fourth: u8) -> OptionBytes {
        let mut buf = [0; MAX_LEN];
        buf[..4].copy_from_slice(&[KIND, len, subtype_byte, fourth]);
        OptionBytes { buf, len: 4 }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
        self.buf[1] = self.len as u8;
    }

    /// The option, kind and length included.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// The option bytes of `opt` on segment `seg` of connection `conn`.
pub fn encode(opt: &Mptcp, seg: &Segment, conn: &Connection) -> OptionBytes {
    let keys = conn.keys;
    // Which of the three handshake forms: RFC 8684 distinguishes them by the TCP flags.
    let synack = seg.syn && seg.ack.is_some();
    match *opt {
        Mptcp::Capable => {
            let mut o = OptionBytes::new(4, SUBTYPE_CAPABLE << 4 | VERSION, FLAG_HMAC_SHA256);
            if synack {
                o.push(&keys.receiver.to_be_bytes());
            } else if !seg.syn {
                o.push(&keys.sender.to_be_bytes());
                o.push(&keys.receiver.to_be_bytes());
            }
            o
        }
        Mptcp::Join { backup } => {
            let address_id = (seg.subflow % 256) as u8;
            let (flow, subflow) = (seg.flow, seg.subflow);
            let (nonce_a, nonce_b) = (nonce(flow, subflow, false), nonce(flow, subflow, true));
            let b = SUBTYPE_JOIN << 4 | u8::from(backup);
            if seg.syn && !synack {
                let mut o = OptionBytes::new(4, b, address_id);
                o.push(&token(keys.receiver).to_be_bytes());
                o.push(&nonce_a.to_be_bytes());
                o
            } else if synack {
                let mut o = OptionBytes::new(4, b, address_id);
                o.push(&join_hmac(keys.receiver, keys.sender, nonce_b, nonce_a)[..8]);
                o.push(&nonce_b.to_be_bytes());
                o
            } else {
                let mut o = OptionBytes::new(4, SUBTYPE_JOIN << 4, 0);
                o.push(&join_hmac(keys.sender, keys.receiver, nonce_a, nonce_b)[..20]);
                o
            }
        }
        Mptcp::Dss(dss) => encode_dss(&dss, seg, conn),
    }
}

fn encode_dss(dss: &Dss, seg: &Segment, conn: &Connection) -> OptionBytes {
    // Data sequence numbers are in the sending side's space, data ACKs in the other's.
    let (own, other) = if seg.from_receiver { (conn.idsn.1, conn.idsn.0) } else { conn.idsn };
    let mut flags = 0;
    if dss.data_ack.is_some() {
        flags |= 0x01 | 0x02; // A: data ACK present, a: 8 octets
    }
    if dss.data_seq.is_some() {
        flags |= 0x04 | 0x08; // M: mapping present, m: 8-octet DSN
        if dss.data_fin {
            flags |= 0x10; // F
        }
    }
    let mut o = OptionBytes::new(4, SUBTYPE_DSS << 4, flags);
    if let Some(ack) = dss.data_ack {
        o.push(&other.wrapping_add(ack).to_be_bytes());
    }
    if let Some(dsn) = dss.data_seq {
        o.push(&own.wrapping_add(dsn).to_be_bytes());
        o.push(&(seg.seq as u32).to_be_bytes());
        let len = seg.payload_len + u32::from(dss.data_fin);
        o.push(&(len.min(u16::MAX as u32) as u16).to_be_bytes());
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_and_idsn_are_the_ends_of_the_key_hash() {
        // Checks the definitions (most significant 32 bits, least significant 64 bits).
        let key: u64 = 0x0102_0304_0506_0708;
        let d = Sha256::digest(key.to_be_bytes());
        assert_eq!(token(key).to_be_bytes(), d[..4]);
        assert_eq!(idsn(key).to_be_bytes(), d[24..]);
    }

    #[test]
    fn option_lengths_match_the_rfc() {
        let conn = Connection::of_flow(3);
        let syn = Segment { syn: true, ..Default::default() };
        let synack = Segment { syn: true, ack: Some(1), from_receiver: true, ..Default::default() };
        let ack = Segment { ack: Some(1), seq: 1, ..Default::default() };
        let len = |o: Mptcp, s: &Segment| encode(&o, s, &conn).as_slice().len();
        assert_eq!([len(Mptcp::Capable, &syn), len(Mptcp::Capable, &synack), len(Mptcp::Capable, &ack)], [4, 12, 20]);
        let join = Mptcp::Join { backup: false };
        assert_eq!([len(join, &syn), len(join, &synack), len(join, &ack)], [12, 16, 24]);
        let full = Mptcp::Dss(Dss { data_seq: Some(1), data_ack: Some(1), data_fin: false });
        assert_eq!(len(full, &ack), MAX_LEN);
        assert_eq!(len(Mptcp::Dss(Dss { data_ack: Some(1), ..Default::default() }), &ack), 12);
        assert_eq!(len(Mptcp::Dss(Dss { data_seq: Some(1), ..Default::default() }), &ack), 18);
    }
}
