//! The SACK scoreboard of one subflow's sender (RFC 6675) and RACK's time-based loss marking
//! (RFC 8985 §6), over the segments `snd_una..snd_max`.
//!
//! Counts are kept as Linux keeps them, so that `pipe` is one subtraction:
//! `pipe = outstanding − sacked − lost + retransmitted` (Linux's `tcp_packets_in_flight`,
//! RFC 6675's pipe for full-sized segments).

use std::collections::VecDeque;

use sim_core::Time;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// Retransmitted and not yet known to have arrived or to be lost again.
const RETRANS: u8 = 4;
/// Retransmitted at least once: unlike RETRANS it survives SACKing and a new loss mark (RACK
/// distrusts such a segment's RTT, and finds it in `resent`, not in sequence order).
const EVER_RETRANS: u8 = 8;

/// RFC 6675's DupThresh: a segment is lost once this many segments above it are SACKed.
pub const DUP_THRESH: u64 = 3;

#[derive(Clone, Copy, Debug)]
struct Segment {
    /// Time of the latest transmission.
    sent: Time,
    flags: u8,
}

/// What an acknowledgement told the scoreboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Segments newly delivered, cumulatively or selectively (PRR's `DeliveredData`).
    pub segments: u64,
    /// Of `segments`, those delivered selectively (newly SACKed above the cumulative ACK).
    pub sacked: u64,
}

/// Per-segment state of the outstanding window, with RACK's state.
///
/// Every acknowledgement costs what it changes, not the window's size: the parts of its SACK
/// blocks that the previous blocks covered are skipped, the DupThresh boundary is kept as
/// the three highest SACKed segments, and RACK scans segments in the order they were last
/// sent (Linux's time-sorted list), stopping at the first one not yet due. Without that, a
/// window of thousands of segments in recovery cost thousands of steps per acknowledgement.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segments: VecDeque<Segment>,
    /// Sequence of `segments[0]` (`snd_una`).
    base: u64,
    sacked: u64,
    lost: u64,
    retransmitted: u64,
    /// Lost, not SACKed and not retransmitted since: what NextSeg's rule 1 sends.
    to_resend: u64,
    /// Times a segment was marked lost, lost retransmissions again (Linux's `tp->lost`).
    marked_lost: u64,
    /// Where the search for the next segment to resend starts; every segment below it is not
    /// one (a hint only).
    resend_hint: u64,
    /// Segments below this were examined by the DupThresh rule.
    dupthresh_upto: u64,
    /// The highest SACKed segments, highest first (the first `min(sacked, DUP_THRESH)` are
    /// valid): SACKs are never taken back and leave only from below, so these stay the highest
    /// ones, and a cumulative ACK past some of them leaves the others first.
    highest_sacked: [u64; DUP_THRESH as usize],
    /// The blocks of the latest acknowledgement that carried any (clipped to the segments
    /// outstanding then): every segment in them is SACKed already.
    previous_blocks: [(u64, u64); 3],
    /// RACK: send time and sequence of the most recently sent segment known delivered.
    rack_sent: Time,
    rack_seq: u64,
    /// RACK: RTT of that segment.
    rack_rtt: Time,
    /// Whether RACK's state was advanced by the latest acknowledgement.
    rack_advanced: bool,
    /// RACK's scan in sequence order starts here: every segment below is SACKed, marked lost
    /// (and not resent since) or ever resent. The segments never resent were sent in sequence
    /// order, so that scan stops at the first one sent after RACK's reference or not yet due.
    rack_from: u64,
    /// Retransmissions `(segment, time sent)` in the order they were sent (by segment within
    /// one instant), for RACK's scan of resent segments. An entry is stale once its segment
    /// is delivered, marked lost again or resent later (a newer entry then follows).
    resent: VecDeque<(u64, Time)>,
}

impl Scoreboard {
    /// Segments SACKed above the cumulative point.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }

    /// Segments marked lost and not yet resent.
    pub fn to_resend(&self) -> u64 {
        self.to_resend
    }

    /// Times a segment has been marked lost, each lost retransmission again: how many losses
    /// an acknowledgement found is the growth of this across it (Linux's `rs->losses`).
    pub fn losses_marked(&self) -> u64 {
        self.marked_lost
    }

    /// RFC 6675's pipe, given the segments outstanding.
    #[inline]
    pub fn pipe(&self) -> u64 {
        (self.segments.len() as u64 + self.retransmitted).saturating_sub(self.sacked + self.lost)
    }

    fn at(&mut self, seq: u64) -> &mut Segment {
        &mut self.segments[(seq - self.base) as usize]
    }

    /// Records the transmission of `seq` at `now`: a new segment if it is one past the
    /// outstanding ones, otherwise a retransmission.
    #[inline]
    pub fn sent(&mut self, seq: u64, now: Time) {
        let end = self.base + self.segments.len() as u64;
        if seq == end {
            self.segments.push_back(Segment { sent: now, flags: 0 });
            return;
        }
        self.resent_at(seq, now);
    }

    /// Out of line, so that a new segment's record stays small enough to be inlined into the
    /// send path of every profile (inlined, this branch cost `newreno` instructions per packet,
    /// though it never runs there: docs/performance.md).
    #[inline(never)]
    fn resent_at(&mut self, seq: u64, now: Time) {
        let s = self.at(seq);
        let flags = s.flags;
        s.sent = now;
        s.flags |= RETRANS | EVER_RETRANS;
        // In (time, sequence) order, so that RACK's scan stops at the first entry sent after
        // its reference even among the many a single instant can resend.
        let later = self.resent.iter().rev().take_while(|&&(q, t)| t == now && q > seq).count();
        self.resent.insert(self.resent.len() - later, (seq, now));
        if flags & RETRANS == 0 {
            self.retransmitted += 1;
        }
        if flags & (LOST | RETRANS) == LOST {
            self.to_resend -= 1;
        }
    }

    /// The cumulative acknowledgement moved to `una`. Updates RACK from the segments it
    /// delivered (acknowledged at `now`; `min_rtt` filters ambiguous retransmissions).
    /// Inlined, as is [`Scoreboard::rack_detect`]: both run on every ACK of a SACK profile
    /// (docs/performance.md, "Lessons").
    #[inline]
    pub fn acked_to(&mut self, una: u64, now: Time, min_rtt: Time) -> Delivered {
        let mut d = Delivered::default();
        self.rack_advanced = false;
        while self.base < una {
            let s = self.segments.pop_front().expect("una within the outstanding segments");
            if s.flags & SACKED != 0 {
                self.sacked -= 1;
            } else {
                d.segments += 1;
                self.rack_update(self.base, s, now, min_rtt);
            }
            self.forget(s.flags);
            self.base += 1;
        }
        self.resend_hint = self.resend_hint.max(una);
        self.dupthresh_upto = self.dupthresh_upto.max(una);
        self.drop_stale_resent();
        d
    }

    fn forget(&mut self, flags: u8) {
        if flags & LOST != 0 {
            self.lost -= 1;
            if flags & RETRANS == 0 {
                self.to_resend -= 1;
            }
        }
        if flags & RETRANS != 0 {
            self.retransmitted -= 1;
        }
    }

    /// Marks the segments of an acknowledgement's SACK blocks (absolute `start..end` ranges) as
    /// delivered, skipping what the previous blocks covered (SACKs are never taken back, so
    /// those stay SACKed whether or not an acknowledgement without blocks came between).
    pub fn sack(&mut self, blocks: impl Iterator<Item = (u64, u64)>, now: Time, min_rtt: Time, d: &mut Delivered) {
        let previous = std::mem::take(&mut self.previous_blocks);
        let outstanding_end = self.base + self.segments.len() as u64;
        for (i, (start, end)) in blocks.take(3).enumerate() {
            let (mut seq, end) = (start.max(self.base), end.min(outstanding_end));
            self.previous_blocks[i] = (seq, end);
            while seq < end {
                if let Some(&(_, done_end)) = previous.iter().find(|&&(s, e)| s <= seq && seq < e) {
                    seq = done_end;
                    continue;
                }
                let run_end = previous.iter().filter(|&&(s, _)| s > seq).fold(end, |a, &(s, _)| a.min(s));
                self.sack_range(seq, run_end, now, min_rtt, d);
                seq = run_end;
            }
        }
    }

    fn sack_range(&mut self, start: u64, end: u64, now: Time, min_rtt: Time, d: &mut Delivered) {
        for seq in start..end {
            let s = self.segments[(seq - self.base) as usize];
            if s.flags & SACKED != 0 {
                continue;
            }
            self.forget(s.flags);
            self.at(seq).flags = SACKED | (s.flags & EVER_RETRANS);
            self.note_highest_sacked(seq);
            self.sacked += 1;
            d.segments += 1;
            d.sacked += 1;
            self.rack_update(seq, s, now, min_rtt);
        }
    }

    /// Keeps `highest_sacked` up to date with `seq`, newly SACKed (before `sacked` counts it).
    fn note_highest_sacked(&mut self, seq: u64) {
        let n = self.highest_sacked.len();
        let len = (self.sacked as usize).min(n);
        if len == n && seq < self.highest_sacked[n - 1] {
            return;
        }
        let at = self.highest_sacked[..len].iter().position(|&h| seq > h).unwrap_or(len);
        let new_len = (len + 1).min(n);
        self.highest_sacked.copy_within(at..new_len - 1, at + 1);
        self.highest_sacked[at] = seq;
    }

    fn rack_update(&mut self, seq: u64, s: Segment, now: Time, min_rtt: Time) {
        let rtt = now - s.sent;
        // RFC 8985 §6.2 step 2: an RTT shorter than the minimum from a retransmitted segment
        // is the ACK of its original transmission, not of the retransmission.
        if s.flags & EVER_RETRANS != 0 && rtt < min_rtt {
            return;
        }
        if (s.sent, seq) > (self.rack_sent, self.rack_seq) {
            self.rack_sent = s.sent;
            self.rack_seq = seq;
            self.rack_rtt = rtt;
            self.rack_advanced = true;
        }
    }

    fn mark_lost(&mut self, seq: u64) {
        let s = self.at(seq);
        let flags = s.flags;
        if flags & SACKED != 0 || flags & (LOST | RETRANS) == LOST {
            return;
        }
        s.flags = (flags | LOST) & !RETRANS;
        if flags & LOST == 0 {
            self.lost += 1;
        }
        if flags & RETRANS != 0 {
            self.retransmitted -= 1;
        }
        self.to_resend += 1;
        self.marked_lost += 1;
        self.resend_hint = self.resend_hint.min(seq);
    }

    /// ns-2.35's Sack1 in recovery (`ScoreBoardRQ::GetNextRetran`, scoreboard-rq.cc): every
    /// segment below the highest SACKed one and not SACKed is resent, each once; marks them
    /// lost, from where the marking last stopped.
    pub fn mark_holes_below_highest_sacked(&mut self) {
        if self.sacked == 0 {
            return;
        }
        let boundary = self.highest_sacked[0];
        for seq in self.dupthresh_upto.max(self.base)..boundary {
            self.mark_lost(seq);
        }
        self.dupthresh_upto = self.dupthresh_upto.max(boundary);
    }

    /// RFC 6675's IsLost: marks lost every segment with `DUP_THRESH` SACKed segments above
    /// it, not examined before. A segment already resent (by RACK, before DUP_THRESH SACKs
    /// came) stays in flight: only RACK or a timeout finds a retransmission lost (Linux's
    /// `tcp_mark_head_lost` skips what is marked lost, resent or not). Inlined: called on
    /// every ACK of a SACK profile, and mostly returns at once (docs/performance.md).
    #[inline]
    pub fn mark_dupthresh_losses(&mut self) {
        if self.sacked < DUP_THRESH {
            return;
        }
        // The DUP_THRESH-th highest SACKed segment: everything below it is lost.
        let boundary = self.highest_sacked[DUP_THRESH as usize - 1];
        for seq in self.dupthresh_upto.max(self.base)..boundary {
            if self.segments[(seq - self.base) as usize].flags & RETRANS == 0 {
                self.mark_lost(seq);
            }
        }
        self.dupthresh_upto = self.dupthresh_upto.max(boundary);
    }

    /// RFC 8985 §6.2 step 5: marks lost every outstanding segment sent before the most recently
    /// delivered one and more than its RTT plus `reo_wnd` ago. Returns when the next segment
    /// would be lost if nothing is delivered meanwhile (`Time::NEVER` if none), for the reorder
    /// timer. Scans only after RACK learned of a new delivery, or when `force`d (the timer).
    #[inline]
    pub fn rack_detect(&mut self, now: Time, reo_wnd: Time, force: bool) -> Time {
        if !(self.rack_advanced || force) || self.rack_sent == Time::ZERO {
            return Time::NEVER;
        }
        self.rack_advanced = false;
        let mut next_timeout = self.rack_scan_in_order(now, reo_wnd);
        // The resent segments, in the order of their latest transmission (by sequence within
        // one instant). Stale entries the scan passes are removed as it goes, so no
        // acknowledgement walks them again: a resent segment still awaited at the front would
        // otherwise make every later acknowledgement step over all the stale ones behind it.
        self.drop_stale_resent();
        let mut i = 0;
        while let Some(&(seq, sent)) = self.resent.get(i) {
            if self.is_stale(seq, sent) {
                i += 1;
                continue;
            }
            if (sent, seq) >= (self.rack_sent, self.rack_seq) {
                break; // every entry from here on was sent later still (or after it, that instant)
            }
            let deadline = sent + self.rack_rtt + reo_wnd;
            if deadline > now {
                next_timeout = next_timeout.min(deadline);
                break; // the entries after it are due later still
            }
            self.mark_lost(seq);
            i += 1; // now stale: lost again, to be resent
        }
        self.resent.drain(..i);
        next_timeout
    }

    /// RACK's scan of the segments never resent, in sequence order, from `rack_from`. Returns
    /// when the first one not yet due will be. Inlined into [`Scoreboard::rack_detect`]: it
    /// mostly stops at its first segment (docs/performance.md).
    #[inline]
    fn rack_scan_in_order(&mut self, now: Time, reo_wnd: Time) -> Time {
        for i in (self.rack_from.max(self.base) - self.base) as usize..self.segments.len() {
            let s = self.segments[i];
            let seq = self.base + i as u64;
            if s.flags & (SACKED | EVER_RETRANS) != 0 || s.flags & (LOST | RETRANS) == LOST {
                self.rack_from = seq + 1;
                continue;
            }
            if (s.sent, seq) >= (self.rack_sent, self.rack_seq) {
                break; // every segment from here on was sent later still
            }
            let deadline = s.sent + self.rack_rtt + reo_wnd;
            if deadline > now {
                return deadline; // the segments after it are due later still
            }
            self.mark_lost(seq);
            self.rack_from = seq + 1;
        }
        Time::NEVER
    }

    /// Whether the retransmission of `seq` at `sent` no longer needs RACK's watch.
    fn is_stale(&self, seq: u64, sent: Time) -> bool {
        let Some(s) = seq.checked_sub(self.base).and_then(|i| self.segments.get(i as usize)) else { return true };
        s.sent != sent || s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST
    }

    fn drop_stale_resent(&mut self) {
        while let Some(&(seq, sent)) = self.resent.front() {
            if !self.is_stale(seq, sent) {
                break;
            }
            self.resent.pop_front();
        }
    }

    /// Forgets every SACK (ns-2's Sack1 clears its scoreboard on a timeout, tcp-sack1.cc
    /// `timeout`): the segments count as outstanding again, to be resent in order.
    pub fn forget_sacks(&mut self) {
        for s in self.segments.iter_mut() {
            s.flags &= !SACKED;
        }
        self.sacked = 0;
        self.previous_blocks = [(0, 0); 3];
        self.dupthresh_upto = self.base;
    }

    /// After a retransmission timeout: every segment not SACKed is lost (Linux's
    /// `tcp_enter_loss`; RFC 6675 §5.1 keeps the SACK information).
    pub fn mark_all_lost(&mut self) {
        for seq in self.base..self.base + self.segments.len() as u64 {
            self.mark_lost(seq);
        }
    }

    /// NextSeg rule 1: the lowest segment marked lost and not yet resent.
    pub fn next_to_resend(&mut self) -> Option<u64> {
        if self.to_resend == 0 {
            return None;
        }
        let from = (self.resend_hint.max(self.base) - self.base) as usize;
        let i = (from..self.segments.len()).find(|&i| self.segments[i].flags & (LOST | RETRANS | SACKED) == LOST);
        debug_assert!(i.is_some(), "to_resend counts a segment");
        let seq = self.base + i? as u64;
        self.resend_hint = seq;
        Some(seq)
    }

    /// Whether `seq` was ever retransmitted.
    pub fn ever_retransmitted(&self, seq: u64) -> bool {
        seq >= self.base && self.segments.get((seq - self.base) as usize).is_some_and(|s| s.flags & EVER_RETRANS != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for seq in 0..n {
            b.sent(seq, Time(seq + 1));
        }
        b
    }

    #[test]
    fn pipe_and_dupthresh_losses() {
        let mut b = board(10);
        assert_eq!(b.pipe(), 10);
        let mut d = Delivered::default();
        // segments 0 and 2 lost: 1 and 3..6 SACKed
        b.sack([(1, 2)].into_iter(), Time(100), Time(1), &mut d);
        b.sack([(3, 7)].into_iter(), Time(100), Time(1), &mut d);
        assert_eq!(d, Delivered { segments: 5, sacked: 5 });
        b.mark_dupthresh_losses();
        assert_eq!((b.sacked(), b.to_resend(), b.pipe()), (5, 2, 3), "0 and 2 lost; 7..9 in flight");
        assert_eq!(b.next_to_resend(), Some(0));
        b.sent(0, Time(101));
        assert_eq!((b.pipe(), b.next_to_resend()), (4, Some(2)));
        b.sent(2, Time(102));
        assert_eq!((b.pipe(), b.next_to_resend()), (5, None));
        // the retransmission of 0 arrives: cumulative ACK to 2
        let d = b.acked_to(2, Time(200), Time(1));
        assert_eq!(d.segments, 1, "1 was SACKed already");
        assert_eq!(b.pipe(), 4);
    }

    /// The trace that found it (one flow, 2 Mb/s, 3 % loss): RACK resent segment 0 after
    /// the first SACK; the third SACK must not resend it again while that copy is in flight.
    #[test]
    fn a_segment_rack_resent_is_not_lost_again_by_dupthresh() {
        let mut b = board(6);
        let mut d = Delivered::default();
        b.sack([(2, 3)].into_iter(), Time(50), Time(1), &mut d);
        assert_eq!(b.rack_detect(Time(50), Time::ZERO, false), Time::NEVER);
        assert_eq!(b.next_to_resend(), Some(0));
        b.sent(0, Time(51));
        assert_eq!(b.next_to_resend(), Some(1));
        b.sent(1, Time(52));
        b.sack([(2, 5)].into_iter(), Time(60), Time(1), &mut d);
        b.mark_dupthresh_losses();
        assert_eq!((b.to_resend(), b.next_to_resend()), (0, None), "0 and 1 are in flight, resent once");
        assert_eq!(b.pipe(), 3, "the two retransmissions and segment 5");
    }

    #[test]
    fn rack_marks_a_lost_retransmission() {
        let mut b = board(4);
        let mut d = Delivered::default();
        b.sack([(1, 4)].into_iter(), Time(50), Time(1), &mut d);
        b.mark_dupthresh_losses();
        b.sent(0, Time(60));
        assert_eq!(b.to_resend(), 0);
        // a segment sent after the retransmission of 0 is delivered; RTT 40
        b.sent(4, Time(61));
        b.sack([(4, 5)].into_iter(), Time(101), Time(1), &mut d);
        // 0 (resent at 60) is within 40 + reo_wnd 0 of now = 101? 60 + 40 = 100 <= 101: lost
        assert_eq!(b.rack_detect(Time(101), Time::ZERO, false), Time::NEVER);
        assert_eq!((b.to_resend(), b.next_to_resend()), (1, Some(0)));
        assert!(b.ever_retransmitted(0) && !b.ever_retransmitted(1));
    }

    #[test]
    fn rack_waits_for_the_reordering_window() {
        let mut b = board(3);
        let mut d = Delivered::default();
        b.sack([(2, 3)].into_iter(), Time(40), Time(1), &mut d);
        // 0 and 1 sent at 1 and 2, RACK RTT 37: lost at 38 and 39 plus reo_wnd 10
        assert_eq!(b.rack_detect(Time(40), Time(10), false), Time(48));
        assert_eq!(b.rack_detect(Time(48), Time(10), true), Time(49));
        assert_eq!(b.to_resend(), 1);
    }

    /// The definitions the scoreboard implements incrementally, computed from scratch.
    mod reference {
        use super::*;

        /// RFC 8985 §6.2 step 5 over every outstanding segment: the ones RACK marks lost now,
        /// and when the next would be.
        pub fn rack(b: &Scoreboard, now: Time, reo_wnd: Time) -> (Vec<u64>, Time) {
            let mut lost = Vec::new();
            let mut next = Time::NEVER;
            for (i, s) in b.segments.iter().enumerate() {
                let seq = b.base + i as u64;
                if s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST || (s.sent, seq) >= (b.rack_sent, b.rack_seq) {
                    continue;
                }
                let deadline = s.sent + b.rack_rtt + reo_wnd;
                if deadline <= now {
                    lost.push(seq);
                } else {
                    next = next.min(deadline);
                }
            }
            (lost, next)
        }

        /// RFC 6675's IsLost boundary: the DUP_THRESH-th highest SACKed segment.
        pub fn dupthresh_boundary(b: &Scoreboard) -> Option<u64> {
            let mut sacked = (0..b.segments.len()).rev().filter(|&i| b.segments[i].flags & SACKED != 0);
            sacked.nth(DUP_THRESH as usize - 1).map(|i| b.base + i as u64)
        }

        pub fn state(b: &Scoreboard) -> (Vec<u8>, u64, u64, u64, u64, u64) {
            let flags = b.segments.iter().map(|s| s.flags).collect();
            (flags, b.sacked, b.lost, b.retransmitted, b.to_resend, b.pipe())
        }
    }

    /// Random sends, resends, SACKs, cumulative ACKs and timeouts: after every step the
    /// incremental scoreboard agrees with the definitions computed from scratch.
    #[test]
    fn incremental_bookkeeping_matches_the_definitions() {
        use rand::RngExt;
        let mut rng = sim_core::rng::stream(7, "scoreboard");
        let (mut rack_losses, mut dupthresh_losses, mut skipped_blocks) = (0, 0, 0);
        for _run in 0..200 {
            let mut b = Scoreboard::default();
            let mut now = Time(1);
            let mut end = 0u64;
            for _step in 0..300 {
                now += Time(rng.random_range(0..4));
                match rng.random_range(0..10) {
                    0..=2 => {
                        for _ in 0..rng.random_range(1..6) {
                            b.sent(end, now);
                            end += 1;
                        }
                    }
                    3 => {
                        if let Some(seq) = b.next_to_resend() {
                            b.sent(seq, now);
                        }
                    }
                    4..=6 => {
                        let una = rng.random_range(b.base..=b.base + (end - b.base).min(2));
                        let blocks: Vec<(u64, u64)> = (0..rng.random_range(0..4))
                            .map(|_| {
                                let start = rng.random_range(b.base.saturating_sub(2)..end + 2);
                                (start, start + rng.random_range(0..8))
                            })
                            .collect();
                        let min_rtt = Time(rng.random_range(0..6));
                        let mut expected = b.clone();
                        expected.previous_blocks = Default::default();
                        let mut want = expected.acked_to(una, now, min_rtt);
                        for &(start, end) in &blocks {
                            expected.sack(std::iter::once((start, end)), now, min_rtt, &mut want);
                            expected.previous_blocks = Default::default();
                        }
                        let mut got = b.acked_to(una, now, min_rtt);
                        b.sack(blocks.iter().copied(), now, min_rtt, &mut got);
                        assert_eq!(got, want);
                        skipped_blocks += usize::from(b.previous_blocks.iter().any(|&(s, e)| e > s));
                        assert_eq!((b.rack_sent, b.rack_seq, b.rack_rtt), (expected.rack_sent, expected.rack_seq, expected.rack_rtt));
                        let boundary = reference::dupthresh_boundary(&b);
                        if let Some(boundary) = boundary {
                            for seq in b.dupthresh_upto.max(b.base)..boundary {
                                if expected.segments[(seq - b.base) as usize].flags & RETRANS == 0 {
                                    expected.mark_lost(seq);
                                    dupthresh_losses += 1;
                                }
                            }
                        }
                        b.mark_dupthresh_losses();
                        assert_eq!(reference::state(&b), reference::state(&expected));
                    }
                    7 | 8 => {
                        if b.rack_sent != Time::ZERO {
                            let reo_wnd = Time(rng.random_range(0..3));
                            let (lost, next) = reference::rack(&b, now, reo_wnd);
                            let mut expected = b.clone();
                            for &seq in &lost {
                                expected.mark_lost(seq);
                            }
                            rack_losses += lost.len();
                            assert_eq!(b.rack_detect(now, reo_wnd, true), next);
                            assert_eq!(reference::state(&b), reference::state(&expected));
                        }
                    }
                    _ => {
                        if rng.random_bool(0.2) {
                            b.mark_all_lost();
                        }
                    }
                }
            }
        }
        assert!(
            rack_losses > 1000 && dupthresh_losses > 1000 && skipped_blocks > 1000,
            "{rack_losses} {dupthresh_losses} {skipped_blocks}"
        );
    }
}
