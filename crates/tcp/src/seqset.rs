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

#[cfg(test)]
mod tests {
    use super::*;

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
