//! Path resolution: walking a path from the root group through hard and soft links, up to
//! the first external link.

use arrowsmith_core::{ByteSource, ErrorCode, Result};

use crate::file::ctx::Ctx;
use crate::file::Hdf5File;
use crate::group::{self, LinkTarget};
use crate::io::err;
use crate::object_header::ObjectHeader;

/// Where a path leads.
enum Located {
    /// The object header at this address.
    Here(u64),
    /// Through the external link at `via`, to `path` in `file`.
    External {
        via: String,
        file: String,
        path: String,
    },
}

/// An external link's target path followed by the path components after the link.
fn rejoin<'a>(target: String, rest: impl Iterator<Item = &'a str>) -> String {
    rest.fold(target, |mut p, part| {
        if !p.ends_with('/') {
            p.push('/');
        }
        p.push_str(part);
        p
    })
}

impl Hdf5File {
    /// it leads through (see [`Hdf5File::external_link`]).
    pub(crate) fn resolve(&self, ctx: &Ctx, path: &str, depth: u32) -> Result<u64> {
        match self.locate(ctx, path, depth)? {
            Located::Here(addr) => Ok(addr),
            Located::External { via, file, path: p } => Err(err(
                0,
                ErrorCode::Unsupported,
                format!("{via}: external link to {file}:{p} (a resolver for {file} follows it)"),
            )),
        }
    }

    /// Walk `path` from the root, following hard and soft links, stopping at the first
    /// external link.
    fn locate(&self, ctx: &Ctx, path: &str, depth: u32) -> Result<Located> {
        if depth > 16 {
            return Err(err(
                0,
                ErrorCode::TooDeep,
                format!("{path}: too many soft links"),
            ));
        }
        let mut addr = self.superblock.root;
        let mut walked = String::new();
        let mut parts = path.split('/').filter(|p| !p.is_empty() && *p != ".");
        while let Some(part) = parts.next() {
            let oh = ObjectHeader::parse(ctx, addr)?;
            let links = group::links(ctx, &oh)?;
            let target = links.into_iter().find(|(n, _)| n == part).map(|(_, t)| t);
            walked.push('/');
            walked.push_str(part);
            addr = match target {
                Some(LinkTarget::Hard(a)) => a,
                Some(LinkTarget::Soft(t)) => {
                    let t = if t.starts_with('/') {
                        t
                    } else {
                        format!("{}/{t}", &walked[..walked.len() - part.len() - 1])
                    };
                    match self.locate(ctx, &t, depth + 1)? {
                        Located::Here(a) => a,
                        Located::External { via, file, path } => {
                            return Ok(Located::External {
                                via,
                                file,
                                path: rejoin(path, parts),
                            })
                        }
                    }
                }
                Some(LinkTarget::External { file, path }) => {
                    return Ok(Located::External {
                        via: walked,
                        file,
                        path: rejoin(path, parts),
                    });
                }
                Some(LinkTarget::UserDefined(t)) => {
                    return Err(err(
                        0,
                        ErrorCode::Unsupported,
                        format!("{walked}: user-defined link type {t}"),
                    ))
                }
                None => {
                    return Err(err(
                        0,
                        ErrorCode::NotFound,
                        format!("{walked}: no such object"),
                    ))
                }
            };
        }
        Ok(Located::Here(addr))
    }

    /// The first external link `path` leads through: the file it names (as stored) and the
    /// path to read there (the link's target joined with the rest of `path`). `None` when
    /// the path stays inside this file.
    pub fn external_link(
        &self,
        src: &dyn ByteSource,
        path: &str,
    ) -> Result<Option<(String, String)>> {
        Ok(match self.locate(&self.ctx(src), path, 0)? {
            Located::Here(_) => None,
            Located::External { file, path, .. } => Some((file, path)),
        })
    }
}
