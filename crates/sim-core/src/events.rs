//! The event list: pending events ordered by `(time, sequence number)`.
//!
//! The sequence number is the scheduling order, so events at the same instant run in the order
//! they were scheduled and a run is a pure function of its inputs.
//!
//! Two choices keep the hot path short (docs/spec/BENCHMARKS.md: htsim spends ~45 % of its time in its
//! event list):
//!
//! - An entry is one 128-bit integer: the time in the high 64 bits, then the sequence number
//!   (32 bits), then the event encoded in 32 bits ([`EventCode`]), so ordering entries is one
//!   integer comparison. Sequence numbers are renumbered in order when they would overflow, so
//!   ordering never depends on wrap-around.
//! - Timers that are usually superseded before they fire (retransmission timeouts, one per
//!   flow) live in a second heap. The network's own events, whose number is bounded by the
//!   queues and pipes in use, stay in a small heap whose depth does not grow with the number
//!   of flows. Both heaps share one sequence counter, so the order of events is exactly that
//!   of a single list.

use crate::time::Time;

/// An event payload that packs into 32 bits.
pub trait EventCode: Copy {
    /// The payload as 32 bits.
    fn encode(self) -> u32;
    /// The payload back from [`EventCode::encode`]'s bits.
    fn decode(code: u32) -> Self;
}

impl EventCode for u32 {
    fn encode(self) -> u32 {
        self
    }
    fn decode(code: u32) -> u32 {
        code
    }
}

/// `time in picoseconds << 64 | sequence number << 32 | encoded event`.
type Entry = u128;

#[inline]
fn entry_time(e: Entry) -> u64 {
    (e >> 64) as u64
}

/// A binary min-heap of entries, hand-written on a slice (`std`'s `BinaryHeap<Reverse<_>>` cost
/// more per event in D2's heap of a handful of entries). Replacing or removing its top is Floyd's
/// descent (below), cheaper than a sift-down with two comparisons per level in a FatTree's heap
/// of one entry per busy link; a 4-ary heap cost more (docs/performance.md has the measurements).
#[derive(Default)]
struct MinHeap {
    entries: Vec<Entry>,
}

impl MinHeap {
    #[inline]
    fn peek(&self) -> Option<Entry> {
        self.entries.first().copied()
    }

    #[inline]
    fn push(&mut self, e: Entry) {
        self.entries.push(e);
        let entries = self.entries.as_mut_slice();
        let mut i = entries.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if entries[parent] <= e {
                break;
            }
            entries[i] = entries[parent];
            i = parent;
        }
        entries[i] = e;
    }

    /// Removes the top entry (the heap must not be empty).
    #[inline]
    fn remove_top(&mut self) {
        let last = self.entries.pop().expect("a top to remove");
        if !self.entries.is_empty() {
            self.replace_top(last);
        }
    }

    /// Puts `e` in place of the top entry (the heap must not be empty): one pass down the
    /// heap where a removal and a push would take two.
    #[inline]
    fn replace_top(&mut self, e: Entry) {
        let entries = self.entries.as_mut_slice();
        // A heap of one or two entries (a dumbbell's network: its link and its ACKs' pipe)
        // needs at most one comparison.
        if let [top, rest @ ..] = entries
            && rest.len() < 2
        {
            match rest.first_mut() {
                Some(other) if *other < e => (*top, *other) = (*other, e),
                _ => *top = e,
            }
            return;
        }
        // Floyd's descent: move the smaller child up level by level to the bottom (one
        // comparison per level), then sift `e` up from the hole. An entry from the bottom, or
        // one scheduled later than the entry it replaces, rarely climbs far.
        let mut i = 0;
        // Where both children exist, the smaller is chosen without a branch: the comparison
        // of two pending events' times is a coin toss a predictor cannot learn.
        while let Some(&[left, right]) = entries.get(2 * i + 1..2 * i + 3) {
            let right_smaller = right < left;
            entries[i] = if right_smaller { right } else { left };
            i = 2 * i + 1 + usize::from(right_smaller);
        }
        if let Some(&left) = entries.get(2 * i + 1) {
            entries[i] = left;
            i = 2 * i + 1;
        }
        while i > 0 {
            let parent = (i - 1) / 2;
            if entries[parent] <= e {
                break;
            }
            entries[i] = entries[parent];
            i = parent;
        }
        entries[i] = e;
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn drain(&mut self) -> std::vec::Drain<'_, Entry> {
        self.entries.drain(..)
    }
}

/// The earliest pending event, taken by [`EventList::take_until`] and still at the top of its
/// heap. Its handler ends it with [`EventList::reschedule`] when the same event comes again
/// (a link's next departure, a pipe's next exit: then one pass down the heap does the work of
/// a pop and a push) or with [`EventList::finish`], before it schedules anything else.
#[must_use = "a taken event stays pending until it is finished or rescheduled"]
pub struct Due<E> {
    event: E,
    timer: bool,
}

impl<E: Copy> Due<E> {
    /// The event.
    #[inline]
    pub fn event(&self) -> E {
        self.event
    }
}

/// Pending events of one run, earliest first; ties go to the earliest scheduled.
pub struct EventList<E> {
    near: MinHeap,
    timers: MinHeap,
    next_seq: u64,
    now: Time,
    executed: u64,
    _payload: std::marker::PhantomData<E>,
}

impl<E: EventCode> Default for EventList<E> {
    fn default() -> Self {
        Self::new()
    }
}

const SEQ_LIMIT: u64 = 1 << 32;

impl<E: EventCode> EventList<E> {
    /// An empty list at time zero.
    pub fn new() -> Self {
        EventList {
            near: MinHeap::default(),
            timers: MinHeap::default(),
            next_seq: 0,
            now: Time::ZERO,
            executed: 0,
            _payload: std::marker::PhantomData,
        }
    }

    /// The time of the event last popped (the simulation's current time).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    #[inline]
    fn entry(&mut self, time: Time, event: E) -> Entry {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        if self.next_seq == SEQ_LIMIT {
            self.renumber();
        }
        let key = (self.next_seq << 32) | event.encode() as u64;
        self.next_seq += 1;
        (time.as_ps() as u128) << 64 | key as u128
    }

    /// Schedules `event` at `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        let e = self.entry(time, event);
        self.near.push(e);
    }

    /// Schedules a timer event: same ordering as [`EventList::schedule`], kept apart because
    /// such events are many, far ahead, and mostly superseded.
    #[inline]
    pub fn schedule_timer(&mut self, time: Time, event: E) {
        let e = self.entry(time, event);
        self.timers.push(e);
    }

    /// Schedules `event` `delay` after now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::NEVER)
    }

    /// Removes the earliest event if it is due at or before `end`, and advances the clock.
    #[inline]
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, E)> {
        let due = self.take_until(end)?;
        let event = due.event;
        self.finish(due);
        Some((self.now, event))
    }

    /// Takes the earliest event if it is due at or before `end`, and advances the clock; the
    /// event stays pending until [`EventList::finish`] or [`EventList::reschedule`].
    #[inline]
    pub fn take_until(&mut self, end: Time) -> Option<Due<E>> {
        let timer = match (self.near.peek(), self.timers.peek()) {
            (None, None) => return None,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(n), Some(t)) => t < n,
        };
        let heap = if timer { &self.timers } else { &self.near };
        let e = heap.peek().expect("peeked");
        let time = Time(entry_time(e));
        if time > end {
            return None;
        }
        debug_assert!(time >= self.now, "time ran backwards");
        self.now = time;
        self.executed += 1;
        Some(Due { event: E::decode(e as u32), timer })
    }

    /// Ends a taken event: it leaves the list.
    #[inline]
    pub fn finish(&mut self, due: Due<E>) {
        if due.timer { self.timers.remove_top() } else { self.near.remove_top() }
    }

    /// Ends a taken event by scheduling it again at `time`, in its place (as
    /// [`EventList::schedule`] would, or [`EventList::schedule_timer`] for a timer).
    #[inline]
    pub fn reschedule(&mut self, due: Due<E>, time: Time) {
        let e = self.entry(time, due.event);
        if due.timer { self.timers.replace_top(e) } else { self.near.replace_top(e) }
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let near = self.near.peek().map(entry_time);
        let timer = self.timers.peek().map(entry_time);
        match (near, timer) {
            (Some(a), Some(b)) => Some(Time(a.min(b))),
            (a, b) => a.or(b).map(Time),
        }
    }

    /// Gives every pending event a new sequence number, in the current order, from zero. (A
    /// taken event, the earliest of its heap, is still at its top afterwards.)
    fn renumber(&mut self) {
        let mut all: Vec<(Entry, bool)> = self.near.drain().map(|e| (e, false)).chain(self.timers.drain().map(|e| (e, true))).collect();
        all.sort_unstable();
        for (seq, (e, _)) in all.iter_mut().enumerate() {
            *e = (*e >> 64) << 64 | (seq as u128) << 32 | (*e & 0xffff_ffff);
        }
        self.next_seq = all.len() as u64;
        for (e, timer) in all {
            if timer { self.timers.push(e) } else { self.near.push(e) }
        }
    }

    /// Pending events in both heaps, superseded timers included (they stay until popped).
    pub fn len(&self) -> usize {
        self.near.len() + self.timers.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events popped so far: the run's measure of work, reported in its progress and record
    /// and capped by a run's event limit.
    pub fn executed(&self) -> u64 {
        self.executed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(list: &mut EventList<u32>) -> Vec<u32> {
        std::iter::from_fn(|| list.pop().map(|(_, e)| e)).collect()
    }

    #[test]
    fn same_time_events_run_in_scheduling_order() {
        let mut list = EventList::new();
        list.schedule(Time(5), 3);
        list.schedule(Time(1), 1);
        list.schedule_timer(Time(5), 4);
        list.schedule(Time(1), 2);
        list.schedule_timer(Time(1), 9);
        list.schedule(Time(3), 7);
        assert_eq!(drain(&mut list), [1, 2, 9, 7, 3, 4]);
        assert_eq!(list.now(), Time(5));
        assert_eq!(list.executed(), 6);
    }

    #[test]
    fn holds_pop_in_time_then_scheduling_order() {
        // Payloads are the scheduling order, so popped (time, payload) pairs must increase.
        let mut list = EventList::new();
        let mut scheduled = 0u32;
        for i in 0..100u64 {
            list.schedule(Time(i % 7), scheduled);
            scheduled += 1;
        }
        let mut x: u64 = 12345;
        let mut last = (Time::ZERO, 0u32);
        for _ in 0..10_000 {
            let (t, e) = list.pop().unwrap();
            assert!((t, e) >= last, "{:?} popped after {:?}", (t, e), last);
            last = (t, e);
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if x >> 63 == 0 {
                list.schedule(t + Time((x >> 33) % 5), scheduled);
            } else {
                list.schedule_timer(t + Time((x >> 33) % 5), scheduled);
            }
            scheduled += 1;
        }
        assert_eq!(list.len(), 100);
    }

    #[test]
    fn a_taken_event_rescheduled_or_finished_orders_as_a_pop_and_a_push() {
        // The same random schedule run twice: popping then scheduling, and taking then
        // rescheduling in place (or finishing and scheduling elsewhere), with ties.
        let mut popped = EventList::new();
        let mut taken = EventList::new();
        for i in 0..40u32 {
            popped.schedule(Time(u64::from(i % 5)), i);
            taken.schedule(Time(u64::from(i % 5)), i);
        }
        let mut x: u64 = 99;
        let mut next = 40u32;
        for _ in 0..20_000 {
            let (t, e) = popped.pop().unwrap();
            let due = taken.take_until(Time::NEVER).unwrap();
            assert_eq!((taken.now(), due.event()), (t, e));
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let at = t + Time((x >> 33) % 4);
            match x >> 62 {
                // The same event again, as a link's or a pipe's next exit.
                0 | 1 => {
                    popped.schedule(at, e);
                    taken.reschedule(due, at);
                }
                // A timer instead.
                2 => {
                    popped.schedule_timer(at, next);
                    taken.finish(due);
                    taken.schedule_timer(at, next);
                    next += 1;
                }
                // Nothing: the heap shrinks, until it is refilled.
                _ => {
                    taken.finish(due);
                    if popped.len() < 10 {
                        popped.schedule(at, next);
                        taken.schedule(at, next);
                        next += 1;
                    }
                }
            }
            assert_eq!(taken.len(), popped.len());
        }
        assert_eq!(drain(&mut taken), drain(&mut popped));
    }

    #[test]
    fn replacing_the_top_keeps_the_least_entry_on_top_at_every_size() {
        // Heaps of one and two entries take a path of their own; larger ones Floyd's descent.
        let mut x: u64 = 7;
        let mut count: Entry = 0;
        let mut draw = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            count += 1;
            // Few distinct times, so that new entries fall before, between and after the rest.
            Entry::from((x >> 33) % 8) << 64 | count
        };
        for size in 1..=6 {
            let mut heap = MinHeap::default();
            let mut reference: Vec<Entry> = (0..size).map(|_| draw()).collect();
            for &e in &reference {
                heap.push(e);
            }
            for _ in 0..2_000 {
                reference.sort_unstable();
                assert_eq!(heap.peek(), reference.first().copied(), "heap of {size}");
                let e = draw();
                heap.replace_top(e);
                reference[0] = e;
            }
            reference.sort_unstable();
            let mut order = Vec::new();
            while let Some(e) = heap.peek() {
                order.push(e);
                heap.remove_top();
            }
            assert_eq!(order, reference, "heap of {size} drained in order");
        }
    }

    #[test]
    fn a_taken_timer_rescheduled_stays_a_timer() {
        let mut list = EventList::new();
        list.schedule_timer(Time(1), 1u32);
        list.schedule(Time(5), 2);
        let due = list.take_until(Time(1)).unwrap();
        list.reschedule(due, Time(5));
        // Same time: the near event was scheduled first.
        assert_eq!(drain(&mut list), [2, 1]);
        assert!(list.take_until(Time(9)).is_none(), "nothing is pending");
    }

    #[test]
    fn a_taken_event_survives_renumbering_at_its_heaps_top() {
        // Renumbering can happen inside `reschedule` (when sequence numbers run out): the
        // taken event must still be the entry it replaces.
        let mut list = EventList::new();
        for i in 0..6u32 {
            list.schedule(Time(u64::from(10 - i)), i);
            list.schedule_timer(Time(u64::from(20 + i)), 100 + i);
        }
        let due = list.take_until(Time::NEVER).unwrap();
        assert_eq!(due.event(), 5);
        list.renumber();
        list.reschedule(due, Time(30));
        assert_eq!(drain(&mut list), [4, 3, 2, 1, 0, 100, 101, 102, 103, 104, 105, 5]);
    }

    #[test]
    fn take_until_leaves_later_events_and_the_clock() {
        let mut list = EventList::new();
        list.schedule(Time(7), 1u32);
        assert!(list.take_until(Time(6)).is_none());
        assert_eq!((list.now(), list.executed(), list.len()), (Time::ZERO, 0, 1));
    }

    #[test]
    fn renumbering_keeps_the_order() {
        let mut list = EventList::new();
        for i in 0..50u32 {
            list.schedule(Time(u64::from(i % 3)), i);
            if i % 2 == 0 {
                list.schedule_timer(Time(u64::from(i % 3)), 100 + i);
            }
        }
        let mut reference = EventList::new();
        for i in 0..50u32 {
            reference.schedule(Time(u64::from(i % 3)), i);
            if i % 2 == 0 {
                reference.schedule(Time(u64::from(i % 3)), 100 + i);
            }
        }
        list.renumber();
        assert_eq!(list.next_seq, 75);
        assert_eq!(drain(&mut list), drain(&mut reference));
    }
}
