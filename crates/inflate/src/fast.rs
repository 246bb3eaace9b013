//! The inflater's fast loop: one step decodes up to three literals, or up to two and a
//! match, without watching for the ends of the input or the output, because it runs only
//! while the input has [`FAST_IN`] bytes and the output [`FAST_OUT`] bytes of room.

use crate::bits::Bits;
use crate::huffman::{
    sub, value, BAD, DIST_BITS, DIST_MASK, DIST_SIZE, EXC, LIT, LIT_MASK, LIT_SIZE, SUB,
};

/// What a fast step ended with.
pub const GO: u32 = 0;
pub const EOB: u32 = 1;
pub const INVALID_LIT: u32 = 2;
pub const INVALID_DIST: u32 = 3;
pub const TOO_FAR: u32 = 4;

/// Longest match and the most a fast-loop step writes past its end (a 16-byte block copy)
/// plus two literals before it.
const MAX_MATCH: usize = 258;
const FAST_OUT: usize = 2 + MAX_MATCH + 16;
/// Input a fast-loop step may read: refills that load 8 bytes and advance up to 7, two of
/// them after the check.
const FAST_IN: usize = 24;

/// The fast loop's state in locals: the bit buffer, the output position and the next
/// literal/length entry, looked up ahead so its load overlaps the step before.
pub struct Fast<'a, 'x> {
    pub b: Bits<'a>,
    pub out: &'x mut [u8],
    pub lit: &'x [u32; LIT_SIZE],
    pub dist: &'x [u32; DIST_SIZE],
    pub at: usize,
    pub e: u32,
}

impl Fast<'_, '_> {
    #[inline(always)]
    pub fn room(&self) -> bool {
        self.b.pos + FAST_IN <= self.b.src.len() && self.at + FAST_OUT <= self.out.len()
    }

    /// Up to three literals, or up to two and a match, or the end of the block. Starts
    /// with 56+ bits and `e` looked up; leaves the same for the next step.
    #[inline(always)]
    pub fn step(&mut self) -> u32 {
        let mut e = self.e;
        let mut saved = self.b.buf;
        self.b.consume(e);
        if e & LIT != 0 {
            // Two more literals fit in the 56 bits: three main-table codes (11 bits each)
            // and a length code with its extra bits.
            for _ in 0..2 {
                let l = (e >> 16) as u8;
                e = self.lit[self.b.buf as usize & LIT_MASK];
                saved = self.b.buf;
                self.b.consume(e);
                self.out[self.at] = l;
                self.at += 1;
                if e & LIT == 0 {
                    break;
                }
            }
            if e & LIT != 0 {
                // A third: written with the next step's entry looked up.
                let l = (e >> 16) as u8;
                self.e = self.lit[self.b.buf as usize & LIT_MASK];
                self.b.refill_fast();
                self.out[self.at] = l;
                self.at += 1;
                return GO;
            }
        }
        if e & (SUB | EXC) != 0 {
            if e & SUB != 0 {
                e = sub(self.lit, e, self.b.buf);
                saved = self.b.buf;
                self.b.consume(e);
                if e & LIT != 0 {
                    self.out[self.at] = (e >> 16) as u8;
                    self.at += 1;
                    self.b.refill_fast();
                    self.e = self.lit[self.b.buf as usize & LIT_MASK];
                    return GO;
                }
            }
            if e & EXC != 0 {
                return if e & BAD != 0 { INVALID_LIT } else { EOB };
            }
        }
        let len = value(e, saved);
        // The distance's main entry needs 8 of the bits left. Its code and extra bits take
        // up to 28, and 11 more let the next step's entry be looked up before the refill
        // (the bits it reads are there already): below 39 bits, refill first.
        let mut d = self.dist[self.b.buf as usize & DIST_MASK];
        if self.b.n < 39 {
            self.b.refill_fast();
        }
        if d & (SUB | EXC) != 0 {
            if d & SUB != 0 {
                self.b.consume(DIST_BITS);
                d = sub(self.dist, d, self.b.buf);
            }
            if d & EXC != 0 {
                return INVALID_DIST;
            }
        }
        let saved = self.b.buf;
        self.b.consume(d);
        let back = value(d, saved);
        if back > self.at {
            return TOO_FAR;
        }
        self.e = self.lit[self.b.buf as usize & LIT_MASK];
        self.b.refill_fast();
        copy_match(self.out, self.at, back, len);
        self.at += len;
        GO
    }
}

/// Copy a match of `len` bytes from `dist` back, in the fast loop: `out` has 16 bytes of
/// room past the match, so whole blocks are copied and the overshoot is overwritten later.
#[inline(always)]
fn copy_match(out: &mut [u8], at: usize, dist: usize, len: usize) {
    let from = at - dist;
    if dist >= 16 {
        // Each block reads bytes already written (16 or more back).
        out.copy_within(from..from + 16, at);
        let mut k = 16;
        while k < len {
            out.copy_within(from + k..from + k + 16, at + k);
            k += 16;
        }
    } else if dist >= 8 {
        let mut k = 0;
        while k < len {
            out.copy_within(from + k..from + k + 8, at + k);
            k += 8;
        }
    } else if dist == 1 {
        let b = out[from];
        out[at..at + len].fill(b);
    } else {
        copy_bytewise(out, at, dist, len);
    }
}

/// Copy a match byte by byte: right for any distance, since each byte read was written
/// before (the exact copy of the careful loop, and short distances here).
#[inline(always)]
pub fn copy_bytewise(out: &mut [u8], at: usize, dist: usize, len: usize) {
    for i in at..at + len {
        out[i] = out[i - dist];
    }
}
