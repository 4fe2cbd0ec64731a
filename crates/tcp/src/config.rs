//! Transport settings, and the named profiles that are nothing but sets of their defaults.
//!
//! Every setting is declared once, in the `settings!` list below: that one line gives the
//! field of [`TcpConfig`], its optional twin in [`TcpOverrides`] (what a scenario's `[tcp]` or
//! a flow's `tcp` table sets), its scenario key and the kind of value the key takes
//! ([`SETTINGS`]). Adding a setting is a one-place change.

use sim_core::Time;

/// How a sender sets its sending rate during loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Without SACK, RFC 6582: window inflation by one per duplicate ACK. After a loss the
    /// sender is silent for half a window of duplicates, then sends one segment per duplicate,
    /// so its next windows travel as a clump. With SACK, RFC 6675's plain rule: the window is
    /// ssthresh and the sender keeps `pipe` below it.
    NewReno,
    /// RFC 6937 Proportional Rate Reduction (Linux's default): during recovery about
    /// `ssthresh/RecoverFS` segments per segment delivered, spread over the round trip, then
    /// slow-start reduction bound (PRR-SSRB) once the pipe is below ssthresh.
    Prr,
    /// ns-2.35's `Agent/TCP/Sack1` (tcp-sack1.cc), with SACK: the window is ssthresh and
    /// `pipe` is a counter, not the scoreboard's count: outstanding segments less three at the
    /// third duplicate ACK, one less per ACK, two per partial ACK, one more per segment sent
    /// after the first retransmission. Every hole below the highest SACKed segment is resent,
    /// once.
    Ns2,
}

impl Recovery {
    /// Every mode with its configuration name.
    pub const NAMES: [(&'static str, Recovery); 3] = [("newreno", Recovery::NewReno), ("prr", Recovery::Prr), ("ns2", Recovery::Ns2)];

    /// Whether fast recovery without SACK inflates the window by a segment per duplicate ACK
    /// (RFC 6582), rather than setting it by PRR.
    pub const fn inflates_window(self) -> bool {
        matches!(self, Recovery::NewReno | Recovery::Ns2)
    }
}

/// How the retransmission timeout follows the RTT estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoFormula {
    /// RFC 6298 (2.3)-(2.4): `RTO = max(min_rto, SRTT + 4·RTTVAR)`. The floor acts on the
    /// whole timeout, so once SRTT exceeds `min_rto` the timeout hugs SRTT plus the variance.
    Rfc6298,
    /// Linux (`tcp_rtt_estimator` and `__tcp_set_rto` in net/ipv4/tcp_input.c):
    /// `RTO = SRTT + max(min_rto, 4·RTTVAR)`, where RTTVAR's decay is held for a round trip
    /// (`mdev_max`). The floor acts on the variance term: the timeout is never less than
    /// `min_rto` above SRTT, however large SRTT is.
    Linux,
    /// ns-2.35's `TcpAgent` (tcp.cc `rtt_update`, `rtt_timeout`, `rtt_backoff`): one timed
    /// segment per round trip, measured in whole ticks of `rtt_tick`; SRTT and RTTVAR in
    /// fixed point (eighths and quarters of a tick); RTO = SRTT + 4·RTTVAR in whole ticks,
    /// floored at `min_rto` before the backoff, at least two ticks. The backoff ends only when
    /// a timed segment is acknowledged (or, in Sack1's recovery, on a partial ACK), and past 8
    /// it folds SRTT into RTTVAR.
    Ns2,
}

impl RtoFormula {
    /// Every formula with its configuration name.
    pub const NAMES: [(&'static str, RtoFormula); 3] =
        [("rfc6298", RtoFormula::Rfc6298), ("linux", RtoFormula::Linux), ("ns2", RtoFormula::Ns2)];
}

/// The window after a full ACK ends NewReno's fast recovery (RFC 6582 §3.2 step 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAck {
    /// Option 2: `cwnd = ssthresh`.
    Ssthresh,
    /// Option 1: `cwnd = min(ssthresh, FlightSize + 1)`, so no burst follows (htsim's
    /// `TcpSrc`, which also deflates so before halving on a timeout during recovery).
    Flight,
}

impl FullAck {
    /// Every option with its configuration name.
    pub const NAMES: [(&'static str, FullAck); 2] = [("ssthresh", FullAck::Ssthresh), ("flight", FullAck::Flight)];
}

/// Which partial ACKs of NewReno's fast recovery restart the retransmission timer (RFC 6582 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// "Impatient": only the first partial ACK.
    Impatient,
    /// "Slow-but-steady": every partial ACK (htsim).
    SlowButSteady,
}

impl PartialAckTimer {
    /// Every variant with its configuration name.
    pub const NAMES: [(&'static str, PartialAckTimer); 2] =
        [("impatient", PartialAckTimer::Impatient), ("slow-but-steady", PartialAckTimer::SlowButSteady)];
}

/// How much the window grows per acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// By the segments it acknowledges (RFC 3465 appropriate byte counting, L = 2 in slow start;
    /// Linux since 4.0): delayed ACKs do not slow the growth.
    PerSegment,
    /// By one segment's worth, whatever it acknowledges (Linux before 4.0, the kernels of the
    /// seeds' MPTCP testbeds; htsim): delayed ACKs halve the growth.
    PerAck,
}

impl Growth {
    /// Every mode with its configuration name.
    pub const NAMES: [(&'static str, Growth); 2] = [("per-segment", Growth::PerSegment), ("per-ack", Growth::PerAck)];
}

/// A named set of defaults for every setting (`tcp.profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Linux's TCP as the seeds' testbeds ran it (seed 000; seed 002 scenarios A-C): SACK,
    /// RACK-TLP, timestamps, delayed ACKs with quick-ACKs, PRR, Linux's RTO, a handshake.
    Linux,
    /// csg-htsim's `TcpSrc`/`TcpSink` (seed 001's simulations, seed 002's FatTree).
    Htsim,
    /// ns-2's `Agent/TCP/Sack1` with its defaults (seed 004).
    Ns2Sack,
    /// equipoise's first TCP: NewReno without SACK, Karn's rule, no handshake.
    NewReno,
    /// Linux 6.x, the kernel `equipoise testbed` runs: as [`Profile::Linux`], but congestion
    /// avoidance grows by the segments an ACK acknowledges (`tcp_cong_avoid_ai` with `acked`,
    /// since 4.0), which with delayed ACKs is twice the growth per round trip, and the
    /// receiver no longer re-enters quick-ACK mode on out-of-order data (since 4.18). PRR's
    /// extra segment below ssthresh needs an ACK that makes progress, and the receiver's ACKs
    /// wait for its reader as the testbed's were measured to.
    Linux6,
}

impl Profile {
    /// Every profile with its configuration name.
    pub const NAMES: [(&'static str, Profile); 5] = [
        ("linux", Profile::Linux),
        ("linux-6", Profile::Linux6),
        ("htsim", Profile::Htsim),
        ("ns2-sack", Profile::Ns2Sack),
        ("newreno", Profile::NewReno),
    ];

    /// The profile of a scenario that names none: Linux, the TCP most of the seeds' experiments
    /// ran and the one a researcher's own testbed runs (docs/tcp-profiles.md).
    pub const SCENARIO_DEFAULT: Profile = Profile::Linux;

    /// The name a scenario's `tcp.profile` gives (one of [`Profile::NAMES`]).
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, p)| *p == self).expect("every profile is named").0
    }

    /// The profile's settings. The sources of each value are in docs/tcp-profiles.md.
    pub fn config(self) -> TcpConfig {
        let base = TcpConfig { profile: self, ..TcpConfig::default() };
        match self {
            Profile::NewReno => base,
            Profile::Linux => TcpConfig {
                min_rto: Time::from_ms(200),
                max_rto: Time::from_secs(120),
                initial_rto: Time::from_secs(1),
                initial_cwnd: 10.0,
                min_ssthresh: 2.0,
                delayed_ack: true,
                delayed_ack_timeout: Time::from_ms(40),
                quick_acks: 16,
                growth: Growth::PerAck,
                recovery: Recovery::Prr,
                sack: true,
                rack: true,
                tlp: true,
                timestamps: true,
                rto_formula: RtoFormula::Linux,
                handshake: true,
                retransmit_restarts_timer: true,
                ..base
            },
            Profile::Linux6 => TcpConfig {
                profile: self,
                growth: Growth::PerSegment,
                quick_acks_after_out_of_order: false,
                prr_extra_on_progress_only: true,
                // The testbed's receivers, measured (docs/testbed.md): 42-56 µs at the median,
                // 0.93-1.46 ms at the 99th percentile.
                ack_latency_median: Time::from_us(50),
                ack_latency_p99: Time::from_us(1200),
                ..Profile::Linux.config()
            },
            Profile::Htsim => TcpConfig {
                min_rto: Time::from_ms(250),
                max_rto: Time::NEVER,
                initial_rto: Time::from_secs(3),
                initial_cwnd: 10.0,
                initial_ssthresh: 100.0,
                growth: Growth::PerAck,
                full_ack: FullAck::Flight,
                partial_ack_timer: PartialAckTimer::SlowButSteady,
                timestamps: true,
                rtt_every_ack: true,
                timer_granularity: Time::from_ms(10),
                byte_window: true,
                handshake: true,
                syn_size: 1,
                syn_ack_grows: true,
                lost_syn_resets_window: true,
                fast_retransmit_alone: true,
                ..base
            },
            Profile::Ns2Sack => TcpConfig {
                min_rto: Time::from_ms(200),
                max_rto: Time::from_secs(60),
                initial_rto: Time::from_secs(3),
                initial_cwnd: 2.0,
                // ns-2's initial ssthresh is its `window_`, 20 packets by default.
                initial_ssthresh: 20.0,
                growth: Growth::PerAck,
                recovery: Recovery::Ns2,
                whole_ssthresh: true,
                lost_syn_resets_window: true,
                sack: true,
                handshake: true,
                syn_size: 40,
                retransmit_restarts_timer: true,
                ..base
            },
        }
    }
}

/// The kind of value a setting's key takes in a scenario file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingKind {
    /// A time with a unit ("200ms").
    Time,
    /// A number of packets, at least 1.
    Packets,
    /// A number of packets, at least 1, or "inf".
    PacketsOrInf,
    /// A non-negative integer.
    Count,
    /// A size in bytes ("40B").
    Bytes,
    /// `true` or `false`.
    Bool,
    /// One of these names.
    Choice(&'static [&'static str]),
}

/// A setting's value as read from a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingValue {
    /// For [`SettingKind::Time`].
    Time(Time),
    /// For the packet kinds (`f64::INFINITY` for "inf").
    Number(f64),
    /// For [`SettingKind::Count`] and [`SettingKind::Bytes`].
    Count(u64),
    /// For [`SettingKind::Bool`].
    Bool(bool),
    /// For [`SettingKind::Choice`]: the name, one of the kind's.
    Choice(String),
}

/// A type a setting can hold, read from a [`SettingValue`] of its kind.
pub trait SettingType: Sized + Clone {
    /// The value, if `v` is of this type.
    fn from_value(v: &SettingValue) -> Option<Self>;
}

impl SettingType for Time {
    fn from_value(v: &SettingValue) -> Option<Self> {
        if let SettingValue::Time(t) = v { Some(*t) } else { None }
    }
}
impl SettingType for f64 {
    fn from_value(v: &SettingValue) -> Option<Self> {
        if let SettingValue::Number(x) = v { Some(*x) } else { None }
    }
}
impl SettingType for bool {
    fn from_value(v: &SettingValue) -> Option<Self> {
        if let SettingValue::Bool(b) = v { Some(*b) } else { None }
    }
}
impl SettingType for u32 {
    fn from_value(v: &SettingValue) -> Option<Self> {
        if let SettingValue::Count(n) = v { u32::try_from(*n).ok() } else { None }
    }
}

macro_rules! named_setting {
    ($t:ty) => {
        impl SettingType for $t {
            fn from_value(v: &SettingValue) -> Option<Self> {
                let SettingValue::Choice(name) = v else { return None };
                <$t>::NAMES.iter().find(|(n, _)| n == name).map(|(_, x)| *x)
            }
        }
    };
}
named_setting!(Recovery);
named_setting!(RtoFormula);
named_setting!(FullAck);
named_setting!(Growth);
named_setting!(PartialAckTimer);

const fn names<const N: usize, T: Copy>(table: [(&'static str, T); N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = table[i].0;
        i += 1;
    }
    out
}
const RECOVERY_NAMES: [&str; 3] = names(Recovery::NAMES);
const RTO_NAMES: [&str; 3] = names(RtoFormula::NAMES);
const GROWTH_NAMES: [&str; 2] = names(Growth::NAMES);
const FULL_ACK_NAMES: [&str; 2] = names(FullAck::NAMES);
const PARTIAL_ACK_NAMES: [&str; 2] = names(PartialAckTimer::NAMES);

macro_rules! settings {
    ($( $(#[doc = $doc:literal])* $field:ident : $ty:ty, $kind:expr, $default:expr; )*) => {
        /// TCP settings of one flow: a profile's defaults with the scenario's overrides applied.
        #[derive(Clone, Debug, PartialEq)]
        pub struct TcpConfig {
            /// The profile the defaults came from (reported, not read by the transport).
            pub profile: Profile,
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        /// The `newreno` profile: equipoise's first TCP.
        impl Default for TcpConfig {
            fn default() -> Self {
                TcpConfig { profile: Profile::NewReno, $( $field: $default, )* }
            }
        }

        /// What one `[tcp]` or flow `tcp` table sets: every setting optional.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct TcpOverrides {
            /// `profile`: the defaults to start from.
            pub profile: Option<Profile>,
            $( $(#[doc = $doc])* pub $field: Option<$ty>, )*
        }

        impl TcpOverrides {
            /// Writes every setting given here into `config`.
            pub fn apply(&self, config: &mut TcpConfig) {
                $( if let Some(v) = &self.$field { config.$field = v.clone(); } )*
            }

            /// Takes `value` for the setting named `key`; `Err` if the key or the value's
            /// type is not that of the setting.
            pub fn set(&mut self, key: &str, value: &SettingValue) -> Result<(), String> {
                match key {
                    $( stringify!($field) => {
                        self.$field = Some(<$ty as SettingType>::from_value(value)
                            .ok_or_else(|| format!("{value:?} is not a value of setting {key}"))?);
                    } )*
                    _ => return Err(format!("no TCP setting {key}")),
                }
                Ok(())
            }

            /// The names of the settings given here.
            pub fn given(&self) -> Vec<&'static str> {
                let mut keys = Vec::new();
                $( if self.$field.is_some() { keys.push(stringify!($field)); } )*
                keys
            }
        }

        /// Every setting: its scenario key and the kind of value it takes.
        pub const SETTINGS: &[(&str, SettingKind)] = &[ $( (stringify!($field), $kind), )* ];
    };
}

settings! {
    /// Floor of the retransmission timeout (RFC 6298 (2.4) says 1 s; Linux 200 ms; htsim 250 ms).
    min_rto: Time, SettingKind::Time, Time::from_ms(200);
    /// Ceiling of the retransmission timeout after backoff (RFC 6298 (2.5) allows ≥ 60 s).
    max_rto: Time, SettingKind::Time, Time::from_secs(60);
    /// Timeout before the first RTT sample (RFC 6298 (2.1): 1 s), also the SYN's.
    initial_rto: Time, SettingKind::Time, Time::from_secs(1);
    /// How the timeout follows the RTT estimate.
    rto_formula: RtoFormula, SettingKind::Choice(&RTO_NAMES), RtoFormula::Rfc6298;
    /// With `rto_formula = "ns2"`: the clock its RTT measurements count (ns-2's `tcpTick_`,
    /// which `equipoise export ns2` writes whatever the formula).
    rtt_tick: Time, SettingKind::Time, Time::from_ms(10);
    /// Timers are checked only at multiples of this (htsim scans its timers every 10 ms); zero:
    /// exactly when due.
    timer_granularity: Time, SettingKind::Time, Time::ZERO;
    /// Initial congestion window, packets (RFC 6928 and Linux: 10; RFC 5681: 2 to 4).
    initial_cwnd: f64, SettingKind::Packets, 10.0;
    /// Initial slow-start threshold, packets (`f64::INFINITY` for "inf").
    initial_ssthresh: f64, SettingKind::PacketsOrInf, f64::INFINITY;
    /// What an acknowledgement adds to the window.
    growth: Growth, SettingKind::Choice(&GROWTH_NAMES), Growth::PerSegment;
    /// Smallest slow-start threshold after a loss, packets (RFC 5681: 2).
    min_ssthresh: f64, SettingKind::Packets, 2.0;
    /// A loss rounds ssthresh down to whole packets (ns-2's `ssthresh_` is an int, tcp.cc
    /// `slowdown`), so slow start after a timeout ends up to a packet earlier.
    whole_ssthresh: bool, SettingKind::Bool, false;
    /// The window is a whole number of bytes, as htsim's `uint32_t _cwnd`: each congestion-
    /// avoidance step is the law's increase rounded down to a byte (Reno: `⌊mss²/cwnd⌋` bytes
    /// per ACK, so a large window grows more slowly than `1/cwnd`), slow start stops at
    /// ssthresh exactly, and a loss rounds ssthresh down to a byte.
    byte_window: bool, SettingKind::Bool, false;
    /// With `byte_window`, LIA's congestion-avoidance step is its whole bytes plus one more
    /// with the probability of the fraction left over, as htsim's `COUPLED_INC` draws it
    /// (`rand() % A_SCALE`), and at most Reno's `⌊mss²/cwnd⌋`: a step below a byte, common
    /// when four subflows share a small window, still grows the window on average. Every other
    /// law's step stays rounded down, as htsim's Reno and `UNCOUPLED` are. Off in every
    /// profile, `htsim`'s included (which models `TcpSrc`, not `MultipathTcpSrc`); htsim's
    /// datacenter scenario turns it on.
    lia_byte_carry: bool, SettingKind::Bool, false;
    /// Acknowledge every second full segment instead of every segment (RFC 1122 §4.2.3.2).
    delayed_ack: bool, SettingKind::Bool, false;
    /// Longest a delayed acknowledgement waits (RFC 1122: at most 500 ms; Linux's minimum
    /// 40 ms).
    delayed_ack_timeout: Time, SettingKind::Time, Time::from_ms(40);
    /// Linux's quick-ACK mode: this many segments are acknowledged at once at the start and
    /// after out-of-order data, before delayed ACKs resume (Linux: 16, `TCP_MAX_QUICKACKS`);
    /// no effect without `delayed_ack`.
    quick_acks: u32, SettingKind::Count, 0;
    /// Out-of-order data re-enters quick-ACK mode (Linux before 4.18; since then the
    /// receiver ACKs out-of-order segments and the one filling the hole at once, then goes
    /// back to delayed ACKs).
    quick_acks_after_out_of_order: bool, SettingKind::Bool, true;
    /// How much fast recovery sends per ACK: NewReno's inflation (RFC 6675's rule with SACK)
    /// or RFC 6937 PRR.
    recovery: Recovery, SettingKind::Choice(&RECOVERY_NAMES), Recovery::NewReno;
    /// With PRR, once the pipe is below ssthresh: the one segment beyond those delivered goes
    /// out only on an ACK that advances the cumulative ACK and finds no new loss, as Linux 6's
    /// `tcp_cwnd_reduction` sends it; otherwise on every ACK (RFC 6937's slow-start reduction
    /// bound). Without it, a recovery whose first hole is lost again sends more than it
    /// delivers for as long as the hole stays open.
    prr_extra_on_progress_only: bool, SettingKind::Bool, false;
    /// Without SACK: the window after a full ACK ends fast recovery.
    full_ack: FullAck, SettingKind::Choice(&FULL_ACK_NAMES), FullAck::Ssthresh;
    /// Resending the oldest unacknowledged segment restarts the retransmission timer, so that
    /// a fast retransmission has a whole RTO to be acknowledged (ns-2's `reset_rtx_timer` on
    /// the third duplicate ACK; Linux's `tcp_xmit_retransmit_queue` for the head of the
    /// queue). Without it (htsim, RFC 6298 alone) the timer keeps running from the last new
    /// ACK, and fires before the retransmission's ACK whenever an RTT plus the time to three
    /// duplicates exceeds the RTO.
    retransmit_restarts_timer: bool, SettingKind::Bool, false;
    /// Without SACK: the third duplicate ACK sends the fast retransmission and nothing else,
    /// even when the inflated window has room for new data (htsim's `TcpSrc` enters fast
    /// recovery without calling `send_packets`); new data waits for the next duplicate.
    fast_retransmit_alone: bool, SettingKind::Bool, false;
    /// Without SACK: which partial ACKs restart the retransmission timer.
    partial_ack_timer: PartialAckTimer, SettingKind::Choice(&PARTIAL_ACK_NAMES), PartialAckTimer::Impatient;
    /// Selective acknowledgements (RFC 2018) and RFC 6675 loss recovery from a scoreboard.
    sack: bool, SettingKind::Bool, false;
    /// RACK (RFC 8985): time-based loss marking. Needs `sack`.
    rack: bool, SettingKind::Bool, false;
    /// Tail loss probes (RFC 8985 §7). Needs `rack`.
    tlp: bool, SettingKind::Bool, false;
    /// Timestamps (RFC 7323): every ACK echoes the send time of the segment that triggered it,
    /// so ACKs of retransmissions give RTT samples (no Karn ambiguity).
    timestamps: bool, SettingKind::Bool, false;
    /// An RTT sample from every ACK, duplicates included (htsim); otherwise only from ACKs of
    /// new data.
    rtt_every_ack: bool, SettingKind::Bool, false;
    /// A SYN / SYN-ACK exchange before data (and before each additional subflow's data).
    handshake: bool, SettingKind::Bool, false;
    /// With a handshake, every subflow of a multipath connection sends its SYN at the start,
    /// as htsim's `MultipathTcpSrc` opens its `TcpSrc` subflows each on its own; otherwise the
    /// others join once the first is established, as MPTCP's do (RFC 8684).
    subflows_at_once: bool, SettingKind::Bool, false;
    /// Size of the SYN and SYN-ACK on the wire, bytes (zero: the ACK size).
    syn_size: u32, SettingKind::Bytes, 0;
    /// A lost SYN (its timer expired) leaves a window of one packet and sets ssthresh as a
    /// loss of that window does (RFC 5681 §3.1's one-segment initial window; ns-2's
    /// `TcpAgent::timeout` with `bugfix_ss_`, where ssthresh becomes 2).
    lost_syn_resets_window: bool, SettingKind::Bool, false;
    /// The SYN-ACK is a new acknowledgement that grows the window (slow start: one packet) as
    /// htsim's `TcpSrc` takes it, before the first data goes out.
    syn_ack_grows: bool, SettingKind::Bool, false;
    /// The receiver's latency in acknowledging data: each ACK it makes as data arrives leaves
    /// after a log-normal delay of this median (and `ack_latency_p99`), never before an ACK
    /// sent earlier. A Linux receiver sends the ACK of two segments only once the receiving
    /// process has read them, and that process is not always running (docs/testbed.md
    /// measures it). ACKs carrying SACK blocks (out-of-order data, a hole filled while data
    /// above it is held) and the delayed-ACK timer's leave at once. Zero: none.
    ack_latency_median: Time, SettingKind::Time, Time::ZERO;
    /// The 99th percentile of the receiver's ACK latency (with `ack_latency_median`).
    ack_latency_p99: Time, SettingKind::Time, Time::ZERO;
    /// ACKs reach the sender the instant the receiver sends them, crossing no link and no
    /// propagation delay (with the receiver's ACK latency, if any, alone): the return route of
    /// htsim's datacenter mains, which hold only the source. Otherwise an ACK takes the reverse
    /// of its data path's delays, or its `reverse_paths`.
    instant_acks: bool, SettingKind::Bool, false;
    /// Each data segment waits a random time, uniform in [0, jitter], before it enters the
    /// network, in order (ns-2's `overhead_`): the standard remedy for drop-tail phase effects.
    jitter: Time, SettingKind::Time, Time::ZERO;
}

/// The largest initial window and minimum ssthresh accepted, packets.
pub const MAX_WINDOW: f64 = 1_000_000.0;

impl TcpConfig {
    /// Checks that the settings can be combined: `Err((keys, message))` names the two settings
    /// that conflict, the one the message is about first.
    pub fn validate(&self) -> Result<(), ([&'static str; 2], String)> {
        if self.rack && !self.sack {
            return Err((["rack", "sack"], "RACK needs SACK: set sack = true, or rack = false".into()));
        }
        if self.recovery == Recovery::Ns2 && !self.sack {
            return Err((["recovery", "sack"], "ns-2's Sack1 recovery needs SACK: set sack = true, or recovery = \"newreno\"".into()));
        }
        if self.tlp && !self.rack {
            return Err((["tlp", "rack"], "tail loss probes need RACK: set rack = true, or tlp = false".into()));
        }
        // Zero timeouts would fire at the instant they are armed, forever; a window of a
        // million packets is beyond any link this simulator is meant for, and sizes memory.
        for (key, value) in
            [("initial_rto", self.initial_rto), ("min_rto", self.min_rto), ("max_rto", self.max_rto), ("rtt_tick", self.rtt_tick)]
        {
            if value < Time::from_us(1) {
                return Err(([key, key], format!("must be at least 1us, got {value}")));
            }
        }
        for (key, value) in [("initial_cwnd", self.initial_cwnd), ("min_ssthresh", self.min_ssthresh)] {
            if value > MAX_WINDOW {
                return Err(([key, key], format!("at most {MAX_WINDOW} packets, got {value}")));
            }
        }
        if self.ack_latency_median > Time::ZERO || self.ack_latency_p99 > Time::ZERO {
            if self.ack_latency_median == Time::ZERO {
                return Err((
                    ["ack_latency_median", "ack_latency_p99"],
                    format!("must be above zero with ack_latency_p99 ({}), or both \"0s\" for no ACK latency", self.ack_latency_p99),
                ));
            }
            if self.ack_latency_p99 < self.ack_latency_median {
                return Err((
                    ["ack_latency_p99", "ack_latency_median"],
                    format!("must be at least ack_latency_median ({}), got {}", self.ack_latency_median, self.ack_latency_p99),
                ));
            }
            if !self.delayed_ack {
                return Err((
                    ["delayed_ack", "ack_latency_median"],
                    "a receiver's ACK waits for its reader only with delayed ACKs: set delayed_ack = true, \
                     or ack_latency_median and ack_latency_p99 to \"0s\""
                        .into(),
                ));
            }
            if self.ack_latency_p99 >= self.delayed_ack_timeout {
                return Err((
                    ["ack_latency_p99", "delayed_ack_timeout"],
                    format!(
                        "a receiver's ACK never waits past its delayed-ACK timer: must be below delayed_ack_timeout ({}), got {}",
                        self.delayed_ack_timeout, self.ack_latency_p99
                    ),
                ));
            }
        }
        if self.min_rto > self.max_rto {
            return Err((["max_rto", "min_rto"], format!("must be at least min_rto ({}), got {}", self.min_rto, self.max_rto)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_valid_and_overrides_win() {
        for (name, p) in Profile::NAMES {
            assert_eq!(p.config().validate(), Ok(()), "{name}");
            assert_eq!(p.name(), name);
        }
        assert_eq!(Profile::NewReno.config(), TcpConfig::default());
        let mut o = TcpOverrides::default();
        o.set("min_rto", &SettingValue::Time(Time::from_secs(1))).unwrap();
        o.set("recovery", &SettingValue::Choice("newreno".into())).unwrap();
        assert!(o.set("sack", &SettingValue::Count(1)).is_err());
        assert!(o.set("nope", &SettingValue::Bool(true)).is_err());
        let mut c = Profile::Linux.config();
        o.apply(&mut c);
        assert_eq!((c.min_rto, c.recovery, c.sack), (Time::from_secs(1), Recovery::NewReno, true));
        assert_eq!(o.given(), vec!["min_rto", "recovery"]);
        c.sack = false;
        assert_eq!(c.validate().unwrap_err().0, ["rack", "sack"]);
    }
}
