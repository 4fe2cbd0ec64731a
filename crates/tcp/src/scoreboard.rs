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
/// Retransmitted at least once: unlike RETRANS it survives SACKing and a new loss mark, so
/// `resent_outstanding` (which RACK's early stop relies on) stays exact.
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
    /// Where the search for the next segment to resend starts; every segment below it is not
    /// one (a hint only).
    resend_hint: u64,
    /// Segments below this were examined by the DupThresh rule.
    dupthresh_upto: u64,
    /// RACK: send time and sequence of the most recently sent segment known delivered.
    rack_sent: Time,
    rack_seq: u64,
    /// RACK: RTT of that segment.
    rack_rtt: Time,
    /// Whether RACK's state was advanced by the latest acknowledgement.
    rack_advanced: bool,
    /// RACK's scan starts here: every segment below is SACKed or marked lost (and not
    /// resent since). Only meaningful while no outstanding segment was ever resent.
    rack_from: u64,
    /// Outstanding segments ever retransmitted: while there are none, send times rise with
    /// sequence numbers, and RACK's scan stops at the first segment sent after its reference.
    resent_outstanding: u64,
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
        let s = self.at(seq);
        let flags = s.flags;
        s.sent = now;
        s.flags |= RETRANS | EVER_RETRANS;
        if flags & EVER_RETRANS == 0 {
            self.resent_outstanding += 1;
        }
        if flags & RETRANS == 0 {
            self.retransmitted += 1;
        }
        if flags & (LOST | RETRANS) == LOST {
            self.to_resend -= 1;
        }
    }

    /// The cumulative acknowledgement moved to `una`. Updates RACK from the segments it
    /// delivered (acknowledged at `now`; `min_rtt` filters ambiguous retransmissions).
    pub fn acked_to(&mut self, una: u64, now: Time, min_rtt: Time) -> Delivered {
        let mut d = Delivered::default();
        self.rack_advanced = false;
        while self.base < una {
            let s = self.segments.pop_front().expect("una within the outstanding segments");
            if s.flags & EVER_RETRANS != 0 {
                self.resent_outstanding -= 1;
            }
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

    /// Marks the segments of SACK block `start..end` (absolute) as delivered.
    pub fn sack(&mut self, start: u64, end: u64, now: Time, min_rtt: Time, d: &mut Delivered) {
        let end = end.min(self.base + self.segments.len() as u64);
        for seq in start.max(self.base)..end {
            let s = self.segments[(seq - self.base) as usize];
            if s.flags & SACKED != 0 {
                continue;
            }
            self.forget(s.flags);
            self.at(seq).flags = SACKED | (s.flags & EVER_RETRANS);
            self.sacked += 1;
            d.segments += 1;
            d.sacked += 1;
            self.rack_update(seq, s, now, min_rtt);
        }
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
        self.resend_hint = self.resend_hint.min(seq);
    }

    /// RFC 6675's IsLost: marks lost every segment with `DUP_THRESH` SACKed segments above
    /// it, not examined before.
    pub fn mark_dupthresh_losses(&mut self) {
        if self.sacked < DUP_THRESH {
            return;
        }
        // The DUP_THRESH-th highest SACKed segment: everything below it is lost.
        let mut seen = 0;
        let mut boundary = self.base;
        for (i, s) in self.segments.iter().enumerate().rev() {
            if s.flags & SACKED != 0 {
                seen += 1;
                if seen == DUP_THRESH {
                    boundary = self.base + i as u64;
                    break;
                }
            }
        }
        for seq in self.dupthresh_upto.max(self.base)..boundary {
            self.mark_lost(seq);
        }
        self.dupthresh_upto = self.dupthresh_upto.max(boundary);
    }

    /// RFC 8985 §6.2 step 5: marks lost every outstanding segment sent before the most recently
    /// delivered one and more than its RTT plus `reo_wnd` ago. Returns when the next segment
    /// would be lost if nothing is delivered meanwhile (`Time::NEVER` if none), for the reorder
    /// timer. Scans only after RACK learned of a new delivery, or when `force`d (the timer).
    pub fn rack_detect(&mut self, now: Time, reo_wnd: Time, force: bool) -> Time {
        if !(self.rack_advanced || force) || self.rack_sent == Time::ZERO {
            return Time::NEVER;
        }
        self.rack_advanced = false;
        // While no outstanding segment was ever resent, send times rise with sequence numbers:
        // the scan stops at the first segment sent after the reference or not yet due, and
        // starts past those already SACKed or marked (`rack_from`), so a loss costs its own
        // segments and not the window's.
        let monotone = self.resent_outstanding == 0;
        let from = if monotone { self.rack_from.max(self.base) } else { self.base };
        let mut next_timeout = Time::NEVER;
        let mut settled = monotone;
        for i in (from - self.base) as usize..self.segments.len() {
            let s = self.segments[i];
            let seq = self.base + i as u64;
            if s.flags & SACKED != 0 || s.flags & (LOST | RETRANS) == LOST {
                if settled {
                    self.rack_from = seq + 1;
                }
                continue;
            }
            settled = false;
            if (s.sent, seq) >= (self.rack_sent, self.rack_seq) {
                if monotone {
                    break; // every segment from here on was sent later still
                }
                continue;
            }
            let deadline = s.sent + self.rack_rtt + reo_wnd;
            if deadline <= now {
                self.mark_lost(seq);
                if monotone && i as u64 + self.base == self.rack_from {
                    self.rack_from = seq + 1;
                    settled = true;
                }
            } else {
                next_timeout = next_timeout.min(deadline);
                if monotone {
                    break; // the segments after it are due later still
                }
            }
        }
        next_timeout
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
        b.sack(1, 2, Time(100), Time(1), &mut d);
        b.sack(3, 7, Time(100), Time(1), &mut d);
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

    #[test]
    fn rack_marks_a_lost_retransmission() {
        let mut b = board(4);
        let mut d = Delivered::default();
        b.sack(1, 4, Time(50), Time(1), &mut d);
        b.mark_dupthresh_losses();
        b.sent(0, Time(60));
        assert_eq!(b.to_resend(), 0);
        // a segment sent after the retransmission of 0 is delivered; RTT 40
        b.sent(4, Time(61));
        b.sack(4, 5, Time(101), Time(1), &mut d);
        // 0 (resent at 60) is within 40 + reo_wnd 0 of now = 101? 60 + 40 = 100 <= 101: lost
        assert_eq!(b.rack_detect(Time(101), Time::ZERO, false), Time::NEVER);
        assert_eq!((b.to_resend(), b.next_to_resend()), (1, Some(0)));
        assert!(b.ever_retransmitted(0) && !b.ever_retransmitted(1));
    }

    #[test]
    fn rack_waits_for_the_reordering_window() {
        let mut b = board(3);
        let mut d = Delivered::default();
        b.sack(2, 3, Time(40), Time(1), &mut d);
        // 0 and 1 sent at 1 and 2, RACK RTT 37: lost at 38 and 39 plus reo_wnd 10
        assert_eq!(b.rack_detect(Time(40), Time(10), false), Time(48));
        assert_eq!(b.rack_detect(Time(48), Time(10), true), Time(49));
        assert_eq!(b.to_resend(), 1);
    }
}
