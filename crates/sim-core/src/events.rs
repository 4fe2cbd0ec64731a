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
/// more per event in D2's heap of a handful of entries). Its pop is Floyd's (below), cheaper than
/// a sift-down with two comparisons per level in a FatTree's heap of one entry per busy link;
/// a 4-ary heap cost more (docs/performance.md has the measurements).
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

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        let last = self.entries.pop()?;
        let entries = self.entries.as_mut_slice();
        let Some(&top) = entries.first() else { return Some(last) };
        // Floyd's pop: move the smaller child up level by level to the bottom (one comparison
        // per level), then sift `last` up from the hole; it came from the bottom, so it
        // rarely climbs.
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
            if entries[parent] <= last {
                break;
            }
            entries[i] = entries[parent];
            i = parent;
        }
        entries[i] = last;
        Some(top)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn drain(&mut self) -> std::vec::Drain<'_, Entry> {
        self.entries.drain(..)
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
        let from_timers = match (self.near.peek(), self.timers.peek()) {
            (None, None) => return None,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(n), Some(t)) => t < n,
        };
        let heap = if from_timers { &mut self.timers } else { &mut self.near };
        if heap.peek().map(entry_time) > Some(end.0) {
            return None;
        }
        let e = heap.pop().expect("peeked");
        let time = Time(entry_time(e));
        debug_assert!(time >= self.now, "time ran backwards");
        self.now = time;
        self.executed += 1;
        Some((time, E::decode(e as u32)))
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

    /// Gives every pending event a new sequence number, in the current order, from zero.
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
