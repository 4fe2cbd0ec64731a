//! The testbed's hosts: for each flow a receiving socket in the receivers' namespace and a
//! sending socket in the senders' namespace, bound to the flow's addresses, with the kernel's
//! Reno; and a sampler that reads the senders' counters (the kernel's `tcp_info`).

use std::io::Read;
use std::net::{SocketAddr, SocketAddrV4, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use super::addresses;
use super::diag;
use super::netns::Entry;

/// The port every receiver listens on (each at its own address).
pub const PORT: u16 = 5001;
/// The most segments a sender that is to stop keeps unsent: enough that the kernel never
/// waits for the application (it wakes it with half of them left), few enough that it sends
/// little new data past the stop.
const UNSENT: u64 = 4;
/// How long a sender's write waits for room before it looks at the time and the stop flag.
const WRITE_WAIT: Duration = Duration::from_millis(50);

/// One flow as the hosts run it.
#[derive(Clone, Debug)]
pub struct HostFlow {
    /// Index of the flow (its receiver's address).
    pub flow: usize,
    /// Global index of its first subflow (its sender's address; the others follow).
    pub subflow: usize,
    /// Its subflows: more than one is a kernel MPTCP connection, each subflow from its own
    /// address.
    pub subflows: usize,
    /// When it starts and stops sending, from the run's start.
    pub start: Duration,
    /// When it stops offering new data (`None`: at the end of the run).
    pub stop: Option<Duration>,
    /// Application bytes to send (`None`: bulk).
    pub bytes: Option<u64>,
    /// The payload of a full segment, bytes, where the socket does not say its own.
    pub segment: u64,
    /// The kernel's congestion control it runs (`TCP_CONGESTION`).
    pub congestion: String,
}

/// What a receiver counted: application bytes in order, and when the last of a finite
/// transfer arrived.
#[derive(Debug, Default)]
pub struct Received {
    /// Bytes read so far.
    pub bytes: AtomicU64,
    /// When the stream ended (a finite transfer's last byte), if it has.
    pub finished: Mutex<Option<Instant>>,
}

/// A socket of the kernel's TCP, or of its MPTCP for a multipath flow.
fn socket(multipath: bool) -> std::io::Result<Socket> {
    Socket::new(Domain::IPV4, Type::STREAM, Some(if multipath { Protocol::MPTCP } else { Protocol::TCP }))
}

/// Starts the receiver of `flow` (an MPTCP one if `multipath`) in the receivers' namespace;
/// returns once it listens.
pub fn start_receiver(ns: &Entry, flow: usize, multipath: bool, stop: Arc<AtomicBool>) -> Result<Arc<Received>, String> {
    let received = Arc::new(Received::default());
    let (ready, listening) = std::sync::mpsc::channel();
    let (ns, counts) = (ns.clone(), received.clone());
    std::thread::Builder::new()
        .name(format!("receiver-{flow}"))
        .spawn(move || {
            let listener = ns.enter().and_then(|()| {
                let at = SocketAddrV4::new(addresses::receiver(flow), PORT);
                let cannot = |e: std::io::Error| format!("receiver of flow {flow} cannot listen on {at}: {e}");
                let s = socket(multipath).map_err(cannot)?;
                s.set_reuse_address(true).map_err(cannot)?;
                s.bind(&SocketAddr::V4(at).into()).map_err(cannot)?;
                s.listen(16).map_err(cannot)?;
                let l: TcpListener = s.into();
                l.set_nonblocking(true).map_err(|e| e.to_string())?;
                Ok(l)
            });
            let listener = match listener {
                Ok(l) => {
                    let _ = ready.send(Ok(()));
                    l
                }
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            };
            let mut stream = loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                match listener.accept() {
                    Ok((s, _)) => break s,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(2)),
                    Err(_) => return,
                }
            };
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
            let mut buf = vec![0u8; 1 << 16];
            while !stop.load(Ordering::Relaxed) {
                match stream.read(&mut buf) {
                    Ok(0) => {
                        *counts.finished.lock().expect("no panics while held") = Some(Instant::now());
                        break;
                    }
                    Ok(n) => {
                        counts.bytes.fetch_add(n as u64, Ordering::Relaxed);
                    }
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted
                        ) => {}
                    Err(_) => break,
                }
            }
            // Keep the connection open until the run ends, as a simulation's receivers stay.
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20));
            }
        })
        .map_err(|e| format!("cannot start a receiver thread: {e}"))?;
    listening.recv().map_err(|_| "a receiver thread ended before listening".to_string())??;
    Ok(received)
}

/// Starts the sender of `flow` in the senders' namespace: it connects at the flow's start,
/// sends until its stop, its size or the end, and keeps the socket open until `stop` (so that
/// its counters can still be read). Errors are put in `errors`.
pub fn start_sender(
    ns: &Entry,
    flow: HostFlow,
    t0: Instant,
    end: Duration,
    stop: Arc<AtomicBool>,
    errors: Arc<Mutex<Vec<String>>>,
) -> Result<(), String> {
    let ns = ns.clone();
    std::thread::Builder::new()
        .name(format!("sender-{}", flow.flow))
        .spawn(move || {
            if let Err(e) = send(&ns, &flow, t0, end, &stop) {
                errors.lock().expect("no panics while held").push(e);
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start a sender thread: {e}"))
}

fn send(ns: &Entry, flow: &HostFlow, t0: Instant, end: Duration, stop: &AtomicBool) -> Result<(), String> {
    ns.enter()?;
    let wait_until = |t: Duration| {
        while t0.elapsed() < t && !stop.load(Ordering::Relaxed) {
            std::thread::sleep((t - t0.elapsed()).min(Duration::from_millis(20)));
        }
    };
    wait_until(flow.start);
    if stop.load(Ordering::Relaxed) || t0.elapsed() >= end {
        return Ok(());
    }
    let name = flow.flow;
    let socket = socket(flow.subflows > 1).map_err(|e| format!("flow {name}: socket: {e}"))?;
    let paced = pacing();
    let first = if paced { "bbr" } else { flow.congestion.as_str() };
    socket
        .set_tcp_congestion(first.as_bytes())
        .map_err(|e| format!("flow {name}: the kernel's {first} is unavailable (TCP_CONGESTION): {e}"))?;
    let from = SocketAddr::V4(SocketAddrV4::new(addresses::sender(flow.subflow), 0));
    socket.bind(&from.into()).map_err(|e| format!("flow {name}: bind {from}: {e}"))?;
    let to = SocketAddr::V4(SocketAddrV4::new(addresses::receiver(flow.flow), PORT));
    let left = end.saturating_sub(t0.elapsed());
    if let Err(e) = socket.connect_timeout(&to.into(), left.max(Duration::from_millis(1))) {
        // A handshake the run ends before is no error: the flow delivered nothing.
        return if t0.elapsed() >= end { Ok(()) } else { Err(format!("flow {name}: connect to {to}: {e}")) };
    }
    if paced {
        // BBR's start asked the kernel to pace the connection; the flow's own law keeps that.
        let law = &flow.congestion;
        socket.set_tcp_congestion(law.as_bytes()).map_err(|e| format!("flow {name}: back to {law} (TCP_CONGESTION): {e}"))?;
    }
    socket.set_write_timeout(Some(WRITE_WAIT)).map_err(|e| e.to_string())?;
    let until = flow.stop.unwrap_or(end).min(end);
    // The kernel sends whatever the application wrote, so a flow that stops before the end
    // keeps at most UNSENT segments unsent: past its stop it sends what it had sent and at
    // most these, as a simulated flow sends no new data past its stop. Each write is one
    // segment marked as a record's end (MSG_EOR), so that the next one starts a new buffer
    // and meets the bound (a write that can join the last buffer is never held back).
    let bounded = until < end;
    let segment = socket.tcp_mss().ok().filter(|&m| m > 0).map_or(flow.segment, u64::from);
    // MSG_NOSIGNAL: a connection reset is an error, not SIGPIPE (as std's own writes).
    let (chunk, flags) = if bounded {
        socket
            .set_tcp_notsent_lowat((UNSENT * segment) as u32)
            .map_err(|e| format!("flow {name}: cannot bound its unsent bytes (TCP_NOTSENT_LOWAT): {e}"))?;
        (vec![0u8; segment as usize], libc::MSG_EOR | libc::MSG_NOSIGNAL)
    } else {
        (vec![0u8; 1 << 16], libc::MSG_NOSIGNAL)
    };
    let mut left = flow.bytes.unwrap_or(u64::MAX);
    let mut wait = WRITE_WAIT;
    while left > 0 && t0.elapsed() < until && !stop.load(Ordering::Relaxed) {
        // A write blocked near the stop returns by it, so that nothing is written after it.
        let by_stop = until.saturating_sub(t0.elapsed()).min(WRITE_WAIT).max(Duration::from_micros(1));
        if by_stop != wait {
            wait = by_stop;
            socket.set_write_timeout(Some(wait)).map_err(|e| e.to_string())?;
        }
        let n = chunk.len().min(left.min(usize::MAX as u64) as usize);
        match socket.send_with_flags(&chunk[..n], flags) {
            Ok(k) => left -= k as u64,
            Err(e)
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
            Err(e) => return Err(format!("flow {name}: send: {e}")),
        }
    }
    if left == 0 {
        let _ = socket.shutdown(std::net::Shutdown::Write);
    }
    // The socket stays open (and its counters readable) until the run ends.
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(socket);
    Ok(())
}

/// The environment variable that makes the kernel pace every sender (any value): Reno does not
/// ask for pacing, and without the `fq` queueing discipline the kernel paces only a connection
/// that asked (`sk_pacing_status`, set by `SO_MAX_PACING_RATE` or by a congestion control such
/// as BBR when the connection is established, and kept when it changes). So each socket
/// connects with BBR and turns to Reno before it sends any data, paced from then on at the
/// kernel's own rate, `net.ipv4.tcp_pacing_ss_ratio` (slow start) or `tcp_pacing_ca_ratio`
/// percent of cwnd/SRTT.
pub const PACING_VARIABLE: &str = "EQUIPOISE_TESTBED_PACING";

/// Whether the senders are to be paced (`EQUIPOISE_TESTBED_PACING` set).
pub fn pacing() -> bool {
    std::env::var_os(PACING_VARIABLE).is_some()
}

/// One sender socket's counters, from the kernel's `tcp_info`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SocketInfo {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Smoothed RTT, seconds.
    pub srtt_s: f64,
    /// Smallest RTT seen, seconds.
    pub min_rtt_s: f64,
    /// Data segments sent, retransmissions included (`data_segs_out`).
    pub data_segs_out: u64,
    /// Segments retransmitted in all (`tcpi_total_retrans`).
    pub retransmitted: u64,
    /// Bytes acknowledged (`bytes_acked`).
    pub bytes_acked: u64,
    /// The connection's maximum segment size, payload bytes.
    pub mss: u64,
    /// Retransmission timeouts in all (`tcpi_total_rto`; `None` before Linux 6.7).
    pub timeouts: Option<u64>,
}

/// Reads every sender socket's counters in the namespaces of `hosts` now.
pub fn read_senders(hosts: &[Entry]) -> Result<Vec<(usize, SocketInfo)>, String> {
    let mut all = Vec::new();
    for ns in hosts {
        all.extend(read_sockets(ns)?);
    }
    Ok(all)
}

/// The counters of the TCP sockets (MPTCP subflows included) in one namespace, read from a
/// thread moved there (a netlink socket answers for the namespace it was made in).
fn read_sockets(ns: &Entry) -> Result<Vec<(usize, SocketInfo)>, String> {
    let ns = ns.clone();
    std::thread::spawn(move || {
        ns.enter()?;
        diag::read_sockets()
    })
    .join()
    .map_err(|_| "the thread reading the socket counters panicked".to_string())?
}
