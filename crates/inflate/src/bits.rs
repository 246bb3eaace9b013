//! The inflater's bit reader: deflate packs codes LSB first, so a 64-bit buffer holds the
//! next bits at its bottom and is topped up eight bytes at a time.

/// LSB-first bit buffer over the stream. Past the end it reads zeros; whether the stream
/// really took those bits is checked where it ends.
#[derive(Clone, Copy)]
pub struct Bits<'a> {
    pub src: &'a [u8],
    /// Next byte to load.
    pub pos: usize,
    pub buf: u64,
    /// Valid bits in `buf`.
    pub n: u32,
}

impl Bits<'_> {
    /// Top up to 56..63 bits from eight bytes at once; needs `pos + 8 <= src.len()` (the
    /// fast loop's room check leaves that).
    #[inline(always)]
    pub fn refill_fast(&mut self) {
        let w = u64::from_le_bytes(self.src[self.pos..self.pos + 8].try_into().unwrap());
        self.buf |= w << self.n;
        self.pos += ((63 - self.n) >> 3) as usize;
        self.n |= 56;
    }

    /// Top up to at least 56 bits, byte by byte near the end. More than eight bytes of
    /// zeros past the end means the stream is truncated (the buffer holds at most eight).
    #[inline(always)]
    pub fn refill(&mut self) -> Result<(), &'static str> {
        if self.pos + 8 <= self.src.len() {
            self.refill_fast();
            return Ok(());
        }
        self.refill_slow()
    }

    #[inline(never)]
    fn refill_slow(&mut self) -> Result<(), &'static str> {
        if self.pos >= self.src.len() + 8 {
            return Err("stream truncated");
        }
        while self.n <= 56 {
            let b = self.src.get(self.pos).copied().unwrap_or(0);
            self.buf |= (b as u64) << self.n;
            self.pos += 1;
            self.n += 8;
        }
        Ok(())
    }

    /// Take `k` (≤ 32) bits; the caller made sure they are there.
    #[inline(always)]
    pub fn take(&mut self, k: u32) -> u32 {
        let v = (self.buf & !(u64::MAX << k)) as u32;
        self.drop(k);
        v
    }

    #[inline(always)]
    pub fn drop(&mut self, k: u32) {
        self.buf >>= k;
        self.n -= k;
    }

    /// Drop the bits a table entry consumes: its low byte (the shift takes the count mod
    /// 64, and the byte's top bits are clear).
    #[inline(always)]
    pub fn consume(&mut self, e: u32) {
        self.buf = self.buf.wrapping_shr(e);
        self.n -= e & 0xff;
    }

    pub fn consumed_bits(&self) -> usize {
        self.pos * 8 - self.n as usize
    }
}
