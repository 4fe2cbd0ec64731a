//! The receiving side of a subflow: cumulative acknowledgements over out-of-order buffering,
//! SACK blocks (RFC 2018), and delayed ACKs with Linux's quick-ACK mode.

use sim_core::Time;

use crate::seqset::SeqSet;

/// What the receiver wants done after a data segment arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Send this acknowledgement now.
    Send(Ack),
    /// Hold the acknowledgement (delayed ACK) until a deadline ([`Receiver::hold_until`]).
    Delay,
}

/// What a delayed-ACK wake-up ([`Receiver::on_delack_timer`]) finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelackWake {
    /// The held acknowledgement is due: send it.
    Send(Ack),
    /// An acknowledgement is held to a later deadline: wake up again then.
    Later(Time),
    /// Nothing is held, or this wake-up was superseded by an earlier one.
    Nothing,
}

/// Up to three SACK blocks, most recent first, each `(start, end)` as offsets above the
/// cumulative acknowledgement; `(0, 0)` marks no block (the layout of [`sim_core::Packet::sack`]).
pub type SackBlocks = [(u32, u32); 3];

/// The fields of an acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// Next segment expected (cumulative).
    pub next: u64,
    /// Send time of the segment being acknowledged, echoed for RTT measurement (the
    /// timestamp echo of RFC 7323 when the sender uses timestamps).
    pub echo: Time,
    /// Whether that segment was a retransmission (no RTT sample then without timestamps:
    /// Karn's rule).
    pub echo_retransmitted: bool,
    /// The SACK blocks, if the receiver reports them.
    pub sack: SackBlocks,
}

impl Ack {
    /// An acknowledgement without SACK blocks.
    pub fn cumulative(next: u64, echo: Time, echo_retransmitted: bool) -> Ack {
        Ack { next, echo, echo_retransmitted, sack: [(0, 0); 3] }
    }

    /// The SACK blocks as absolute segment ranges `start..end`, most recent first.
    pub fn blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack.iter().take_while(|b| b.1 > b.0).map(|&(s, e)| (self.next + s as u64, self.next + e as u64))
    }
}

/// How a receiver acknowledges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// Acknowledge every second in-order segment (RFC 1122 §4.2.3.2).
    pub delayed_ack: bool,
    /// Segments acknowledged at once at the start (and after out-of-order data with
    /// `quick_acks_after_out_of_order`: Linux's quick-ACK mode), before delayed ACKs resume.
    pub quick_acks: u32,
    /// Out-of-order data re-arms the quick-ACKs (Linux before 4.18).
    pub quick_acks_after_out_of_order: bool,
    /// Report up to three SACK blocks per ACK (RFC 2018), which the sender's scoreboard
    /// needs.
    pub sack: bool,
}

/// A cumulative-ACK receiver with out-of-order buffering, optional SACK and delayed ACKs.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    next: u64,
    out_of_order: SeqSet,
    /// What SACK and delayed ACKs need, absent for a receiver with neither (one ACK per
    /// segment, cumulative): boxed, it leaves that receiver 96 bytes smaller.
    policy: Option<Box<AckPolicy>>,
    /// When the held acknowledgement is due (`Time::NEVER` if none is held).
    delack_at: Time,
    /// Data segments that arrived, duplicates included.
    pub segments_received: u64,
}

/// A receiver's state for SACK and delayed ACKs.
#[derive(Clone, Debug)]
struct AckPolicy {
    config: ReceiverConfig,
    unacked_in_order: u32,
    quick_left: u32,
    held: Option<Ack>,
    /// The time of the one delayed-ACK wake-up in the event list (`Time::NEVER` if none). A
    /// held acknowledgement whose deadline is later waits for it, which then schedules the
    /// next: scheduling one wake-up per held acknowledgement left the timer list holding one
    /// per acknowledgement held in the last timeout (about 16 000 on D2 with `linux`),
    /// deepening every timer's sift.
    wakeup: Time,
    /// Blocks last reported, absolute, most recent first (`(0, 0)`: none).
    blocks: [(u64, u64); 3],
}

impl Receiver {
    /// A receiver expecting segment 0.
    pub fn new(config: ReceiverConfig) -> Receiver {
        let policy = (config.delayed_ack || config.sack).then(|| {
            Box::new(AckPolicy {
                config,
                unacked_in_order: 0,
                quick_left: config.quick_acks,
                held: None,
                wakeup: Time::NEVER,
                blocks: [(0, 0); 3],
            })
        });
        Receiver { policy, delack_at: Time::NEVER, ..Receiver::default() }
    }

    /// Segments delivered in order so far (the cumulative acknowledgement point).
    pub fn delivered(&self) -> u64 {
        self.next
    }

    /// The segments received above the cumulative point, held out of order.
    pub fn held(&self) -> &SeqSet {
        &self.out_of_order
    }

    /// Takes data segment `seq`, sent at `sent` (a retransmission if `retransmitted`).
    #[inline]
    pub fn on_data(&mut self, seq: u64, sent: Time, retransmitted: bool) -> AckAction {
        self.segments_received += 1;
        let in_order = seq == self.next;
        if in_order {
            self.next = self.out_of_order.advance(seq + 1);
        } else if seq > self.next {
            self.out_of_order.insert(seq);
        }
        let ack = Ack::cumulative(self.next, sent, retransmitted);
        // Without a policy, one ACK per segment, cumulative only: the common case of the
        // simpler profiles.
        let Some(policy) = &mut self.policy else { return AckAction::Send(ack) };
        let action = policy.on_data(seq, in_order, ack, &self.out_of_order);
        if let AckAction::Send(_) = action {
            self.delack_at = Time::NEVER;
        }
        action
    }

    /// Holds the acknowledgement [`Receiver::on_data`] delayed until `deadline`; whether a
    /// wake-up must be scheduled at `deadline` (not when an earlier one is pending: that one
    /// finds the deadline and asks for the next, [`DelackWake::Later`]).
    pub fn hold_until(&mut self, deadline: Time) -> bool {
        self.delack_at = deadline;
        let Some(policy) = &mut self.policy else { return false };
        let schedule = deadline < policy.wakeup;
        if schedule {
            policy.wakeup = deadline;
        }
        schedule
    }

    /// A delayed-ACK wake-up at `now`.
    pub fn on_delack_timer(&mut self, now: Time) -> DelackWake {
        let Some(policy) = &mut self.policy else { return DelackWake::Nothing };
        if now != policy.wakeup {
            return DelackWake::Nothing;
        }
        policy.wakeup = Time::NEVER;
        if self.delack_at == Time::NEVER {
            return DelackWake::Nothing;
        }
        if self.delack_at > now {
            policy.wakeup = self.delack_at;
            return DelackWake::Later(self.delack_at);
        }
        self.delack_at = Time::NEVER;
        policy.unacked_in_order = 0;
        policy.held.take().map_or(DelackWake::Nothing, |a| DelackWake::Send(Ack { next: self.next, ..a }))
    }
}

impl AckPolicy {
    /// The ACK for segment `seq`, the cumulative `ack` already made (`ack.next` is the
    /// receiver's next expected segment, `out_of_order` what it holds above it). Inlined into
    /// the event loop, which out of line costs more per packet (docs/performance.md).
    #[inline]
    fn on_data(&mut self, seq: u64, in_order: bool, mut ack: Ack, out_of_order: &SeqSet) -> AckAction {
        let next = ack.next;
        let filled_hole = in_order && next > seq + 1;
        if self.config.sack && (!in_order || filled_hole || self.blocks[0].1 > 0) {
            ack.sack = self.sack_blocks(seq, next, out_of_order);
        }
        // RFC 5681 §4.2: ACK out-of-order and hole-filling segments at once (and Linux before
        // 4.18 then re-enters quick-ACK mode); otherwise every second full segment, holding
        // the first (echoing the older timestamp, RFC 7323 §4.3), unless quick-ACKs remain.
        if (!in_order || filled_hole) && self.config.quick_acks_after_out_of_order {
            self.quick_left = self.quick_left.max(self.config.quick_acks);
        }
        let quick = self.quick_left > 0;
        if !self.config.delayed_ack || !in_order || filled_hole || self.unacked_in_order >= 1 || quick {
            self.quick_left = self.quick_left.saturating_sub(1);
            let echo = self.held.take().filter(|_| in_order).unwrap_or(ack);
            self.unacked_in_order = 0;
            return AckAction::Send(Ack { next, sack: ack.sack, ..echo });
        }
        self.unacked_in_order += 1;
        self.held = Some(ack);
        AckAction::Delay
    }

    /// RFC 2018 §4: the block holding `seq` (if it is held out of order) first, then the
    /// blocks reported before that are still above the cumulative point `next`.
    fn sack_blocks(&mut self, seq: u64, next: u64, out_of_order: &SeqSet) -> SackBlocks {
        let mut fresh = [(0u64, 0u64); 3];
        let mut n = 0;
        if seq > next && out_of_order.contains(seq) {
            // A block reported before is held still (nothing held is forgotten above the
            // cumulative point), so a block that `seq` touches is part of its block: the scan
            // for the block's ends starts from there and mostly stops at once, where a scan from
            // `seq` alone would walk a block of thousands of segments on every arrival.
            let known = self.blocks.iter().find(|&&(s, e)| e > s && s <= seq + 1 && seq <= e);
            let (low, high) = known.map_or((seq, seq + 1), |&(s, e)| (s.min(seq), e.max(seq + 1)));
            let start = out_of_order.run_start(low.max(next + 1), next + 1);
            fresh[0] = (start, out_of_order.run_end(high));
            n = 1;
        }
        for &(s, e) in &self.blocks {
            if n == 3 || e == 0 {
                break;
            }
            let stale = e <= next || (n == 1 && s < fresh[0].1 && e > fresh[0].0);
            if !stale {
                fresh[n] = (s.max(next), e);
                n += 1;
            }
        }
        self.blocks = fresh;
        let mut out = [(0u32, 0u32); 3];
        for (o, &(s, e)) in out.iter_mut().zip(&fresh[..n]) {
            *o = ((s - next) as u32, (e - next) as u32);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(a: AckAction) -> Ack {
        match a {
            AckAction::Send(ack) => ack,
            AckAction::Delay => panic!("expected an immediate ACK"),
        }
    }

    fn config(delayed_ack: bool, quick_acks: u32, sack: bool) -> ReceiverConfig {
        ReceiverConfig { delayed_ack, quick_acks, quick_acks_after_out_of_order: true, sack }
    }

    #[test]
    fn cumulative_acks_with_a_hole() {
        let mut r = Receiver::new(ReceiverConfig::default());
        assert_eq!(send(r.on_data(0, Time(1), false)).next, 1);
        assert_eq!(send(r.on_data(2, Time(2), false)).next, 1); // dupack
        assert_eq!(send(r.on_data(3, Time(3), false)).next, 1); // dupack
        assert_eq!(send(r.on_data(1, Time(4), true)).next, 4); // hole filled
        assert_eq!(send(r.on_data(1, Time(5), true)).next, 4); // duplicate segment
        assert_eq!(r.delivered(), 4);
        assert_eq!(r.segments_received, 5);
    }

    #[test]
    fn delayed_acks_every_second_segment_and_on_timer() {
        let mut r = Receiver::new(config(true, 0, false));
        assert_eq!(r.on_data(0, Time(10), false), AckAction::Delay);
        assert!(r.hold_until(Time(50)), "the first held ACK schedules a wake-up");
        let ack = send(r.on_data(1, Time(20), false));
        assert_eq!((ack.next, ack.echo), (2, Time(10)), "echoes the older segment");
        assert_eq!(r.on_data(2, Time(30), false), AckAction::Delay);
        assert!(!r.hold_until(Time(70)), "the wake-up at 50 is pending");
        assert_eq!(r.on_delack_timer(Time(40)), DelackWake::Nothing, "not the pending wake-up");
        assert_eq!(r.on_delack_timer(Time(50)), DelackWake::Later(Time(70)), "held to 70");
        match r.on_delack_timer(Time(70)) {
            DelackWake::Send(a) => assert_eq!((a.next, a.echo), (3, Time(30))),
            other => panic!("expected the held ACK, got {other:?}"),
        }
        assert_eq!(r.on_delack_timer(Time(70)), DelackWake::Nothing, "already sent");
        // A held ACK sent before its wake-up: the wake-up finds nothing.
        assert_eq!(r.on_data(3, Time(80), false), AckAction::Delay);
        assert!(r.hold_until(Time(120)));
        assert_eq!(send(r.on_data(4, Time(90), false)).next, 5);
        assert_eq!(r.on_delack_timer(Time(120)), DelackWake::Nothing);
        // out of order: immediate
        assert_eq!(send(r.on_data(7, Time(130), false)).next, 5);
    }

    #[test]
    fn quick_acks_at_the_start_and_after_a_hole() {
        let mut r = Receiver::new(config(true, 2, false));
        assert_eq!(send(r.on_data(0, Time(1), false)).next, 1);
        assert_eq!(send(r.on_data(1, Time(2), false)).next, 2);
        assert_eq!(r.on_data(2, Time(3), false), AckAction::Delay, "quick-ACKs used up");
        assert_eq!(send(r.on_data(3, Time(4), false)).next, 4);
        assert_eq!(send(r.on_data(5, Time(5), false)).next, 4, "out of order: at once");
        assert_eq!(send(r.on_data(4, Time(6), false)).next, 6, "hole filled: at once");
        assert_eq!(send(r.on_data(6, Time(7), false)).next, 7, "quick-ACK mode again");
        // Since Linux 4.18: out-of-order and hole-filling segments at once, then delayed
        // ACKs again.
        let mut r = Receiver::new(ReceiverConfig { quick_acks_after_out_of_order: false, ..config(true, 2, false) });
        for seq in 0..3 {
            let _ = r.on_data(seq, Time(seq + 1), false);
        }
        assert_eq!(send(r.on_data(4, Time(5), false)).next, 3, "out of order: at once");
        assert_eq!(send(r.on_data(3, Time(6), false)).next, 5, "hole filled: at once");
        assert_eq!(r.on_data(5, Time(7), false), AckAction::Delay, "delayed again");
        assert_eq!(send(r.on_data(6, Time(8), false)).next, 7, "every second segment");
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        let mut r = Receiver::new(config(false, 0, true));
        assert_eq!(send(r.on_data(0, Time(1), false)).sack, [(0, 0); 3]);
        // segments 1 and 4 lost: 2, 3, 5, 6 arrive; then 8 (7 lost too)
        send(r.on_data(2, Time(2), false));
        let a = send(r.on_data(3, Time(3), false));
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![(2, 4)]);
        send(r.on_data(5, Time(4), false));
        let a = send(r.on_data(6, Time(5), false));
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![(5, 7), (2, 4)]);
        let a = send(r.on_data(8, Time(6), false));
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![(8, 9), (5, 7), (2, 4)]);
        assert_eq!(a.sack[0], (7, 8), "offsets above the cumulative point 1");
        // the retransmission of 1 fills the first hole: cumulative 4, the others remain
        let a = send(r.on_data(1, Time(7), true));
        assert_eq!(a.next, 4);
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![(8, 9), (5, 7)]);
        // 7 arrives and joins 5..7 with 8..9
        let a = send(r.on_data(7, Time(8), true));
        assert_eq!(a.blocks().collect::<Vec<_>>(), vec![(5, 9)]);
        let a = send(r.on_data(4, Time(9), true));
        assert_eq!((a.next, a.blocks().count()), (9, 0));
    }
}
