//! The structural walk: where values end, from headers alone (tags, lengths, counts; no
//! payload is looked at), so it costs a fraction of a decode. It is resumable: the stream
//! decoder scans each byte once however the bytes arrive, and the splitter runs it over a
//! whole input.

use crate::options::{ExtReading, Options, MSGPACKR_RECORD};
use crate::structures::Structures;
use crate::tags::{header, FIXED_SIZE};

pub(crate) struct Scanner {
    /// Values still missing before the current one is complete.
    pending: u64,
    /// Payload bytes still to skip.
    skip: u64,
    /// Ext type 0x72 is msgpackr's record definition.
    records: bool,
    /// The msgpackr structure whose array of keys comes next.
    def: Option<u8>,
    /// msgpackr structures defined so far (their key counts).
    structs: Structures,
}

impl Scanner {
    pub fn new(opts: &Options) -> Self {
        Scanner {
            pending: 0,
            skip: 0,
            records: opts.extensions.get(MSGPACKR_RECORD) == ExtReading::MsgpackrRecord,
            def: None,
            structs: Structures::default(),
        }
    }

    /// Begin walking one value.
    pub fn start(&mut self) {
        self.pending = 1;
    }

    /// Whether the input holds msgpackr records (a value's boundaries then depend on
    /// definitions earlier in the input).
    pub fn saw_records(&self) -> bool {
        self.structs.active()
    }

    /// Walk `buf` from `*pos`: `true` once the value begun by `start` is complete (`*pos`
    /// is then its end), `false` if `buf` ends first (`*pos` is then the first byte not
    /// consumed: a header cut short is read again when more bytes come). `end`: no more
    /// bytes will come.
    #[inline]
    pub fn walk(&mut self, buf: &[u8], pos: &mut usize, end: bool) -> bool {
        let len = buf.len();
        loop {
            if self.skip > 0 {
                let s = self.skip.min((len - *pos) as u64);
                *pos += s as usize;
                self.skip -= s;
                if self.skip > 0 {
                    return false;
                }
            }
            if self.pending == 0 {
                return true;
            }
            let Some(&t) = buf.get(*pos) else {
                return false;
            };
            // One lookup for most values of real data (small ints, floats, short strs, nil).
            let fixed = FIXED_SIZE[t as usize] as usize;
            if fixed != 0 && !self.special(t) {
                if fixed > len - *pos {
                    return false;
                }
                *pos += fixed;
                self.pending -= 1;
                continue;
            }
            if let Some(n) = self.structs.fields(t) {
                // A msgpackr record: its values follow.
                *pos += 1;
                self.pending = self.pending - 1 + n as u64;
                continue;
            }
            if t == 0xd4 && self.records {
                // A definition, as `Parser::msgpackr_ext` tells it: type 0x72, an id of
                // 0x40..=0x7f, then an array (of keys, in this value's place; then one
                // value per key).
                let next = buf.get(*pos + 3).copied();
                match buf.get(*pos + 1..*pos + 3) {
                    Some(&[ty, id @ 0x40..=0x7f]) if ty as i8 == MSGPACKR_RECORD => {
                        if next.is_none() && !end {
                            return false;
                        }
                        if matches!(next, Some(0x90..=0x9f | 0xdc | 0xdd)) {
                            *pos += 3;
                            self.def = Some(id);
                            continue;
                        }
                    }
                    None => return false,
                    Some(_) => {}
                }
            }
            let Some((h, n, payload)) = header(&buf[*pos..]) else {
                return false;
            };
            *pos += h;
            let n = match self.def.take() {
                Some(id) => {
                    self.structs.define_count(id, n as usize);
                    2 * n
                }
                None => n,
            };
            self.pending = self.pending - 1 + n;
            self.skip = payload;
        }
    }

    /// Tags that the fixed-size shortcut must not take: a msgpackr definition (fixext1)
    /// or record reference (0x40..=0x7f).
    #[inline(always)]
    fn special(&self, t: u8) -> bool {
        (t == 0xd4 && self.records) || (matches!(t, 0x40..=0x7f) && self.structs.active())
    }
}
