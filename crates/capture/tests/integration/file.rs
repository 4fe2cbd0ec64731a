//! The pcapng file itself, read back with pcap-file (no tshark needed): nanosecond
//! resolution, exact timestamps, original lengths, the "dropped" comment, and the size bound
//! callers rely on to refuse captures that would be too big.

use std::borrow::Cow;

use capture::{Capture, DROPPED_COMMENT, Dss, MAX_BYTES_PER_PACKET, Mptcp, Options, Segment, estimated_size};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketOption;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};

/// The biggest packets there are: full SACK option space, every MPTCP form, dropped.
fn worst_cases() -> Vec<Segment> {
    let sack = [Some((1, 2)), Some((3, 4)), Some((5, 6)), Some((7, 8))];
    let full_dss = Mptcp::Dss(Dss { data_seq: Some(1), data_ack: Some(1), data_fin: true });
    let mut segs = vec![
        Segment { syn: true, timestamps: Some((1, 0)), mptcp: Some(Mptcp::Join { backup: true }), ..Default::default() },
        Segment {
            syn: true,
            ack: Some(1),
            from_receiver: true,
            timestamps: Some((1, 1)),
            mptcp: Some(Mptcp::Join { backup: true }),
            ..Default::default()
        },
        Segment { seq: 1, ack: Some(1), timestamps: Some((2, 1)), mptcp: Some(Mptcp::Join { backup: false }), ..Default::default() },
        Segment { seq: 1, ack: Some(1), sack, from_receiver: true, ..Default::default() },
        Segment { seq: 1, ack: Some(1), sack, timestamps: Some((3, 2)), from_receiver: true, ..Default::default() },
        Segment {
            seq: 1,
            ack: Some(1),
            payload_len: 1400,
            wire_len: 1500,
            timestamps: Some((3, 2)),
            mptcp: Some(full_dss),
            ..Default::default()
        },
    ];
    for (i, s) in segs.iter_mut().enumerate() {
        s.time_ps = 1_234_567_890_123 + i as u64 * 1_000_001; // sub-nanosecond part is dropped
        s.subflow = 1;
        s.dropped = true;
        s.window = 65_535;
    }
    segs
}

#[test]
fn file_has_nanosecond_times_lengths_drop_marks_and_stays_within_the_estimate() {
    let segs = worst_cases();
    let options = Options { interface: "bottleneck".to_owned(), ..Options::default() };
    let mut cap = Capture::new(Vec::new(), &options).unwrap();
    for s in &segs {
        cap.write(s).unwrap();
    }
    assert_eq!(cap.packets(), segs.len() as u64);
    let bytes = cap.finish().unwrap();
    assert!(bytes.len() as u64 <= estimated_size(segs.len() as u64), "{} bytes", bytes.len());

    let mut reader = PcapNgReader::new(&bytes[..]).unwrap();
    let mut packets = Vec::new();
    while let Some(block) = reader.next_block() {
        match block.unwrap() {
            Block::InterfaceDescription(idb) => {
                assert!(idb.options.contains(&InterfaceDescriptionOption::IfTsResol(9)));
                assert!(idb.options.contains(&InterfaceDescriptionOption::IfName(Cow::Borrowed("bottleneck"))));
            }
            Block::EnhancedPacket(epb) => packets.push(epb.into_owned()),
            _ => {}
        }
    }
    assert_eq!(packets.len(), segs.len());
    for (p, s) in packets.iter().zip(&segs) {
        assert_eq!(p.timestamp.as_nanos(), (s.time_ps / 1000) as u128);
        assert!(p.original_len >= s.wire_len && p.original_len as usize >= p.data.len());
        assert!(p.options.contains(&EnhancedPacketOption::Comment(Cow::Borrowed(DROPPED_COMMENT))));
        // The block on disk: 32 bytes of framing, data padded to 4, the comment and end of options.
        let block = 32 + p.data.len().next_multiple_of(4) + 16;
        assert!(block as u64 <= MAX_BYTES_PER_PACKET, "{block} bytes");
    }
    assert_eq!(packets[5].original_len, 1500, "wire_len, beyond the 14 + 20 + 60 + 1400 the headers imply");
    assert_eq!(packets[3].original_len as usize, packets[3].data.len(), "no wire_len and no payload: the headers' length");
}

#[test]
fn impossible_segments_are_errors_not_garbage() {
    let mut cap = Capture::new(Vec::new(), &Options::default()).unwrap();
    let too_long = Segment { seq: 1, ack: Some(1), payload_len: 70_000, ..Default::default() };
    assert_eq!(cap.write(&too_long).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    assert!(Capture::new(Vec::new(), &Options { window_shift: 15, ..Options::default() }).is_err());
}

use crate::common;

#[test]
fn tshark_dissects_the_fullest_headers_cleanly() {
    if !common::have_tshark("tshark_dissects_the_fullest_headers_cleanly") {
        return;
    }
    let segs = worst_cases();
    let path = common::capture_path("worst_cases");
    let mut cap = Capture::create(&path).unwrap();
    for s in &segs {
        cap.write(s).unwrap();
    }
    cap.finish().unwrap();
    common::assert_clean(&path, &common::MPTCP_PREFS);
    // The full DSS (data ACK, mapping, DATA_FIN) after timestamps, in the last 38 option bytes.
    let rows =
        common::fields(&path, &common::MPTCP_PREFS, "tcp.len == 1400", &["tcp.options.mptcp.datalvllen", "tcp.options.mptcp.datafin.flag"]);
    assert_eq!(rows, [[vec!["1401".to_owned()], vec!["1".to_owned()]]]);
    let sacks = common::fields(&path, &[], "tcp.options.sack_le", &["tcp.options.sack_le"]);
    assert_eq!(sacks.iter().map(|r| r[0].len()).collect::<Vec<_>>(), [4, 3]);
}
