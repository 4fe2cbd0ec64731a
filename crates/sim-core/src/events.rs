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
//! - A network of many links ([`EventList::use_wheel`]) keeps its events in a timing wheel
//!   instead: every link's and pipe's next exit is at most one serialization and one delay
//!   ahead of the clock, so a bucket per time slice finds the earliest in a few steps where a
//!   heap of one entry per busy link sifts through ten levels. It holds the same entries in
//!   the same order; an entry too far ahead for it goes to the heap.

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

/// Buckets of a [`Wheel`]: a power of two, so that a time's bucket is a shift and a mask.
const WHEEL_BUCKETS: usize = 16384;

/// Entries within one turn of the clock in a timing wheel: bucket `b` holds the entries whose
/// time, in units of `2^shift` picoseconds, is `b` modulo [`WHEEL_BUCKETS`]. Every entry is at
/// or after the clock and less than a turn ahead of the clock's bucket, so the buckets from the
/// clock's on, around once, are in time order. A bucket is a list of its entries in order,
/// linked through one pool of nodes (memory for the entries pending, not for each bucket's
/// most): a new entry is usually the latest (a link's next exit, scheduled a packet later), so
/// it goes at the tail, and the earliest leaves from the head. (Links of equal delays and
/// rates, as in a FatTree, put many exits on one picosecond: a bucket scanned for its earliest
/// cost more than the heap.) Occupied buckets are bits, and occupied words of those bits are
/// bits too, so the next occupied bucket is found in a few words however sparse the wheel.
struct Wheel {
    shift: u32,
    /// Per bucket, its first and last node ([`NIL`] when empty).
    ends: Box<[(u32, u32)]>,
    nodes: Vec<Node>,
    /// The first free node, the others linked from it.
    free: u32,
    occupied: Box<[u64; WHEEL_BUCKETS / 64]>,
    /// Bit `w` is set when word `w` of `occupied` is not zero.
    words: [u64; WHEEL_BUCKETS / 64 / 64],
    len: usize,
}

/// No node.
const NIL: u32 = u32::MAX;

/// An entry of a [`Wheel`] and the next in its bucket (or on the free list).
#[derive(Clone, Copy)]
struct Node {
    entry: Entry,
    next: u32,
}

impl Wheel {
    /// A wheel one turn of which is at least `lead` long.
    fn new(lead: Time) -> Wheel {
        let slice = lead.as_ps().div_ceil(WHEEL_BUCKETS as u64).max(1);
        Wheel {
            shift: slice.next_power_of_two().trailing_zeros(),
            ends: vec![(NIL, NIL); WHEEL_BUCKETS].into_boxed_slice(),
            nodes: Vec::new(),
            free: NIL,
            occupied: Box::new([0; WHEEL_BUCKETS / 64]),
            words: [0; WHEEL_BUCKETS / 64 / 64],
            len: 0,
        }
    }

    /// Whether an entry at `time` is less than a turn ahead of the bucket of `now`.
    #[inline]
    fn fits(&self, time: u64, now: u64) -> bool {
        (time >> self.shift) - (now >> self.shift) < WHEEL_BUCKETS as u64
    }

    #[inline]
    fn bucket_of(&self, time: u64) -> usize {
        (time >> self.shift) as usize % WHEEL_BUCKETS
    }

    /// Adds `e`, which must fit (see [`Wheel::fits`]). Out of line, so that the code of a
    /// network without a wheel stays as short as it was.
    #[inline(never)]
    fn push(&mut self, e: Entry) {
        let node = Node { entry: e, next: NIL };
        let n = match self.free {
            NIL => {
                self.nodes.push(node);
                self.nodes.len() as u32 - 1
            }
            f => {
                self.free = self.nodes[f as usize].next;
                self.nodes[f as usize] = node;
                f
            }
        };
        let b = self.bucket_of(entry_time(e));
        let (head, tail) = self.ends[b];
        if head == NIL {
            self.ends[b] = (n, n);
            self.occupied[b / 64] |= 1 << (b % 64);
            self.words[b / 4096] |= 1 << (b / 64 % 64);
        } else if self.nodes[tail as usize].entry < e {
            self.nodes[tail as usize].next = n;
            self.ends[b].1 = n;
        } else {
            self.insert_before_tail(b, n);
        }
        self.len += 1;
    }

    /// Links node `n` into bucket `b`, in order, where it is not the latest (rare: a bucket
    /// is a slice of time).
    #[cold]
    fn insert_before_tail(&mut self, b: usize, n: u32) {
        let e = self.nodes[n as usize].entry;
        let head = self.ends[b].0;
        if e < self.nodes[head as usize].entry {
            self.nodes[n as usize].next = head;
            self.ends[b].0 = n;
            return;
        }
        let mut at = head;
        while self.nodes[self.nodes[at as usize].next as usize].entry < e {
            at = self.nodes[at as usize].next;
        }
        self.nodes[n as usize].next = self.nodes[at as usize].next;
        self.nodes[at as usize].next = n;
    }

    /// The earliest entry and its bucket, when the clock is at `now`.
    #[inline]
    fn earliest(&self, now: u64) -> Option<(Entry, u32)> {
        if self.len == 0 {
            return None;
        }
        let start = self.bucket_of(now);
        let w = start / 64;
        // The clock's word from the clock's bucket on, else the next occupied word, which may
        // be the clock's word again, whose lower bits are the end of the turn.
        let bits = self.occupied[w] & (u64::MAX << (start % 64));
        let b = if bits != 0 {
            w * 64 + bits.trailing_zeros() as usize
        } else {
            let w = self.next_occupied_word(w + 1);
            w * 64 + self.occupied[w].trailing_zeros() as usize
        };
        Some((self.nodes[self.ends[b].0 as usize].entry, b as u32))
    }

    /// The first word of `occupied` not zero from word `from` on, around the wheel (there is
    /// one: the wheel is not empty).
    #[inline]
    fn next_occupied_word(&self, from: usize) -> usize {
        let from = from % self.occupied.len();
        let s = from / 64;
        let bits = self.words[s] & (u64::MAX << (from % 64));
        if bits != 0 {
            return s * 64 + bits.trailing_zeros() as usize;
        }
        // Around: the other summary words, then the lower bits of this one.
        (1..=self.words.len())
            .map(|k| (s + k) % self.words.len())
            .find_map(|i| (self.words[i] != 0).then(|| i * 64 + self.words[i].trailing_zeros() as usize))
            .expect("a wheel with entries has an occupied word")
    }

    /// Removes the earliest entry of bucket `b`.
    #[inline]
    fn remove(&mut self, b: u32) {
        let n = self.ends[b as usize].0;
        let next = self.nodes[n as usize].next;
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.ends[b as usize].0 = next;
        if next == NIL {
            self.ends[b as usize].1 = NIL;
            let w = b as usize / 64;
            self.occupied[w] &= !(1 << (b % 64));
            if self.occupied[w] == 0 {
                self.words[w / 64] &= !(1 << (w % 64));
            }
        }
        self.len -= 1;
    }

    /// Every entry, the wheel left empty.
    fn drain(&mut self) -> Vec<Entry> {
        let mut all = Vec::with_capacity(self.len);
        for b in 0..WHEEL_BUCKETS {
            let mut n = self.ends[b].0;
            while n != NIL {
                all.push(self.nodes[n as usize].entry);
                n = self.nodes[n as usize].next;
            }
        }
        self.ends.fill((NIL, NIL));
        self.nodes.clear();
        self.free = NIL;
        *self.occupied = [0; WHEEL_BUCKETS / 64];
        self.words = [0; WHEEL_BUCKETS / 64 / 64];
        self.len = 0;
        all
    }
}

/// Where a taken event waits: the heap of network events, the timers' heap, or the front of
/// a bucket of the wheel (the bucket's number). One word, as the event loop carries it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Held(u32);

impl Held {
    const NEAR: Held = Held(u32::MAX);
    const TIMER: Held = Held(u32::MAX - 1);

    /// The wheel's bucket the event is at the front of, if it is in the wheel.
    #[inline(always)]
    fn bucket(self) -> Option<u32> {
        (self.0 < WHEEL_BUCKETS as u32).then_some(self.0)
    }
}

/// The earliest pending event, taken by [`EventList::take_until`] and still at the top of its
/// heap. Its handler ends it with [`EventList::reschedule`] when the same event comes again
/// (a link's next departure, a pipe's next exit: then one pass down the heap does the work of
/// a pop and a push) or with [`EventList::finish`], before it schedules anything else.
#[must_use = "a taken event stays pending until it is finished or rescheduled"]
pub struct Due<E> {
    event: E,
    held: Held,
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
    /// The network's events, when [`EventList::use_wheel`] made one (`near` then holds only
    /// those too far ahead for it).
    wheel: Option<Box<Wheel>>,
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
            wheel: None,
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

    /// Keeps the events of [`EventList::schedule`] in a timing wheel from now on, its turn at
    /// least `lead` long: for a network with many links, none of whose next exits is further
    /// ahead of the clock than `lead` (one that is waits in the heap). The order of events
    /// does not change.
    pub fn use_wheel(&mut self, lead: Time) {
        let mut wheel = Box::new(Wheel::new(lead));
        let now = self.now.as_ps();
        let mut near = std::mem::take(&mut self.near.entries);
        near.extend(self.wheel.take().into_iter().flat_map(|mut w| w.drain()));
        for e in near {
            if wheel.fits(entry_time(e), now) { wheel.push(e) } else { self.near.push(e) }
        }
        self.wheel = Some(wheel);
    }

    /// Schedules `event` at `time`, which must not be in the past.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        let e = self.entry(time, event);
        self.push_near(e);
    }

    /// Puts a network event in the wheel if there is one and it fits, else in the heap.
    #[inline(always)]
    fn push_near(&mut self, e: Entry) {
        match &mut self.wheel {
            Some(w) if w.fits(entry_time(e), self.now.as_ps()) => w.push(e),
            _ => self.near.push(e),
        }
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
        if let Some(wheel) = &self.wheel {
            return self.take_with_wheel(end, wheel.earliest(self.now.as_ps()));
        }
        let timer = match (self.near.peek(), self.timers.peek()) {
            (None, None) => return None,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(n), Some(t)) => t < n,
        };
        let heap = if timer { &self.timers } else { &self.near };
        let e = heap.peek().expect("peeked");
        self.take(e, if timer { Held::TIMER } else { Held::NEAR }, end)
    }

    /// [`EventList::take_until`] with a wheel, whose earliest entry is `wheel`.
    #[inline]
    fn take_with_wheel(&mut self, end: Time, wheel: Option<(Entry, u32)>) -> Option<Due<E>> {
        let mut best = wheel.map(|(e, b)| (e, Held(b)));
        for (e, held) in [(self.near.peek(), Held::NEAR), (self.timers.peek(), Held::TIMER)] {
            if let Some(e) = e
                && best.is_none_or(|(b, _)| e < b)
            {
                best = Some((e, held));
            }
        }
        let (e, held) = best?;
        self.take(e, held, end)
    }

    /// Takes entry `e`, the earliest, held in `held`, if it is due at or before `end`.
    #[inline]
    fn take(&mut self, e: Entry, held: Held, end: Time) -> Option<Due<E>> {
        let time = Time(entry_time(e));
        if time > end {
            return None;
        }
        debug_assert!(time >= self.now, "time ran backwards");
        self.now = time;
        self.executed += 1;
        Some(Due { event: E::decode(e as u32), held })
    }

    /// Ends a taken event: it leaves the list.
    #[inline]
    pub fn finish(&mut self, due: Due<E>) {
        match due.held.bucket() {
            Some(b) => self.wheel.as_mut().expect("taken from the wheel").remove(b),
            None if due.held == Held::TIMER => self.timers.remove_top(),
            None => self.near.remove_top(),
        }
    }

    /// Ends a taken event by scheduling it again at `time`, in its place (as
    /// [`EventList::schedule`] would, or [`EventList::schedule_timer`] for a timer).
    #[inline(always)]
    pub fn reschedule(&mut self, due: Due<E>, time: Time) {
        if due.held.bucket().is_some() {
            let event = due.event;
            self.finish(due);
            return self.schedule(time, event);
        }
        let e = self.entry(time, due.event);
        if due.held == Held::TIMER { self.timers.replace_top(e) } else { self.near.replace_top(e) }
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let wheel = self.wheel.as_ref().and_then(|w| w.earliest(self.now.as_ps())).map(|(e, ..)| entry_time(e));
        [wheel, self.near.peek().map(entry_time), self.timers.peek().map(entry_time)].into_iter().flatten().min().map(Time)
    }

    /// Gives every pending event a new sequence number, in the current order, from zero. (A
    /// taken event, the earliest of its heap, is still at its top afterwards; a taken event of
    /// the wheel has left it before.)
    fn renumber(&mut self) {
        let wheel = self.wheel.as_mut().into_iter().flat_map(|w| w.drain()).map(|e| (e, Held(0)));
        let mut all: Vec<(Entry, Held)> =
            self.near.drain().map(|e| (e, Held::NEAR)).chain(wheel).chain(self.timers.drain().map(|e| (e, Held::TIMER))).collect();
        all.sort_unstable_by_key(|&(e, _)| e);
        for (seq, (e, _)) in all.iter_mut().enumerate() {
            *e = (*e >> 64) << 64 | (seq as u128) << 32 | (*e & 0xffff_ffff);
        }
        self.next_seq = all.len() as u64;
        // Each entry back where it was: a taken heap entry stays its heap's top.
        for (e, held) in all {
            match held {
                Held::NEAR => self.near.push(e),
                Held::TIMER => self.timers.push(e),
                _ => self.wheel.as_mut().expect("drained from the wheel").push(e),
            }
        }
    }

    /// Pending events, superseded timers included (they stay until popped).
    pub fn len(&self) -> usize {
        self.near.len() + self.timers.len() + self.wheel.as_ref().map_or(0, |w| w.len)
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
    fn a_wheel_finds_its_earliest_entry_around_the_turn() {
        // Buckets of 1 ps, a turn of 16 384 ps; the clock at 100 ps (bucket 100, in word 1).
        let mut wheel = Wheel::new(Time(WHEEL_BUCKETS as u64));
        assert_eq!(wheel.shift, 0);
        let at = |t: u64, seq: u128| Entry::from(t) << 64 | seq << 32;
        let now = 100;
        let last = at(now + WHEEL_BUCKETS as u64 - 1, 1);
        let later = at(now + 5_000, 2);
        assert!(wheel.fits(now + WHEEL_BUCKETS as u64 - 1, now) && !wheel.fits(now + WHEEL_BUCKETS as u64, now));
        // The end of the turn falls in bucket 99, below the clock's in the clock's word.
        wheel.push(last);
        assert_eq!(wheel.earliest(now), Some((last, 99)), "alone, around the turn");
        wheel.push(later);
        assert_eq!(wheel.earliest(now), Some((later, 5_100)), "the next word, not the lower bits of the clock's");
        wheel.push(at(now + 64, 3));
        assert_eq!(wheel.earliest(now).map(|(e, b)| (e >> 64, b)), Some((164, 164)), "the word after the clock's");
        wheel.remove(164);
        wheel.remove(5_100);
        assert_eq!(wheel.earliest(now), Some((last, 99)));
        wheel.remove(99);
        assert_eq!((wheel.earliest(now), wheel.len), (None, 0));
    }

    #[test]
    fn a_wheel_keeps_the_order_of_the_heaps() {
        // The same random schedule in a list without a wheel and in lists with wheels whose
        // turn is shorter than the leads scheduled (those wait in the heap) or longer, through
        // renumbering with an event taken from the wheel and from the heap.
        for lead in [Time(100), Time(2_000), Time(1_000_000), Time(1_000_000_000)] {
            let mut plain = EventList::new();
            let mut wheeled = EventList::new();
            for i in 0..40u32 {
                plain.schedule(Time(u64::from(i % 5)), i);
                wheeled.schedule(Time(u64::from(i % 5)), i);
            }
            wheeled.use_wheel(lead);
            let (mut x, mut next) = (3u64, 40u32);
            for step in 0..30_000 {
                if step % 7_000 == 6_999 {
                    // Sequence numbers run out at the next entry made (inside a reschedule).
                    plain.next_seq = SEQ_LIMIT;
                    wheeled.next_seq = SEQ_LIMIT;
                }
                let a = plain.take_until(Time::NEVER).unwrap();
                let b = wheeled.take_until(Time::NEVER).unwrap();
                assert_eq!((plain.now(), a.event()), (wheeled.now(), b.event()), "lead {lead}, step {step}");
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                // Leads up to 3 ns, one in four a tie within 3 ps.
                let lead_ps = if x & 3 == 0 { (x >> 40) % 3 } else { (x >> 33) % 3_000 };
                let at = plain.now() + Time(lead_ps);
                match x >> 62 {
                    0 | 1 => {
                        plain.reschedule(a, at);
                        wheeled.reschedule(b, at);
                    }
                    2 => {
                        plain.finish(a);
                        wheeled.finish(b);
                        plain.schedule_timer(at, next);
                        wheeled.schedule_timer(at, next);
                        next += 1;
                    }
                    _ => {
                        plain.finish(a);
                        wheeled.finish(b);
                        if plain.len() < 30 {
                            plain.schedule(at, next);
                            wheeled.schedule(at, next);
                            next += 1;
                        }
                    }
                }
                assert_eq!(plain.len(), wheeled.len());
                assert_eq!(plain.peek_time(), wheeled.peek_time());
            }
            assert_eq!(drain(&mut plain), drain(&mut wheeled), "lead {lead}");
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
