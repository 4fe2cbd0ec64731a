//! Quantities with units, as scenario files write them: `"5ms"`, `"100Mbps"`, `"70KB"`.
//!
//! Every quantity is a string with a unit, so that a bare `100` is never silently taken as
//! bits, bytes or seconds. Multipliers are powers of 1000.

use sim_core::Time;

/// A rate before the packet size is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RateValue {
    /// Written with a bit-rate unit (`bps` … `Tbps`), held in bits per second.
    Bps(f64),
    /// Packets of `sim.mss` bytes per second.
    Pps(f64),
}

/// A size before the packet size is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeValue {
    /// Written with a byte unit (`B` … `GB`), held in bytes.
    Bytes(f64),
    /// Packets of `sim.mss` bytes.
    Packets(f64),
}

impl SizeValue {
    /// Bytes, with `mss` bytes per packet.
    pub fn bytes(self, mss: u32) -> f64 {
        match self {
            SizeValue::Bytes(b) => b,
            SizeValue::Packets(p) => p * mss as f64,
        }
    }
}

/// A buffer or threshold: a size, or a time at the link's rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferValue {
    /// A fixed size, in bytes or in packets.
    Size(SizeValue),
    /// This long at the link's rate.
    Time(Time),
}

/// Splits `"1.5ms"` into `(1.5, "ms")`.
fn split(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')).unwrap_or(s.len());
    // No unit starts with 'e', so an 'e' here is always an exponent.
    let (num, unit) = s.split_at(end);
    let value: f64 = num.parse().ok()?;
    value.is_finite().then_some((value, unit.trim()))
}

/// Time units and their length in seconds.
pub const TIME_UNITS: &[(&str, f64)] = &[("ps", 1e-12), ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0), ("min", 60.0)];
/// Rate units and their value in bits per second (`pps` is handled apart).
pub const RATE_UNITS: &[(&str, f64)] = &[("bps", 1.0), ("Kbps", 1e3), ("kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9), ("Tbps", 1e12)];
/// Size units and their value in bytes (`pkt` is handled apart).
pub const SIZE_UNITS: &[(&str, f64)] = &[("B", 1.0), ("KB", 1e3), ("kB", 1e3), ("MB", 1e6), ("GB", 1e9)];

fn lookup(unit: &str, table: &[(&str, f64)]) -> Option<f64> {
    table.iter().find(|(u, _)| *u == unit).map(|&(_, f)| f)
}

/// An estimate of bytes above a cap, both in one unit (MB below a gigabyte, GB from one) with
/// as many decimals as it takes for them to read apart, down to whole bytes: a refusal shows
/// by how much the cap is exceeded (not "0.27 GB; at most 0.27 GB").
pub fn sizes_apart(estimate: f64, cap: f64) -> (String, String) {
    let (scale, unit, whole) = if estimate.max(cap) >= 1e9 { (1e9, "GB", 9) } else { (1e6, "MB", 6) };
    let show = |x: f64, d: usize| format!("{:.d$} {unit}", x / scale);
    let d = (2..whole).find(|&d| show(estimate, d) != show(cap, d)).unwrap_or(whole);
    (show(estimate, d), show(cap, d))
}

/// Parses a non-negative time such as `"250us"`.
pub fn parse_time(s: &str) -> Result<Time, String> {
    let expected = || format!("expected a time with a unit (ps, ns, us, ms, s, min) such as \"5ms\", got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(expected)?;
    let factor = lookup(unit, TIME_UNITS).ok_or_else(expected)?;
    if v < 0.0 {
        return Err(format!("expected a non-negative time, got \"{s}\""));
    }
    Time::try_from_secs_f64(v * factor).ok_or_else(|| format!("time \"{s}\" is out of range"))
}

/// Parses a positive rate such as `"100Mbps"` or `"1000pps"`.
pub fn parse_rate(s: &str) -> Result<RateValue, String> {
    let expected = || format!("expected a rate with a unit (bps, Kbps, Mbps, Gbps, pps) such as \"100Mbps\", got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(expected)?;
    if v <= 0.0 {
        return Err(format!("expected a positive rate, got \"{s}\""));
    }
    if unit == "pps" {
        return Ok(RateValue::Pps(v));
    }
    lookup(unit, RATE_UNITS).map(|f| RateValue::Bps(v * f)).ok_or_else(expected)
}

/// Parses a non-negative size such as `"1500B"`, `"70KB"` or `"64pkt"`.
pub fn parse_size(s: &str) -> Result<SizeValue, String> {
    let expected = || format!("expected a size with a unit (B, KB, MB, GB, pkt) such as \"1500B\", got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(expected)?;
    if v < 0.0 {
        return Err(format!("expected a non-negative size, got \"{s}\""));
    }
    if unit == "pkt" || unit == "pkts" {
        return Ok(SizeValue::Packets(v));
    }
    lookup(unit, SIZE_UNITS).map(|f| SizeValue::Bytes(v * f)).ok_or_else(expected)
}

/// Parses a buffer: a size, or a time meaning "this long at the link's rate".
pub fn parse_buffer(s: &str) -> Result<BufferValue, String> {
    if let Ok(size) = parse_size(s) {
        return Ok(BufferValue::Size(size));
    }
    parse_time(s)
        .map(BufferValue::Time)
        .map_err(|_| format!("expected a size (\"64pkt\", \"150KB\") or a time at the link rate (\"100ms\"), got \"{s}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse() {
        assert_eq!(parse_time("250us"), Ok(Time::from_us(250)));
        assert_eq!(parse_time("1.5s"), Ok(Time::from_ms(1500)));
        assert_eq!(parse_time("0s"), Ok(Time::ZERO));
        assert!(parse_time("5").unwrap_err().contains("with a unit"));
        assert!(parse_time("-5ms").unwrap_err().contains("non-negative"));
        assert_eq!(parse_rate("100Mbps"), Ok(RateValue::Bps(1e8)));
        assert_eq!(parse_rate("1000pps"), Ok(RateValue::Pps(1000.0)));
        assert!(parse_rate("100").is_err() && parse_rate("0Mbps").is_err() && parse_rate("5MB").is_err());
        assert_eq!(parse_size("70KB"), Ok(SizeValue::Bytes(70_000.0)));
        assert_eq!(parse_size("64pkt"), Ok(SizeValue::Packets(64.0)));
        assert_eq!(parse_buffer("100ms"), Ok(BufferValue::Time(Time::from_ms(100))));
        assert_eq!(parse_buffer("10pkt"), Ok(BufferValue::Size(SizeValue::Packets(10.0))));
        assert!(parse_buffer("10").is_err());
    }

    #[test]
    fn sizes_above_a_cap_read_apart_from_it() {
        assert_eq!(sizes_apart(268_500_000.0, 268_435_456.0), ("268.50 MB".into(), "268.44 MB".into()));
        assert_eq!(sizes_apart(268_436_000.0, 268_435_456.0), ("268.436 MB".into(), "268.435 MB".into()));
        assert_eq!(sizes_apart(16_000_000_100.0, 16e9), ("16.0000001 GB".into(), "16.0000000 GB".into()));
        assert_eq!(sizes_apart(2.5e10, 16e9), ("25.00 GB".into(), "16.00 GB".into()));
    }
}
