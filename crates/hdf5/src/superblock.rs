//! Superblock versions 0–3, located at 0, 512, 1024, … (a userblock precedes it).

use arrowsmith_core::{ByteSource, Result};

use crate::checksum;
use crate::io::{invalid, read_abs, unsupported, Cur, UNDEF};

const SIG: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

#[derive(Debug, Clone)]
pub struct Superblock {
    pub version: u8,
    /// Size of offsets (addresses) in bytes.
    pub so: u8,
    /// Size of lengths in bytes.
    pub sl: u8,
    /// Absolute file offset every stored address is relative to.
    pub base: u64,
    /// File offset of the superblock (= userblock size).
    pub location: u64,
    pub eof: u64,
    /// Root group object header address (relative to `base`).
    pub root: u64,
}

impl Superblock {
    pub fn find(src: &dyn ByteSource) -> Result<Superblock> {
        let size = src.size();
        let mut at = 0u64;
        while at + 8 <= size {
            let sig = read_abs(src, at, 8, "superblock signature")?;
            if sig == SIG {
                return Self::parse(src, at);
            }
            at = if at == 0 { 512 } else { at * 2 };
        }
        Err(invalid(
            0,
            "no HDF5 superblock signature found (not an HDF5 file)",
        ))
    }

    fn parse(src: &dyn ByteSource, at: u64) -> Result<Superblock> {
        let head = read_abs(src, at, 16.min(src.size() - at), "superblock")?;
        if head.len() < 16 {
            return Err(invalid(at, "superblock: truncated"));
        }
        let version = head[8];
        match version {
            0 | 1 => {
                let (so, sl) = (head[13], head[14]);
                check_sizes(at, so, sl)?;
                let fixed = 24 + if version == 1 { 4 } else { 0 };
                let len = fixed + 4 * so as u64 + (so as u64 * 2 + 24);
                let b = read_abs(src, at, len, "superblock v0/1")?;
                let mut c = Cur::new(b, at, "superblock", so, sl);
                c.skip(fixed as usize)?;
                let base = c.addr()?;
                let _free = c.addr()?;
                let eof = c.addr()?;
                let _driver = c.addr()?;
                // Root group symbol table entry.
                let _name_off = c.addr()?;
                let root = c.addr()?;
                let base = if base == UNDEF { at } else { base };
                Ok(Superblock {
                    version,
                    so,
                    sl,
                    base,
                    location: at,
                    eof,
                    root,
                })
            }
            2 | 3 => {
                let (so, sl) = (head[9], head[10]);
                check_sizes(at, so, sl)?;
                let len = 12 + 4 * so as u64 + 4;
                let b = read_abs(src, at, len, "superblock v2/3")?;
                checksum::verify(b, at, "superblock")?;
                let mut c = Cur::new(b, at, "superblock", so, sl);
                c.skip(12)?;
                let base = c.addr()?;
                let _ext = c.addr()?;
                let eof = c.addr()?;
                let root = c.addr()?;
                let base = if base == UNDEF { at } else { base };
                Ok(Superblock {
                    version,
                    so,
                    sl,
                    base,
                    location: at,
                    eof,
                    root,
                })
            }
            v => Err(unsupported(at + 8, format!("superblock version {v}"))),
        }
    }
}

fn check_sizes(at: u64, so: u8, sl: u8) -> Result<()> {
    if !matches!(so, 2 | 4 | 8) || !matches!(sl, 2 | 4 | 8) {
        return Err(invalid(
            at,
            format!("superblock: unsupported size of offsets {so} / lengths {sl}"),
        ));
    }
    Ok(())
}
