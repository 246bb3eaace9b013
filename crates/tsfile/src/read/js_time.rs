//! Time values apache-arrow can read back as JS numbers.

use super::page::TimeSpan;
use crate::bytes::err;
use arrowsmith_core::{ErrorCode, Result, TimeUnit};

/// apache-arrow turns a Timestamp value into a JS number whenever it is read (`get`, rows,
/// `toJSON`) and throws past ±(2^53 − 1) of that number: seconds and milliseconds are
/// converted as they are, microseconds divided by 1,000, nanoseconds by 10^6 (every int64
/// fits then). The largest raw value `unit` can carry, `None` for no limit.
fn js_time_bound(unit: TimeUnit) -> Option<i64> {
    const SAFE: i64 = (1 << 53) - 1;
    match unit {
        TimeUnit::Second | TimeUnit::Millisecond => Some(SAFE),
        TimeUnit::Microsecond => Some(SAFE * 1000 + 999),
        TimeUnit::Nanosecond => None,
    }
}

/// Refuse, at decode time, a time or TIMESTAMP column that apache-arrow could not read back
/// in `unit` (a table whose values throw when read is worse than an error naming the cure).
/// Nulls hold 0. `within`, when known, bounds every value (the time column's pages: then
/// no scan is needed unless it exceeds the limit). `device_of(row)` names the device and its
/// first chunk's offset.
pub(super) fn js_readable(
    v: &[i64],
    within: Option<TimeSpan>,
    unit: TimeUnit,
    column: &str,
    device_of: &dyn Fn(usize) -> (String, u64),
) -> Result<()> {
    let Some(bound) = js_time_bound(unit) else {
        return Ok(());
    };
    if within.is_some_and(|s| s.lo >= -bound && s.hi <= bound) {
        return Ok(());
    }
    // One pass the compiler vectorises; the offending row is searched only on failure.
    let (lo, hi) = v
        .iter()
        .fold((0i64, 0i64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if lo >= -bound && hi <= bound {
        return Ok(());
    }
    let row = v
        .iter()
        .position(|x| x.unsigned_abs() > bound as u64)
        .unwrap_or(0);
    let (device, offset) = device_of(row);
    let (name, advice) = match unit {
        TimeUnit::Second => ("s", "; microseconds 'us'"),
        TimeUnit::Millisecond => ("ms", "; microseconds 'us'"),
        _ => ("us", ""),
    };
    Err(err(
        offset,
        ErrorCode::Unsupported,
        format!(
            "{column} value {} of device {device} does not fit a JS number as Timestamp({name}) \
             (beyond ±(2^53 − 1) after the unit's conversion), so apache-arrow could not read it \
             back; if the file's times are nanoseconds, read with timeUnit 'ns' (every int64 \
             fits){advice}",
            v[row]
        ),
    ))
}
