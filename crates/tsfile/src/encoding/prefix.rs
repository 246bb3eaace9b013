//! Decoding only the start of a page: the last page of a time range often ends past the
//! range, and its tail values would be decoded only to be dropped.

use super::{decode_values, gorilla, plain, ts2diff, DResult, Flavor, Values};
use crate::types::Encoding;

/// [`decode_values`] that may stop once `out` holds `stop` values (GORILLA and TS_2DIFF
/// soon after, fixed-width PLAIN exactly there; other encodings decode the whole page).
/// The caller uses the first `stop` values and ignores any beyond.
pub fn decode_page_prefix(
    flavor: Flavor,
    enc: Encoding,
    buf: &[u8],
    limit: usize,
    stop: usize,
    out: &mut Values,
) -> DResult<()> {
    match (enc, out) {
        (Encoding::Gorilla, Values::I32(v)) => gorilla::prefix(buf, limit, stop, v),
        (Encoding::Gorilla, Values::I64(v)) => gorilla::prefix(buf, limit, stop, v),
        (Encoding::Gorilla, Values::F32(v)) => gorilla::prefix(buf, limit, stop, v),
        (Encoding::Gorilla, Values::F64(v)) => gorilla::prefix(buf, limit, stop, v),
        (Encoding::Ts2Diff, Values::I32(v)) => ts2diff::prefix(buf, limit, stop, v),
        (Encoding::Ts2Diff, Values::I64(v)) => ts2diff::prefix(buf, limit, stop, v),
        (Encoding::Plain, Values::I64(v)) => plain::prefix_fixed(buf, limit, stop, v),
        (Encoding::Plain, Values::F32(v)) => plain::prefix_fixed(buf, limit, stop, v),
        (Encoding::Plain, Values::F64(v)) => plain::prefix_fixed(buf, limit, stop, v),
        (_, out) => decode_values(flavor, enc, buf, limit, out),
    }
}
