//! Canonical Huffman decode tables for inflate (RFC 1951 §3.2.2), libdeflate-style: one
//! lookup of the stream's next bits gives a packed entry that says what the code decodes
//! to and how many bits to consume, extra bits included, so a length or distance costs
//! one lookup and one shift. Codes longer than the main table's bits go through a
//! subtable.

/// Entry layout: bits 0..8 the bits to consume (code length plus extra bits), bits 8..12
/// the code length (where the extra bits start) or, for a subtable pointer, the
/// subtable's index bits (a pointer consumes the main table's bits; its subtable's
/// entries count the code's bits after those); bits 16..32 the value (literal byte, length
/// or distance base, subtable start); bits 12..16 the flags below. No flag: a length or a
/// distance.
pub const LIT: u32 = 1 << 12;
/// End of block, or an invalid code (with [`BAD`]).
pub const EXC: u32 = 1 << 13;
pub const SUB: u32 = 1 << 14;
pub const BAD: u32 = 1 << 15;

/// The longest code deflate allows.
pub const MAX_CODE_LEN: u32 = 15;

/// Index bits of the main literal/length and distance tables.
pub const LIT_BITS: u32 = 11;
pub const DIST_BITS: u32 = 8;
/// The masks that index the main tables with the stream's next bits.
pub const LIT_MASK: usize = (1 << LIT_BITS) - 1;
pub const DIST_MASK: usize = (1 << DIST_BITS) - 1;

/// Symbols a table can be built for: literal/length and distance (the fixed codes' 288 and
/// 32, of which a dynamic block uses up to 286 and 30).
pub const LITLEN_SYMS: usize = 288;
pub const DIST_SYMS: usize = 32;

/// The most entries a table of `syms` symbols can use: its main table, plus one subtable
/// of `1 << (MAX_CODE_LEN - bits)` entries per main-table prefix of the codes longer than
/// `bits`. Only complete codes get that far (`Table::build` refuses the rest before writing
/// a subtable), and in a complete code each such prefix leads to at least two codes, so there
/// are at most `syms / 2` subtables. Like libdeflate's `ENOUGH` constants, but for tables
/// whose subtables all have the longest code's size.
pub const fn enough(syms: usize, bits: u32) -> usize {
    (1 << bits) + ((syms / 2) << (MAX_CODE_LEN - bits))
}
/// [`enough`] for the literal/length table.
pub const ENOUGH_LITLEN: usize = enough(LITLEN_SYMS, LIT_BITS);
/// [`enough`] for the distance table.
pub const ENOUGH_DIST: usize = enough(DIST_SYMS, DIST_BITS);

/// Table sizes: powers of two (an index masked by `SIZE - 1` needs no bounds check) at least
/// the worst case each must hold.
pub const LIT_SIZE: usize = ENOUGH_LITLEN.next_power_of_two();
pub const DIST_SIZE: usize = ENOUGH_DIST.next_power_of_two();
const _: () = assert!(ENOUGH_LITLEN == 4352 && LIT_SIZE == 8192);
const _: () = assert!(ENOUGH_DIST == 2304 && DIST_SIZE == 4096);

/// The value an entry decodes to: its base plus its extra bits (taken from `buf`, which
/// still holds the entry's code). `wrapping_*` shifts take their count mod 64, which is
/// what wasm and x86 shifts do anyway: the bits to consume are the entry's low six bits and
/// the code length is bits 8..12 with bits 12..14 clear in a length or distance entry, so
/// neither needs masking.
#[inline(always)]
pub fn value(e: u32, buf: u64) -> usize {
    let extra = (buf & !u64::MAX.wrapping_shl(e)).wrapping_shr(e >> 8);
    (e >> 16) as usize + extra as usize
}

/// The subtable entry that pointer `e` leads to in table `t`, for `buf` with the main
/// table's bits already dropped.
#[inline(always)]
pub fn sub<const N: usize>(t: &[u32; N], e: u32, buf: u64) -> u32 {
    let mask = (1usize << ((e >> 8) & 0xf)) - 1;
    t[((e >> 16) as usize + (buf as usize & mask)) & (N - 1)]
}

/// A table: `1 << B` main entries, then subtables of `1 << (longest - B)` entries, one per
/// prefix of the codes longer than `B`; `N` (a power of two, so a masked index needs no
/// bounds check) bounds both: `enough` gives the worst case, asserted at compile time
/// against each table's `N`.
pub struct Table<const B: u32, const N: usize> {
    pub e: Box<[u32; N]>,
}

impl<const B: u32, const N: usize> Default for Table<B, N> {
    fn default() -> Self {
        Table {
            e: vec![0u32; N].into_boxed_slice().try_into().unwrap(),
        }
    }
}

impl<const B: u32, const N: usize> Table<B, N> {
    /// The entry for the code at the bottom of `buf` (which holds at least 15 valid bits),
    /// and the bits to drop before using it: `B` when it came from a subtable (a subtable
    /// entry counts only the bits after the main table's), else 0.
    #[inline(always)]
    pub fn lookup(&self, buf: u64) -> (u32, u32) {
        let e = self.e[(buf as usize) & ((1 << B) - 1) & (N - 1)];
        if e & SUB == 0 {
            return (e, 0);
        }
        (sub(&self.e, e, buf >> B), B)
    }

    /// Build from code lengths (0 = unused symbol), over whatever an earlier build left;
    /// returns the entries used (main table and subtables).
    /// `entry(sym)` gives a symbol's value with its flags, and its extra bits. Over-subscribed lengths are an error, and so are
    /// incomplete ones, except (as zlib has it) no code at all, a table of invalid entries,
    /// and, when `lone` allows it, a single 1-bit code (one distance, say).
    pub fn build(
        &mut self,
        lens: &[u8],
        lone: bool,
        entry: impl Fn(usize) -> (u32, u32),
    ) -> Result<usize, &'static str> {
        let mut count = [0u32; MAX_CODE_LEN as usize + 1];
        for &l in lens {
            count[l as usize] += 1;
        }
        count[0] = 0;
        let longest = (1..16).rev().find(|&l| count[l] != 0).unwrap_or(0) as u32;
        let mut left: i64 = 1;
        for &c in &count[1..] {
            left = (left << 1) - c as i64;
            if left < 0 {
                return Err("over-subscribed Huffman code lengths");
            }
        }
        if left > 0 && longest != 0 && (longest > 1 || !lone) {
            return Err("incomplete Huffman code lengths");
        }
        let bits = B;
        let main = 1usize << bits;
        // A complete code with no code past the main table writes every main entry; else
        // the gaps must read as invalid and subtable pointers must be told from stale ones.
        if left > 0 || longest > bits {
            self.e[..main].fill(EXC | BAD);
        }
        let mut next = [0u32; 16];
        let mut code = 0u32;
        for l in 1..16 {
            code = (code + count[l - 1]) << 1;
            next[l] = code;
        }
        let sub_bits = longest.saturating_sub(bits);
        let mut free = main;
        for (sym, &l) in lens.iter().enumerate() {
            if l == 0 {
                continue;
            }
            let l = l as u32;
            let c = next[l as usize];
            next[l as usize] += 1;
            let rev = c.reverse_bits() >> (32 - l);
            let (value, extra) = entry(sym);
            if l <= bits {
                let e = value | (l << 8) | (l + extra);
                for k in (rev as usize..main).step_by(1 << l) {
                    self.e[k] = e;
                }
                continue;
            }
            // Past a subtable pointer (which consumes the main `bits`), the entry counts
            // only the rest of the code.
            let e = value | ((l - bits) << 8) | (l - bits + extra);
            let prefix = rev as usize & (main - 1);
            if self.e[prefix] & SUB == 0 {
                // Unreachable when `N` is at least `enough` (asserted for each table).
                if free + (1 << sub_bits) > N {
                    return Err("Huffman table overflow");
                }
                self.e[prefix] = SUB | ((free as u32) << 16) | (sub_bits << 8) | bits;
                self.e[free..free + (1 << sub_bits)].fill(EXC | BAD);
                free += 1 << sub_bits;
            }
            let start = (self.e[prefix] >> 16) as usize;
            for k in ((rev >> bits) as usize..1 << sub_bits).step_by(1 << (l - bits)) {
                self.e[start + k] = e;
            }
        }
        Ok(free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_decode_to_their_symbols() {
        // Lengths 1, 2, 3, 3 (codes 0, 10, 110, 111); with 2 main bits the 3-bit codes go
        // through a subtable.
        let mut t = Table::<2, 16>::default();
        t.build(&[1, 2, 3, 3], false, |s| (LIT | (s as u32) << 16, 0))
            .unwrap();
        for (bits, sym, len) in [(0b0u64, 0, 1), (0b01, 1, 2), (0b011, 2, 3), (0b111, 3, 3)] {
            let (e, pre) = t.lookup(bits);
            assert_eq!((e >> 16, pre + (e & 0xff)), (sym, len), "{bits:b}");
        }
        assert!(
            t.build(&[1, 1, 1], true, |_| (0, 0)).is_err(),
            "over-subscribed"
        );
        assert!(t.build(&[2, 2, 2], true, |_| (0, 0)).is_err(), "incomplete");
        assert!(t.build(&[0, 1], true, |_| (0, 0)).is_ok(), "one 1-bit code");
        assert!(
            t.build(&[0, 1], false, |_| (0, 0)).is_err(),
            "one 1-bit code, not allowed"
        );
        t.build(&[0, 0], false, |_| (0, 0)).unwrap();
        assert_eq!(
            t.lookup(0).0 & BAD,
            BAD,
            "no codes: every lookup is invalid"
        );
    }
}
