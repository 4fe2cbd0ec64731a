//! The testbed's addresses, all in the benchmarking range 198.18.0.0/15 (RFC 2544), which
//! nothing outside the run's namespaces routes: senders in 198.18.0.0/16, one address per
//! subflow; receivers in 198.19.0.0/16, one per flow; the router at .0.254 of each.

use std::net::Ipv4Addr;

/// Addresses per /24 used for hosts (x.y.z.1 to x.y.z.250).
const PER_BLOCK: usize = 250;

/// The most hosts of one side: 250 per /24, from 198.1x.1.0 to 198.1x.250.0.
pub const MAX_HOSTS: usize = PER_BLOCK * 250;

/// The senders' side, and the router's address on it.
pub const SENDERS: (Ipv4Addr, Ipv4Addr) = (Ipv4Addr::new(198, 18, 0, 0), Ipv4Addr::new(198, 18, 0, 254));
/// The receivers' side, and the router's address on it.
pub const RECEIVERS: (Ipv4Addr, Ipv4Addr) = (Ipv4Addr::new(198, 19, 0, 0), Ipv4Addr::new(198, 19, 0, 254));

fn host(side: Ipv4Addr, i: usize) -> Ipv4Addr {
    let o = side.octets();
    Ipv4Addr::new(o[0], o[1], (i / PER_BLOCK + 1) as u8, (i % PER_BLOCK + 1) as u8)
}

fn index(side: Ipv4Addr, a: Ipv4Addr) -> Option<usize> {
    let (s, o) = (side.octets(), a.octets());
    let (block, last) = (o[2] as usize, o[3] as usize);
    (s[..2] == o[..2] && (1..=250).contains(&block) && (1..=PER_BLOCK).contains(&last)).then(|| (block - 1) * PER_BLOCK + last - 1)
}

/// The address global subflow `g` sends from.
pub fn sender(g: usize) -> Ipv4Addr {
    host(SENDERS.0, g)
}

/// The address flow `f` is received at.
pub fn receiver(f: usize) -> Ipv4Addr {
    host(RECEIVERS.0, f)
}

/// The global subflow sending from `a`, if it is a sender's address.
pub fn subflow_of_sender(a: Ipv4Addr) -> Option<usize> {
    index(SENDERS.0, a)
}

/// The subflow an IPv4 packet belongs to and whether it goes forward (data, sender to
/// receiver) or back (ACKs); `None` for a packet between no sender and receiver.
pub fn subflow_of(packet: &[u8]) -> Option<(usize, bool)> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    let src = Ipv4Addr::new(packet[12], packet[13], packet[14], packet[15]);
    let dst = Ipv4Addr::new(packet[16], packet[17], packet[18], packet[19]);
    match (index(SENDERS.0, src), index(RECEIVERS.0, dst)) {
        (Some(g), Some(_)) => Some((g, true)),
        _ => match (index(RECEIVERS.0, src), index(SENDERS.0, dst)) {
            (Some(_), Some(g)) => Some((g, false)),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_address_maps_back_to_its_index_and_stays_in_the_benchmarking_range() {
        for i in [0, 1, 249, 250, 12_345, MAX_HOSTS - 1] {
            assert_eq!(subflow_of_sender(sender(i)), Some(i));
            assert_eq!(index(RECEIVERS.0, receiver(i)), Some(i));
            let (s, r) = (sender(i).octets(), receiver(i).octets());
            assert!(s[0] == 198 && s[1] == 18 && r[0] == 198 && r[1] == 19, "{s:?} {r:?}");
        }
        assert_eq!(subflow_of_sender(SENDERS.1), None, "the router is no host");
        let mut packet = [0u8; 20];
        packet[0] = 0x45;
        packet[12..16].copy_from_slice(&sender(7).octets());
        packet[16..20].copy_from_slice(&receiver(3).octets());
        assert_eq!(subflow_of(&packet), Some((7, true)));
        packet[12..16].copy_from_slice(&receiver(3).octets());
        packet[16..20].copy_from_slice(&sender(7).octets());
        assert_eq!(subflow_of(&packet), Some((7, false)));
        packet[16..20].copy_from_slice(&[8, 8, 8, 8]);
        assert_eq!(subflow_of(&packet), None);
    }
}
