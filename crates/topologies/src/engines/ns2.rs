//! The plain model as an ns-2.35 script, and what that script writes read back as a run's
//! records: one scenario on the platform the `ns2-sack` profile claims to be.
//!
//! [`Scenario::ns2_script`] writes a Tcl script for ns-2.35 (`equipoise export ns2`):
//!
//! - every link is a simplex link of its rate, delay and queue (DropTail or RED, each
//!   parameter written out). ns-2's DropTail drops an arrival when the waiting packets plus
//!   it reach `limit_`, so a limit of B keeps B − 1 waiting and one in service: B packets in
//!   all, as a `buffer` of B packets counts them. A byte buffer becomes a byte-mode queue
//!   whose limit leaves room for one full packet in service;
//! - the links of the paths are joined where one path goes from one into the next; every flow
//!   has a sender and a receiver node of its own, joined to its path by links of 2^100 b/s
//!   with no delay (a packet's time on them is below a double's resolution, so they add no
//!   time; a finite rate such as 1 Pb/s, 8 ps a packet, parts a burst's two packets around a
//!   departure that equipoise sees at their very instant) and a route set by hand (`rtproto
//!   Manual`), so that every packet crosses exactly the links its path names; its ACKs return
//!   over a link of the path's propagation delay, uncongested, as in the scenario;
//! - every TCP setting of the flow's profile is written as the ns-2 agent's variable
//!   ([`agent_settings`]); what ns-2's agents cannot do is an error naming the key;
//! - the script writes one results file: ns-2's own drop trace of every link (`d` lines), the
//!   links and flows by index, and at the warm-up and the end every agent's and every link
//!   monitor's counters. [`Scenario::read_ns2_results`] turns it into a [`RunOutput`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use tcp::{FlowRecord, Growth, LinkRecord, Recovery, RtoFormula, RunOutput, RunStats, SubflowRecord, TcpConfig};

use crate::error::Result;
use crate::model::{FlowModel, LinkModel, QueueModel, RedVariant, Scenario};

/// Bytes a 32-bit counter of ns-2 may grow by between two readings of the script's `tally`,
/// which keeps the totals it reads exact (half the counter's range: in-order data released at
/// once after a recovery comes on top of what the link carries in the interval).
const TALLY_GROWTH: f64 = 2_147_483_648.0;

/// The most counter readings (`tally` intervals × flows and links) a script may take before the
/// export refuses: a second or two of Tcl for each million.
const MAX_TALLY_READINGS: f64 = 2e7;

/// ns-2's TCP/IP header, bytes: `packetSize_` is the payload, the wire packet 40 bytes more.
pub const NS2_HEADER: u32 = 40;

/// A drop in ns-2's trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Ns2Drop {
    /// When, seconds.
    pub time: f64,
    /// The link, as an index into [`Scenario::links`].
    pub link: usize,
    /// The flow, as an index into [`Scenario::flows`].
    pub flow: usize,
    /// ns-2's sequence number of the packet (packets, from 0).
    pub seqno: u64,
}

/// What ns-2's results file holds, read back.
#[derive(Clone, Debug)]
pub struct Ns2Results {
    /// The records of the run, as the packet simulator's.
    pub output: RunOutput,
    /// Every drop on a scenario link, in the order ns-2 traced them.
    pub drops: Vec<Ns2Drop>,
    /// The columns ns-2 does not measure, written as NaN or zero (named `table.column`).
    pub unmeasured: &'static [&'static str],
}

/// The columns an ns-2 run leaves unmeasured.
const UNMEASURED: &[&str] = &[
    "subflows.mean_cwnd_pkts",
    "subflows.mean_srtt_s",
    "subflows.min_rtt_s",
    "subflows.fast_retransmits",
    "subflows.duplicate_acks",
    "flows.mean_relative_drop",
    "links.max_queue_pkts",
    "links.max_queue_bytes",
];

/// The procedures every script starts with.
const PRELUDE: &str = r##"set ns [new Simulator]
$ns rtproto Manual
set results [open [expr {$argc > 0 ? [lindex $argv 0] : "ns2-results.txt"}] w]
puts $results "# equipoise ns-2 results 1"

# A scenario link: a simplex link with its queue, ns-2's drop trace and a queue monitor.
proc link {i from to bps delay queue limit} {
    global ns node results L qmon
    $ns simplex-link $node($from) $node($to) $bps $delay $queue
    $ns queue-limit $node($from) $node($to) $limit
    set L($i) [$ns link $node($from) $node($to)]
    set drops [$ns create-trace Drop $results $node($from) $node($to) ""]
    set head [$L($i) set drophead_]
    $drops target [$head target]
    $head target $drops
    [$L($i) queue] drop-target $head
    set qmon($i) [$ns monitor-queue $node($from) $node($to) ""]
    puts $results "L $i [$node($from) id] [$node($to) id]"
}

# A link that only joins a flow's own node to its path, or carries its ACKs back.
proc join {from to delay} {
    global ns node
    $ns simplex-link $node($from) $node($to) 1267650600228229401496703205376 $delay DropTail
    $ns queue-limit $node($from) $node($to) 1000000
}

# Packets to node `dst` leave each node of `hops` on the link to the next.
proc route {dst hops} {
    global ns node
    foreach a [lrange $hops 0 end-1] b [lrange $hops 1 end] {
        $node($a) add-route [$node($dst) id] [[$ns link $node($a) $node($b)] head]
    }
}

# Flow `f`: an agent made by `make` at node `src`, its sink made by `makesink` at node `dst`.
# The agent takes its initial ssthresh when it starts: ns-2 resets it to window_ when the
# agent is attached.
proc flow {f make makesink src dst start stop packets ssthresh} {
    global ns node tcp sink ftp results
    set tcp($f) [$make]
    $tcp($f) set fid_ $f
    set sink($f) [$makesink]
    $ns attach-agent $node($src) $tcp($f)
    $ns attach-agent $node($dst) $sink($f)
    $ns connect $tcp($f) $sink($f)
    $tcp($f) proc done {} "finished $f"
    $ns at $start "$tcp($f) set ssthresh_ $ssthresh"
    if {$packets < 0} {
        set ftp($f) [new Application/FTP]
        $ftp($f) attach-agent $tcp($f)
        $ns at $start "$ftp($f) start"
        if {$stop >= 0} { $ns at $stop "$ftp($f) stop; counters T $f" }
    } else {
        $ns at $start "$tcp($f) advanceby $packets"
    }
}

# ns-2's counters are 32-bit C ints that wrap. `wide` turns a reading into the total the
# counter has grown by since the start, a Tcl integer without bound: it adds the growth since
# the counter's last reading modulo 2^32. `tally` reads every counter often enough that none
# grows by 2^31 between two readings.
proc wide {key value} {
    global last total
    if {![info exists last($key)]} { set last($key) 0; set total($key) 0 }
    set total($key) [expr {$total($key) + (($value - $last($key)) & 0xffffffff)}]
    set last($key) $value
    return $total($key)
}

# Flow `f`'s counters: bytes its sink delivered, data packets sent, packets retransmitted,
# timeouts, window cuts.
proc flow_counts {f} {
    global tcp sink
    set a $tcp($f)
    set values [list [$sink($f) set bytes_] [$a set ndatapack_] [$a set nrexmitpack_] [$a set nrexmit_] [$a set ncwndcuts_]]
    set out {}
    foreach v $values k {0 1 2 3 4} { lappend out [wide F$f.$k $v] }
    return $out
}

# Link `i`'s monitor: packets arrived, departed, bytes departed, drops (counters), packets and
# bytes waiting now, and the integrals of both (doubles).
proc link_counts {i} {
    global qmon
    set m $qmon($i)
    set out {}
    foreach v [list [$m set parrivals_] [$m set pdepartures_] [$m set bdepartures_] [$m set pdrops_]] k {0 1 2 3} {
        lappend out [wide Q$i.$k $v]
    }
    lappend out [$m set pkts_] [$m set size_] [[$m get-pkts-integrator] set sum_] [[$m get-bytes-integrator] set sum_]
    return $out
}

# Every counter read into its total, again every `every` seconds.
proc tally {every} {
    global ns tcp qmon
    foreach f [array names tcp] { flow_counts $f }
    foreach i [array names qmon] { link_counts $i }
    $ns at [expr {[$ns now] + $every}] "tally $every"
}

# Every agent's and link monitor's counters (or only flow `only`'s, at its stop).
proc counters {phase {only ""}} {
    global ns results tcp qmon
    puts $results "S $phase [$ns now]"
    foreach f [lsort -integer [array names tcp]] {
        if {$only != "" && $f != $only} continue
        puts $results "F $f [flow_counts $f]"
    }
    if {$only != ""} return
    foreach i [lsort -integer [array names qmon]] {
        puts $results "Q $i [link_counts $i]"
    }
}

# A finite transfer's last byte acknowledged.
proc finished {f} {
    global ns results
    puts $results "C $f [$ns now]"
}
"##;

/// The key of a flow's TCP setting `name`, as [`Scenario::tcp_config`] resolves it: the
/// flow's own table, else `[tcp]`, else the profile.
fn setting_key(scenario: &Scenario, flow: &FlowModel, name: &str) -> String {
    if flow.tcp.given().contains(&name) {
        format!("{}.tcp.{name}", flow.key)
    } else if scenario.tcp.given().contains(&name) {
        format!("tcp.{name}")
    } else {
        "tcp.profile".to_string()
    }
}

/// An ns-2 TCP agent as a profile's settings make it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ns2Agent {
    /// The agent's class (`Agent/TCP/Sack1`, …).
    pub class: &'static str,
    /// Its sink's class (`Agent/TCPSink/Sack1`, …).
    pub sink: &'static str,
    /// Every variable of the agent written, with its value as Tcl reads it.
    pub vars: Vec<(&'static str, String)>,
    /// Every variable of the sink written.
    pub sink_vars: Vec<(&'static str, String)>,
}

/// The ns-2 agent for TCP settings `c`, packets of `mss` bytes and a receive window of
/// `window` packets; `Err((setting, message))` for a setting ns-2's agents lack.
pub fn agent_settings(c: &TcpConfig, mss: u32, window: f64) -> std::result::Result<Ns2Agent, (&'static str, String)> {
    let no = |key: &'static str, message: &str| Err((key, message.to_string()));
    if c.sack && c.recovery != Recovery::Ns2 {
        return no("recovery", "ns-2.35's Sack1 agent recovers as recovery = \"ns2\" does (its pipe counter): set it so");
    }
    if !c.sack && c.recovery != Recovery::NewReno {
        return no("recovery", "ns-2.35's Newreno agent inflates the window as recovery = \"newreno\" does: set it so");
    }
    if c.rack || c.tlp {
        return no(if c.rack { "rack" } else { "tlp" }, "ns-2.35's agents have no RACK or tail loss probes: set rack = false, tlp = false");
    }
    if c.rto_formula == RtoFormula::Linux {
        return no("rto_formula", "ns-2.35's agents have no Linux timeout: set rto_formula = \"ns2\" (or \"rfc6298\", close to it)");
    }
    if c.timer_granularity != sim_core::Time::ZERO {
        return no("timer_granularity", "ns-2.35's timers fire when due: set timer_granularity = \"0s\"");
    }
    if c.growth != Growth::PerAck {
        return no("growth", "ns-2.35's agents grow the window per ACK, not per acknowledged segment: set growth = \"per-ack\"");
    }
    if c.min_ssthresh != 2.0 {
        return no("min_ssthresh", "ns-2.35's agents keep ssthresh at 2 packets or more: set min_ssthresh = 2");
    }
    if c.handshake && !c.lost_syn_resets_window {
        return no("lost_syn_resets_window", "ns-2's agents start from a one-packet window after a lost SYN: set it true");
    }
    if !c.whole_ssthresh {
        return no("whole_ssthresh", "ns-2's ssthresh_ is a whole number of packets: set whole_ssthresh = true");
    }
    if c.initial_cwnd.fract() != 0.0 {
        return no("initial_cwnd", "ns-2's windowInit_ is a whole number of packets");
    }
    if !c.retransmit_restarts_timer {
        return no("retransmit_restarts_timer", "ns-2.35's agents restart the timer on a fast retransmission: set it true");
    }
    if c.rtt_every_ack {
        return no("rtt_every_ack", "ns-2.35's agents time one segment per round trip (or every new ACK with timestamps): set it false");
    }
    if c.delayed_ack && c.quick_acks > 0 {
        return no("quick_acks", "ns-2.35's delayed-ACK sink has no quick-ACK mode: set quick_acks = 0");
    }
    if c.handshake && c.syn_size != NS2_HEADER {
        return no("syn_size", "ns-2's one-way TCP sends a 40-byte SYN: set syn_size = \"40B\"");
    }
    if c.byte_window {
        return no("byte_window", "ns-2's agents keep their window in packets, not whole bytes: set byte_window = false");
    }
    if c.handshake && c.syn_ack_grows {
        return no("syn_ack_grows", "ns-2's one-way TCP does not grow the window on the SYN's acknowledgement: set syn_ack_grows = false");
    }
    if !c.sack && c.fast_retransmit_alone {
        return no(
            "fast_retransmit_alone",
            "the export cannot make ns-2's Newreno agent hold new data back at the fast retransmission: set fast_retransmit_alone = false",
        );
    }
    if c.jitter != sim_core::Time::ZERO {
        return no("jitter", "ns-2's overhead_ delays each sending opportunity, not each segment: set jitter = \"0s\"");
    }
    if c.ack_latency_median != sim_core::Time::ZERO || c.ack_latency_p99 != sim_core::Time::ZERO {
        return no(
            if c.ack_latency_median != sim_core::Time::ZERO { "ack_latency_median" } else { "ack_latency_p99" },
            "ns-2.35's sinks acknowledge as data arrives: set ack_latency_median = \"0s\" and ack_latency_p99 = \"0s\"",
        );
    }
    if c.instant_acks {
        return no("instant_acks", "ns-2's ACKs cross the reverse links: set instant_acks = false");
    }
    if mss <= NS2_HEADER {
        return no("mss", "ns-2's packets carry a 40-byte header: sim.mss must exceed 40 bytes");
    }
    let (class, sink) = match (c.sack, c.delayed_ack) {
        (true, false) => ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1"),
        (true, true) => ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1/DelAck"),
        (false, false) => ("Agent/TCP/Newreno", "Agent/TCPSink"),
        (false, true) => ("Agent/TCP/Newreno", "Agent/TCPSink/DelAck"),
    };
    if !c.sack && c.full_ack != tcp::FullAck::Ssthresh {
        return no("full_ack", "ns-2.35's Newreno agent sets cwnd = ssthresh on the full ACK: set full_ack = \"ssthresh\"");
    }
    let ssthresh = if c.initial_ssthresh.is_finite() { c.initial_ssthresh.min(window) } else { window };
    let mut vars = vec![
        ("packetSize_", (mss - NS2_HEADER).to_string()),
        ("window_", format!("{window}")),
        ("windowInit_", format!("{}", c.initial_cwnd)),
        ("ssthresh_", format!("{}", ssthresh.floor())),
        ("max_ssthresh_", "0".to_string()),
        ("syn_", if c.handshake { "true" } else { "false" }.to_string()),
        ("delay_growth_", if c.handshake { "true" } else { "false" }.to_string()),
        ("minrto_", secs(c.min_rto)),
        ("maxrto_", secs(c.max_rto)),
        ("rtxcur_init_", secs(c.initial_rto)),
        ("tcpTick_", secs(c.rtt_tick)),
        ("maxburst_", "0".to_string()),
        ("overhead_", "0".to_string()),
        ("numdupacks_", "3".to_string()),
        ("timestamps_", if c.timestamps { "true" } else { "false" }.to_string()),
        // ns-2 adds 10 bytes of option to every packet with timestamps; equipoise's packets
        // stay `sim.mss` bytes, as the scenario's links count them.
        ("ts_option_size_", "0".to_string()),
        ("windowOption_", "1".to_string()),
        ("increase_num_", "1.0".to_string()),
        ("decrease_num_", "0.5".to_string()),
    ];
    if !c.sack {
        let impatient = c.partial_ack_timer == tcp::PartialAckTimer::Impatient;
        vars.push(("newreno_changes1_", if impatient { "1" } else { "0" }.to_string()));
    }
    // The delayed-ACK sinks wait `interval_` (ns-2's default 100 ms) before a lone ACK.
    let sink_vars = if c.delayed_ack { vec![("interval_", secs(c.delayed_ack_timeout))] } else { Vec::new() };
    Ok(Ns2Agent { class, sink, vars, sink_vars })
}

/// `t` in seconds as Tcl reads it, without binary noise (200 ms is `0.2`).
fn secs(t: sim_core::Time) -> String {
    format!("{}", t.as_ps() as f64 / 1e12)
}

/// `text` as Tcl reads it back inside a word or a quoted string, whatever it holds: every
/// character Tcl could substitute, split or end a command at is escaped with a backslash, so a
/// name such as `f[exec …]` is written, never run.
pub fn tcl_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if c.is_ascii_alphanumeric() || "-_.,:/+=@%".contains(c) || !c.is_ascii() => out.push(c),
            c => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    out
}

/// Union-find over node numbers, to join the end of one link to the start of the next.
struct Joins(Vec<usize>);

impl Joins {
    fn root(&mut self, mut a: usize) -> usize {
        while self.0[a] != a {
            self.0[a] = self.0[self.0[a]];
            a = self.0[a];
        }
        a
    }
    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.0[a.max(b)] = a.min(b);
    }
}

impl Scenario {
    /// The scenario as an ns-2.35 script (see the module's documentation); an error names the
    /// first key ns-2 cannot run and what it would need.
    pub fn ns2_script(&self) -> Result<String> {
        // What the packet simulator refuses, ns-2 is not given either.
        let index = self.check()?;
        let mss = self.sim.mss;
        if self.sim.htsim_serialization {
            return Err(
                self.error("sim.serialization", "ns-2 times a packet by its own clock, not htsim's: remove serialization = \"htsim\"")
            );
        }
        if self.sim.ack_size != NS2_HEADER {
            return Err(self.error("sim.ack_size", "ns-2's ACKs are 40 bytes (a TCP/IP header): set sim.ack_size = \"40B\""));
        }
        // Nodes: 2i and 2i+1 are link i's ends, until the paths join them.
        let mut joins = Joins((0..2 * self.links.len()).collect());
        let mut routes = Vec::with_capacity(self.flows.len());
        for flow in &self.flows {
            if flow.paths.len() != 1 {
                return Err(self.error(format!("{}.paths", flow.key), "ns-2.35 has no multipath TCP: give the flow one path"));
            }
            if *flow.cc != mptcp_cc::Algorithm::Reno {
                return Err(self.error(
                    format!("{}.cc", flow.key),
                    format!("ns-2.35's TCP agents run Reno's window law, not \"{}\": set cc = \"reno\"", flow.cc.name()),
                ));
            }
            if flow.reverse_paths.is_some() {
                return Err(
                    self.error(format!("{}.reverse_paths", flow.key), "the ns-2 export sends ACKs back uncongested: remove reverse_paths")
                );
            }
            let route = self.route(|| format!("{}.paths[0]", flow.key), &flow.paths[0], &index, |i| i)?;
            for w in route.windows(2) {
                joins.join(2 * w[0] + 1, 2 * w[1]);
            }
            routes.push(route);
        }
        // Link ends numbered from 0 once joined: `node[2i]`, `node[2i + 1]` are link i's.
        let mut numbers = BTreeMap::new();
        let node: Vec<usize> = (0..2 * self.links.len())
            .map(|end| {
                let (root, next) = (joins.root(end), numbers.len());
                *numbers.entry(root).or_insert(next)
            })
            .collect();
        let link_nodes = numbers.len();
        let mut text = String::new();
        let name = self.meta.name.as_deref().unwrap_or("scenario");
        let _ = writeln!(
            text,
            "# ns-2.35 script of scenario {name:?} ({:?}), seed {}, written by equipoise {}.",
            self.file,
            self.sim.seed,
            env!("CARGO_PKG_VERSION")
        );
        text.push_str("# Run it with `ns THIS-FILE [RESULTS-FILE]`; `equipoise ns2 SCENARIO` runs it and reads the\n");
        text.push_str("# results back into the tables of `equipoise run`. ns-2 draws no random numbers here but\n");
        text.push_str("# what RED draws: the scenario's seed does not reach it.\n\n");
        text.push_str(PRELUDE);
        let mut links = String::new();
        let mut pairs = BTreeMap::new();
        for (i, link) in self.links.iter().enumerate() {
            let (from, to) = (node[2 * i], node[2 * i + 1]);
            if from == to {
                return Err(self.error(format!("{}.name", link.key), "a path leaves this link back into itself: ns-2 routes cannot loop"));
            }
            if let Some(other) = pairs.insert((from, to), i) {
                return Err(self.error(
                    format!("{}.name", link.key),
                    format!("joins the same two points as link \"{}\": ns-2 keeps one link between two nodes", self.links[other].name),
                ));
            }
            links.push_str(&self.ns2_link(i, link, from, to)?);
        }
        let mut flows = String::new();
        let mut makers: Vec<String> = Vec::new();
        let mut maker_text = String::new();
        for (f, (flow, route)) in self.flows.iter().zip(&routes).enumerate() {
            let config = self.tcp_config(flow)?;
            let window = match flow.receive_buffer {
                Some(b) => (b.bytes(mss) / mss as f64).floor(),
                None => tcp::config::MAX_WINDOW,
            };
            let Ns2Agent { class, sink, vars, sink_vars } =
                agent_settings(&config, mss, window).map_err(|(key, message)| self.error(setting_key(self, flow, key), message))?;
            let mut body = format!("    set a [new {class}]\n");
            let mut ssthresh = "";
            for (k, v) in &vars {
                match *k {
                    "ssthresh_" => ssthresh = v,
                    _ => drop(writeln!(body, "    $a set {k} {v}")),
                }
            }
            let mut sink_body = format!("    set s [new {sink}]\n");
            for (k, v) in &sink_vars {
                let _ = writeln!(sink_body, "    $s set {k} {v}");
            }
            // Flows of one template share one maker of agents and one of sinks.
            let both = format!("{body}{sink_body}");
            let maker = match makers.iter().position(|m| *m == both) {
                Some(m) => m,
                None => {
                    let m = makers.len();
                    let _ = write!(
                        maker_text,
                        "proc agent{m} {{}} {{\n{body}    return $a\n}}\nproc sink{m} {{}} {{\n{sink_body}    return $s\n}}\n"
                    );
                    makers.push(both);
                    m
                }
            };
            let (src, dst) = (link_nodes + 2 * f, link_nodes + 2 * f + 1);
            let first = node[2 * route[0]];
            let last = node[2 * route[route.len() - 1] + 1];
            let delay = secs(route.iter().map(|&l| self.links[l].delay).fold(sim_core::Time::ZERO, |a, b| a + b));
            let mut hops = vec![src];
            for &l in route {
                hops.push(node[2 * l]);
            }
            hops.push(last);
            hops.push(dst);
            if let Some(again) = hops.iter().enumerate().find(|(i, h)| hops[..*i].contains(h)) {
                return Err(self.error(
                    format!("{}.paths[0]", flow.key),
                    format!("the path crosses one point twice (node {}): ns-2 routes cannot loop", again.1),
                ));
            }
            let hop_list: Vec<String> = hops.iter().map(|h| h.to_string()).collect();
            let packets = match flow.size {
                Some(s) => (s.bytes(mss) / mss as f64).ceil() as i64,
                None => -1,
            };
            let stop = flow.stop.map_or("-1".to_string(), secs);
            let _ = writeln!(flows, "join {src} {first} 0");
            let _ = writeln!(flows, "join {last} {dst} 0");
            let _ = writeln!(flows, "join {dst} {src} {delay}");
            let _ = writeln!(flows, "route {dst} {{{}}}", hop_list.join(" "));
            let _ = writeln!(flows, "route {src} {{{dst} {src}}}");
            let _ = writeln!(flows, "flow {f} agent{maker} sink{maker} {src} {dst} {} {stop} {packets} {ssthresh}", secs(flow.start));
        }
        let nodes = link_nodes + 2 * self.flows.len();
        let _ = writeln!(
            text,
            "\n# Nodes: {link_nodes} for the links' ends, two per flow.\nfor {{set n 0}} {{$n < {nodes}}} {{incr n}} {{ set node($n) [$ns node] }}\n"
        );
        text.push_str("# Links, in the scenario's order: link INDEX FROM TO RATE DELAY QUEUE LIMIT.\n");
        text.push_str(&links);
        text.push_str("\n# TCP agents and their sinks, one maker of each per set of settings.\n");
        text.push_str(&maker_text);
        text.push_str("\n# Flows, in the scenario's order: their joining links, routes, agents and start.\n");
        for (f, flow) in self.flows.iter().enumerate() {
            let _ = writeln!(text, "puts $results \"N {f} {}\"", tcl_escaped(&flow.name.escape_default().to_string()));
        }
        text.push_str(&flows);
        if let Some(every) = self.ns2_tally_interval()? {
            let _ = writeln!(text, "\n# Counters read every {every} s, so that none wraps unseen.\n$ns at {every} \"tally {every}\"");
        }
        let (warmup, end) = (secs(self.sim.warmup), secs(self.sim.duration));
        let _ = writeln!(text, "\n$ns at {warmup} \"counters warmup\"");
        let _ = writeln!(text, "$ns at {end} \"counters end; close $results; exit 0\"");
        text.push_str("$ns run\n");
        Ok(text)
    }

    /// How often the script reads ns-2's 32-bit counters into wide totals: never when no
    /// counter can grow by [`TALLY_GROWTH`] in the whole run, else often enough that none does
    /// between two readings at the fastest link's rate. An error when that takes too many
    /// readings to be worth running.
    fn ns2_tally_interval(&self) -> Result<Option<f64>> {
        let mut fastest: Option<(f64, &LinkModel)> = None;
        for link in &self.links {
            let bytes_per_s = self.rate(&format!("{}.rate", link.key), link.rate)?.as_bps() as f64 / 8.0;
            if fastest.is_none_or(|(b, _)| bytes_per_s > b) {
                fastest = Some((bytes_per_s, link));
            }
        }
        let Some((bytes_per_s, link)) = fastest else { return Ok(None) };
        let duration = self.sim.duration.as_secs_f64();
        if bytes_per_s * duration < TALLY_GROWTH {
            return Ok(None);
        }
        // A whole number of microseconds, written exactly in the script.
        let every = (TALLY_GROWTH / bytes_per_s * 1e6).floor() / 1e6;
        let readings = (duration / every).ceil() * (self.flows.len() + self.links.len()) as f64;
        if every <= 0.0 || readings > MAX_TALLY_READINGS {
            return Err(self.error(
                format!("{}.rate", link.key),
                format!(
                    "ns-2's counters are 32-bit: at this rate they must be read every {every} s to stay exact, \
                     {readings:.0} readings of {} flows and {} links over {}, more than the {MAX_TALLY_READINGS:.0} the export takes; \
                     shorten sim.duration or slow the link",
                    self.flows.len(),
                    self.links.len(),
                    self.sim.duration
                ),
            ));
        }
        Ok(Some(every))
    }

    /// Link `i`'s line of the script, and RED's settings before it.
    fn ns2_link(&self, i: usize, link: &LinkModel, from: usize, to: usize) -> Result<String> {
        let mss = self.sim.mss;
        let rate = self.rate(&format!("{}.rate", link.key), link.rate)?;
        if link.loss > 0.0 {
            return Err(self.error(format!("{}.loss", link.key), "the ns-2 export has no random loss: set loss = 0"));
        }
        if !link.events.is_empty() {
            return Err(self.error(format!("{}.events", link.key), "the ns-2 export has no link failures: remove events"));
        }
        if link.round_robin {
            return Err(self
                .error("topology.nic_service", "the ns-2 export serves every queue first come, first served: set nic_service = \"fifo\""));
        }
        let mut out = String::new();
        // A packet buffer is ns-2's limit; a byte buffer leaves one full packet in service.
        let (limit, in_bytes) = match self.link_spec(link)?.buffer {
            sim_core::BufferLimit::Packets(p) => (u64::from(p), false),
            sim_core::BufferLimit::Bytes(bytes) => (bytes - u64::from(mss) + 1, true),
        };
        let (queue, limit) = match &link.queue {
            QueueModel::DropTail => {
                let _ = writeln!(
                    out,
                    "Queue/DropTail set queue_in_bytes_ {in_bytes}\nQueue/DropTail set mean_pktsize_ {}",
                    if in_bytes { 1 } else { mss }
                );
                let _ = writeln!(out, "Queue/DropTail set drop_front_ false\nQueue/DropTail set summarystats_ false");
                ("DropTail", limit)
            }
            QueueModel::Red { min, max, max_p, weight, gentle, wait, variant, bytes, mean_pktsize, .. } => {
                if self.red_variant(*variant) != RedVariant::Ns2 {
                    return Err(self.error(
                        format!("{}.queue.variant", link.key),
                        "ns-2.35 runs its own RED, not Floyd and Jacobson's: set variant = \"ns2\"",
                    ));
                }
                // RED refuses an arrival only when `limit_` packets wait: one more than DropTail
                // holds, so its limit is the buffer less the packet in service.
                if in_bytes || limit < 2 {
                    return Err(self.error(
                        format!("{}.buffer", link.key),
                        "the ns-2 export's RED counts packets: give the buffer in packets, at least 2",
                    ));
                }
                // Thresholds in packets of `mss`, or in byte mode in units of `mean_pktsize_`,
                // which ns-2 multiplies back: as the packet engine's ns-2 RED takes them.
                let mean = mean_pktsize.unwrap_or(mss);
                let unit = if *bytes { f64::from(mean) } else { f64::from(mss) };
                let (lo, hi) = (self.bytes(*min, rate) / unit, self.bytes(*max, rate) / unit);
                let settings = [
                    ("bytes_", bytes.to_string()),
                    ("queue_in_bytes_", bytes.to_string()),
                    ("thresh_", lo.to_string()),
                    ("maxthresh_", hi.to_string()),
                    ("q_weight_", weight.to_string()),
                    ("linterm_", (1.0 / max_p).to_string()),
                    ("gentle_", gentle.to_string()),
                    ("wait_", wait.unwrap_or(true).to_string()),
                    ("mean_pktsize_", mean.to_string()),
                    ("setbit_", "false".to_string()),
                    ("use_mark_p_", "true".to_string()),
                    ("drop_tail_", "true".to_string()),
                    ("drop_front_", "false".to_string()),
                    ("drop_rand_", "false".to_string()),
                    ("adaptive_", "0".to_string()),
                    ("cautious_", "0".to_string()),
                    ("feng_adaptive_", "0".to_string()),
                    ("ns1_compat_", "false".to_string()),
                    ("summarystats_", "false".to_string()),
                ];
                for (k, v) in settings {
                    let _ = writeln!(out, "Queue/RED set {k} {v}");
                }
                ("RED", limit - 1)
            }
            QueueModel::RandomDrop { .. } => {
                return Err(self.error(format!("{}.queue", link.key), "ns-2.35 has no random drop zone: use \"droptail\" or RED"));
            }
            QueueModel::ThresholdDropper { .. } => {
                return Err(self.error(
                    format!("{}.queue", link.key),
                    "ns-2.35 has no threshold-dropper (seed 004's was its authors' own code): use \"droptail\" or RED",
                ));
            }
        };
        let _ = writeln!(out, "link {i} {from} {to} {} {} {queue} {limit}", rate.as_bps(), secs(link.delay));
        Ok(out)
    }

    /// Reads the results file that the script of [`Scenario::ns2_script`] wrote into the
    /// records of a run; `Err` says which line is not what the script writes.
    pub fn read_ns2_results(&self, text: &str) -> std::result::Result<Ns2Results, String> {
        let mss = self.sim.mss as f64;
        let (warmup, end) = (self.sim.warmup.as_secs_f64(), self.sim.duration.as_secs_f64());
        let mut link_of = BTreeMap::new();
        // Per flow: counters at the warm-up, at the end, at its stop; completion time.
        let mut flows_at: [Vec<Option<[f64; 5]>>; 3] = std::array::from_fn(|_| vec![None; self.flows.len()]);
        let mut links_at: [Vec<Option<[f64; 8]>>; 2] = std::array::from_fn(|_| vec![None; self.links.len()]);
        let mut completed = vec![None; self.flows.len()];
        let mut phase = 0;
        let mut drops = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let bad = || format!("line {}: not a line the exported script writes: {line:?}", n + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let number = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).ok_or_else(bad);
            let index = |i: usize, len: usize| fields.get(i).and_then(|v| v.parse::<usize>().ok()).filter(|&x| x < len).ok_or_else(bad);
            match fields.first().copied() {
                None | Some("#") => {}
                Some("L") => {
                    let i = index(1, self.links.len())?;
                    link_of.insert((number(2)? as u64, number(3)? as u64), i);
                }
                Some("N") => {}
                Some("S") => {
                    phase = match fields.get(1).copied() {
                        Some("warmup") => 0,
                        Some("end") => 1,
                        Some("T") => 2,
                        _ => return Err(bad()),
                    };
                }
                Some("F") => {
                    let f = index(1, self.flows.len())?;
                    flows_at[phase][f] = Some([number(2)?, number(3)?, number(4)?, number(5)?, number(6)?]);
                }
                Some("Q") if phase < 2 => {
                    let i = index(1, self.links.len())?;
                    let mut v = [0.0; 8];
                    for (k, x) in v.iter_mut().enumerate() {
                        *x = number(k + 2)?;
                    }
                    links_at[phase][i] = Some(v);
                }
                Some("C") => completed[index(1, self.flows.len())?] = Some(number(2)?),
                Some("d") => {
                    // d TIME FROM TO TYPE SIZE FLAGS FID SRC DST SEQNO ID
                    if fields.get(4) != Some(&"tcp") {
                        continue;
                    }
                    let link = *link_of.get(&(number(2)? as u64, number(3)? as u64)).ok_or_else(bad)?;
                    drops.push(Ns2Drop { time: number(1)?, link, flow: index(7, self.flows.len())?, seqno: number(10)? as u64 });
                }
                Some(_) => return Err(bad()),
            }
        }
        if links_at[1].iter().chain(&links_at[0]).any(Option::is_none) || flows_at[1].iter().any(Option::is_none) {
            return Err("the results end before the run's end: ns-2 stopped early".into());
        }
        let measured = end - warmup;
        let mut output = RunOutput::default();
        for (f, flow) in self.flows.iter().enumerate() {
            let start = flow.start.as_secs_f64();
            let at_warmup = flows_at[0][f].unwrap_or([0.0; 5]);
            let until_stop = flows_at[2][f].filter(|_| flow.stop.is_some_and(|s| s.as_secs_f64() < end));
            let at_end = flows_at[1][f].expect("checked");
            // ns-2 calls `done` for a bulk flow too, once its stop's data is acknowledged.
            let done = completed[f].filter(|_| flow.size.is_some()).map(|t| t - self.reverse_delay(flow));
            let until = done.unwrap_or(end).min(flow.stop.map_or(end, |s| s.as_secs_f64()));
            let window = (until - warmup.max(start)).max(0.0);
            // The sink counts wire bytes, the 40-byte SYN among them: whole packets are the data.
            let data = |from: f64, to: f64| ((to - from) / mss).floor() * mss;
            // A finite transfer's last packet is whole in ns-2, partly filled in the scenario.
            let size = flow.size.map_or(f64::INFINITY, |s| s.bytes(self.sim.mss).round());
            let delivered_by = data(at_warmup[0], until_stop.unwrap_or(at_end)[0]).min(size);
            let bytes = data(at_warmup[0], at_end[0]).min(size);
            let goodput = if window > 0.0 { delivered_by * 8.0 / window } else { 0.0 };
            let d = |k: usize| (at_end[k] - at_warmup[k]).max(0.0) as u64;
            let name: std::sync::Arc<str> = flow.name.as_str().into();
            output.flows.push(FlowRecord {
                flow: name.clone(),
                algorithm: "reno",
                subflows: 1,
                start_s: start,
                goodput_bps: goodput,
                bytes_delivered: bytes.max(0.0) as u64,
                packets_sent: d(1),
                retransmissions: d(2),
                timeouts: d(3),
                loss_events: d(4),
                size_bytes: flow.size.map(|s| s.bytes(self.sim.mss).round() as u64),
                completion_time_s: done.map(|t| t - start),
                mean_relative_drop: None,
            });
            output.subflows.push(SubflowRecord {
                flow: name,
                subflow: 0,
                path: flow.paths[0].join(">").into(),
                goodput_bps: goodput,
                mean_cwnd_pkts: f64::NAN,
                mean_srtt_s: f64::NAN,
                min_rtt_s: f64::NAN,
                packets_sent: d(1),
                retransmissions: d(2),
                fast_retransmits: 0,
                duplicate_acks: 0,
                timeouts: d(3),
            });
            output.stats.data_sent += at_end[1] as u64;
            output.stats.data_delivered += (data(0.0, at_end[0]) / mss) as u64;
        }
        for (i, link) in self.links.iter().enumerate() {
            let (w, e) = (links_at[0][i].expect("checked"), links_at[1][i].expect("checked"));
            let rate = self.rate(&link.key, link.rate).map_err(|e| e.to_string())?.as_bps() as f64;
            let d = |k: usize| (e[k] - w[k]).max(0.0);
            // The monitor counts a packet when it departs: one whose service began before the
            // warm-up counts whole, up to one packet's time more than the interval holds.
            let utilization = if measured > 0.0 { (d(2) * 8.0 / rate / measured).min(1.0) } else { 0.0 };
            let arrivals = d(0) as u64;
            let drops_here = d(3) as u64;
            // The monitor counts waiting packets; the one in service is there a fraction
            // `utilization` of the time.
            let mean_waiting = if measured > 0.0 { d(6) / measured } else { 0.0 };
            let mean_waiting_bytes = if measured > 0.0 { d(7) / measured } else { 0.0 };
            output.links.push(LinkRecord {
                link: link.name.clone(),
                rate_bps: rate,
                delay_s: link.delay.as_secs_f64(),
                utilization,
                arrivals,
                offered: arrivals + w[4] as u64,
                departures: d(1) as u64,
                queue_drops: drops_here,
                random_losses: 0,
                down_drops: 0,
                loss_rate: if arrivals > 0 { drops_here as f64 / arrivals as f64 } else { 0.0 },
                mean_queue_pkts: mean_waiting + utilization,
                max_queue_pkts: 0,
                mean_queue_bytes: mean_waiting_bytes + utilization * mss,
                max_queue_bytes: 0,
            });
            output.stats.data_dropped += e[3] as u64;
        }
        output.stats = RunStats { simulated_s: end, ..output.stats };
        Ok(Ns2Results { output, drops, unmeasured: UNMEASURED })
    }

    /// The propagation delay of `flow`'s path: its ACKs' way back.
    fn reverse_delay(&self, flow: &FlowModel) -> f64 {
        flow.paths[0].iter().filter_map(|name| self.links.iter().find(|l| &l.name == name)).map(|l| l.delay.as_secs_f64()).sum()
    }
}
