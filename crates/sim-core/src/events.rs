//! The event list: a binary heap ordered by `(time, sequence number)`.
//!
//! The sequence number is the scheduling order, so events at the same instant run in the order
//! they were scheduled and a run is a pure function of its inputs. The payload is a small `Copy`
//! value chosen by the simulation (a closed enum), so scheduling never allocates once the heap has
//! grown to the run's pending-event population.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Time;

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that the max-heap yields the earliest `(time, seq)` first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// Pending events of one run, earliest first; ties go to the earliest scheduled.
pub struct EventList<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    executed: u64,
}

impl<E> Default for EventList<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventList<E> {
    /// An empty list at time zero.
    pub fn new() -> Self {
        EventList { heap: BinaryHeap::new(), next_seq: 0, now: Time::ZERO, executed: 0 }
    }

    /// The time of the event last popped (the simulation's current time).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `event` at `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Schedules `event` `delay` after now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let entry = self.heap.pop()?;
        debug_assert!(entry.time >= self.now, "time ran backwards");
        self.now = entry.time;
        self.executed += 1;
        Some((entry.time, entry.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events popped so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_run_in_scheduling_order() {
        let mut list = EventList::new();
        list.schedule(Time(5), 'c');
        list.schedule(Time(1), 'a');
        list.schedule(Time(5), 'd');
        list.schedule(Time(1), 'b');
        list.schedule(Time(3), 'x');
        let order: String = std::iter::from_fn(|| list.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, "abxcd");
        assert_eq!(list.now(), Time(5));
        assert_eq!(list.executed(), 5);
    }

    #[test]
    fn holds_pop_in_time_then_scheduling_order() {
        // Payloads are the scheduling order, so popped (time, payload) pairs must increase.
        let mut list = EventList::new();
        let mut scheduled = 0u64;
        for i in 0..100u64 {
            list.schedule(Time(i % 7), scheduled);
            scheduled += 1;
        }
        let mut x: u64 = 12345;
        let mut last = (Time::ZERO, 0u64);
        for _ in 0..10_000 {
            let (t, e) = list.pop().unwrap();
            assert!((t, e) >= last, "{:?} popped after {:?}", (t, e), last);
            last = (t, e);
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            list.schedule(t + Time((x >> 33) % 5), scheduled);
            scheduled += 1;
        }
        assert_eq!(list.len(), 100);
    }
}
