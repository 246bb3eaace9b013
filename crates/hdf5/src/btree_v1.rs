//! Version-1 B-trees: group nodes (→ symbol table nodes) and raw-data chunk nodes.

use std::collections::HashSet;

use arrowsmith_core::Result;

use crate::file::ctx::Ctx;
use crate::io::{invalid, UNDEF};

/// One stored chunk: element coordinates of its first element, address, stored size, mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRec {
    pub coords: Vec<u64>,
    pub addr: u64,
    pub size: u64,
    pub mask: u32,
}

/// Children of level-0 group nodes: symbol table node (SNOD) addresses.
pub fn group_leaves(ctx: &Ctx, root: u64) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    walk(ctx, root, 0, 0, &mut HashSet::new(), &mut |_, child, _| {
        out.push(child);
        Ok(())
    })?;
    Ok(out)
}

/// Every chunk stored under a chunk B-tree of a dataset of `rank` dimensions.
pub fn chunks(ctx: &Ctx, root: u64, rank: usize) -> Result<Vec<ChunkRec>> {
    let mut out = Vec::new();
    walk(
        ctx,
        root,
        1,
        rank,
        &mut HashSet::new(),
        &mut |key, child, at| {
            let size = u32::from_le_bytes(key[0..4].try_into().unwrap()) as u64;
            let mask = u32::from_le_bytes(key[4..8].try_into().unwrap());
            let coords = (0..rank)
                .map(|i| u64::from_le_bytes(key[8 + 8 * i..16 + 8 * i].try_into().unwrap()))
                .collect();
            if child == UNDEF {
                return Err(invalid(at, "v1 B-tree chunk with undefined address"));
            }
            out.push(ChunkRec {
                coords,
                addr: child,
                size,
                mask,
            });
            Ok(())
        },
    )?;
    Ok(out)
}

/// Called with (key bytes, child address, node file offset) for each level-0 entry.
type LeafFn<'f> = dyn FnMut(&[u8], u64, u64) -> Result<()> + 'f;

fn walk(
    ctx: &Ctx,
    addr: u64,
    node_type: u8,
    rank: usize,
    seen: &mut HashSet<u64>,
    f: &mut LeafFn,
) -> Result<()> {
    if addr == UNDEF {
        return Ok(());
    }
    let at = ctx.abs(addr)?;
    if !seen.insert(addr) || seen.len() > 1_000_000 {
        return Err(invalid(at, "v1 B-tree: node visited twice (cycle)"));
    }
    let so = ctx.sb.so as u64;
    let head = ctx.read(addr, 8 + 2 * so, "v1 B-tree node")?;
    if &head[..4] != b"TREE" {
        return Err(invalid(at, "v1 B-tree node: missing TREE signature"));
    }
    if head[4] != node_type {
        return Err(invalid(
            at,
            format!("v1 B-tree node type {} (expected {node_type})", head[4]),
        ));
    }
    let level = head[5];
    let entries = u16::from_le_bytes([head[6], head[7]]) as u64;
    let key = if node_type == 0 {
        ctx.sb.sl as u64
    } else {
        8 + 8 * (rank as u64 + 1)
    };
    let body_len = entries * (key + so) + key;
    let body = ctx.read(
        addr.saturating_add(8 + 2 * so),
        body_len,
        "v1 B-tree node entries",
    )?;
    let so = so as usize;
    let key = key as usize;
    for i in 0..entries as usize {
        let k = &body[i * (key + so)..i * (key + so) + key];
        let c = &body[i * (key + so) + key..(i + 1) * (key + so)];
        let child = crate::io::le_uint(c);
        let child = if c.iter().all(|&b| b == 0xff) {
            UNDEF
        } else {
            child
        };
        if level > 0 {
            if seen.len() > 64 * 1024 * 1024 {
                return Err(invalid(at, "v1 B-tree too large"));
            }
            walk(ctx, child, node_type, rank, seen, f)?;
        } else {
            f(k, child, at)?;
        }
    }
    Ok(())
}
