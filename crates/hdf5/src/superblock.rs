//! Superblock versions 0–3, located at 0, 512, 1024, … (a userblock precedes it).

use arrowsmith_core::{ByteSource, Result};

use crate::checksum;
use crate::io::{invalid, read_abs, unsupported, Cur, UNDEF};

const SIG: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

#[derive(Debug, Clone)]
pub struct Superblock {
    #[cfg_attr(not(test), allow(dead_code))] // the structure tests check it
    pub version: u8,
    /// Size of offsets (addresses) in bytes.
    pub so: u8,
    /// Size of lengths in bytes.
    pub sl: u8,
    /// Absolute file offset every stored address is relative to.
    pub base: u64,
    /// File offset of the superblock (= userblock size).
    #[cfg_attr(not(test), allow(dead_code))] // the structure tests check it
    pub location: u64,
    /// Root group object header address (relative to `base`).
    pub root: u64,
    /// Superblock extension object header address (v2/3; `UNDEF` when none).
    pub ext: u64,
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
                // The base address is where the signature is found, as libhdf5 takes it
                // (`H5F__super_read`), whatever the field says: h5py's `userblock_size`
                // stores the true base, `h5jam` prepends a user block to a finished file
                // and leaves the field at 0.
                let stored_base = c.addr()?;
                let base = at;
                let _free = c.addr()?;
                let eof = c.addr()?;
                let _driver = c.addr()?;
                // Root group symbol table entry.
                let _name_off = c.addr()?;
                let root = c.addr()?;
                check_eof(src, at, stored_base, eof)?;
                Ok(Superblock {
                    version,
                    so,
                    sl,
                    base,
                    location: at,
                    root,
                    ext: UNDEF,
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
                // The base address is where the signature is found, as libhdf5 takes it
                // (`H5F__super_read`), whatever the field says: h5py's `userblock_size`
                // stores the true base, `h5jam` prepends a user block to a finished file
                // and leaves the field at 0.
                let stored_base = c.addr()?;
                let base = at;
                let ext = c.addr()?;
                let eof = c.addr()?;
                let root = c.addr()?;
                check_eof(src, at, stored_base, eof)?;
                Ok(Superblock {
                    version,
                    so,
                    sl,
                    base,
                    location: at,
                    root,
                    ext,
                })
            }
            v => Err(unsupported(at + 8, format!("superblock version {v}"))),
        }
    }
}

/// A file shorter than its superblock's end-of-file address is truncated: libhdf5 refuses
/// it (`H5F__super_read`: "truncated file"), though what is left may still parse. The
/// address counts from the stored base; a user block prepended later (h5jam) moves it by
/// the difference, as libhdf5 adjusts it.
fn check_eof(src: &dyn ByteSource, at: u64, stored_base: u64, eof: u64) -> Result<()> {
    if eof == UNDEF || stored_base == UNDEF {
        return Ok(());
    }
    let need = if at >= stored_base {
        eof.saturating_add(at - stored_base)
    } else {
        eof.saturating_sub(stored_base - at)
    };
    if src.size() < need {
        return Err(crate::io::err(
            src.size(),
            arrowsmith_core::ErrorCode::Truncated,
            format!(
                "file truncated: {} bytes, the superblock's end-of-file address says {need}",
                src.size()
            ),
        ));
    }
    Ok(())
}

fn check_sizes(at: u64, so: u8, sl: u8) -> Result<()> {
    let ok = |n: u8| matches!(n, 2 | 4 | 8);
    // libhdf5 also allows 16 and 32 (no writer is known to use them).
    let valid = |n: u8| matches!(n, 2 | 4 | 8 | 16 | 32);
    if !valid(so) || !valid(sl) {
        return Err(invalid(
            at,
            format!("superblock: size of offsets {so} / lengths {sl}"),
        ));
    }
    if !ok(so) || !ok(sl) {
        return Err(unsupported(
            at,
            format!("superblock: size of offsets {so} / lengths {sl} (beyond 8 bytes)"),
        ));
    }
    Ok(())
}

/// A fixture file's bytes and the file opened over them.
#[cfg(test)]
pub(crate) fn open_fixture(name: &str) -> (Vec<u8>, crate::Hdf5File) {
    let p = format!(
        "{}/../../fixtures/hdf5/{name}.h5",
        env!("CARGO_MANIFEST_DIR")
    );
    let b = std::fs::read(p).unwrap();
    let f = crate::Hdf5File::open(&b).unwrap();
    (b, f)
}

#[cfg(test)]
mod tests {
    fn open(name: &str) -> crate::Hdf5File {
        super::open_fixture(name).1
    }

    #[test]
    fn superblock_versions() {
        for (name, v) in [
            ("vl_earliest", 0),
            ("vl_v108", 2),
            ("vl_v110", 3),
            ("vl_latest", 3),
            ("len4", 2),
        ] {
            assert_eq!(open(name).superblock.version, v, "{name}");
        }
        let f = open("userblock_earliest");
        assert_eq!((f.superblock.location, f.superblock.base), (512, 512));
        let f = open("userblock_latest");
        assert_eq!(f.superblock.location, 512);
        assert_eq!(open("len4").superblock.sl, 4);
        // h5jam: a 1024-byte user block before a file whose base address field says 0.
        for name in ["h5jam_earliest", "h5jam_latest"] {
            let f = open(name);
            assert_eq!(
                (f.superblock.location, f.superblock.base),
                (1024, 1024),
                "{name}"
            );
        }
    }

    #[test]
    fn sizes_beyond_8_bytes_are_unsupported_other_sizes_invalid() {
        use arrowsmith_core::ErrorCode;
        let (b, _) = super::open_fixture("vl_earliest");
        for (so, code) in [(16, ErrorCode::Unsupported), (3, ErrorCode::Invalid)] {
            let mut b = b.clone();
            b[13] = so; // superblock v0: size of offsets
            let e = crate::Hdf5File::open(&b).err().unwrap();
            assert_eq!(e.code, code, "{so}: {e}");
        }
    }

    #[test]
    fn a_file_shorter_than_its_end_of_file_address_is_truncated() {
        use arrowsmith_core::ErrorCode;
        for name in [
            "vl_earliest",
            "vl_latest",
            "userblock_earliest",
            "h5jam_earliest",
        ] {
            let (b, _) = super::open_fixture(name);
            let cut = b[..b.len() - 1].to_vec();
            let e = crate::Hdf5File::open(&cut).err().unwrap();
            assert_eq!(e.code, ErrorCode::Truncated, "{name}: {e}");
        }
    }
}
