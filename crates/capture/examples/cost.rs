//! What capturing costs per packet: writes a million data segments and their SACK-carrying
//! ACKs (timestamps and MPTCP DSS options on) to a file and reports the time and bytes per
//! packet. Run with `cargo run --release -p capture --example cost [PATH]`.

use std::time::Instant;

use capture::{Capture, Dss, MAX_BYTES_PER_PACKET, Mptcp, Segment};

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).unwrap_or_else(|| std::env::temp_dir().join("capture-cost.pcapng").display().to_string());
    let n: u64 = 1_000_000;
    let start = Instant::now();
    let mut cap = Capture::create(&path)?;
    for k in 0..n / 2 {
        let (flow, subflow) = ((k % 64) as u32, (k % 2) as u32);
        let seq = 1 + (k / 128) * 1448;
        let t = k * 12_000_000;
        let dss = Dss { data_seq: Some(1 + k * 1448), data_ack: Some(1), data_fin: false };
        cap.write(&Segment {
            time_ps: t,
            flow,
            subflow,
            wire_len: 1500,
            seq,
            ack: Some(1),
            payload_len: 1448,
            window: 1 << 20,
            timestamps: Some(((t / 1_000_000_000) as u32, 7)),
            mptcp: Some(Mptcp::Dss(dss)),
            ..Default::default()
        })?;
        cap.write(&Segment {
            time_ps: t + 6_000_000,
            flow,
            subflow,
            from_receiver: true,
            wire_len: 66,
            seq: 1,
            ack: Some(seq),
            window: 1 << 20,
            sack: [Some((seq + 1448, seq + 2896)), None, None, None],
            timestamps: Some((7, (t / 1_000_000_000) as u32)),
            mptcp: Some(Mptcp::Dss(Dss { data_ack: Some(1 + k * 1448), ..Default::default() })),
            ..Default::default()
        })?;
    }
    cap.finish()?;
    let secs = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path)?.len();
    println!(
        "{n} packets to {path}: {:.0} ns and {:.1} bytes per packet (bound {MAX_BYTES_PER_PACKET})",
        secs * 1e9 / n as f64,
        bytes as f64 / n as f64
    );
    Ok(())
}
