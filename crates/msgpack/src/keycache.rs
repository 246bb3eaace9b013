//! Record keys found without validating or hashing them.
//!
//! Maps of one stream of records nearly always repeat their keys in the same order. For
//! each key position we keep the previous key's *encoded* bytes (str header + name, up to
//! 16 bytes) as one little-endian `u128` and a mask; the next key is a hit when the same
//! 16-byte window of the input agrees under the mask. That is one load and one compare,
//! instead of a header decode, a `memcmp` call and a pointer chase to the field name. The
//! header byte is part of the compared bytes, so a hit means the key is byte-identical to
//! a key that was already validated and resolved: the outcome cannot differ.

/// Longest encoded key (header included) that the cache holds.
const WIDTH: usize = 16;

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
}

impl KeyCache {
    /// If the key encoded at the start of `src` is the one seen at map position `pos`
    /// last time: its field index and encoded length.
    #[inline]
    pub fn hit(&self, pos: usize, src: &[u8]) -> Option<(usize, usize)> {
        let s = self.slots.get(pos)?;
        let w: [u8; WIDTH] = src.get(..WIDTH)?.try_into().ok()?;
        if s.len == 0 || (u128::from_le_bytes(w) ^ s.word) & s.mask != 0 {
            return None;
        }
        Some((s.field as usize, s.len as usize))
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
        let Ok(field) = u32::try_from(field) else {
            return;
        };
        let mut s = Slot {
            field,
            ..Slot::default()
        };
        if encoded.len() <= WIDTH {
            let mut w = [0u8; WIDTH];
            w[..encoded.len()].copy_from_slice(encoded);
            s = Slot {
                word: u128::from_le_bytes(w),
                mask: u128::MAX >> (8 * (WIDTH - encoded.len())),
                len: encoded.len() as u8,
                field,
            };
        }
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
}
