//! Loss recovery driven by script, with no network: a sender machine and a real receiver, the
//! test choosing which segments arrive and when each ACK is read.

use sim_core::{RouteId, Time};
use tcp::receiver::{AckAction, Receiver, ReceiverConfig};
use tcp::sender::{AckOutcome, Phase, Send, SubflowSender, TimerAction, TimerOutcome, Window};
use tcp::{Profile, TcpConfig};

/// Reno's window, as the connection's law would apply it.
struct Reno {
    cwnd: f64,
    ssthresh: f64,
    /// What the sender last said of recovery inflating the window.
    inflated: bool,
}

impl Window for Reno {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn set_cwnd(&mut self, cwnd: f64) {
        self.cwnd = cwnd;
    }
    fn grow(&mut self, newly: u64) {
        self.cwnd += if self.cwnd < self.ssthresh { newly.min(2) as f64 } else { newly as f64 / self.cwnd };
    }
    fn reduce(&mut self) -> (f64, f64, Option<f64>) {
        self.ssthresh = (self.cwnd / 2.0).max(2.0);
        (self.ssthresh, self.cwnd / 2.0, None)
    }
    fn set_inflated(&mut self, on: bool) {
        self.inflated = on;
    }
    fn rtt_sampled(&mut self, _: f64, _: Option<f64>) {}
    fn slow_start_sample(&mut self, _: sim_core::Time, _: u64, _: u64) {}
    fn acked(&mut self, _: u64) {}
}

/// A segment on the wire: sequence, send time, retransmission.
type Wire = (u64, Time, bool);

struct Script {
    sender: SubflowSender,
    window: Reno,
    receiver: Receiver,
    now: Time,
    /// Segments sent and not yet delivered or lost, in order.
    wire: Vec<Wire>,
    /// Every transmission: (time, sequence, retransmission).
    log: Vec<(Time, u64, bool)>,
    /// Segments the transfer has (new data stops here).
    limit: u64,
}

impl Script {
    fn new(config: TcpConfig, cwnd: f64, limit: u64) -> Script {
        let receiver =
            Receiver::new(ReceiverConfig { delayed_ack: false, quick_acks: 0, quick_acks_after_out_of_order: true, sack: config.sack });
        Script {
            sender: SubflowSender::new(RouteId(0), RouteId(1), false, &config),
            window: Reno { cwnd, ssthresh: f64::INFINITY, inflated: false },
            receiver,
            now: Time::ZERO,
            wire: Vec::new(),
            log: Vec::new(),
            limit,
        }
    }

    fn transmit(&mut self, seq: u64) {
        let retrans = seq < self.sender.snd_max();
        self.sender.on_sent(seq, self.now);
        self.wire.push((seq, self.now, retrans));
        self.log.push((self.now, seq, retrans));
        if !self.sender.timer_armed() {
            self.sender.arm_timer(self.now);
        }
    }

    /// The connection's send loop.
    fn send(&mut self) {
        while let Some(next) = self.sender.next_send((self.window.cwnd as u64).max(1)) {
            match next {
                Send::Retransmit(seq) => self.transmit(seq),
                Send::New if self.sender.snd_max() < self.limit => self.transmit(self.sender.snd_max()),
                Send::New => break,
            }
        }
    }

    /// The segments on the wire arrive, but for the first transmissions of those in `lost`
    /// and the retransmissions of those in `lost_again`; their ACKs are read one by one, `RTT`
    /// after each segment was sent, and the sender reacts to each at once.
    fn round(&mut self, lost: &[u64], lost_again: &[u64]) {
        let wire = std::mem::take(&mut self.wire);
        let mut acks = Vec::new();
        for (seq, sent, retrans) in wire {
            if if retrans { lost_again.contains(&seq) } else { lost.contains(&seq) } {
                continue;
            }
            if let AckAction::Send(ack) = self.receiver.on_data(seq, sent, retrans) {
                acks.push((sent + RTT, ack));
            }
        }
        for (at, ack) in acks {
            self.now = self.now.max(at);
            let timer = match self.sender.on_ack(&ack, self.now, &mut self.window) {
                AckOutcome::Nothing => continue,
                AckOutcome::Established => TimerAction::Keep,
                AckOutcome::Send(timer) => timer,
                AckOutcome::Retransmit(seq, timer) => {
                    self.transmit(seq);
                    timer
                }
                AckOutcome::RetransmitAlone(seq) => {
                    self.transmit(seq);
                    continue;
                }
            };
            match timer {
                TimerAction::Restart => {
                    self.sender.arm_timer(self.now);
                }
                TimerAction::Stop => self.sender.stop_timer(),
                TimerAction::Wake => {
                    self.sender.wake(self.now);
                }
                TimerAction::Keep => {}
            }
            self.send();
        }
    }

    /// Runs the timer's next wake-up.
    fn fire(&mut self) -> TimerOutcome {
        let mut out = TimerOutcome::Again(self.sender.timer_event());
        while let TimerOutcome::Again(at) = out {
            self.now = at;
            out = self.sender.on_timer(self.now, &mut self.window);
        }
        match out {
            TimerOutcome::Timeout => {
                self.send();
                // As the connection does: a coarse timer's scan set the next deadline already.
                self.sender.wake(self.now);
            }
            TimerOutcome::Reordered => self.send(),
            TimerOutcome::Probe => {
                let last = self.sender.snd_max() - 1;
                self.transmit(last);
                self.sender.probe_sent(true, self.now);
            }
            _ => {}
        }
        out
    }

    fn retransmissions(&self) -> Vec<u64> {
        self.log.iter().filter(|l| l.2).map(|l| l.1).collect()
    }
}

fn sack(recovery: tcp::Recovery) -> TcpConfig {
    TcpConfig { sack: true, recovery, ..TcpConfig::default() }
}

const RTT: Time = Time(100_000_000_000); // 100 ms

#[test]
fn newreno_fast_retransmit_and_full_ack() {
    let mut s = Script::new(TcpConfig::default(), 10.0, 1000);
    s.send();
    assert_eq!(s.sender.snd_max(), 10);
    s.round(&[3], &[]);
    // Three duplicates (of 4, 5, 6) trigger the fast retransmit of 3, with ssthresh = 13/2.
    assert_eq!(s.retransmissions(), vec![3]);
    assert_eq!(s.sender.counters().fast_retransmits, 1);
    assert_eq!(s.sender.phase(), Phase::Recovery);
    assert_eq!(s.window.ssthresh, 6.5);
    s.round(&[], &[]);
    // The retransmission is acknowledged with everything sent before it: recovery ends.
    assert_eq!(s.sender.phase(), Phase::Open);
    assert!(s.window.cwnd >= 6.5 && s.window.cwnd < 8.0, "deflated to ssthresh, then grown: {}", s.window.cwnd);
    assert_eq!(s.sender.counters().timeouts, 0);
}

/// The law hears when fast recovery inflates the window (NewReno's, without SACK), so that the
/// sums over a connection's subflows count ssthresh meanwhile; PRR's window and SACK
/// recovery's are not inflated.
#[test]
fn the_law_hears_when_recovery_inflates_the_window() {
    let prr = TcpConfig { recovery: tcp::Recovery::Prr, ..TcpConfig::default() };
    for (config, inflates) in [(TcpConfig::default(), true), (prr, false), (sack(tcp::Recovery::NewReno), false)] {
        let name = format!("{:?} with sack {}", config.recovery, config.sack);
        let mut s = Script::new(config, 10.0, 1000);
        s.send();
        s.round(&[3], &[]);
        assert_eq!((s.sender.phase(), s.window.inflated), (Phase::Recovery, inflates), "{name}");
        s.round(&[], &[]);
        assert_eq!((s.sender.phase(), s.window.inflated), (Phase::Open, false), "{name}");
    }
}

/// htsim's `TcpSrc` on the third duplicate: the retransmission goes out alone, though the
/// inflated window has room; new data waits for the next duplicate.
#[test]
fn the_fast_retransmission_goes_out_alone_when_asked() {
    for alone in [false, true] {
        let config = TcpConfig { fast_retransmit_alone: alone, ..TcpConfig::default() };
        // With a window of 4, three duplicates inflate it to 2 + 3 = 5 beside 4 in flight.
        let mut s = Script::new(config, 4.0, 1000);
        s.send();
        s.round(&[0], &[]);
        let at_retransmit = s.log.iter().position(|l| l.2).expect("a fast retransmission");
        let with_it: Vec<_> = s.log[at_retransmit..].iter().filter(|l| l.0 == s.log[at_retransmit].0).map(|l| l.1).collect();
        assert_eq!(with_it, if alone { vec![0] } else { vec![0, 4] }, "fast_retransmit_alone = {alone}");
    }
}

#[test]
fn sack_recovers_two_losses_in_one_round_trip() {
    for recovery in [tcp::Recovery::Prr, tcp::Recovery::NewReno] {
        let mut s = Script::new(sack(recovery), 20.0, 1000);
        s.send();
        let recovery_start = s.now;
        s.round(&[3, 7], &[]);
        // Both holes are resent within the round trip that detected them, before any of
        // those resent segments could have been acknowledged.
        let resent: Vec<(Time, u64)> = s.log.iter().filter(|l| l.2).map(|l| (l.0, l.1)).collect();
        assert_eq!(resent.iter().map(|r| r.1).collect::<Vec<_>>(), vec![3, 7], "{recovery:?}");
        assert!(resent.iter().all(|r| r.0 < recovery_start + RTT + RTT), "{resent:?}");
        assert_eq!(s.sender.counters().fast_retransmits, 1, "one loss event for both");
        s.round(&[], &[]);
        assert_eq!(s.sender.phase(), Phase::Open, "{recovery:?}");
        assert_eq!(s.sender.counters().timeouts, 0);
        // Halved once: slow start took the window from 20 to 23 on the ACKs of 0, 1 and 2.
        assert_eq!(s.window.ssthresh, 11.5, "{recovery:?}");
    }
}

#[test]
fn rack_catches_a_lost_retransmission() {
    let config = TcpConfig { rack: true, ..sack(tcp::Recovery::Prr) };
    let mut s = Script::new(config, 20.0, 1000);
    s.send();
    s.round(&[3], &[]);
    assert_eq!(s.retransmissions(), vec![3]);
    // The retransmission of 3 is lost as well; segments sent after it arrive.
    s.round(&[], &[3]);
    assert_eq!(s.retransmissions(), vec![3, 3], "resent again on RACK's word, not the timer's");
    assert_eq!(s.sender.counters().timeouts, 0);
    s.round(&[], &[]);
    assert_eq!((s.sender.phase(), s.sender.counters().timeouts), (Phase::Open, 0));
    assert!(s.sender.snd_una() > 20);
}

#[test]
fn without_rack_a_lost_retransmission_waits_for_the_timeout() {
    let mut s = Script::new(sack(tcp::Recovery::Prr), 20.0, 1000);
    s.send();
    s.round(&[3], &[]);
    s.round(&[], &[3]);
    assert_eq!(s.retransmissions(), vec![3]);
    assert_eq!(s.fire(), TimerOutcome::Timeout);
    assert_eq!(s.retransmissions(), vec![3, 3]);
}

#[test]
fn a_tail_loss_is_repaired_by_a_probe_in_two_round_trips() {
    let config = TcpConfig { handshake: false, ..Profile::Linux.config() };
    let mut s = Script::new(config, 10.0, 10);
    s.send();
    // The last two segments are lost: no duplicate ACK at all.
    s.round(&[8, 9], &[]);
    assert_eq!(s.sender.snd_una(), 8);
    let last_ack = s.now;
    assert_eq!(s.fire(), TimerOutcome::Probe);
    assert_eq!(s.now - last_ack, RTT + RTT, "PTO = 2·SRTT");
    // The probe (9 again) is SACKed; RACK then marks 8 lost and recovery resends it.
    s.round(&[], &[]);
    assert_eq!(s.retransmissions(), vec![9, 8]);
    s.round(&[], &[]);
    assert_eq!((s.sender.snd_una(), s.sender.counters().timeouts, s.sender.counters().probes), (10, 0, 1));
    assert!(s.now < last_ack + RTT.saturating_mul(5), "done {} after the last ACK", s.now - last_ack);
}

#[test]
fn a_single_tail_loss_gets_a_probe_not_a_timeout() {
    let config = TcpConfig { handshake: false, ..Profile::Linux.config() };
    let mut s = Script::new(config, 10.0, 10);
    s.send();
    s.round(&[9], &[]);
    let last_ack = s.now;
    // One segment out: PTO = 1.5·SRTT + 200 ms = 350 ms, but the RTO (SRTT + 200 ms) is sooner;
    // the probe goes out then, instead of a timeout: no backoff, no window collapse.
    assert_eq!(s.fire(), TimerOutcome::Probe);
    assert_eq!(s.now - last_ack, RTT + Time::from_ms(200));
    s.round(&[], &[]);
    assert_eq!((s.sender.snd_una(), s.sender.counters().timeouts, s.sender.counters().probes), (10, 0, 1));
    // The probe repaired a loss (RFC 8985 §7.4.2): the window was reduced once, not to one.
    assert_eq!(s.window.cwnd, s.window.ssthresh);
    assert!(s.window.cwnd > 5.0);
}

#[test]
fn timestamps_give_an_rtt_sample_from_a_retransmission() {
    for timestamps in [false, true] {
        let config = TcpConfig { timestamps, ..TcpConfig::default() };
        let mut s = Script::new(config, 2.0, 2);
        s.send();
        s.round(&[0, 1], &[]);
        assert_eq!(s.fire(), TimerOutcome::Timeout);
        let samples = s.sender.counters().rtt_samples;
        s.round(&[], &[]);
        let taken = s.sender.counters().rtt_samples - samples;
        assert_eq!(taken, timestamps as u64, "timestamps {timestamps}: {taken} samples");
    }
}

/// A coarse timer as htsim's scanner runs it (10 ms scans): a deadline fires at the first scan
/// strictly after it; the timeout is backed off and its next deadline counted from that scan,
/// and the timeout itself comes `(10 ms - lateness) / 200` later.
#[test]
fn a_scanned_timer_fires_after_its_deadline_with_htsims_offset() {
    let config = TcpConfig {
        timer_granularity: Time::from_ms(10),
        initial_rto: Time::from_secs(1),
        min_rto: Time::from_ms(250),
        max_rto: Time::NEVER,
        ..TcpConfig::default()
    };
    let mut s = Script::new(config, 1.0, 1000);
    s.now = Time::from_ms(3);
    s.send();
    s.round(&[0], &[]);
    // Deadline 1.003 s; the scan at 1.01 s finds it 7 ms late: the timeout 15 µs later.
    assert_eq!(s.sender.timer_event(), Time::from_ms(1010), "the first scan strictly after the deadline");
    assert!(matches!(s.fire(), TimerOutcome::Timeout));
    assert_eq!(s.now, Time::from_ms(1010) + Time::from_us(15));
    assert_eq!(s.retransmissions(), vec![0]);
    // Backed off to 2 s from the scan: due at 3.01 s exactly, found by the scan after it,
    // 10 ms late, so the timeout comes with that scan.
    assert_eq!(s.sender.timer_deadline(), Time::from_ms(3010));
    s.round(&[], &[0]);
    assert!(matches!(s.fire(), TimerOutcome::Timeout));
    assert_eq!(s.now, Time::from_ms(3020));
    assert_eq!(s.sender.counters().timeouts, 2);
}

/// Below ssthresh, PRR's slow-start reduction bound sends one segment more than an ACK
/// delivered. RFC 6937 sends it on every ACK; Linux 6 only on an ACK that advances the
/// cumulative ACK and finds no new loss. While the first hole stays open (its retransmission
/// lost again), Linux 6 sends what is delivered and no more.
#[test]
fn prr_sends_its_extra_segment_only_on_progress_when_asked() {
    for on_progress in [false, true] {
        let config = TcpConfig { rack: true, prr_extra_on_progress_only: on_progress, ..sack(tcp::Recovery::Prr) };
        let mut s = Script::new(config, 20.0, 1000);
        s.send();
        // Half the window lost: the pipe falls below ssthresh (10) during the first round trip.
        s.round(&[3, 4, 5, 6, 7, 8, 9, 10, 11, 12], &[]);
        let sent_before = s.log.len();
        let excess0 = s.sender.prr().out as i64 - s.sender.prr().delivered as i64;
        // Every retransmission is lost again: no ACK of this round trip advances snd_una.
        let resent: Vec<u64> = s.retransmissions();
        let una = s.sender.snd_una();
        let delivered = s.wire.iter().filter(|w| !w.2).count();
        assert!(!resent.is_empty());
        s.round(&[], &resent);
        assert_eq!(s.sender.snd_una(), una, "the first hole stays open");
        let sent = s.log.len() - sent_before;
        let excess1 = s.sender.prr().out as i64 - s.sender.prr().delivered as i64;
        // Sent beyond delivered since recovery began (prr_out − prr_delivered): Linux 6 sends
        // at most what is delivered, so catches up to zero and stops there; RFC 6937 adds one
        // per ACK while the pipe is below ssthresh.
        let limit = excess0.max(0);
        let detail = format!("{delivered} delivered, {sent} sent, prr_out − prr_delivered {excess0} → {excess1}");
        if on_progress {
            assert!(excess1 <= limit, "Linux 6: {detail}");
        } else {
            assert!(excess1 > limit, "RFC 6937: {detail}");
        }
    }
}
