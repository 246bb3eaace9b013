//! Record keys found without validating or hashing them.
//!
//! Maps of one stream of records nearly always repeat their keys in the same order. For
//! each key position we keep the previous key's *encoded* bytes (str header + name, up to
//! 16 bytes) as one little-endian `u128` and a mask; the next key is a hit when the same
//! 16-byte window of the input agrees under the mask. That is one load and one compare,
//! instead of a header decode, a `memcmp` call and a pointer chase to the field name. The
//! header byte is part of the compared bytes, so a hit means the key is byte-identical to
//! a key that was already validated and resolved: the outcome cannot differ.
//!
//! Logs and optional fields vary the keys from map to map (a field present in one event,
//! absent from the next), which shifts the positions. Each field therefore also keeps the
//! encoding it was first resolved from, and a positional miss tries the fields that follow
//! the previous key's field (writers keep one relative order) before it decodes and hashes.

/// Longest encoded key (header included) that the cache holds.
const WIDTH: usize = 16;

/// Fields a positional miss compares before it decodes the key: enough for the optional
/// fields of a log event, bounded so that maps of ever-new keys stay linear.
const SCAN: usize = 16;

#[derive(Debug, Default, Clone, Copy)]
struct Slot {
    word: u128,
    mask: u128,
    /// Encoded length; 0 means "no fast compare here" (key longer than `WIDTH`).
    len: u8,
    /// Field the key resolved to (`u32::MAX`: none).
    field: u32,
}

#[derive(Debug, Default)]
pub struct KeyCache {
    slots: Vec<Slot>,
    /// Per field: the first encoding it was resolved from (`len` 0: none, or too long).
    fields: Vec<Slot>,
}

impl Slot {
    /// The slot of `encoded` (header + name) for `field`; `len` 0 when longer than `WIDTH`.
    fn of(encoded: &[u8], field: u32) -> Slot {
        if encoded.len() > WIDTH {
            return Slot {
                field,
                ..Slot::default()
            };
        }
        let mut w = [0u8; WIDTH];
        w[..encoded.len()].copy_from_slice(encoded);
        Slot {
            word: u128::from_le_bytes(w),
            mask: u128::MAX >> (8 * (WIDTH - encoded.len())),
            len: encoded.len() as u8,
            field,
        }
    }

    #[inline]
    fn matches(&self, w: u128) -> bool {
        self.len != 0 && (w ^ self.word) & self.mask == 0
    }
}

impl KeyCache {
    /// If the key encoded at the start of `src` is the one seen at map position `pos`
    /// last time: its field index and encoded length.
    #[inline]
    pub fn hit(&self, pos: usize, src: &[u8]) -> Option<(usize, usize)> {
        let s = self.slots.get(pos)?;
        let w: [u8; WIDTH] = src.get(..WIDTH)?.try_into().ok()?;
        if !s.matches(u128::from_le_bytes(w)) {
            return None;
        }
        Some((s.field as usize, s.len as usize))
    }

    /// After a positional miss: whether the key encoded at the start of `src` is that of
    /// one of the (at most `SCAN`) fields from `from` on, wrapping round: its field index
    /// and encoded length. The key at map position `pos` is remembered as that field.
    #[inline]
    pub fn scan(&mut self, pos: usize, from: usize, src: &[u8]) -> Option<(usize, usize)> {
        let n = self.fields.len();
        let w: [u8; WIDTH] = src.get(..WIDTH)?.try_into().ok()?;
        let w = u128::from_le_bytes(w);
        let from = if from < n { from } else { 0 };
        let hit = (from..n)
            .chain(0..from)
            .take(SCAN)
            .map(|f| self.fields[f])
            .find(|s| s.matches(w))?;
        self.put(pos, hit);
        Some((hit.field as usize, hit.len as usize))
    }

    /// The field that the key at map position `pos` resolved to last time, whatever its
    /// length (for a slower compare against the field's name).
    #[inline]
    pub fn last_field(&self, pos: usize) -> Option<usize> {
        let s = self.slots.get(pos)?;
        (s.field != u32::MAX).then_some(s.field as usize)
    }

    /// Remember that the key `encoded` (header + name) at map position `pos` is `field`.
    /// Positions past the end are only appended in order (a map's keys come in order).
    pub fn remember(&mut self, pos: usize, encoded: &[u8], field: usize) {
        let Ok(id) = u32::try_from(field) else {
            return;
        };
        let s = Slot::of(encoded, id);
        if field >= self.fields.len() {
            self.fields.resize(field + 1, Slot::default());
        }
        if self.fields[field].len == 0 {
            self.fields[field] = s;
        }
        self.put(pos, s);
    }

    fn put(&mut self, pos: usize, s: Slot) {
        if pos < self.slots.len() {
            self.slots[pos] = s;
        } else if pos == self.slots.len() {
            self.slots.push(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_only_identical_encodings() {
        let mut c = KeyCache::default();
        let mut input = vec![0xa2, b'i', b'd', 0x01];
        input.resize(20, 0);
        c.remember(0, &input[..3], 7);
        assert_eq!(c.hit(0, &input), Some((7, 3)));
        assert_eq!(c.hit(1, &input), None);
        let mut other = input.clone();
        other[2] = b'x';
        assert_eq!(c.hit(0, &other), None);
        // The same name with a str8 header is another encoding: a miss.
        let mut str8 = vec![0xd9, 2, b'i', b'd'];
        str8.resize(20, 0);
        assert_eq!(c.hit(0, &str8), None);
        // Too close to the end of the input to load the window: a miss, never a panic.
        assert_eq!(c.hit(0, &input[..10]), None);
    }

    #[test]
    fn long_keys_are_never_hits() {
        let mut c = KeyCache::default();
        let mut key = vec![0xb0];
        key.extend([b'k'; 16]);
        key.resize(40, 0);
        c.remember(0, &key[..17], 1);
        assert_eq!(c.hit(0, &key), None);
        assert_eq!(c.last_field(0), Some(1));
        // A full-width key (15 chars + header) still fits.
        let mut k15 = vec![0xaf];
        k15.extend([b'k'; 15]);
        k15.resize(40, 0);
        c.remember(0, &k15[..16], 2);
        assert_eq!(c.hit(0, &k15), Some((2, 16)));
    }

    #[test]
    fn scan_finds_shifted_keys_by_their_encoding() {
        let mut c = KeyCache::default();
        let key = |name: &[u8]| {
            let mut k = vec![0xa0 | name.len() as u8];
            k.extend(name);
            k
        };
        let padded = |k: &[u8]| {
            let mut v = k.to_vec();
            v.resize(24, 0);
            v
        };
        // First map {a, b, c}: fields 0, 1, 2 at positions 0, 1, 2.
        for (i, n) in [b"a", b"b", b"c"].iter().enumerate() {
            c.remember(i, &key(*n), i);
        }
        // Next map {a, c}: "c" at position 1 misses there, the scan from field 1 finds it
        // and position 1 now remembers it.
        assert_eq!(c.hit(1, &padded(&key(b"c"))), None);
        assert_eq!(c.scan(1, 1, &padded(&key(b"c"))), Some((2, 2)));
        assert_eq!(c.hit(1, &padded(&key(b"c"))), Some((2, 2)));
        // Wrapping round from past the last field.
        assert_eq!(c.scan(3, 3, &padded(&key(b"a"))), Some((0, 2)));
        // A key no field has, or one that differs in a byte or its header: no hit.
        assert_eq!(c.scan(0, 0, &padded(&key(b"d"))), None);
        assert_eq!(c.scan(0, 0, &padded(&[0xd9, 1, b'a'])), None);
        // Too close to the end of the input to load the window: no hit, never a panic.
        assert_eq!(c.scan(0, 0, &key(b"a")), None);
    }

    #[test]
    fn scan_is_bounded() {
        let mut c = KeyCache::default();
        let mut keys = Vec::new();
        for f in 0..40 {
            let mut k = vec![0xa3, b'k', b'0' + (f / 10) as u8, b'0' + (f % 10) as u8];
            c.remember(f, &k, f);
            k.resize(24, 0);
            keys.push(k);
        }
        // Field 30 is within SCAN fields of 20, not of 0.
        assert_eq!(c.scan(0, 20, &keys[30]), Some((30, 4)));
        assert_eq!(c.scan(0, 0, &keys[30]), None);
    }
}
