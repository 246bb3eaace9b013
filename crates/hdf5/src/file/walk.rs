//! The tree walk: every dataset path in a file.

use arrowsmith_core::{ByteSource, DecodeError, ErrorCode, Format, Result};

use crate::file::list::EntryKind;
use crate::file::Hdf5File;

/// Every dataset path in the file, sorted. Each group (and dataset) object is visited
/// once, by its first path: hard-link cycles and shared subgroups are not re-walked.
pub fn dataset_paths(file: &Hdf5File, src: &dyn ByteSource) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec!["/".to_string()];
    let mut seen = std::collections::HashSet::new();
    seen.insert(file.superblock.root);
    while let Some(p) = stack.pop() {
        if seen.len() > 1_000_000 {
            return Err(DecodeError::new(
                Format::Hdf5,
                0,
                ErrorCode::TooDeep,
                "too many objects",
            ));
        }
        for e in file.list(src, &p)? {
            let child = if p == "/" {
                format!("/{}", e.name)
            } else {
                format!("{p}/{}", e.name)
            };
            if e.kind != EntryKind::Link && !seen.insert(e.addr) {
                continue;
            }
            match e.kind {
                EntryKind::Group if child.matches('/').count() < 64 => stack.push(child),
                EntryKind::Dataset => out.push(child),
                _ => {}
            }
        }
    }
    out.sort();
    Ok(out)
}
