//! Where a native read's bytes come from: anything that reads at an offset (a `File`, a
//! `Read + Seek` behind a lock, bytes in memory), and the loop that answers the decoders'
//! requests for bytes.
// The one `unsafe` here: handing zero-filled `MaybeUninit<u8>` memory to `read_exact_at`
// as `&mut [u8]` (sound: every byte is initialised first), as `HostSource::new` requires.
#![allow(unsafe_code)]

use std::io::{Read, Seek, SeekFrom};
use std::mem::MaybeUninit;
use std::sync::Mutex;

use arrowsmith_core::{Bump, ByteSource, DecodeError, ErrorCode, Format, HostSource, RangeCache};

use crate::error::{Error, Result};

/// Bytes readable at any offset without moving a cursor (so reads need only `&self`).
pub trait ReadAt {
    /// The file's size in bytes.
    fn size(&self) -> std::io::Result<u64>;
    /// Fill `buf` with the bytes at `offset` (all of them, or an error).
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;
    /// The whole file when it is already in memory: decoders then read it in place.
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }
}

impl ReadAt for std::fs::File {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    #[cfg(unix)]
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    #[cfg(windows)]
    fn read_exact_at(&self, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(self, buf, offset)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
            }
        }
        Ok(())
    }
}

impl ReadAt for [u8] {
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.len() as u64)
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let src = usize::try_from(offset)
            .ok()
            .and_then(|o| self.get(o..o.checked_add(buf.len())?))
            .ok_or(std::io::ErrorKind::UnexpectedEof)?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl ReadAt for Vec<u8> {
    fn size(&self) -> std::io::Result<u64> {
        ReadAt::size(self.as_slice())
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        self.as_slice().read_exact_at(buf, offset)
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for std::sync::Arc<T> {
    fn size(&self) -> std::io::Result<u64> {
        (**self).size()
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        (**self).read_exact_at(buf, offset)
    }
    fn as_slice(&self) -> Option<&[u8]> {
        (**self).as_slice()
    }
}

impl<T: ReadAt + ?Sized> ReadAt for Box<T> {
    fn size(&self) -> std::io::Result<u64> {
        (**self).size()
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        (**self).read_exact_at(buf, offset)
    }
    fn as_slice(&self) -> Option<&[u8]> {
        (**self).as_slice()
    }
}

/// Any `Read + Seek` (a network stream with ranges, a reader over an archive member) as a
/// [`ReadAt`]: each read seeks, then reads, under a lock.
pub struct SeekReader<R>(Mutex<R>);

impl<R: Read + Seek> SeekReader<R> {
    /// Wrap `inner`.
    pub fn new(inner: R) -> Self {
        SeekReader(Mutex::new(inner))
    }
}

impl<R: Read + Seek> ReadAt for SeekReader<R> {
    fn size(&self) -> std::io::Result<u64> {
        let mut r = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned reader"))?;
        r.seek(SeekFrom::End(0))
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let mut r = self
            .0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned reader"))?;
        r.seek(SeekFrom::Start(offset))?;
        r.read_exact(buf)
    }
}

/// A file already in memory, read in place.
struct InMemory<'a>(&'a [u8]);

impl ByteSource for InMemory<'_> {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        ByteSource::get(self.0, offset, len)
    }
}

/// Fetched bytes an idle reader may keep for its next read (beyond this the arena is freed,
/// so memory returns to its baseline after a big read).
const ARENA_KEEP: usize = 64 << 20;

/// A file being read: its bytes, what every read needs (`kept`: footer, index, headers),
/// and the arena a read fetches pages into.
pub(crate) struct Host<R> {
    input: R,
    size: u64,
    kept: RangeCache,
    arena: Bump,
    format: Format,
}

impl<R: ReadAt> Host<R> {
    pub(crate) fn new(input: R, format: Format) -> Result<Self> {
        let size = input.size()?;
        Ok(Host {
            input,
            size,
            kept: RangeCache::new(size),
            arena: Bump::new(),
            format,
        })
    }

    /// Run `read` until it stops asking for bytes: pages come on demand through a
    /// [`HostSource`]; a `NeedBytes` (a range past the per-read fetch budget, e.g. the
    /// index) is read into `kept` once and the read runs again.
    pub(crate) fn run<T>(
        &mut self,
        mut read: impl FnMut(&dyn ByteSource) -> std::result::Result<T, DecodeError>,
    ) -> Result<T> {
        if let Some(bytes) = self.input.as_slice() {
            return Ok(read(&InMemory(bytes))?);
        }
        loop {
            self.arena.reset();
            let failed = std::cell::Cell::new(None);
            let input = &self.input;
            let fetch = |off: u64, dst: &mut [MaybeUninit<u8>]| {
                dst.fill(MaybeUninit::new(0));
                // SAFETY: every byte of `dst` was initialised by the fill above.
                let buf = unsafe { &mut *(dst as *mut [MaybeUninit<u8>] as *mut [u8]) };
                match input.read_exact_at(buf, off) {
                    Ok(()) => true,
                    Err(e) => {
                        failed.set(Some(e));
                        false
                    }
                }
            };
            // SAFETY: `fetch` returns true only after `read_exact_at` filled all of `dst`.
            let source = unsafe { HostSource::new(&self.kept, &self.arena, &fetch) };
            let out = read(&source);
            drop(source);
            if let Some(e) = failed.take() {
                return Err(Error::Io(e));
            }
            match out {
                Err(e) if e.is_need_bytes() => self.supply(e.offset, e.need_len)?,
                out => {
                    if self.arena.allocated_bytes() > ARENA_KEEP {
                        self.arena = Bump::new();
                    }
                    return Ok(out?);
                }
            }
        }
    }

    /// Read `offset..+len` into `kept`. A range already held, or past the file, would ask
    /// again forever: that is the decoder's bug or a broken file, reported, not looped on.
    fn supply(&mut self, offset: u64, len: u64) -> Result<()> {
        let in_file = offset.checked_add(len).is_some_and(|e| e <= self.size);
        let (true, Ok(n)) = (in_file, usize::try_from(len)) else {
            return Err(self.stuck(offset, len, "past the end of the file"));
        };
        if len == 0 || self.kept.get(offset, n).is_some() {
            return Err(self.stuck(offset, len, "already supplied"));
        }
        let mut bytes = vec![0; n];
        self.input.read_exact_at(&mut bytes, offset)?;
        self.kept.insert(offset, bytes);
        Ok(())
    }

    fn stuck(&self, offset: u64, len: u64, why: &str) -> Error {
        Error::Decode(DecodeError::new(
            self.format,
            offset,
            ErrorCode::Invalid,
            format!("the reader asked for {len} bytes at offset {offset}, {why}"),
        ))
    }
}
