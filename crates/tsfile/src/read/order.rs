//! Out-of-order chunk groups: a device flushed in several chunk groups whose times go
//! backwards or overlap (unsequence data, out-of-order tablets between flushes). Detected
//! once per series from the chunk statistics; only then are its rows sorted.
//!
//! The official Java reader keeps every point of every chunk (nothing is merged away: a
//! timestamp in two chunk groups is two points), so these rows are every point too, in time
//! order; points of one time keep the order of their chunks by start time, then file offset
//! (the table model's reader order). See docs/tsfile.md, "Out-of-order chunk groups".

use crate::encoding::Values;
use crate::meta::ChunkMeta;

/// Chunks (in file order) whose times follow one another: each non-empty chunk starts after
/// the previous one ends. Equal times across chunks count as out of order (both are kept).
pub(super) fn in_order(chunks: &[ChunkMeta]) -> bool {
    let mut prev_end: Option<i64> = None;
    for c in chunks.iter().filter(|c| c.stats.count > 0) {
        if prev_end.is_some_and(|e| c.stats.start <= e) {
            return false;
        }
        prev_end = Some(c.stats.end);
    }
    true
}

/// The order chunks of an out-of-order series are read in: by start time, then file offset
/// (empty chunks last).
pub(super) fn start_key(c: &ChunkMeta) -> (bool, i64, u64) {
    (c.stats.count == 0, c.stats.start, c.offset)
}

/// Sort chunks by [`start_key`].
pub(super) fn by_start(chunks: &mut [ChunkMeta]) {
    chunks.sort_by_key(start_key);
}

/// The permutation that sorts `times` stably (equal times keep their order).
pub(super) fn time_order(times: &[i64]) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..times.len()).collect();
    perm.sort_by_key(|&i| times[i]);
    perm
}

/// `vals` in the order `perm` gives.
pub(super) fn gather(vals: &Values, perm: &[usize]) -> Values {
    match vals {
        Values::Bool(v) => Values::Bool(perm.iter().map(|&i| v[i]).collect()),
        Values::I32(v) => Values::I32(perm.iter().map(|&i| v[i]).collect()),
        Values::I64(v) => Values::I64(perm.iter().map(|&i| v[i]).collect()),
        Values::F32(v) => Values::F32(perm.iter().map(|&i| v[i]).collect()),
        Values::F64(v) => Values::F64(perm.iter().map(|&i| v[i]).collect()),
        Values::Bytes { offsets, data } => {
            let mut o = Vec::with_capacity(perm.len() + 1);
            let mut d = Vec::with_capacity(data.len());
            o.push(0);
            for &i in perm {
                d.extend_from_slice(&data[offsets[i] as usize..offsets[i + 1] as usize]);
                o.push(d.len() as u32);
            }
            Values::Bytes {
                offsets: o,
                data: d,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::Stats;

    fn c(offset: u64, count: u64, start: i64, end: i64) -> ChunkMeta {
        ChunkMeta {
            offset,
            stats: Stats { count, start, end },
        }
    }

    #[test]
    fn order_is_detected_from_the_statistics() {
        assert!(in_order(&[
            c(1, 3, 0, 10),
            c(2, 0, i64::MAX, i64::MIN),
            c(3, 2, 11, 20)
        ]));
        assert!(
            !in_order(&[c(1, 3, 0, 10), c(3, 2, 10, 20)]),
            "a repeated time"
        );
        assert!(!in_order(&[c(1, 3, 50, 60), c(3, 2, 0, 20)]), "backwards");
        let mut v = vec![
            c(1, 3, 50, 60),
            c(2, 0, i64::MAX, i64::MIN),
            c(3, 2, 0, 20),
            c(4, 1, 50, 50),
        ];
        by_start(&mut v);
        assert_eq!(v.iter().map(|c| c.offset).collect::<Vec<_>>(), [3, 1, 4, 2]);
    }

    #[test]
    fn equal_times_keep_their_order() {
        assert_eq!(time_order(&[5, 1, 5, 0, 1]), [3, 1, 4, 0, 2]);
        let b = Values::Bytes {
            offsets: vec![0, 1, 3, 3],
            data: b"abc".to_vec(),
        };
        let Values::Bytes { offsets, data } = gather(&b, &[1, 2, 0]) else {
            unreachable!()
        };
        assert_eq!((offsets, data), (vec![0, 2, 2, 3], b"bca".to_vec()));
    }
}
