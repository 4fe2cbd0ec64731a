//! A lossy single-path connection, generated here, written as pcapng and read back by tshark:
//! the capture must dissect cleanly, and Wireshark's TCP analysis must find exactly the
//! retransmissions, fast retransmissions and duplicate ACKs the generator made, the SACK
//! blocks and timestamps it wrote, and the drops it marked.

use crate::common;

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::path::PathBuf;

use crate::common::{assert_clean, count, fields, have_tshark, nums};
use capture::{Capture, DROPPED_COMMENT, MAX_SACK_BLOCKS, Segment, estimated_size};

const FLOW: u32 = 1;
const MSS: u64 = 1000;
const US: u64 = 1_000_000; // picoseconds
const MS: u64 = 1000 * US;
/// One-way delay between the sniffer (at the sender) and the receiver.
const ONE_WAY: u64 = 5 * MS;
/// Spacing of back-to-back segments at the sniffer.
const GAP: u64 = 100 * US;
/// Retransmission timeout: far above the RTT, so that Wireshark, which calls a retransmission
/// sent within one RTT of the highest segment "out-of-order", calls these retransmissions.
const RTO: u64 = 200 * MS;
/// Receive window, bytes (a multiple of 128, the default window scale).
const WINDOW: u32 = 256 * 1024;

/// The generated trace and what the generator knows it contains.
struct Trace {
    segments: Vec<Segment>,
    retransmissions: usize,
    fast_retransmissions: usize,
    duplicate_acks: usize,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Data segment `index` (original or retransmitted) reaches the receiver; its TSval.
    DataArrives(u64, u32),
    /// An ACK reaches the sender: cumulative ACK in segments.
    AckArrives(u64),
    /// The retransmission timer of arming `epoch` fires.
    Rto(u64),
}

/// A NewReno-like sender with SACK-reporting receiver, scripted by rounds: each round sends
/// `count` new segments back to back, losing the ones at the given offsets (dropped by the
/// queue after the sniffer saw them). The first hole of a round is repaired by fast
/// retransmit on the third duplicate ACK, later ones by the retransmission timeout.
fn generate(rounds: &[(u64, &[u64])]) -> Trace {
    let mut segs = Vec::new();
    let mut trace = Trace { segments: Vec::new(), retransmissions: 0, fast_retransmissions: 0, duplicate_acks: 0 };
    // Handshake: SYN, SYN-ACK one RTT later, third ACK.
    let hs = |t: u64, from_receiver: bool, syn: bool, seq: u64, ack: Option<u64>, ts: (u32, u32)| Segment {
        time_ps: t,
        flow: FLOW,
        from_receiver,
        wire_len: 74,
        seq,
        ack,
        syn,
        window: WINDOW,
        timestamps: Some(ts),
        ..Default::default()
    };
    segs.push(hs(0, false, true, 0, None, (0, 0)));
    segs.push(hs(2 * ONE_WAY, true, true, 0, Some(1), (1000, 0)));
    segs.push(hs(2 * ONE_WAY + US, false, false, 1, Some(1), (ms(2 * ONE_WAY), 1000)));

    let mut events = BinaryHeap::new();
    let t0 = 2 * ONE_WAY + 2 * US;
    let mut round = 0;
    // Sender: next new segment, first unacknowledged, end of the current round (indices).
    let mut next = send_round(t0, 0, rounds[round], &mut events, &mut segs);
    let (mut una, mut round_end) = (0, next);
    let (mut dup, mut epoch) = (0, 1);
    events.push(Reverse((t0 + RTO, Event::Rto(epoch))));
    // Receiver.
    let mut received = BTreeSet::new();
    let mut arrival_order: Vec<u64> = Vec::new();
    let mut last_ack_sent = None;

    while let Some(Reverse((t, ev))) = events.pop() {
        match ev {
            Event::DataArrives(index, tsval) => {
                received.insert(index);
                arrival_order.push(index);
                let ack = (0..).find(|i| !received.contains(i)).expect("finite");
                if last_ack_sent == Some(ack) {
                    trace.duplicate_acks += 1;
                }
                last_ack_sent = Some(ack);
                let at = t + ONE_WAY;
                segs.push(Segment {
                    time_ps: at,
                    flow: FLOW,
                    from_receiver: true,
                    wire_len: 66,
                    seq: 1,
                    ack: Some(1 + ack * MSS),
                    window: WINDOW,
                    sack: sack_blocks(&received, &arrival_order, ack),
                    timestamps: Some((1000 + ms(t), tsval)),
                    ..Default::default()
                });
                events.push(Reverse((at, Event::AckArrives(ack))));
            }
            Event::AckArrives(ack) if ack > una => {
                una = ack;
                dup = 0;
                epoch += 1;
                if una == round_end && round + 1 < rounds.len() {
                    round += 1;
                    next = send_round(t + US, next, rounds[round], &mut events, &mut segs);
                    round_end = next;
                }
                if una < round_end {
                    events.push(Reverse((t + RTO, Event::Rto(epoch))));
                }
            }
            Event::AckArrives(_) => {
                dup += 1;
                if dup == 3 {
                    // Fast retransmit: within 20 ms of the third duplicate ACK, as Wireshark
                    // requires to call it one.
                    let at = t + 10 * US;
                    segs.push(data(at, una, false));
                    events.push(Reverse((at + ONE_WAY, Event::DataArrives(una, ms(at)))));
                    trace.retransmissions += 1;
                    trace.fast_retransmissions += 1;
                    epoch += 1;
                    events.push(Reverse((at + RTO, Event::Rto(epoch))));
                }
            }
            Event::Rto(e) if e == epoch && una < round_end => {
                segs.push(data(t, una, false));
                events.push(Reverse((t + ONE_WAY, Event::DataArrives(una, ms(t)))));
                trace.retransmissions += 1;
                epoch += 1;
                events.push(Reverse((t + RTO, Event::Rto(epoch))));
            }
            Event::Rto(_) => {}
        }
    }
    segs.sort_by_key(|s| s.time_ps); // stable: same-time packets keep their causal order
    trace.segments = segs;
    trace
}

/// Sends a round of new segments from index `first` back to back from `t`, losing those at the
/// round's offsets; returns the next new index.
fn send_round(
    t: u64,
    first: u64,
    (n, lost): (u64, &[u64]),
    events: &mut BinaryHeap<Reverse<(u64, Event)>>,
    segs: &mut Vec<Segment>,
) -> u64 {
    for k in 0..n {
        let (at, index) = (t + k * GAP, first + k);
        let dropped = lost.contains(&k);
        segs.push(data(at, index, dropped));
        if !dropped {
            events.push(Reverse((at + ONE_WAY, Event::DataArrives(index, ms(at)))));
        }
    }
    first + n
}

/// Data segment `index` sent at `t` (TSecr echoes the receiver's SYN-ACK).
fn data(t: u64, index: u64, dropped: bool) -> Segment {
    Segment {
        time_ps: t,
        flow: FLOW,
        wire_len: 66 + MSS as u32,
        seq: 1 + index * MSS,
        ack: Some(1),
        payload_len: MSS as u32,
        window: WINDOW,
        timestamps: Some((ms(t), 1000)),
        dropped,
        ..Default::default()
    }
}

/// The sender's timestamp clock: milliseconds.
fn ms(t: u64) -> u32 {
    (t / MS) as u32
}

/// SACK blocks above `ack`, in bytes, the most recently changed first (RFC 2018).
fn sack_blocks(received: &BTreeSet<u64>, arrival_order: &[u64], ack: u64) -> [Option<(u64, u64)>; MAX_SACK_BLOCKS] {
    let mut blocks: Vec<(u64, u64)> = Vec::new();
    for &i in received.range(ack..) {
        match blocks.last_mut() {
            Some(b) if b.1 == i => b.1 = i + 1,
            _ => blocks.push((i, i + 1)),
        }
    }
    let recency = |b: &(u64, u64)| arrival_order.iter().rposition(|i| (b.0..b.1).contains(i));
    blocks.sort_by_key(|b| Reverse(recency(b)));
    let mut out = [None; MAX_SACK_BLOCKS];
    for (slot, (l, r)) in out.iter_mut().zip(blocks) {
        *slot = Some((1 + l * MSS, 1 + r * MSS));
    }
    out
}

fn write(name: &str, segments: &[Segment]) -> PathBuf {
    let path = common::capture_path(name);
    let mut cap = Capture::create(&path).expect("create capture");
    for s in segments {
        cap.write(s).expect("write segment");
    }
    cap.finish().expect("finish capture");
    let size = std::fs::metadata(&path).expect("capture written").len();
    assert!(size <= estimated_size(segments.len() as u64), "{size} bytes exceed the estimate for {} packets", segments.len());
    path
}

const ROUNDS: [(u64, &[u64]); 2] = [(20, &[5, 12]), (10, &[3])];

#[test]
fn tshark_counts_the_retransmissions_and_duplicate_acks_generated() {
    if !have_tshark("tshark_counts_the_retransmissions_and_duplicate_acks_generated") {
        return;
    }
    let trace = generate(&ROUNDS);
    // The script's own bookkeeping: three holes, two repaired by fast retransmit, one by RTO.
    assert_eq!((trace.retransmissions, trace.fast_retransmissions), (3, 2));
    assert!(trace.duplicate_acks >= 6);
    let path = write("single_path_lossy", &trace.segments);
    assert_clean(&path, &[]);

    // Wireshark marks a fast retransmission with both fields: it is a retransmission too.
    assert_eq!(count(&path, &[], "tcp.analysis.retransmission"), trace.retransmissions, "retransmissions");
    assert_eq!(count(&path, &[], "tcp.analysis.fast_retransmission"), trace.fast_retransmissions, "fast retransmissions");
    assert_eq!(count(&path, &[], "tcp.analysis.duplicate_ack"), trace.duplicate_acks, "duplicate ACKs");
    assert_eq!(count(&path, &[], "tcp.analysis.out_of_order || tcp.analysis.spurious_retransmission"), 0);

    let dropped = trace.segments.iter().filter(|s| s.dropped).count();
    assert_eq!(dropped, 3);
    assert_eq!(count(&path, &[], &format!("frame.comment == \"{DROPPED_COMMENT}\"")), dropped, "dropped packets marked");

    // Every packet: nanosecond time, lengths and relative sequence numbers as written.
    let rows = fields(&path, &[], "", &["frame.time_epoch", "tcp.len", "tcp.seq", "tcp.ack", "frame.len", "frame.cap_len"]);
    assert_eq!(rows.len(), trace.segments.len());
    for (row, seg) in rows.iter().zip(&trace.segments) {
        let (secs, nanos) = row[0][0].split_once('.').expect("seconds.nanoseconds");
        assert_eq!(secs.parse::<u64>().unwrap() * 1_000_000_000 + nanos.parse::<u64>().unwrap(), seg.time_ps / 1000);
        assert_eq!(nums(&row[1]), [seg.payload_len as u64]);
        assert_eq!(nums(&row[2]), [seg.seq]);
        assert_eq!(nums(&row[3]), [seg.ack.unwrap_or(0)]); // Wireshark shows 0 without the ACK flag
        assert!(nums(&row[4])[0] >= seg.wire_len as u64);
        assert!(nums(&row[5])[0] <= 94, "headers only");
    }
}

#[test]
fn tshark_decodes_the_sack_blocks_written() {
    if !have_tshark("tshark_decodes_the_sack_blocks_written") {
        return;
    }
    let trace = generate(&ROUNDS);
    let path = write("single_path_sack", &trace.segments);
    assert_clean(&path, &[]);
    let acks: Vec<&Segment> = trace.segments.iter().filter(|s| s.from_receiver && !s.syn).collect();
    let rows = fields(&path, &[], "ip.src == 10.0.0.1 && tcp.flags.syn == 0", &["tcp.ack", "tcp.options.sack_le", "tcp.options.sack_re"]);
    assert_eq!(rows.len(), acks.len());
    let mut two_holes = 0;
    for (row, seg) in rows.iter().zip(&acks) {
        let written: Vec<(u64, u64)> = seg.sack_blocks().take(3).collect(); // 3 fit beside timestamps
        let decoded: Vec<(u64, u64)> = nums(&row[1]).into_iter().zip(nums(&row[2])).collect();
        assert_eq!(nums(&row[0]), [seg.ack.unwrap()]);
        assert_eq!(decoded, written, "SACK blocks of the ACK of {}", seg.ack.unwrap());
        if written.len() == 2 {
            two_holes += 1;
            // First and last block edges, the ones a person reads off.
            assert_eq!((decoded[0].0, decoded[1].1), (written[0].0, written[1].1));
        }
    }
    assert!(two_holes >= 5, "the ACK stream has two holes for a while ({two_holes} ACKs)");
}

#[test]
fn tshark_decodes_the_timestamps_written() {
    if !have_tshark("tshark_decodes_the_timestamps_written") {
        return;
    }
    let trace = generate(&[(6, &[])]);
    let path = write("single_path_timestamps", &trace.segments);
    assert_clean(&path, &[]);
    let rows = fields(&path, &[], "", &["tcp.options.timestamp.tsval", "tcp.options.timestamp.tsecr", "tcp.window_size_scalefactor"]);
    assert_eq!(rows.len(), trace.segments.len());
    for (row, seg) in rows.iter().zip(&trace.segments) {
        let (val, ecr) = seg.timestamps.unwrap();
        assert_eq!((nums(&row[0]), nums(&row[1])), (vec![val as u64], vec![ecr as u64]));
    }
    // The window scale option on the SYNs was understood: windows scale by 128.
    assert!(rows.iter().skip(2).all(|r| r[2] == ["128"]), "{rows:?}");
}
