//! IoTDB deletions kept beside a TsFile: `.mods2` (IoTDB 2.0, binary) and `.mods` (IoTDB
//! 0.x–1.x, text). The formats follow apache/iotdb's `ModEntry`, `TreeDeletionEntry`,
//! `TableDeletionEntry`, `DeletionPredicate`, `IDPredicate` and `LocalTextModificationAccessor`
//! (see `docs/tsfile.md`).

use crate::bytes::{err, Cursor};
use arrowsmith_core::{ErrorCode, Result};

/// The deletions of one TsFile, applied by [`crate::TsFile::read_as`] when a query carries them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mods {
    entries: Vec<Deletion>,
}

/// Points with `start <= time <= end` of the series the target names are deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Deletion {
    start: i64,
    end: i64,
    target: Target,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// A tree-model path pattern split into nodes (`*`: one node, `**`: one or more, `*`
    /// inside a node: any characters).
    Tree(Vec<String>),
    /// Table model: the devices of `table` the predicate matches; `columns` empty means
    /// whole rows.
    Table {
        table: String,
        devices: IdPred,
        columns: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum IdPred {
    All,
    Device(Vec<Option<String>>),
    Segment(String, usize),
    And(Vec<IdPred>),
}

/// What the deletions do to one device: rows removed and, per output column, values nulled.
pub(crate) struct DeviceMods<'a> {
    /// Time ranges removing whole rows.
    pub rows: Vec<(i64, i64)>,
    mods: &'a Mods,
    segments: Vec<Option<String>>,
    tree: bool,
}

const MAX_PREDICATE_DEPTH: usize = 32;

impl Mods {
    /// Parse a `.mods2` (binary) or `.mods` (text, starting with `DELETION,`) file.
    pub fn parse(bytes: &[u8]) -> Result<Mods> {
        if bytes.starts_with(b"DELETION,") {
            Self::parse_text(bytes)
        } else {
            Self::parse_binary(bytes)
        }
    }

    /// How many deletions the file holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the file holds no deletion.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn parse_binary(bytes: &[u8]) -> Result<Mods> {
        let mut c = Cursor::new(bytes, 0, "mods2 file");
        let mut entries = Vec::new();
        while !c.at_end() {
            let at = c.offset();
            let kind = c.u8("entry type")?;
            let start = c.i64("start time")?;
            let end = c.i64("end time")?;
            let target = match kind {
                0 => {
                    let table = string(&mut c, "table name")?;
                    let devices = id_pred(&mut c, 0)?;
                    let n = count(&mut c, "column count")?;
                    let mut columns = Vec::with_capacity(n);
                    for _ in 0..n {
                        columns.push(string(&mut c, "column name")?);
                    }
                    Target::Table {
                        table,
                        devices,
                        columns,
                    }
                }
                1 => Target::Tree(nodes(&string(&mut c, "path pattern")?)),
                k => {
                    return Err(err(
                        at,
                        ErrorCode::Invalid,
                        format!("mods2 file at byte {at}: unknown entry type {k}"),
                    ))
                }
            };
            entries.push(Deletion { start, end, target });
        }
        Ok(Mods { entries })
    }

    /// `DELETION,<path>,<file offset>,<start>,<end>` or the older point form
    /// `DELETION,<path>,<version>,<end>` (start: the smallest time); the path may hold commas.
    fn parse_text(bytes: &[u8]) -> Result<Mods> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            err(
                e.valid_up_to() as u64,
                ErrorCode::InvalidUtf8,
                format!("mods file at byte {}: not UTF-8 text", e.valid_up_to()),
            )
        })?;
        let mut entries = Vec::new();
        let mut at = 0u64;
        for line in text.split_inclusive('\n') {
            let here = at;
            at += line.len() as u64;
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                continue;
            }
            let bad = |what: &str| {
                err(
                    here,
                    ErrorCode::Invalid,
                    format!("mods file at byte {here}: {what} in line {line:?}"),
                )
            };
            let f: Vec<&str> = line.split(',').collect();
            if f[0] != "DELETION" || f.len() < 4 {
                return Err(bad("not a deletion"));
            }
            let num = |s: &str| s.parse::<i64>().map_err(|_| bad("invalid number"));
            let n = f.len();
            let (path, start, end) = if n >= 5 && f[n - 3].parse::<i64>().is_ok() {
                (f[1..n - 3].join(","), num(f[n - 2])?, num(f[n - 1])?)
            } else {
                num(f[n - 2])?; // the version of the point form
                (f[1..n - 2].join(","), i64::MIN, num(f[n - 1])?)
            };
            entries.push(Deletion {
                start,
                end,
                target: Target::Tree(nodes(&path)),
            });
        }
        Ok(Mods { entries })
    }

    /// The deletions touching the device with these id segments (`segments[0]` is the table
    /// of a table-model device), and whether it is a tree-model device.
    pub(crate) fn for_device(&self, segments: &[Option<String>], tree: bool) -> DeviceMods<'_> {
        let mut rows = Vec::new();
        if !tree {
            for d in &self.entries {
                if let Target::Table { columns, .. } = &d.target {
                    if columns.is_empty() && self.table_device(d, segments) {
                        rows.push((d.start, d.end));
                    }
                }
            }
        }
        DeviceMods {
            rows,
            mods: self,
            segments: segments.to_vec(),
            tree,
        }
    }

    fn table_device(&self, d: &Deletion, segments: &[Option<String>]) -> bool {
        match &d.target {
            Target::Table { table, devices, .. } => {
                segments
                    .first()
                    .and_then(|s| s.as_deref())
                    .is_some_and(|t| t.eq_ignore_ascii_case(table))
                    && devices.matches(segments)
            }
            Target::Tree(_) => false,
        }
    }
}

impl DeviceMods<'_> {
    /// Time ranges deleting the values of column `name` (beyond the whole-row ranges).
    pub fn column(&self, name: &str) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for d in &self.mods.entries {
            let hit = match &d.target {
                Target::Tree(pattern) if self.tree => {
                    let mut path: Vec<&str> = Vec::new();
                    for s in &self.segments {
                        path.extend(s.as_deref().unwrap_or("null").split('.'));
                    }
                    path.push(name);
                    path_match(pattern, &path)
                }
                Target::Table { columns, .. } if !self.tree => {
                    !columns.is_empty()
                        && columns.iter().any(|c| c.eq_ignore_ascii_case(name))
                        && self.mods.table_device(d, &self.segments)
                }
                _ => false,
            };
            if hit {
                out.push((d.start, d.end));
            }
        }
        out
    }

    pub fn is_tree(&self) -> bool {
        self.tree
    }
}

impl IdPred {
    fn matches(&self, segments: &[Option<String>]) -> bool {
        match self {
            IdPred::All => true,
            IdPred::Device(d) => {
                let trim = |s: &[Option<String>]| {
                    let mut n = s.len();
                    while n > 1 && s[n - 1].is_none() {
                        n -= 1;
                    }
                    n
                };
                let (a, b) = (trim(d), trim(segments));
                a == b && d[..a] == segments[..b]
            }
            IdPred::Segment(v, i) => segments.get(*i).and_then(|s| s.as_deref()) == Some(v),
            IdPred::And(ps) => ps.iter().all(|p| p.matches(segments)),
        }
    }
}

fn id_pred(c: &mut Cursor, depth: usize) -> Result<IdPred> {
    if depth > MAX_PREDICATE_DEPTH {
        return Err(err(
            c.offset(),
            ErrorCode::TooDeep,
            format!(
                "mods2 file at byte {}: device predicates nest deeper than {MAX_PREDICATE_DEPTH}",
                c.offset()
            ),
        ));
    }
    let at = c.offset();
    Ok(match c.u8("device predicate type")? {
        0 => IdPred::All,
        1 => {
            let n = count(c, "device segment count")?;
            let mut segs = Vec::with_capacity(n);
            for _ in 0..n {
                segs.push(c.var_string("device segment")?);
            }
            IdPred::Device(segs)
        }
        2 => {
            let v = string(c, "tag value")?;
            let i = c.svarint("segment index")?;
            let i = usize::try_from(i).map_err(|_| c.invalid("negative segment index"))?;
            IdPred::Segment(v, i)
        }
        3 => {
            let n = count(c, "predicate count")?;
            let mut ps = Vec::with_capacity(n);
            for _ in 0..n {
                ps.push(id_pred(c, depth + 1)?);
            }
            IdPred::And(ps)
        }
        k => {
            return Err(err(
                at,
                ErrorCode::Invalid,
                format!("mods2 file at byte {at}: unknown device predicate type {k}"),
            ))
        }
    })
}

/// A zigzag varint count, each item taking at least one byte (so it cannot ask for more
/// memory than the file's size justifies).
fn count(c: &mut Cursor, field: &str) -> Result<usize> {
    let n = c.svarint(field)?;
    match usize::try_from(n) {
        Ok(n) if n <= c.remaining() => Ok(n),
        _ => Err(c.invalid(format!("{field} {n} does not fit the bytes left"))),
    }
}

fn string(c: &mut Cursor, field: &str) -> Result<String> {
    c.var_string(field)?
        .ok_or_else(|| c.invalid(format!("{field} is null")))
}

/// Path nodes; a node in backquotes keeps its dots.
fn nodes(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in path.chars() {
        match ch {
            '`' => {
                quoted = !quoted;
                cur.push(ch);
            }
            '.' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|n| {
            n.strip_prefix('`')
                .and_then(|n| n.strip_suffix('`'))
                .map(|n| n.replace("``", "`"))
                .unwrap_or(n)
        })
        .collect()
}

/// IoTDB path pattern matching: `**` one or more nodes, `*` one node, `*` inside a node any
/// characters.
fn path_match(pattern: &[String], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((p, rest)) if p == "**" => (1..=path.len()).any(|k| path_match(rest, &path[k..])),
        Some((p, rest)) => {
            !path.is_empty() && node_match(p, path[0]) && path_match(rest, &path[1..])
        }
    }
}

fn node_match(pattern: &str, node: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == node;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if node.len() < first.len() + last.len() || !node.starts_with(first) || !node.ends_with(last) {
        return false;
    }
    let mut rest = &node[first.len()..node.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `t` lies in one of `ranges` (inclusive).
pub(crate) fn deleted(ranges: &[(i64, i64)], t: i64) -> bool {
    ranges.iter().any(|&(s, e)| s <= t && t <= e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<String> {
        nodes(s)
    }

    #[test]
    fn patterns() {
        let path = ["root", "sg", "d1", "s1"];
        assert!(path_match(&p("root.sg.d1.s1"), &path));
        assert!(path_match(&p("root.sg.d1.*"), &path));
        assert!(path_match(&p("root.**"), &path));
        assert!(path_match(&p("root.**.s1"), &path));
        assert!(path_match(&p("root.sg.d*.s1"), &path));
        assert!(!path_match(&p("root.sg.d1"), &path));
        assert!(!path_match(&p("root.*.s1"), &path));
        assert!(!path_match(&p("root.sg.d1.s1.**"), &path));
        assert_eq!(p("root.`a.b`.s"), ["root", "a.b", "s"]);
    }

    #[test]
    fn hostile_bytes_are_errors() {
        // Truncated entry, unknown type, a count past the end, nesting without end.
        assert!(Mods::parse(&[1, 0, 0]).is_err());
        assert!(Mods::parse(&[9; 17]).is_err());
        let mut b = vec![0u8];
        b.extend([0; 16]);
        b.extend([2, b't', 0, 3, 0xfe, 0xff, 0xff, 0xff, 0x0f]);
        assert!(Mods::parse(&b).is_err());
        let mut b = vec![0u8];
        b.extend([0; 16]);
        b.extend([2, b't']);
        b.extend([3, 2].repeat(100));
        let e = Mods::parse(&b).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooDeep);
        assert!(Mods::parse(b"DELETION,root.a.s,1,x\n").is_err());
        assert!(Mods::parse(b"DELETION,root.a.s,x,2\n").is_err());
    }

    #[test]
    fn text_forms() {
        let m = Mods::parse(b"DELETION,root.a.d.s,120,5,9\nDELETION,root.a.d.t,3,7\n").unwrap();
        assert_eq!(m.len(), 2);
        let segs = [Some("root.a".to_string()), Some("d".to_string())];
        let d = m.for_device(&segs, true);
        assert_eq!(d.column("s"), [(5, 9)]);
        assert_eq!(d.column("t"), [(i64::MIN, 7)]);
        assert!(d.column("u").is_empty());
    }
}
