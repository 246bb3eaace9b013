//! Group listing: the members of a group, with what each one is.

use arrowsmith_core::{ByteSource, ErrorCode, Result};

use crate::file::attribute;
use crate::file::Hdf5File;
use crate::group::{self, LinkTarget};
use crate::io::UNDEF;
use crate::object_header::{ObjectHeader, MSG_DATATYPE, MSG_LAYOUT};

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A group.
    Group,
    /// A dataset.
    Dataset,
    /// A committed (named) datatype.
    Datatype,
    /// A soft or external link that does not resolve inside this file.
    Link,
}

/// One member of a group, as a listing shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its name within the group.
    pub name: String,
    /// What it is.
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
    /// A dataset (or committed datatype) this reader cannot read: the feature it uses, in
    /// words (`filter id 32026 (blosc2) is not supported`). The rest of the group lists as
    /// usual; `info` says the same.
    pub unsupported: Option<String>,
    /// How the group links it when not by a hard link: what viewers show as the link.
    pub link: Option<Link>,
    /// Its creation order, when the group tracks it (viewers then list members in that
    /// order, else by name).
    pub creation_order: Option<u64>,
}

/// A link other than a hard link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// A soft link to a path in this file (which may not exist).
    Soft(String),
    /// An external link: the file as stored (often relative) and the path in it.
    External {
        /// The file name the link stores.
        file: String,
        /// The object's path in that file.
        path: String,
    },
}

impl Hdf5File {
    /// Members of the group at `path`.
    pub fn list(&self, src: &dyn ByteSource, path: &str) -> Result<Vec<Entry>> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let oh = ObjectHeader::parse(&ctx, addr)?;
        let mut out = Vec::new();
        let (links, tracked) = group::links_ordered(&ctx, &oh)?;
        for (name, target, crt) in links {
            let creation_order = crt.filter(|_| tracked);
            let link = match &target {
                LinkTarget::Soft(t) => Some(Link::Soft(t.clone())),
                LinkTarget::External { file, path } => Some(Link::External {
                    file: file.clone(),
                    path: path.clone(),
                }),
                _ => None,
            };
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
                    unsupported: None,
                    link,
                    creation_order,
                });
                continue;
            };
            let child = ObjectHeader::parse(&ctx, addr)?;
            let entry = if child.find(MSG_LAYOUT).is_some() {
                let (shape, dtype, unsupported) = match self.dataset_at(&ctx, addr) {
                    Ok(ds) => (
                        ds.space.dims.clone(),
                        ds.dtype.describe(),
                        ds.unsupported().map(|e| e.message),
                    ),
                    Err(e) if e.code == ErrorCode::Unsupported => {
                        let p = crate::file::dataset::Parts::parse(&ctx, &child);
                        (p.shape(), p.dtype(), Some(e.message))
                    }
                    Err(e) => return Err(e),
                };
                Entry {
                    name,
                    kind: EntryKind::Dataset,
                    shape,
                    dtype,
                    addr,
                    target: String::new(),
                    unsupported,
                    link: link.clone(),
                    creation_order,
                }
            } else if let Some(m) = child.find(MSG_DATATYPE) {
                let (dtype, unsupported) =
                    match attribute::datatype(&ctx, m.data, m.offset, m.flags & 2 != 0) {
                        Ok(dt) => (dt.describe(), None),
                        Err(e) if e.code == ErrorCode::Unsupported => {
                            (String::new(), Some(e.message))
                        }
                        Err(e) => return Err(e),
                    };
                Entry {
                    name,
                    kind: EntryKind::Datatype,
                    shape: vec![],
                    dtype,
                    addr,
                    target: String::new(),
                    unsupported,
                    link: link.clone(),
                    creation_order,
                }
            } else {
                Entry {
                    name,
                    kind: EntryKind::Group,
                    shape: vec![],
                    dtype: String::new(),
                    addr,
                    target: String::new(),
                    unsupported: None,
                    link,
                    creation_order,
                }
            };
            out.push(entry);
        }
        Ok(out)
    }
}
