//! Link rates and their exact serialization times.

use crate::time::Time;

/// A transmission rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl Rate {
    /// `n` bit/s, the unit a [`Rate`] stores.
    pub const fn bps(n: u64) -> Rate {
        Rate(n)
    }
    /// `n` Mb/s in decimal units (`n · 10⁶` bit/s), as link rates are quoted.
    pub const fn mbps(n: u64) -> Rate {
        Rate(n * 1_000_000)
    }
    /// `n` Gb/s in decimal units (`n · 10⁹` bit/s).
    pub const fn gbps(n: u64) -> Rate {
        Rate(n * 1_000_000_000)
    }
    /// The rate in bit/s, an integer so that serialization times derived from it are exact.
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` at this rate, rounded up to the next picosecond.
    #[inline]
    pub fn serialization_time(self, bytes: u64) -> Time {
        let num = bytes as u128 * 8 * Time::PS_PER_SEC as u128;
        Time(num.div_ceil(self.0 as u128) as u64)
    }
    /// htsim's serialization time (`Queue::drainTime`): `bytes` times the picoseconds per byte
    /// truncated to an integer, `⌊8·10¹²/rate⌋`, so that at 6 Mb/s a 1 500-byte packet takes
    /// 0.5 ns less than 2 ms. At least 1 ps per byte (above 8 Tb/s htsim's would be 0).
    pub fn serialization_time_htsim(self, bytes: u64) -> Time {
        let per_byte = (8 * Time::PS_PER_SEC / self.0).max(1);
        Time((bytes as u128 * per_byte as u128).min(u64::MAX as u128) as u64)
    }
    /// Bytes that this rate carries in `t` (rounded down).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / (8 * Time::PS_PER_SEC as u128)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact() {
        assert_eq!(Rate::gbps(10).serialization_time(1500), Time::from_ns(1200));
        assert_eq!(Rate::mbps(100).serialization_time(1500), Time::from_us(120));
        // 1500 B at 3 b/s is 4000 s exactly; at 7 b/s it rounds up.
        assert_eq!(Rate::bps(3).serialization_time(1500), Time::from_secs(4000));
        assert_eq!(Rate::bps(7).serialization_time(1), Time(1_142_857_142_858));
        assert_eq!(Rate::mbps(100).bytes_in(Time::from_ms(100)), 1_250_000);
    }

    #[test]
    fn htsims_serialization_truncates_the_picoseconds_per_byte() {
        // 6 Mb/s: 1 333 333.3 ps per byte, truncated, so 1 500 B take 2 ms − 500 ps.
        assert_eq!(Rate::mbps(6).serialization_time_htsim(1500), Time(1_999_999_500));
        // Where the picoseconds per byte are whole, the two agree.
        assert_eq!(Rate::gbps(10).serialization_time_htsim(1500), Rate::gbps(10).serialization_time(1500));
        assert_eq!(Rate::mbps(100).serialization_time_htsim(40), Rate::mbps(100).serialization_time(40));
        // Never zero, never wrapped.
        assert_eq!(Rate::bps(u64::MAX).serialization_time_htsim(1500), Time(1500));
        assert_eq!(Rate::bps(1).serialization_time_htsim(u64::MAX), Time(u64::MAX));
    }
}
