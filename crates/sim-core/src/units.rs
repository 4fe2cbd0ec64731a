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
}
