//! A multipath subflow's map from its own segment numbers to the connection's data segments.
//!
//! The sender keeps one entry per segment sent and not yet acknowledged, oldest first. A
//! subflow stuck in NewReno's inflated recovery (its retransmission lost, one new segment sent
//! per duplicate ACK until a timeout) can hold hundreds of thousands; in htsim's datacenter at
//! k = 8 such maps were most of the run's memory. So an entry is 32 bits: the data segment's
//! offset from a base at or below every entry. A map whose entries span 2^32 data segments or
//! more (a subflow stalled while the others move terabytes) widens to 64 bits.

use std::collections::VecDeque;

/// Data segment numbers, oldest first; see the module's documentation.
#[derive(Clone, Debug)]
pub enum SegmentMap {
    /// `base + offset` for each entry.
    Narrow {
        /// At or below every entry.
        base: u64,
        /// The entries less `base`.
        offsets: VecDeque<u32>,
    },
    /// Entries that span too much for 32-bit offsets.
    Wide(VecDeque<u64>),
}

impl Default for SegmentMap {
    fn default() -> Self {
        SegmentMap::Narrow { base: 0, offsets: VecDeque::new() }
    }
}

impl SegmentMap {
    /// Entries held.
    pub fn len(&self) -> usize {
        match self {
            SegmentMap::Narrow { offsets, .. } => offsets.len(),
            SegmentMap::Wide(entries) => entries.len(),
        }
    }

    /// Whether the map holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th entry, oldest first (`i` below [`SegmentMap::len`]).
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            SegmentMap::Narrow { base, offsets } => base + u64::from(offsets[i]),
            SegmentMap::Wide(entries) => entries[i],
        }
    }

    /// Appends `data_seq` as the newest entry.
    #[inline(always)]
    pub fn push(&mut self, data_seq: u64) {
        if let SegmentMap::Narrow { base, offsets } = self
            && let Some(offset) = data_seq.checked_sub(*base).and_then(|d| u32::try_from(d).ok())
        {
            offsets.push_back(offset);
            return;
        }
        self.push_out_of_range(data_seq);
    }

    /// [`SegmentMap::push`] of an entry the current base cannot hold: the base moves to the
    /// lowest entry, or the map widens.
    #[cold]
    #[inline(never)]
    fn push_out_of_range(&mut self, data_seq: u64) {
        let entries: VecDeque<u64> = match self {
            SegmentMap::Wide(entries) => {
                entries.push_back(data_seq);
                return;
            }
            SegmentMap::Narrow { .. } => self.iter().chain(std::iter::once(data_seq)).collect(),
        };
        let low = entries.iter().copied().min().unwrap_or(data_seq);
        let high = entries.iter().copied().max().unwrap_or(data_seq);
        *self = if high - low <= u64::from(u32::MAX) {
            SegmentMap::Narrow { base: low, offsets: entries.iter().map(|&d| (d - low) as u32).collect() }
        } else {
            SegmentMap::Wide(entries)
        };
    }

    /// Forgets the `n` oldest entries (acknowledged).
    #[inline(always)]
    pub fn forget_oldest(&mut self, n: usize) {
        match self {
            SegmentMap::Narrow { offsets, .. } => drop(offsets.drain(..n)),
            SegmentMap::Wide(entries) => drop(entries.drain(..n)),
        }
    }

    /// The entries, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        let (base, narrow, wide) = match self {
            SegmentMap::Narrow { base, offsets } => (*base, Some(offsets), None),
            SegmentMap::Wide(entries) => (0, None, Some(entries)),
        };
        narrow.into_iter().flatten().map(move |&o| base + u64::from(o)).chain(wide.into_iter().flatten().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(map: &SegmentMap) -> Vec<u64> {
        map.iter().collect()
    }

    #[test]
    fn holds_entries_in_order_and_forgets_the_oldest() {
        let mut map = SegmentMap::default();
        for d in [5, 6, 9, 7] {
            map.push(d);
        }
        assert_eq!((map.len(), map.get(2)), (4, 9));
        map.forget_oldest(2);
        assert_eq!(entries(&map), [9, 7]);
        assert!(matches!(map, SegmentMap::Narrow { .. }));
    }

    #[test]
    fn an_entry_below_the_base_moves_it() {
        let mut map = SegmentMap::Narrow { base: 1_000, offsets: VecDeque::new() };
        map.push(1_004);
        map.push(3);
        assert_eq!(entries(&map), [1_004, 3]);
        assert!(matches!(map, SegmentMap::Narrow { base: 3, .. }), "{map:?}");
    }

    #[test]
    fn entries_past_32_bits_of_the_base_move_it_or_widen_the_map() {
        let far = 1u64 << 40;
        let mut map = SegmentMap::default();
        map.push(7);
        map.forget_oldest(1);
        // Nothing held below: the base moves up, still 32 bits an entry.
        map.push(far);
        map.push(far + 1);
        assert!(matches!(map, SegmentMap::Narrow { base, .. } if base == far), "{map:?}");
        // An entry still held 2^32 below the newest: 64 bits an entry.
        map.push(far + (1 << 33));
        assert!(matches!(map, SegmentMap::Wide(_)), "{map:?}");
        assert_eq!(entries(&map), [far, far + 1, far + (1 << 33)]);
        assert_eq!(map.get(2), far + (1 << 33));
        map.forget_oldest(1);
        map.push(3);
        assert_eq!(entries(&map), [far + 1, far + (1 << 33), 3]);
    }
}
