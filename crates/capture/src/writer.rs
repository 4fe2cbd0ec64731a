//! The streaming pcapng writer and its size estimate.
//!
//! pcapng rather than classic pcap because it carries, per file, the nanosecond timestamp
//! resolution (`if_tsresol = 9`) and the capture point's name, and, per packet, a comment: the
//! simulator's exact times survive, and a dropped packet can be marked where Wireshark shows
//! it (`frame.comment`) without inventing a header bit.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};

use crate::frame::{self, MAX_CAPTURED_LEN, Subflow};
use crate::segment::Segment;

/// The pcapng packet comment on every packet whose [`Segment::dropped`] is set. Wireshark and
/// tshark show it as `frame.comment` (display filter `frame.comment == "dropped"`).
pub const DROPPED_COMMENT: &str = "dropped";

/// Largest number of bytes one packet adds to the file: an Enhanced Packet Block of 32 bytes
/// of framing, at most [`MAX_CAPTURED_LEN`] (94) bytes of headers padded to 96, and 16 bytes
/// for the "dropped" comment and the end of options. Typical packets take less: about 100
/// bytes for single-path TCP with timestamps, 128 with an MPTCP DSS option.
pub const MAX_BYTES_PER_PACKET: u64 = 32 + (MAX_CAPTURED_LEN as u64).next_multiple_of(4) + 16;

/// Largest size of what a file holds besides its packets (section header and interface
/// description with their options, interface name up to [`MAX_NAME_LEN`] bytes).
pub const MAX_FILE_OVERHEAD: u64 = 512;

/// Interface names are cut to this many bytes, so that [`MAX_FILE_OVERHEAD`] holds.
pub const MAX_NAME_LEN: usize = 256;

/// An upper bound of the size of a capture of `packets` packets, bytes: callers compare it with
/// their limit before starting a capture rather than filling a disk.
pub fn estimated_size(packets: u64) -> u64 {
    MAX_FILE_OVERHEAD.saturating_add(packets.saturating_mul(MAX_BYTES_PER_PACKET))
}

/// Settings of a capture.
#[derive(Clone, Debug)]
pub struct Options {
    /// Window scale shift announced on every SYN and applied to every later window
    /// (RFC 7323; 0..=14). The default, 7, allows windows up to 8 MiB with 128-byte
    /// resolution; larger windows are capped at 65535 << shift.
    pub window_shift: u8,
    /// Name of the capture point (pcapng `if_name`, Wireshark's `frame.interface_name`), e.g.
    /// the link's name.
    pub interface: String,
    /// Maximum segment size announced in an MSS option on every SYN (the payload bytes per
    /// full segment the simulator uses); `None`: no MSS option (Wireshark then notes that the
    /// SYN lacks one).
    pub mss: Option<u16>,
}

impl Default for Options {
    fn default() -> Options {
        Options { window_shift: 7, interface: "equipoise".to_owned(), mss: Some(1460) }
    }
}

/// A capture being written: create it, [`write`](Capture::write) segments in time order, then
/// [`finish`](Capture::finish) it.
pub struct Capture<W: Write> {
    out: PcapNgWriter<W>,
    window_shift: u8,
    mss: Option<u16>,
    subflows: HashMap<(u32, u32), Subflow>,
    frame: Vec<u8>,
    packets: u64,
}

impl Capture<BufWriter<File>> {
    /// Creates (or truncates) the file at `path` with default [`Options`].
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        Self::create_with(path, &Options::default())
    }

    /// Creates (or truncates) the file at `path`.
    pub fn create_with(path: impl AsRef<Path>, options: &Options) -> io::Result<Self> {
        Capture::new(BufWriter::new(File::create(path)?), options)
    }
}

impl<W: Write> Capture<W> {
    /// Starts a capture on any writer (the section header and the interface description are
    /// written at once).
    pub fn new(writer: W, options: &Options) -> io::Result<Self> {
        if options.window_shift > 14 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "window_shift must be at most 14 (RFC 7323)"));
        }
        let out = start(writer, "equipoise", DataLink::ETHERNET, &options.interface)?;
        Ok(Capture {
            out,
            window_shift: options.window_shift,
            mss: options.mss,
            subflows: HashMap::new(),
            frame: Vec::with_capacity(MAX_CAPTURED_LEN),
            packets: 0,
        })
    }

    /// Appends one packet. Segments should come in time order, as a sniffer sees them; the
    /// file records whatever order it is given.
    pub fn write(&mut self, seg: &Segment) -> io::Result<()> {
        let sf = *self.subflows.entry((seg.flow, seg.subflow)).or_insert_with(|| Subflow::new(seg.flow, seg.subflow));
        let implied = frame::build(seg, &sf, &frame::Settings { window_shift: self.window_shift, mss: self.mss }, &mut self.frame)?;
        let time = Duration::from_nanos(seg.time_ps / 1000);
        write_packet(&mut self.out, time, implied.max(seg.wire_len), &self.frame, seg.dropped)?;
        self.packets += 1;
        Ok(())
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flushes everything and hands the writer back.
    pub fn finish(self) -> io::Result<W> {
        flushed(self.out)
    }
}

/// A capture of real IPv4 packets (the testbed's, as the kernel sent them), headers only: the
/// IP and TCP headers, at most [`MAX_CAPTURED_LEN`] bytes, so that [`estimated_size`] bounds it
/// as it bounds a simulated capture.
pub struct IpCapture<W: Write> {
    out: PcapNgWriter<W>,
    packets: u64,
}

impl<W: Write> IpCapture<W> {
    /// Starts a capture named `interface` (raw IP link type, nanosecond timestamps).
    pub fn new(writer: W, interface: &str) -> io::Result<Self> {
        Ok(IpCapture { out: start(writer, "equipoise testbed", DataLink::RAW, interface)?, packets: 0 })
    }

    /// Appends `packet` (an IPv4 packet) seen at `time`; `dropped` marks it as
    /// [`Capture::write`] marks a dropped segment.
    pub fn write(&mut self, time: Duration, packet: &[u8], dropped: bool) -> io::Result<()> {
        let data = &packet[..headers_len(packet).min(MAX_CAPTURED_LEN)];
        write_packet(&mut self.out, time, packet.len() as u32, data, dropped)?;
        self.packets += 1;
        Ok(())
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flushes everything and hands the writer back.
    pub fn finish(self) -> io::Result<W> {
        flushed(self.out)
    }
}

/// A pcapng file's start: the section header naming `application`, and the one interface,
/// `interface` (cut to [`MAX_NAME_LEN`]) of link type `linktype`, with nanosecond times and
/// at most [`MAX_CAPTURED_LEN`] bytes kept per packet.
fn start<W: Write>(writer: W, application: &'static str, linktype: DataLink, interface: &str) -> io::Result<PcapNgWriter<W>> {
    let section = SectionHeaderBlock {
        options: vec![SectionHeaderOption::UserApplication(Cow::Borrowed(application))],
        ..SectionHeaderBlock::default()
    };
    let mut out = PcapNgWriter::with_section_header(writer, section).map_err(pcap_err)?;
    let name: String = truncate(interface, MAX_NAME_LEN).to_owned();
    let interface = InterfaceDescriptionBlock {
        linktype,
        snaplen: MAX_CAPTURED_LEN as u32,
        options: vec![InterfaceDescriptionOption::IfName(Cow::Owned(name)), InterfaceDescriptionOption::IfTsResol(9)],
    };
    out.write_pcapng_block(interface).map_err(pcap_err)?;
    Ok(out)
}

/// One Enhanced Packet Block: `data` as captured of `original_len` bytes seen at `time`,
/// marked with [`DROPPED_COMMENT`] if `dropped`.
fn write_packet<W: Write>(out: &mut PcapNgWriter<W>, time: Duration, original_len: u32, data: &[u8], dropped: bool) -> io::Result<()> {
    let options = if dropped { vec![EnhancedPacketOption::Comment(Cow::Borrowed(DROPPED_COMMENT))] } else { Vec::new() };
    let block = EnhancedPacketBlock { interface_id: 0, timestamp: time, original_len, data: Cow::Borrowed(data), options };
    out.write_pcapng_block(block).map(|_| ()).map_err(pcap_err)
}

/// The writer under a pcapng writer, flushed.
fn flushed<W: Write>(out: PcapNgWriter<W>) -> io::Result<W> {
    let mut w = out.into_inner();
    w.flush()?;
    Ok(w)
}

/// The length of an IPv4 packet's IP and TCP headers (the whole packet if it is not IPv4 and
/// TCP, or is cut short).
fn headers_len(p: &[u8]) -> usize {
    if p.len() < 20 || p[0] >> 4 != 4 || p[9] != 6 {
        return p.len();
    }
    let ip = (p[0] & 0x0f) as usize * 4;
    match p.get(ip + 12) {
        Some(offset) => (ip + (offset >> 4) as usize * 4).min(p.len()),
        None => p.len(),
    }
}

fn pcap_err(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

fn truncate(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
