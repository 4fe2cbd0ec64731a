//! The receiving side of a subflow: cumulative acknowledgements over out-of-order buffering.

use sim_core::Time;

use crate::seqset::SeqSet;

/// What the receiver wants done after a data segment arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Send this acknowledgement now.
    Send(Ack),
    /// Hold the acknowledgement (delayed ACK); arm the delayed-ACK timer if `arm` is set.
    Delay {
        /// The timer is not running yet and must be armed.
        arm: bool,
    },
}

/// The fields of an acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// Next segment expected (cumulative).
    pub next: u64,
    /// Send time of the segment being acknowledged, echoed for RTT measurement.
    pub echo: Time,
    /// Whether that segment was a retransmission (no RTT sample then: Karn's rule).
    pub echo_retransmitted: bool,
}

/// A cumulative-ACK receiver with out-of-order buffering and optional delayed ACKs.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    next: u64,
    out_of_order: SeqSet,
    delayed_ack: bool,
    unacked_in_order: u32,
    held: Option<Ack>,
    /// When the pending delayed-ACK wake-up is due (`Time::NEVER` if none is wanted); a
    /// wake-up at any other time is stale.
    pub delack_at: Time,
    /// Data segments that arrived, duplicates included.
    pub segments_received: u64,
}

impl Receiver {
    /// A receiver expecting segment 0.
    pub fn new(delayed_ack: bool) -> Receiver {
        Receiver { delayed_ack, delack_at: Time::NEVER, ..Receiver::default() }
    }

    /// Segments delivered in order so far (the cumulative acknowledgement point).
    pub fn delivered(&self) -> u64 {
        self.next
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
        let filled_hole = in_order && self.next > seq + 1;
        let ack = Ack { next: self.next, echo: sent, echo_retransmitted: retransmitted };
        // RFC 5681 §4.2: ACK out-of-order and hole-filling segments at once; otherwise every
        // second full segment, holding the first (echoing the older timestamp, RFC 7323 §4.3).
        if !self.delayed_ack || !in_order || filled_hole || self.unacked_in_order >= 1 {
            let echo = self.held.take().filter(|_| in_order).unwrap_or(ack);
            self.unacked_in_order = 0;
            self.delack_at = Time::NEVER;
            return AckAction::Send(Ack { next: self.next, ..echo });
        }
        self.unacked_in_order += 1;
        self.held = Some(ack);
        AckAction::Delay { arm: true }
    }

    /// A delayed-ACK wake-up at `now`: the held ACK, if this wake-up is the one still due.
    pub fn on_delack_timer(&mut self, now: Time) -> Option<Ack> {
        if now != self.delack_at {
            return None;
        }
        self.unacked_in_order = 0;
        self.delack_at = Time::NEVER;
        self.held.take().map(|a| Ack { next: self.next, ..a })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(a: AckAction) -> u64 {
        match a {
            AckAction::Send(ack) => ack.next,
            AckAction::Delay { .. } => panic!("expected an immediate ACK"),
        }
    }

    #[test]
    fn cumulative_acks_with_a_hole() {
        let mut r = Receiver::new(false);
        assert_eq!(send(r.on_data(0, Time(1), false)), 1);
        assert_eq!(send(r.on_data(2, Time(2), false)), 1); // dupack
        assert_eq!(send(r.on_data(3, Time(3), false)), 1); // dupack
        assert_eq!(send(r.on_data(1, Time(4), true)), 4); // hole filled
        assert_eq!(send(r.on_data(1, Time(5), true)), 4); // duplicate segment
        assert_eq!(r.delivered(), 4);
        assert_eq!(r.segments_received, 5);
    }

    #[test]
    fn delayed_acks_every_second_segment_and_on_timer() {
        let mut r = Receiver::new(true);
        assert_eq!(r.on_data(0, Time(10), false), AckAction::Delay { arm: true });
        let AckAction::Send(ack) = r.on_data(1, Time(20), false) else { panic!() };
        assert_eq!((ack.next, ack.echo), (2, Time(10)), "echoes the older segment");
        assert_eq!(r.on_data(2, Time(30), false), AckAction::Delay { arm: true });
        r.delack_at = Time(70);
        assert_eq!(r.on_delack_timer(Time(60)), None, "stale wake-up");
        assert_eq!(r.on_delack_timer(Time(70)).map(|a| a.next), Some(3));
        assert_eq!(r.on_delack_timer(Time(70)), None, "already sent");
        // out of order: immediate
        assert_eq!(send(r.on_data(5, Time(40), false)), 3);
    }
}
