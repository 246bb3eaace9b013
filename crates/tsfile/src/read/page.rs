//! Page-level checks and helpers shared by the aligned and non-aligned page loops.

use crate::builder::date_to_days;
use crate::bytes::err;
use crate::chunk::{ChunkHeader, PageHeader};
use crate::encoding::{decode_page, DecErr, Values};
use crate::meta::Stats;
use crate::types::{Compression, Encoding, TsType};
use arrowsmith_core::{DecodeError, ErrorCode, Result};

/// What makes a read cut into time slices (the worker pool's) give the rows of a whole
/// read: each page's statistics lie within its chunk's and follow the previous page's, and
/// the times a page holds are in order and within its statistics ([`check_times`]). Every
/// writer keeps these; a file that breaks one is refused by whichever read meets it, since
/// otherwise a slice would skip a page whose statistics lie about the rows it holds.
#[derive(Default)]
pub(super) struct PageOrder {
    /// The end time of the previous page with statistics.
    prev_end: Option<i64>,
}

impl PageOrder {
    pub(super) fn check(&mut self, p: &PageHeader, ps: &Stats, chunk: &Stats) -> Result<()> {
        if ps.count == 0 {
            return Ok(()); // no range claimed (odd writers): nothing pruned by it either
        }
        let bad = |m: String| Err(page_err(p, "", format!("statistics {m}")));
        if ps.start > ps.end {
            return bad(format!("start {} after end {}", ps.start, ps.end));
        }
        if chunk.count > 0 && (ps.start < chunk.start || ps.end > chunk.end) {
            return bad(format!(
                "{}..{} outside its chunk's {}..{}",
                ps.start, ps.end, chunk.start, chunk.end
            ));
        }
        if let Some(prev) = self.prev_end.filter(|&e| ps.start < e) {
            return bad(format!(
                "start {} before the previous page's end {prev}",
                ps.start
            ));
        }
        self.prev_end = Some(ps.end);
        Ok(())
    }
}

/// The smallest and largest time of the pages [`check_times`] passed: every time a read
/// outputs lies within it (its pages' times, each page in order, so its first and last
/// bound it), which spares the output a scan of its own (`js_readable`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TimeSpan {
    pub lo: i64,
    pub hi: i64,
}

impl Default for TimeSpan {
    fn default() -> Self {
        TimeSpan {
            lo: i64::MAX,
            hi: i64::MIN,
        }
    }
}

/// A page's decoded times are in order and within its statistics (see [`PageOrder`]);
/// `span` grows to cover them.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(super) fn check_times(
    p: &PageHeader,
    ps: &Stats,
    times: &[i64],
    span: &mut TimeSpan,
) -> Result<()> {
    // One branch-free pass the compiler vectorises; the offending pair is searched only
    // when there is one.
    let unordered = times
        .iter()
        .zip(times.iter().skip(1))
        .fold(false, |bad, (a, b)| bad | (b < a));
    if unordered {
        if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
            return Err(page_err(
                p,
                "time",
                format!("time {} follows {} (out of order)", times[i + 1], times[i]),
            ));
        }
    }
    if let (true, Some(&a), Some(&b)) = (ps.count > 0, times.first(), times.last()) {
        if a < ps.start || b > ps.end {
            return Err(page_err(
                p,
                "time",
                format!(
                    "times {a}..{b} outside its statistics {}..{}",
                    ps.start, ps.end
                ),
            ));
        }
    }
    if let (Some(&a), Some(&b)) = (times.first(), times.last()) {
        span.lo = span.lo.min(a);
        span.hi = span.hi.max(b);
    }
    Ok(())
}

/// A non-aligned page's times. The file does not record their encoding, so candidates are
/// tried in turn: TS_2DIFF (every writer's default), PLAIN, then REGULAR (the Java writers
/// 0.13–2.1 with `timeEncoder=REGULAR`). A candidate is taken when it decodes and agrees with
/// the page's statistics (count, first and last time: O(1), the TS_2DIFF/PLAIN hot path
/// gains nothing else). PLAIN accepts any multiple of 8 bytes, and REGULAR bytes can be one,
/// so REGULAR is tried when PLAIN disagrees; REGULAR itself also needs statistics and
/// ascending times. Without an agreeing candidate the first that decoded is kept (the
/// reader's behaviour before REGULAR; [`check_times`] and the value count then judge it); a
/// page none decodes is `Invalid`, naming each candidate's error.
pub(super) fn decode_times(
    p: &PageHeader,
    ps: &Stats,
    tb: &[u8],
    limit: usize,
) -> Result<Vec<i64>> {
    let mut tv = Values::I64(Vec::new());
    let mut first_ok = None;
    let e2 = match decode_page(Encoding::Ts2Diff, tb, limit, &mut tv) {
        Ok(()) => {
            let t = into_i64(tv);
            if agrees(ps, &t) {
                return Ok(t);
            }
            first_ok = Some(t);
            None
        }
        Err(e) => Some(e),
    };
    tv = Values::I64(Vec::new());
    let ep = match decode_page(Encoding::Plain, tb, limit, &mut tv) {
        Ok(()) => {
            let t = into_i64(tv);
            if agrees(ps, &t) {
                return Ok(t);
            }
            first_ok.get_or_insert(t);
            None
        }
        Err(e) => Some(e),
    };
    let er = match regular_times(ps, tb, limit) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    if let Some(t) = first_ok {
        return Ok(t);
    }
    let tried = |name: &str, e: &DecErr| format!("{name} (stream position {}: {})", e.pos, e.msg);
    let (e2, ep) = (e2.expect("TS_2DIFF failed"), ep.expect("PLAIN failed"));
    Err(page_err(
        p,
        "time",
        format!(
            "no time encoding decodes it; tried {}, {}, {}",
            tried("TS_2DIFF", &e2),
            tried("PLAIN", &ep),
            tried("REGULAR", &er)
        ),
    ))
}

/// Decoded times agree with the page's statistics (when it has a count): O(1).
#[inline]
fn agrees(ps: &Stats, t: &[i64]) -> bool {
    ps.count == 0
        || t.len() as u64 == ps.count && t.first() == Some(&ps.start) && t.last() == Some(&ps.end)
}

/// REGULAR as a candidate time encoding (see [`decode_times`]): out of line, rare. It
/// consumes every byte or fails; the page must have statistics to agree with, and ascending
/// times.
#[cold]
#[inline(never)]
fn regular_times(ps: &Stats, tb: &[u8], limit: usize) -> std::result::Result<Vec<i64>, DecErr> {
    let mut tv = Values::I64(Vec::new());
    decode_page(Encoding::Regular, tb, limit, &mut tv)?;
    let t = into_i64(tv);
    let bad = |msg: String| DecErr {
        pos: tb.len(),
        msg,
        unsupported: false,
    };
    if ps.count == 0 || !agrees(ps, &t) {
        return Err(bad(format!(
            "{} times{} disagree with the page's statistics (count {}, {}..{})",
            t.len(),
            match (t.first(), t.last()) {
                (Some(a), Some(b)) => format!(" {a}..{b}"),
                _ => String::new(),
            },
            ps.count,
            ps.start,
            ps.end
        )));
    }
    if t.windows(2).any(|w| w[1] < w[0]) {
        return Err(bad("times out of order".into()));
    }
    Ok(t)
}

fn into_i64(v: Values) -> Vec<i64> {
    match v {
        Values::I64(t) => t,
        _ => unreachable!("time columns decode to I64"),
    }
}

pub(super) fn page_overlaps(s: &Stats, start: i64, end: i64) -> bool {
    // A page's count may be 0 in odd writers; only prune on a real range.
    s.start <= end && s.end >= start || s.count == 0 && s.start > s.end
}

/// The rows a page may add: its statistics count, else what its size allows.
pub(super) fn page_rows(ps: &Stats, p: &PageHeader) -> usize {
    if ps.count > 0 {
        (ps.count as usize).min(value_limit(p.uncompressed))
    } else {
        value_limit(p.uncompressed)
    }
}

/// Upper bound on the values a page of `uncompressed` bytes may hold.
pub(super) fn value_limit(uncompressed: usize) -> usize {
    uncompressed.saturating_mul(64).saturating_add(1 << 16)
}

pub(super) fn time_encoding(h: &ChunkHeader) -> Result<Encoding> {
    match Encoding::from_id(h.encoding) {
        Some(
            e @ (Encoding::Plain
            | Encoding::Ts2Diff
            | Encoding::Gorilla
            | Encoding::Rle
            | Encoding::Zigzag
            | Encoding::Chimp
            | Encoding::Sprintz
            | Encoding::Rlbe
            | Encoding::Regular),
        ) => Ok(e),
        _ => Ok(Encoding::Ts2Diff),
    }
}

/// A value chunk's encoding; an id no writer we know uses is `Unsupported` (a newer writer's
/// encoding), like an encoding we know but do not decode.
pub(super) fn value_encoding(h: &ChunkHeader) -> Result<Encoding> {
    Encoding::from_id(h.encoding).ok_or_else(|| {
        err(
            h.offset,
            ErrorCode::Unsupported,
            format!(
                "chunk header at byte {}: unknown encoding {}",
                h.offset, h.encoding
            ),
        )
    })
}

pub(super) fn compression(h: &ChunkHeader) -> Result<Compression> {
    Compression::from_id(h.compression).ok_or_else(|| {
        err(
            h.offset,
            ErrorCode::Unsupported,
            format!(
                "chunk header at byte {}: unknown compression {}",
                h.offset, h.compression
            ),
        )
    })
}

pub(super) fn page_err(p: &PageHeader, what: &str, m: String) -> DecodeError {
    let sp = if what.is_empty() { "" } else { " " };
    err(
        p.offset,
        ErrorCode::Invalid,
        format!("{what}{sp}page at byte {}: {m}", p.offset),
    )
}

pub(super) fn dec_err(p: &PageHeader, what: &str, e: DecErr) -> DecodeError {
    let code = if e.unsupported {
        ErrorCode::Unsupported
    } else {
        ErrorCode::Invalid
    };
    err(
        p.offset,
        code,
        format!(
            "{what} page at byte {}: stream position {}: {}",
            p.offset, e.pos, e.msg
        ),
    )
}

pub(super) fn fix_dates(t: TsType, v: &mut Values, p: &PageHeader) -> Result<()> {
    if t == TsType::Date {
        if let Values::I32(v) = v {
            for x in v.iter_mut() {
                *x = date_to_days(*x).ok_or_else(|| {
                    page_err(p, "value", format!("DATE value {x} is not a yyyyMMdd date"))
                })?;
            }
        }
    }
    Ok(())
}

pub(super) fn append_values(dst: &mut Values, src: &Values, lo: usize, hi: usize) {
    match (dst, src) {
        (Values::Bool(d), Values::Bool(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::I32(d), Values::I32(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::I64(d), Values::I64(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::F32(d), Values::F32(s)) => d.extend_from_slice(&s[lo..hi]),
        (Values::F64(d), Values::F64(s)) => d.extend_from_slice(&s[lo..hi]),
        (
            Values::Bytes {
                offsets: d_o,
                data: d_d,
            },
            Values::Bytes {
                offsets: s_o,
                data: s_d,
            },
        ) => {
            for k in lo..hi {
                d_d.extend_from_slice(&s_d[s_o[k] as usize..s_o[k + 1] as usize]);
                d_o.push(d_d.len() as u32);
            }
        }
        _ => unreachable!(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(offset: u64) -> PageHeader {
        PageHeader {
            offset,
            uncompressed: 1,
            compressed: 1,
            stats: None,
            body: offset,
        }
    }
    const fn st(count: u64, start: i64, end: i64) -> Stats {
        Stats { count, start, end }
    }

    /// Statistics that would let a time slice skip rows a whole read returns are refused.
    #[test]
    fn page_statistics_must_follow_and_nest() {
        let chunk = st(9, 0, 100);
        let mut o = PageOrder::default();
        o.check(&page(10), &st(3, 0, 20), &chunk).unwrap();
        o.check(&page(20), &st(0, 90, 5), &chunk).unwrap(); // no range claimed
        o.check(&page(30), &st(3, 20, 50), &chunk).unwrap(); // may touch the previous end
        let e = o.check(&page(40), &st(3, 10, 60), &chunk).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 40));
        assert!(
            e.message.contains("before the previous page's end 50"),
            "{e}"
        );
        let mut o = PageOrder::default();
        assert!(o.check(&page(1), &st(3, 50, 40), &chunk).is_err());
        assert!(o.check(&page(1), &st(3, 50, 140), &chunk).is_err());
    }

    /// A REGULAR time block (no missing points), big-endian like the Java writer's.
    fn regular_block(n: i32, step: i64, first: i64) -> Vec<u8> {
        let mut b = vec![0u8];
        b.extend(n.to_be_bytes());
        b.extend(step.to_be_bytes());
        b.extend(first.to_be_bytes());
        b
    }

    #[test]
    fn regular_times_are_inferred_after_ts2diff_and_plain() {
        let p = page(3);
        let tb = regular_block(5, 10, 100);
        let t = decode_times(&p, &st(5, 100, 140), &tb, 5).unwrap();
        assert_eq!(t, [100, 110, 120, 130, 140]);
        // 8 blocks: 168 bytes, which PLAIN reads as 21 times; the statistics say 16.
        let tb: Vec<u8> = (0..8).flat_map(|k| regular_block(2, 1, 10 * k)).collect();
        let t = decode_times(&p, &st(16, 0, 71), &tb, 16).unwrap();
        assert_eq!(
            t,
            [0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51, 60, 61, 70, 71]
        );
        // PLAIN pages decode as PLAIN (these bytes also decode as TS_2DIFF, to one time).
        let tb: Vec<u8> = [5i64, 6, 9].iter().flat_map(|t| t.to_be_bytes()).collect();
        assert_eq!(decode_times(&p, &st(3, 5, 9), &tb, 3).unwrap(), [5, 6, 9]);
    }

    #[test]
    fn regular_times_must_agree_with_the_statistics() {
        let p = page(3);
        let tb = regular_block(5, 10, 100);
        for ps in [
            st(4, 100, 130),
            st(5, 100, 150),
            st(0, 0, 0),
            st(6, 100, 150),
        ] {
            let e = decode_times(&p, &ps, &tb, 6).unwrap_err();
            assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 3));
            for name in ["TS_2DIFF (", "PLAIN (", "REGULAR ("] {
                assert!(e.message.contains(name), "{e}");
            }
        }
        // Descending times are no REGULAR time column.
        let tb = regular_block(3, -10, 100);
        let e = decode_times(&p, &st(3, 80, 100), &tb, 3).unwrap_err();
        assert!(
            e.message.contains("REGULAR (") && e.message.contains("disagree"),
            "{e}"
        );
    }

    #[test]
    fn page_times_must_be_in_order_and_within_statistics() {
        let p = page(7);
        let mut span = TimeSpan::default();
        check_times(&p, &st(3, 10, 30), &[10, 20, 30], &mut span).unwrap();
        check_times(&p, &st(0, 0, 0), &[-5, 99], &mut span).unwrap(); // no range claimed
        assert_eq!(span, TimeSpan { lo: -5, hi: 99 });
        assert!(check_times(&p, &st(3, 10, 30), &[10, 30, 20], &mut span).is_err());
        let e = check_times(&p, &st(3, 10, 30), &[10, 20, 31], &mut span).unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(e.message.contains("outside its statistics"), "{e}");
        assert!(check_times(&p, &st(3, 10, 30), &[9, 20], &mut span).is_err());
        check_times(&p, &st(0, 0, 0), &[], &mut span).unwrap();
        assert_eq!(
            span,
            TimeSpan { lo: -5, hi: 99 },
            "refused pages add nothing"
        );
    }

    /// The vectorised order check finds a step back at every position of pages of every
    /// length around its lanes, names that pair, and lets equal times through; the span
    /// grows to each accepted page's first and last time.
    #[test]
    fn every_step_back_is_found() {
        let p = page(3);
        for len in 2..40i64 {
            let times: Vec<i64> = (0..len).map(|i| 1000 + 10 * i - 5 * (i % 2)).collect();
            let (last, mut span) = (times[len as usize - 1], TimeSpan::default());
            // The page, then a flat page of earlier times: the span takes in both.
            for (page_times, lo) in [(times.clone(), 1000), (vec![7i64; len as usize], 7)] {
                check_times(&p, &st(0, 0, 0), &page_times, &mut span).unwrap();
                assert_eq!(span, TimeSpan { lo, hi: last });
            }
            for at in 1..len as usize {
                let mut bad = times.clone();
                bad[at] = bad[at - 1] - 1;
                let e = check_times(&p, &st(0, 0, 0), &bad, &mut span).unwrap_err();
                let want = format!("time {} follows {} (out of order)", bad[at], bad[at - 1]);
                assert!(e.message.contains(&want), "len {len} at {at}: {e}");
            }
        }
    }
}
