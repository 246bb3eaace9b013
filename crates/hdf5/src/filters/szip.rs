//! The SZIP filter (4): CCSDS 121.0-B Adaptive Entropy Coding as libaec's SZIP layer writes
//! it (h5repack, nccopy, the C API). The chunk is a little-endian u32 of the unfiltered size
//! and one AEC stream. The filter's parameters are the options mask (NN = preprocessing by
//! nearest-neighbour prediction, EC = none; MSB or LSB samples), pixels per block, bits per
//! pixel and pixels per scanline. Samples of 32 and 64 bits are coded as byte planes of
//! 8-bit samples; scanlines are coded padded to whole blocks, the padding dropped here.
//!
//! Hand-written (no pure-Rust AEC decoder exists; see docs/decisions.md): safe Rust, every
//! read bounded by the stream, every write by the output slice.

/// SZIP options mask bits (szlib.h).
const MSB: u32 = 16;
const NN: u32 = 32;
/// Second-extension option values run 0..=90 (β up to 12).
const SE_MAX: u32 = 90;
/// A zero run of this many blocks means "to the end of the segment" (ROS).
const ROS: u32 = 5;

/// Undo the filter into `out` (at most its length); returns the bytes written.
pub fn decode(src: &[u8], cd: &[u32], out: &mut [u8]) -> Result<usize, String> {
    let [mask, ppb, bpp, pps] = match cd {
        [a, b, c, d, ..] => [*a, *b, *c, *d],
        _ => return Err(format!("szip: {} parameters", cd.len())),
    };
    let n = src
        .get(..4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
        .ok_or("szip: chunk shorter than its header")?;
    if n > out.len() {
        return Err(format!("szip: {n} bytes, the chunk holds {}", out.len()));
    }
    if ppb == 0 || !ppb.is_multiple_of(2) || ppb > 64 || pps == 0 || !matches!(bpp, 1..=32 | 64) {
        return Err(format!(
            "szip: {ppb} pixels per block, {bpp} bits per pixel, {pps} per scanline"
        ));
    }
    // 32- and 64-bit pixels go through the coder as byte planes.
    let planes = matches!(bpp, 32 | 64);
    let bps = if planes { 8 } else { bpp };
    let width = match bps {
        17.. => 4,
        9..=16 => 2,
        _ => 1,
    };
    let (j, pps) = (ppb as usize, pps as usize);
    let coder = Coder {
        bps,
        j,
        rsi: pps.div_ceil(j),
        pps,
        pp: mask & NN != 0,
        msb: mask & MSB != 0,
    };
    let n = n - n % width;
    let body = &src[4..];
    if !planes {
        coder.run(body, &mut out[..n])?;
        return Ok(n);
    }
    // Byte planes: decoded into a buffer of the chunk's size, then interleaved.
    let mut buf = vec![0u8; n];
    coder.run(body, &mut buf)?;
    let w = (bpp / 8) as usize;
    let count = n / w;
    for i in 0..count {
        for k in 0..w {
            out[i * w + k] = buf[k * count + i];
        }
    }
    // A tail that is not a whole pixel stays as it was decoded.
    out[count * w..n].copy_from_slice(&buf[count * w..n]);
    Ok(n)
}

/// The entropy coder's configuration: bits per sample (1–32), block size, blocks per
/// reference sample interval, pixels per scanline (the samples of a segment that are data;
/// `rsi * j` for a plain AEC stream), preprocessing, sample byte order.
pub struct Coder {
    /// Bits per sample (1–32).
    pub bps: u32,
    /// Samples per block.
    pub j: usize,
    /// Blocks per reference sample interval (a segment): one scanline, padded to whole
    /// blocks.
    pub rsi: usize,
    /// Pixels per scanline (the samples of a segment that are data, not padding).
    pub pps: usize,
    /// Whether samples are preprocessed (unit-delay prediction).
    pub pp: bool,
    /// Whether samples are most significant byte first.
    pub msb: bool,
}

impl Coder {
    /// Decode `src` until `out` is full (an error if the stream ends first). Public for the
    /// libaec differential test and the `szip` fuzz target.
    pub fn run(&self, src: &[u8], out: &mut [u8]) -> Result<(), String> {
        if !(1..=32).contains(&self.bps)
            || !(2..=64).contains(&self.j)
            || !self.j.is_multiple_of(2)
            || self.rsi == 0
            || self.pps == 0
            || self
                .rsi
                .checked_mul(self.j)
                .is_none_or(|seg| self.pps > seg)
        {
            return Err("szip: coder parameters".into());
        }
        let id_len = match self.bps {
            17.. => 5,
            9..=16 => 4,
            _ => 3,
        };
        let uncompressed = (1u32 << id_len) - 1;
        let seg = self.rsi * self.j;
        let mut bits = Bits { src, pos: 0 };
        let mut sink = Sink::new(self, out);
        let mut block = [0u32; 64];
        'blocks: while !sink.full() {
            let at = sink.count % seg;
            let refs = (self.pp && at == 0) as usize;
            let Some(id) = bits.get(id_len) else {
                break;
            };
            if id == uncompressed {
                for _ in 0..self.j {
                    let Some(v) = bits.get(self.bps) else {
                        break 'blocks;
                    };
                    if !sink.push(v) {
                        break 'blocks;
                    }
                }
                continue;
            }
            let reference = |bits: &mut Bits, sink: &mut Sink| -> Option<bool> {
                match refs {
                    0 => Some(true),
                    _ => Some(sink.push(bits.get(self.bps)?)),
                }
            };
            if id == 0 {
                let Some(second) = bits.get(1) else { break };
                if reference(&mut bits, &mut sink) != Some(true) {
                    break;
                }
                if second == 1 {
                    // Second extension: pairs coded as one value m = (a+b)(a+b+1)/2 + b.
                    let mut i = refs;
                    while i < self.j {
                        let Some(m) = bits.fs() else { break 'blocks };
                        if m > SE_MAX {
                            return Err(format!("szip: second-extension value {m}"));
                        }
                        let mut beta = 0;
                        while (beta + 1) * (beta + 2) / 2 <= m {
                            beta += 1;
                        }
                        let second = m - beta * (beta + 1) / 2;
                        if i.is_multiple_of(2) {
                            if !sink.push(beta - second) {
                                break 'blocks;
                            }
                            i += 1;
                        }
                        if !sink.push(second) {
                            break 'blocks;
                        }
                        i += 1;
                    }
                } else {
                    // A run of zero blocks.
                    let Some(fs) = bits.fs() else { break };
                    let mut blocks = fs as usize + 1;
                    let b = at / self.j;
                    if blocks == ROS as usize {
                        blocks = (self.rsi - b).min(64 - b % 64);
                    } else if blocks > ROS as usize {
                        blocks -= 1;
                    }
                    let zeros = blocks * self.j - refs;
                    if at + refs + zeros > seg {
                        return Err("szip: zero run past its segment".into());
                    }
                    for _ in 0..zeros {
                        if !sink.push(0) {
                            break 'blocks;
                        }
                    }
                }
                continue;
            }
            // Split: k low bits stored as they are, the rest as a fundamental sequence.
            let k = id - 1;
            if reference(&mut bits, &mut sink) != Some(true) {
                break;
            }
            let coded = self.j - refs;
            for v in &mut block[..coded] {
                let Some(fs) = bits.fs() else { break 'blocks };
                *v = fs.checked_shl(k).unwrap_or(0);
            }
            for v in &block[..coded] {
                let Some(low) = bits.get(k) else {
                    break 'blocks;
                };
                if !sink.push(v.wrapping_add(low)) {
                    break 'blocks;
                }
            }
        }
        if sink.full() {
            Ok(())
        } else {
            Err(format!(
                "szip: stream ends after {} of {} samples",
                sink.written,
                sink.out.len() / sink.width
            ))
        }
    }
}

/// Decoded samples out: undoes the prediction (the first sample of each segment is a
/// reference value, the others mapped differences), drops each segment's padding past the
/// scanline and writes the rest in the sample byte order.
struct Sink<'a> {
    out: &'a mut [u8],
    width: usize,
    /// Samples decoded, padding included.
    count: usize,
    written: usize,
    seg: usize,
    line: usize,
    pp: bool,
    msb: bool,
    xmax: u32,
    last: u32,
}

impl<'a> Sink<'a> {
    fn new(c: &Coder, out: &'a mut [u8]) -> Sink<'a> {
        Sink {
            width: match c.bps {
                17.. => 4,
                9..=16 => 2,
                _ => 1,
            },
            out,
            count: 0,
            written: 0,
            seg: c.rsi * c.j,
            line: c.pps,
            pp: c.pp,
            msb: c.msb,
            xmax: u32::MAX >> (32 - c.bps),
            last: 0,
        }
    }

    fn full(&self) -> bool {
        (self.written + 1) * self.width > self.out.len()
    }

    /// One sample; `false` once the output is full.
    fn push(&mut self, d: u32) -> bool {
        if self.full() {
            return false;
        }
        let at = self.count % self.seg;
        let x = if !self.pp || at == 0 {
            d
        } else {
            // θ: the distance from the prediction to the nearer end of the range.
            let p = self.last;
            let high = p > self.xmax / 2;
            let theta = if high { self.xmax.wrapping_sub(p) } else { p };
            let half = (d >> 1) + (d & 1);
            if half <= theta {
                if d & 1 == 0 {
                    p.wrapping_add(d >> 1)
                } else {
                    p.wrapping_sub(half)
                }
            } else if high {
                self.xmax ^ d
            } else {
                d
            }
        };
        self.last = x;
        self.count += 1;
        if at < self.line {
            let o = self.written * self.width;
            for (k, b) in self.out[o..o + self.width].iter_mut().enumerate() {
                let shift = if self.msb { self.width - 1 - k } else { k };
                *b = (x >> (8 * shift)) as u8;
            }
            self.written += 1;
        }
        true
    }
}

/// Bits of the stream, most significant first.
struct Bits<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    /// The next `n` (0..=32) bits.
    fn get(&mut self, n: u32) -> Option<u32> {
        let n = n as usize;
        if self.pos + n > self.src.len() * 8 {
            return None;
        }
        let mut v = 0u64;
        let mut left = n;
        while left > 0 {
            let byte = self.src[self.pos / 8] as u64;
            let off = self.pos % 8;
            let take = (8 - off).min(left);
            let chunk = (byte >> (8 - off - take)) & ((1 << take) - 1);
            v = v << take | chunk;
            left -= take;
            self.pos += take;
        }
        Some(v as u32)
    }

    /// A fundamental sequence: the number of 0 bits before the next 1.
    fn fs(&mut self) -> Option<u32> {
        let mut n = 0u32;
        loop {
            let byte = *self.src.get(self.pos / 8)?;
            let rest = byte << (self.pos % 8);
            if rest == 0 {
                let skip = 8 - self.pos % 8;
                n = n.checked_add(skip as u32)?;
                self.pos += skip;
                continue;
            }
            let z = rest.leading_zeros();
            self.pos += z as usize + 1;
            return n.checked_add(z);
        }
    }
}
