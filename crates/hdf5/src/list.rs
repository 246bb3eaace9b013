//! Group listing: the members of a group, with what each one is.

use arrowsmith_core::{ByteSource, Result};

use crate::attribute;
use crate::file::Hdf5File;
use crate::group::{self, LinkTarget};
use crate::io::UNDEF;
use crate::object_header::{ObjectHeader, MSG_DATATYPE, MSG_LAYOUT};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Group,
    Dataset,
    Datatype,
    /// A soft or external link that does not resolve inside this file.
    Link,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub name: String,
    pub kind: EntryKind,
    /// Dataset shape (empty for scalars and non-datasets).
    pub shape: Vec<u64>,
    /// Datatype description (datasets and committed datatypes), e.g. `vlen-str(utf8)`.
    pub dtype: String,
    /// Object header address (file-relative, as object references store it); `u64::MAX`
    /// for unresolved links. Two entries with the same address are the same object.
    pub addr: u64,
    /// Links that do not resolve here: `file:/path` of an external link, the path of a
    /// dangling soft link; empty otherwise.
    pub target: String,
}

impl Hdf5File {
    /// Members of the group at `path`.
    pub fn list(&self, src: &dyn ByteSource, path: &str) -> Result<Vec<Entry>> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let oh = ObjectHeader::parse(&ctx, addr)?;
        let mut out = Vec::new();
        for (name, target) in group::links(&ctx, &oh)? {
            let (addr, target) = match target {
                LinkTarget::Hard(a) => (Some(a), String::new()),
                LinkTarget::Soft(t) => (
                    self.resolve(&ctx, &format!("{}/{name}", path.trim_end_matches('/')), 0)
                        .ok(),
                    t,
                ),
                LinkTarget::External { file, path } => (None, format!("{file}:{path}")),
                LinkTarget::UserDefined(t) => (None, format!("user-defined link type {t}")),
            };
            let Some(addr) = addr else {
                out.push(Entry {
                    name,
                    kind: EntryKind::Link,
                    shape: vec![],
                    dtype: String::new(),
                    addr: UNDEF,
                    target,
                });
                continue;
            };
            let child = ObjectHeader::parse(&ctx, addr)?;
            let entry = if child.find(MSG_LAYOUT).is_some() {
                let ds = self.dataset_at(&ctx, addr)?;
                Entry {
                    name,
                    kind: EntryKind::Dataset,
                    shape: ds.space.dims.clone(),
                    dtype: ds.dtype.describe(),
                    addr,
                    target: String::new(),
                }
            } else if let Some(m) = child.find(MSG_DATATYPE) {
                let dt = attribute::datatype(&ctx, m.data, m.offset, m.flags & 2 != 0)?;
                Entry {
                    name,
                    kind: EntryKind::Datatype,
                    shape: vec![],
                    dtype: dt.describe(),
                    addr,
                    target: String::new(),
                }
            } else {
                Entry {
                    name,
                    kind: EntryKind::Group,
                    shape: vec![],
                    dtype: String::new(),
                    addr,
                    target: String::new(),
                }
            };
            out.push(entry);
        }
        Ok(out)
    }
}
