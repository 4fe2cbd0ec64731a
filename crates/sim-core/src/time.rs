//! Simulated time: an integer number of picoseconds.
//!
//! Integer time makes every run exact and reproducible: serialization times of whole packets at
//! rates like 10 Gb/s are whole picoseconds, and sums never round. `u64` picoseconds cover 213
//! days, far beyond any experiment.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Time zero, the start of every run.
    pub const ZERO: Time = Time(0);
    /// A time later than any event of a run.
    pub const NEVER: Time = Time(u64::MAX);
    /// 10¹², the scale between a [`Time`] and seconds.
    pub const PS_PER_SEC: u64 = 1_000_000_000_000;

    /// `n` picoseconds: the representation itself, no conversion.
    pub const fn from_ps(n: u64) -> Time {
        Time(n)
    }
    /// `n` ns, exactly (`n · 10³` ps).
    pub const fn from_ns(n: u64) -> Time {
        Time(n * 1_000)
    }
    /// `n` µs, exactly (`n · 10⁶` ps).
    pub const fn from_us(n: u64) -> Time {
        Time(n * 1_000_000)
    }
    /// `n` ms, exactly (`n · 10⁹` ps).
    pub const fn from_ms(n: u64) -> Time {
        Time(n * 1_000_000_000)
    }
    /// `n` s, exactly (`n · 10¹²` ps).
    pub const fn from_secs(n: u64) -> Time {
        Time(n * Self::PS_PER_SEC)
    }
    /// The nearest picosecond to `s` seconds; negative or non-finite input gives `None`.
    pub fn try_from_secs_f64(s: f64) -> Option<Time> {
        let ps = (s * Self::PS_PER_SEC as f64).round();
        (ps.is_finite() && ps >= 0.0 && ps < u64::MAX as f64).then_some(Time(ps as u64))
    }
    /// The nearest picosecond to `s` seconds (saturating at zero and at [`Time::NEVER`]).
    pub fn from_secs_f64(s: f64) -> Time {
        Self::try_from_secs_f64(s).unwrap_or(if s > 0.0 { Time::NEVER } else { Time::ZERO })
    }
    /// This time in seconds, to `f64` precision: for records, reports and window laws, which
    /// work in seconds (event times stay integer).
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        // Through i64 (one instruction) while the value fits, as every finite time of a run does.
        if self.0 <= i64::MAX as u64 { self.0 as i64 as f64 * 1e-12 } else { self.0 as f64 * 1e-12 }
    }
    /// The exact count of picoseconds, for integer arithmetic on times (rounding to a timer
    /// granularity, drawing uniform times).
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// `self + d` for finite times, as the per-packet path adds them (a clock plus a delay or a
    /// serialization): one instruction, where `+` saturates at [`Time::NEVER`] for the
    /// sentinels it may meet. The sum must stay below 2^64 ps (213 days).
    #[inline(always)]
    pub fn plus(self, d: Time) -> Time {
        debug_assert!(self != Time::NEVER && d != Time::NEVER, "plus is for finite times");
        Time(self.0 + d.0)
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_sub(self, earlier: Time) -> Time {
        Time(self.0.saturating_sub(earlier.0))
    }
    /// `self · k`, saturating at [`Time::NEVER`] rather than wrapping (the RTO backoff
    /// multiplies by `2^k` before capping).
    pub fn saturating_mul(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
    }
}

impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, rhs: Time) {
        *self = *self + rhs;
    }
}

impl Sub for Time {
    type Output = Time;
    #[inline]
    fn sub(self, rhs: Time) -> Time {
        debug_assert!(self >= rhs, "time went backwards: {self} - {rhs}");
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps == u64::MAX {
            write!(f, "never")
        } else if ps.is_multiple_of(Self::PS_PER_SEC) {
            write!(f, "{}s", ps / Self::PS_PER_SEC)
        } else if ps >= Self::PS_PER_SEC {
            // The digits of the picoseconds themselves: through an f64, 1.3 s reads 1.2999999999999998s.
            let fraction = format!("{:012}", ps % Self::PS_PER_SEC);
            write!(f, "{}.{}s", ps / Self::PS_PER_SEC, fraction.trim_end_matches('0'))
        } else if ps.is_multiple_of(1_000_000_000) {
            write!(f, "{}ms", ps / 1_000_000_000)
        } else if ps.is_multiple_of(1_000_000) {
            write!(f, "{}us", ps / 1_000_000)
        } else {
            write!(f, "{ps}ps")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact() {
        assert_eq!(Time::from_ms(5), Time::from_us(5_000));
        assert_eq!(Time::from_secs_f64(1.5), Time::from_ms(1_500));
        assert_eq!(Time::from_secs_f64(0.1e-3), Time::from_us(100));
        assert_eq!(Time::try_from_secs_f64(-1.0), None);
        assert_eq!(Time::try_from_secs_f64(f64::NAN), None);
        assert_eq!(Time::from_ms(250).to_string(), "250ms");
        assert_eq!(Time::from_ms(1_300).to_string(), "1.3s");
        assert_eq!((Time::from_secs(3) + Time(1)).to_string(), "3.000000000001s");
    }
}
