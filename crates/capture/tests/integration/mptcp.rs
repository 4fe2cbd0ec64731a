//! A two-subflow MPTCP connection, generated here, written as pcapng and read back by tshark
//! with its MPTCP analysis on: both subflows must belong to one MPTCP connection, and the
//! data-level sequence numbers Wireshark reports must be the ones written, continuous across
//! the subflows.

use crate::common;

use crate::common::{MPTCP_PREFS, assert_clean, count, fields, have_tshark, nums};
use capture::{Capture, Dss, Mptcp, Segment, estimated_size, mptcp};

const FLOW: u32 = 2;
const MSS: u64 = 1000;
const US: u64 = 1_000_000; // picoseconds
const MS: u64 = 1000 * US;
const RTT: u64 = 10 * MS;
const SEGMENTS: u64 = 20;

/// The handshake of `subflow` starting at `t` (MP_CAPABLE on subflow 0, MP_JOIN on the
/// others), then the receiver's ACK of the third ACK (a data ACK, as RFC 8684 asks for MP_JOIN).
fn handshake(t: u64, subflow: u32) -> Vec<Segment> {
    let opt = if subflow == 0 { Mptcp::Capable } else { Mptcp::Join { backup: false } };
    let base = Segment { flow: FLOW, subflow, wire_len: 80, window: 65_535, ..Default::default() };
    let ack_dss = Mptcp::Dss(Dss { data_ack: Some(1), ..Default::default() });
    vec![
        Segment { time_ps: t, syn: true, mptcp: Some(opt), ..base.clone() },
        Segment { time_ps: t + RTT, from_receiver: true, syn: true, ack: Some(1), mptcp: Some(opt), ..base.clone() },
        Segment { time_ps: t + RTT + US, seq: 1, ack: Some(1), mptcp: Some(opt), ..base.clone() },
        Segment { time_ps: t + 2 * RTT + US, from_receiver: true, seq: 1, ack: Some(1), mptcp: Some(ack_dss), ..base },
    ]
}

/// Data segments alternate between the two subflows, each with a DSS mapping of its bytes;
/// every segment is acknowledged on its subflow one RTT later, with a data ACK.
fn connection() -> Vec<Segment> {
    let mut segs = handshake(0, 0);
    segs.extend(handshake(2 * RTT + 2 * US, 1));
    let start = 4 * RTT + 3 * US;
    for k in 0..SEGMENTS {
        let subflow = (k % 2) as u32;
        let (t, seq, dsn) = (start + k * 100 * US, 1 + (k / 2) * MSS, 1 + k * MSS);
        segs.push(Segment {
            time_ps: t,
            flow: FLOW,
            subflow,
            wire_len: 1100,
            seq,
            ack: Some(1),
            payload_len: MSS as u32,
            window: 65_535,
            mptcp: Some(Mptcp::Dss(Dss { data_seq: Some(dsn), data_ack: Some(1), data_fin: false })),
            ..Default::default()
        });
        segs.push(Segment {
            time_ps: t + RTT,
            flow: FLOW,
            subflow,
            from_receiver: true,
            wire_len: 80,
            seq: 1,
            ack: Some(seq + MSS),
            window: 65_535,
            mptcp: Some(Mptcp::Dss(Dss { data_ack: Some(dsn + MSS), ..Default::default() })),
            ..Default::default()
        });
    }
    segs.sort_by_key(|s| s.time_ps);
    segs
}

fn write(name: &str, segments: &[Segment]) -> std::path::PathBuf {
    let path = common::capture_path(name);
    let mut cap = Capture::create(&path).expect("create capture");
    for s in segments {
        cap.write(s).expect("write segment");
    }
    cap.finish().expect("finish capture");
    assert!(std::fs::metadata(&path).unwrap().len() <= estimated_size(segments.len() as u64));
    path
}

#[test]
fn tshark_maps_both_subflows_to_one_mptcp_connection_with_continuous_data_sequence() {
    if !have_tshark("tshark_maps_both_subflows_to_one_mptcp_connection_with_continuous_data_sequence") {
        return;
    }
    let segs = connection();
    let path = write("mptcp_two_subflows", &segs);
    assert_clean(&path, &MPTCP_PREFS);

    // One MPTCP connection over two TCP streams: every packet carries the same mptcp.stream,
    // except the very first SYN: an MP_CAPABLE v1 SYN has no key, and Wireshark's single pass
    // creates the MPTCP connection only at the SYN-ACK.
    let rows = fields(&path, &MPTCP_PREFS, "", &["tcp.stream", "mptcp.stream"]);
    assert_eq!(rows.len(), segs.len());
    let tcp_streams: std::collections::BTreeSet<_> = rows.iter().map(|r| r[0].clone()).collect();
    let mptcp_streams: std::collections::BTreeSet<_> = rows[1..].iter().map(|r| r[1].clone()).collect();
    assert_eq!(tcp_streams.len(), 2, "two subflows, two TCP streams: {tcp_streams:?}");
    assert_eq!(mptcp_streams.len(), 1, "one MPTCP connection: {mptcp_streams:?} over {rows:?}");
    assert_eq!(mptcp_streams.first().map(Vec::len), Some(1), "Wireshark attached the subflows to an MPTCP connection");

    // The token Wireshark expected in MP_JOIN is the one derived from the receiver's key.
    let keys = mptcp::Keys::of_flow(FLOW);
    let joins = fields(&path, &MPTCP_PREFS, "tcp.options.mptcp.recvtok", &["tcp.options.mptcp.recvtok"]);
    assert_eq!(joins.len(), 1);
    assert_eq!(nums(&joins[0][0])[0], u64::from(mptcp::token(keys.receiver)));

    // Data-level sequence numbers: relative (first byte 1), as written, and continuous across
    // the subflows once put in order.
    let data = fields(&path, &MPTCP_PREFS, "tcp.len > 0", &["tcp.stream", "mptcp.dsn", "tcp.options.mptcp.datalvllen"]);
    assert_eq!(data.len() as u64, SEGMENTS);
    let written: Vec<u64> = segs
        .iter()
        .filter(|s| s.payload_len > 0)
        .map(|s| match s.mptcp {
            Some(Mptcp::Dss(Dss { data_seq: Some(d), .. })) => d,
            _ => unreachable!("data carries a mapping"),
        })
        .collect();
    let mut decoded: Vec<(u64, u64)> = data.iter().map(|r| (nums(&r[1])[0], nums(&r[2])[0])).collect();
    assert_eq!(decoded.iter().map(|d| d.0).collect::<Vec<_>>(), written);
    let per_subflow = |stream: &str| data.iter().filter(|r| r[0] == [stream]).count();
    assert_eq!((per_subflow("0"), per_subflow("1")), (10, 10), "data on both subflows");
    decoded.sort();
    assert_eq!(decoded[0].0, 1);
    for w in decoded.windows(2) {
        assert_eq!(w[0].0 + w[0].1, w[1].0, "data sequence continuous across subflows");
    }

    // Data ACKs, relative too, end at the last byte.
    let acks = fields(&path, &MPTCP_PREFS, "tcp.len == 0 && mptcp.ack", &["mptcp.ack"]);
    assert_eq!(acks.last().map(|r| nums(&r[0])), Some(vec![1 + SEGMENTS * MSS]));
    assert_eq!(count(&path, &MPTCP_PREFS, "mptcp.dss.missing_mapping || mptcp.connection.echoed_key_mismatch"), 0);
}
