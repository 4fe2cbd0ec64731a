//! Addresses, ports and initial sequence numbers, derived from (flow, subflow).
//!
//! The simulator has no addresses, so the capture invents them. They are chosen so that a
//! person can read them and filter on them, and so that Wireshark sees what a multipath host
//! would produce:
//!
//! | endpoint | IPv4 | TCP port |
//! | --- | --- | --- |
//! | data sender (client), subflow `s` | `10.(1+s).F1.F0` | `49152 + (s mod 16384)` |
//! | data receiver (server) | `10.0.F1.F0` | `5000 + F2` |
//!
//! where F0, F1, F2 are the low, second and third byte of the flow index. Every subflow of a
//! flow is thus a separate TCP stream, from its own client address (like a host with one
//! interface per path) to the one server address; Wireshark ties them into one MPTCP
//! connection through the MP_JOIN tokens, not through the addresses. Distinct for flows below
//! 2^24 and subflows below 255. Filter flow 3, subflow 1 with `ip.addr == 10.2.0.3`.
//!
//! MAC addresses are the locally administered `02:00:` followed by the IPv4 address.
//!
//! Initial sequence numbers are pseudo-random (from SHA-256 of the flow, subflow and
//! direction), not zero, so that 32-bit wrap-around and Wireshark's relative numbering are
//! exercised as on a real network.

use sha2::{Digest, Sha256};

/// One side of a subflow on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// Ethernet address.
    pub mac: [u8; 6],
    /// IPv4 address.
    pub ip: [u8; 4],
    /// TCP port.
    pub port: u16,
}

/// The two sides of subflow `subflow` of flow `flow`: (data sender, data receiver).
pub fn endpoints(flow: u32, subflow: u32) -> (Endpoint, Endpoint) {
    let [f0, f1, f2, _] = flow.to_le_bytes();
    let s = (subflow % 255) as u8;
    let sender_ip = [10, 1 + s, f1, f0];
    let receiver_ip = [10, 0, f1, f0];
    let sender = Endpoint { mac: mac_of(sender_ip), ip: sender_ip, port: 49152 + (subflow % 16384) as u16 };
    let receiver = Endpoint { mac: mac_of(receiver_ip), ip: receiver_ip, port: 5000 + f2 as u16 };
    (sender, receiver)
}

fn mac_of(ip: [u8; 4]) -> [u8; 6] {
    [0x02, 0x00, ip[0], ip[1], ip[2], ip[3]]
}

/// The initial sequence number of one direction of a subflow (`from_receiver`: the ACK
/// direction).
pub fn isn(flow: u32, subflow: u32, from_receiver: bool) -> u32 {
    let digest = Sha256::new()
        .chain_update(b"equipoise isn")
        .chain_update(flow.to_be_bytes())
        .chain_update(subflow.to_be_bytes())
        .chain_update([u8::from(from_receiver)])
        .finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subflows_and_flows_get_distinct_four_tuples() {
        let mut seen = std::collections::BTreeSet::new();
        for flow in [0, 1, 255, 256, 65_535, 65_536, (1 << 24) - 1] {
            for subflow in 0..4 {
                let (a, b) = endpoints(flow, subflow);
                assert!(seen.insert((a.ip, a.port, b.ip, b.port)), "flow {flow} subflow {subflow} collides");
                assert_ne!(a.ip, b.ip);
            }
        }
    }

    #[test]
    fn isns_differ_per_direction() {
        assert_ne!(isn(0, 0, false), isn(0, 0, true));
        assert_ne!(isn(0, 0, false), isn(0, 1, false));
        assert_eq!(isn(7, 1, true), isn(7, 1, true));
    }
}
