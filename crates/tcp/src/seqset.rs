//! The receiver's record of segments received above the cumulative point.

/// A growable ring of bits over segment numbers `base..`, for out-of-order buffering without
/// per-segment allocation: a bit per segment, words reused as the base advances.
#[derive(Clone, Debug, Default)]
pub struct SeqSet {
    words: std::collections::VecDeque<u64>,
    base: u64,
}

impl SeqSet {
    /// Marks segment `seq` (which must be at or above the base) as received.
    pub fn insert(&mut self, seq: u64) {
        debug_assert!(seq >= self.base);
        let offset = seq - self.base;
        let word = (offset / 64) as usize;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << (offset % 64);
    }

    /// Whether `seq` has been received (anything below the base counts as received).
    pub fn contains(&self, seq: u64) -> bool {
        if seq < self.base {
            return true;
        }
        let offset = seq - self.base;
        self.words.get((offset / 64) as usize).is_some_and(|w| w & (1 << (offset % 64)) != 0)
    }

    /// The segments in `from..to` marked received, in order (those below the base, all
    /// received, are not listed: callers ask from the cumulative point on).
    pub fn members(&self, from: u64, to: u64) -> impl Iterator<Item = u64> + '_ {
        let from = from.max(self.base);
        let words = self.words.len() as u64;
        let end = to.min(self.base.saturating_add(words * 64));
        (from..end.max(from)).filter(move |&seq| self.contains(seq))
    }

    /// The first segment at or after `from` not received (`from` itself if it is not), found
    /// a word of 64 segments at a time.
    pub fn run_end(&self, from: u64) -> u64 {
        let mut seq = from.max(self.base);
        loop {
            let offset = seq - self.base;
            let Some(&word) = self.words.get((offset / 64) as usize) else { return seq };
            let bit = offset % 64;
            let held = (!(word >> bit)).trailing_zeros() as u64;
            if held < 64 - bit {
                return seq + held;
            }
            seq += 64 - bit;
        }
    }

    /// The lowest `s` at or above `floor` such that every segment in `s..from` is received,
    /// found a word of 64 segments at a time.
    pub fn run_start(&self, from: u64, floor: u64) -> u64 {
        let mut start = from;
        while start > floor {
            let seq = start - 1;
            if seq < self.base {
                return floor; // everything below the base is received
            }
            let offset = seq - self.base;
            let Some(&word) = self.words.get((offset / 64) as usize) else { return start };
            let bit = offset % 64;
            // The bits at and below `bit`, `bit` moved to the top.
            let held = (!(word << (63 - bit))).leading_zeros() as u64;
            if held <= bit {
                return (seq + 1 - held).max(floor);
            }
            start = seq - bit;
        }
        start.max(floor)
    }

    /// Given that every segment below `next` is received, returns the first segment at or
    /// after `next` that is not, forgetting everything below it.
    #[inline]
    pub fn advance(&mut self, mut next: u64) -> u64 {
        if self.words.is_empty() {
            // Nothing buffered out of order: the common case.
            self.base = next - next % 64;
            return next;
        }
        while self.contains(next) && !self.words.is_empty() {
            next += 1;
        }
        // drop whole words below `next`
        while next >= self.base + 64 && !self.words.is_empty() {
            self.words.pop_front();
            self.base += 64;
        }
        if self.words.is_empty() {
            self.base = next - next % 64;
        }
        next
    }
}

/// A set of segment numbers at or above a moving floor, as a ring of bits: membership, insertion
/// and removal cost a word each, with no hashing and no allocation once the ring has grown.
#[derive(Clone, Debug, Default)]
pub struct SeqBits {
    words: std::collections::VecDeque<u64>,
    /// The segment of the first word's lowest bit.
    base: u64,
}

impl SeqBits {
    /// Adds `seq`; whether it was not in the set.
    pub fn insert(&mut self, seq: u64) -> bool {
        if self.words.is_empty() {
            self.base = seq - seq % 64;
        }
        while seq < self.base {
            self.words.push_front(0);
            self.base -= 64;
        }
        let offset = seq - self.base;
        let word = (offset / 64) as usize;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let bit = 1 << (offset % 64);
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        new
    }

    /// Removes `seq` if it is in the set.
    pub fn remove(&mut self, seq: u64) {
        if let Some(offset) = seq.checked_sub(self.base)
            && let Some(w) = self.words.get_mut((offset / 64) as usize)
        {
            *w &= !(1 << (offset % 64));
        }
    }

    /// Forgets every member below `floor`, and raises the floor to it (to its word).
    pub fn forget_below(&mut self, floor: u64) {
        while floor >= self.base + 64 && !self.words.is_empty() {
            self.words.pop_front();
            self.base += 64;
        }
        if self.words.is_empty() {
            self.base = floor - floor % 64;
        } else if floor > self.base {
            self.words[0] &= !0u64 << (floor - self.base);
        }
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// Whether the set holds no member for certain; `false` may still mean empty after
    /// removals, which [`SeqBits::pop_first`] then finds.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Removes and returns the smallest member, dropping the empty words before it.
    pub fn pop_first(&mut self) -> Option<u64> {
        while let Some(&w) = self.words.front() {
            if w != 0 {
                let bit = w.trailing_zeros();
                self.words[0] &= w - 1;
                return Some(self.base + bit as u64);
            }
            self.words.pop_front();
            self.base += 64;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_give_their_smallest_member_first() {
        let mut s = SeqBits::default();
        for seq in [130u64, 7, 64, 500, 7] {
            s.insert(seq);
        }
        s.remove(64);
        s.forget_below(8);
        assert!(s.insert(3), "below the floor is a new member");
        let order: Vec<u64> = std::iter::from_fn(|| s.pop_first()).collect();
        assert_eq!(order, [3, 130, 500]);
        assert!(s.is_empty() && s.pop_first().is_none());
    }

    #[test]
    fn fills_holes_in_any_order() {
        let mut s = SeqSet::default();
        for seq in [3u64, 1, 2, 200, 70] {
            s.insert(seq);
        }
        assert_eq!(s.advance(0), 0);
        s.insert(0);
        assert_eq!(s.advance(0), 4);
        assert!(s.contains(70) && s.contains(200) && !s.contains(71));
        for seq in 4..70 {
            s.insert(seq);
        }
        assert_eq!(s.advance(4), 71);
        for seq in 71..200 {
            s.insert(seq);
        }
        assert_eq!(s.advance(71), 201);
        assert_eq!(s.advance(201), 201);
        s.insert(201);
        assert_eq!(s.advance(201), 202);
    }

    #[test]
    fn runs_end_and_start_where_a_scan_segment_by_segment_says() {
        let mut s = SeqSet::default();
        let mut held = std::collections::BTreeSet::new();
        // Runs across word boundaries, single segments, and a long run of 300.
        for seq in (10..20).chain([63, 64, 65, 127, 128]).chain(200..500).chain([700]) {
            s.insert(seq);
            held.insert(seq);
        }
        let contains = |q: u64| held.contains(&q);
        for from in 0..800u64 {
            let mut end = from;
            while contains(end) {
                end += 1;
            }
            assert_eq!(s.run_end(from), end, "run_end({from})");
            for floor in [0u64, 5, 150, 250] {
                let mut start = from;
                while start > floor && contains(start - 1) {
                    start -= 1;
                }
                assert_eq!(s.run_start(from, floor), start.max(floor).min(from.max(floor)), "run_start({from}, {floor})");
            }
        }
        // Below the base everything counts as received.
        s.insert(800);
        let mut t = SeqSet::default();
        for seq in 0..130 {
            t.insert(seq);
        }
        assert_eq!(t.advance(0), 130);
        t.insert(131);
        assert_eq!((t.run_start(132, 0), t.run_end(131)), (131, 132));
        assert_eq!(t.run_start(130, 0), 0);
    }

    #[test]
    fn seq_bits_insert_remove_and_forget() {
        let mut b = SeqBits::default();
        assert!(b.insert(100) && !b.insert(100) && b.insert(300) && b.insert(163));
        b.remove(100);
        assert!(b.insert(100), "removed, so new again");
        b.forget_below(164);
        assert!(!b.insert(300) && b.insert(164));
        assert!(b.insert(163) && b.insert(100), "forgotten below the floor, and below it again");
        assert!(!b.insert(163) && !b.insert(100) && !b.insert(164));
        b.remove(5);
        b.clear();
        assert!(b.insert(300) && b.insert(20_000));
    }

    #[test]
    fn members_lists_what_is_held_within_a_range() {
        let mut s = SeqSet::default();
        for seq in [5u64, 7, 70, 200] {
            s.insert(seq);
        }
        assert_eq!(s.members(0, u64::MAX).collect::<Vec<_>>(), [5, 7, 70, 200]);
        assert_eq!(s.members(6, 200).collect::<Vec<_>>(), [7, 70]);
        assert_eq!(s.members(300, 400).count(), 0);
        assert_eq!(SeqSet::default().members(0, u64::MAX).count(), 0);
    }
}
