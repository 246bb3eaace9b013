//! Rows and their shape: which values are rows (the layout), how rows become columns
//! (records, positional tuples, `List`/`FixedSizeList`, a columnar map), and the retries
//! that a first attempt can ask for.
//!
//! A decode is one pass. Three findings send it back to the start with a changed plan:
//! rows that are arrays mixing kinds (→ positional columns), a records column past its
//! key or null budget (→ that column becomes a Map column), and, in `Layout::Auto`, bytes
//! after the top-level array (→ each top-level value is a row). Each retry fixes one
//! decision for good, and at most `MAX_WIDE` records columns can turn into Map columns,
//! so a decode costs a bounded number of passes.

use arrowsmith_core::{Batch, Buffer, Column, DataType, DecodeError, ErrorCode, Field};

use crate::builder::{Builder, Data, Shape};
use crate::options::{Layout, Options, Tuples};
use crate::plan::{Plan, Restart};
use crate::scan::Scanner;
use crate::structures::Structures;
use crate::tags::{kind_name, Kind, TAGS};

use super::{err, Parser, Result};

/// Records columns that may turn into Map columns in one decode.
const MAX_WIDE: usize = 16;
/// Nested columns that may turn into positional or enum Structs in one decode (each
/// costs one more pass).
const MAX_SHAPES: usize = 32;

/// Which values of the buffer are the rows.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rows {
    /// A whole input, as `Options::layout` says.
    Input,
    /// Rows until the end of the buffer (a pool's piece): elements of the top-level array
    /// (`in_array`) or top-level values.
    Open { in_array: bool },
    /// `n` rows (a stream's batch). `single`: they are the input's only top-level value.
    Count {
        n: usize,
        in_array: bool,
        single: bool,
    },
}

/// Decode a whole MessagePack input into one batch.
pub fn decode(bytes: &[u8], opts: &Options) -> std::result::Result<Batch, DecodeError> {
    decode_rows(
        bytes,
        0,
        opts,
        Rows::Input,
        &mut Plan::default(),
        &mut Structures::default(),
    )
    .map(|(batch, _)| batch)
}

/// Decode the rows of `buf` (at absolute offset `base`) into one batch, retrying as the
/// plan changes; also returns the bytes the rows took. `structures` are the msgpackr
/// structures defined before `buf` and, on success, after it.
pub(crate) fn decode_rows(
    buf: &[u8],
    base: u64,
    opts: &Options,
    rows: Rows,
    plan: &mut Plan,
    structures: &mut Structures,
) -> Result<(Batch, usize)> {
    // The plan before a positional attempt made without asking `concatenated` first.
    let mut probe: Option<Plan> = None;
    loop {
        let mut root = Builder::new();
        let (got, restart, defined, used) = {
            let mut p = Parser::new(buf, base, opts, plan, structures.clone());
            let got = read_rows(&mut p, &mut root, rows);
            (got, p.restart, p.structures, p.pos)
        };
        let e = match got {
            Ok(single) => {
                *structures = defined;
                return Ok((finish(root, opts, single), used));
            }
            Err(e) => e,
        };
        if let Some(before) = probe.take() {
            // The positional attempt did not decode: now the question it skipped, and if
            // the answer is yes, on as if it had never been made.
            if concatenated(buf, opts, rows, &before) {
                *plan = before;
                plan.values = true;
                continue;
            }
        }
        let conflict = e.code == ErrorCode::TypeMismatch
            && opts.tuples() == Tuples::Auto
            && !plan.positional
            && matches!(root.data, Data::List { .. });
        if restart.is_none() && conflict && could_be_concatenated(buf, opts, rows, plan) {
            // Rows that are arrays of mixed types (structs as arrays): positional rows, if
            // the first array is the whole input. A positional attempt that decodes shows
            // it is, so the structural walk `concatenated` needs is left for its failure.
            probe = Some(plan.clone());
            plan.positional = true;
            continue;
        }
        if restart.is_none() && concatenated(buf, opts, rows, plan) {
            // `Layout::Auto`: the first array failed as the rows' container, but more
            // values follow it (Fluentd message mode, Tarantool streams): each top-level
            // value is a row, as for input whose first array decodes.
            plan.values = true;
            continue;
        }
        match restart.or(conflict.then_some(Restart::Positional)) {
            None => return Err(e),
            Some(Restart::Positional) => plan.positional = true,
            Some(Restart::Values) => plan.values = true,
            Some(Restart::Tuple(id)) if plan.shaped_count() < MAX_SHAPES => plan.tuples.push(id),
            Some(Restart::Enum(id)) if plan.shaped_count() < MAX_SHAPES => plan.enums.push(id),
            Some(Restart::NotEnum(id)) if plan.shaped_count() < MAX_SHAPES => {
                plan.enums.retain(|&x| x != id);
                plan.not_enums.push(id);
            }
            Some(Restart::Tuple(_) | Restart::Enum(_) | Restart::NotEnum(_)) => {
                return Err(err(
                    e.offset,
                    ErrorCode::Unsupported,
                    format!(
                        "more than {MAX_SHAPES} nested columns hold positional structs or Rust enums; the next is the value at byte {}",
                        e.offset
                    ),
                ))
            }
            Some(Restart::Wide(serial)) if plan.wide.len() < MAX_WIDE => plan.wide.push(serial),
            Some(Restart::Wide(_)) => {
                return Err(err(
                    e.offset,
                    ErrorCode::Unsupported,
                    format!(
                        "more than {MAX_WIDE} records columns have too many distinct keys (maxKeys) or too many missing ones; the 17th is the map at byte {}",
                        e.offset
                    ),
                ))
            }
        }
    }
}

/// The error of a `Layout::Array` input that is not one array.
pub(crate) fn not_an_array(bytes: &[u8]) -> DecodeError {
    match bytes.first() {
        None => err(
            0,
            ErrorCode::Truncated,
            "the input is empty; Layout::Array expects one top-level array".into(),
        ),
        Some(&t) => err(
            0,
            ErrorCode::Invalid,
            format!(
                "Layout::Array expects one top-level array, but the input starts with a {}",
                kind_name(t)
            ),
        ),
    }
}

/// The error of a `Layout::Array` input with bytes after its array, from `at` to `len`.
pub(crate) fn trailing(at: u64, len: u64) -> DecodeError {
    err(
        at,
        ErrorCode::Invalid,
        format!(
            "{} more bytes follow the top-level array, which ends at byte {at}; use Layout::Stream for concatenated values",
            len - at
        ),
    )
}

/// Whether `concatenated` could be true: a whole-input `Layout::Auto` attempt, not yet
/// reading values, of input that starts with an array (no walk).
fn could_be_concatenated(buf: &[u8], opts: &Options, rows: Rows, plan: &Plan) -> bool {
    matches!(rows, Rows::Input)
        && opts.layout == Layout::Auto
        && !plan.values
        && buf
            .first()
            .is_some_and(|&t| TAGS[t as usize].kind == Kind::Array)
}

/// Whether a failed whole-input `Layout::Auto` attempt read a top-level array followed by
/// more values (found by a structural walk, on this error path only).
fn concatenated(buf: &[u8], opts: &Options, rows: Rows, plan: &Plan) -> bool {
    if !could_be_concatenated(buf, opts, rows, plan) {
        return false;
    }
    let mut scan = Scanner::new(opts);
    scan.start();
    let mut pos = 0;
    scan.walk(buf, &mut pos, true) && pos < buf.len()
}

/// The rows of one attempt into `root`. `Ok(true)`: they are the input's only top-level
/// value (a candidate for the columnar reading).
fn read_rows(p: &mut Parser, root: &mut Builder, rows: Rows) -> Result<bool> {
    let len = p.buf.len();
    match rows {
        Rows::Open { in_array } => p.rows(root, usize::MAX, usize::from(in_array), true)?,
        Rows::Count {
            n,
            in_array,
            single,
        } => {
            p.rows(root, n, usize::from(in_array), false)?;
            return Ok(single);
        }
        Rows::Input => match p.opts.layout {
            Layout::Array => {
                let Some(n) = p.array_header()? else {
                    return Err(not_an_array(p.buf));
                };
                p.rows(root, n, 1, false)?;
                if p.pos != len {
                    return Err(trailing(p.at(p.pos), p.at(len)));
                }
            }
            Layout::Auto if !p.plan.values => match p.array_header()? {
                Some(n) => {
                    p.rows(root, n, 1, false)?;
                    if p.pos != len {
                        return Err(p.restart(Restart::Values));
                    }
                }
                None => {
                    p.rows(root, usize::MAX, 0, true)?;
                    return Ok(root.len == 1);
                }
            },
            Layout::Auto | Layout::Stream => {
                p.rows(root, usize::MAX, 0, true)?;
                return Ok(root.len == 1);
            }
        },
    }
    Ok(false)
}

impl Parser<'_> {
    /// `count` rows (or, with `open`, rows until the input ends) into `root`; `depth` is
    /// the number of containers around each row.
    pub(crate) fn rows(
        &mut self,
        root: &mut Builder,
        count: usize,
        depth: usize,
        open: bool,
    ) -> Result {
        if self.plan.positional || self.opts.tuples() == Tuples::Columns {
            self.tuple_rows(root, count, depth, open)
        } else {
            self.seq(root, count, depth, open)
        }
    }

    /// Positional rows: each row is an array (or nil) whose element `i` goes to column `i`.
    fn tuple_rows(&mut self, root: &mut Builder, count: usize, depth: usize, open: bool) -> Result {
        if !open && root.len == 0 && root.hint == 0 {
            root.hint = self.grant(count);
        }
        for _ in 0..count {
            if open && self.pos == self.buf.len() {
                break;
            }
            let start = self.pos;
            let Some(t) = self.peek() else {
                // The error of a value missing where one was expected.
                return self.value(root, depth);
            };
            let tag = &TAGS[t as usize];
            match tag.kind {
                Kind::Nil => {
                    self.pos += 1;
                    root.push_null();
                }
                Kind::Array => {
                    self.pos += 1;
                    let n = self.length(tag, start)?;
                    self.tuple(root, n, start, depth, tag.name, true)?;
                }
                k => {
                    return Err(err(
                        self.at(start),
                        ErrorCode::TypeMismatch,
                        format!(
                            "the row at byte {} is a {}; positional rows (one column per position) are arrays or nil",
                            self.at(start),
                            k.name()
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// One positional row of `n` elements (header read): a top-level row (`top`), or a
    /// value of a nested positional column (`Shape::Positional`).
    pub(crate) fn tuple(
        &mut self,
        root: &mut Builder,
        n: usize,
        start: usize,
        depth: usize,
        what: &str,
        top: bool,
    ) -> Result {
        self.check_count(n, 1, start, what, depth)?;
        let (hint, left) = (root.hint, self.remaining());
        let rows = move || hint.min(left / (n + 1));
        if matches!(root.data, Data::Empty) {
            // Records that never become a Map column (serial usize::MAX).
            root.start_struct(None, usize::MAX, Shape::Positional);
            let (s, row) = root.records().map_err(|e| self.reject(e, start, "array"))?;
            let opts = self.opts;
            for name in &opts.columns {
                self.new_field(s, name, row, rows, start)?;
            }
        }
        let (s, row) = root.records().map_err(|e| self.reject(e, start, "array"))?;
        if n > s.children.len() {
            if top && !self.opts.columns.is_empty() {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "the row at byte {} has {n} elements, but `columns` names {}",
                        self.at(start),
                        self.opts.columns.len()
                    ),
                ));
            }
            for i in s.children.len()..n {
                self.new_field(s, &i.to_string(), row, rows, start)?;
            }
        }
        for child in &mut s.children[..n] {
            // Rows before were shorter: catch up (a position is never set twice).
            child.catch_up(row);
            self.field_value(child, depth)?;
        }
        self.end_record(root, n, start)
    }
}

/// The rows' columns: records and positional rows give one column per key or position;
/// anything else one column `value` (rows that are arrays of one length a FixedSizeList).
/// `single` (the input's only top-level value is this one row) allows the columnar
/// reading.
fn finish(root: Builder, opts: &Options, single: bool) -> Batch {
    let num_rows = root.len;
    match root.data {
        Data::Struct(s) => {
            let (fields, columns) = s.finish(num_rows);
            let batch = Batch {
                fields,
                columns,
                num_rows,
            };
            if single && opts.columnar {
                return columnar(batch);
            }
            batch
        }
        _ => {
            let c = fixed_size(root.finish());
            Batch {
                fields: vec![Field::new("value", c.dtype.clone(), true)],
                columns: vec![c],
                num_rows,
            }
        }
    }
}

/// A List column whose rows are all present and of one length (at least 1) as a
/// FixedSizeList of that length.
fn fixed_size(c: Column) -> Column {
    let DataType::List(item) = &c.dtype else {
        return c;
    };
    let n = match c.buffers.first() {
        Some(Buffer::I32(o)) if c.validity.is_none() && c.len > 0 => {
            let k = o[1] - o[0];
            if k < 1 || o.windows(2).any(|w| w[1] - w[0] != k) {
                return c;
            }
            k
        }
        _ => return c,
    };
    Column {
        dtype: DataType::FixedSizeList(item.clone(), n),
        len: c.len,
        validity: None,
        buffers: vec![],
        children: c.children,
    }
}

/// One map whose every value is an array, all of one length: a table with one column per
/// key (what pandas' `to_dict('list')` and many APIs send). Otherwise the one row as is.
fn columnar(b: Batch) -> Batch {
    let len = |c: &Column| match (&c.dtype, c.buffers.first(), &c.validity) {
        (DataType::List(_), Some(Buffer::I32(o)), None) => Some(o[1] - o[0]),
        _ => None,
    };
    let Some(n) = b.columns.first().and_then(len) else {
        return b;
    };
    if b.num_rows != 1 || b.columns.iter().any(|c| len(c) != Some(n)) {
        return b;
    }
    let columns: Vec<Column> = b
        .columns
        .into_iter()
        .map(|c| {
            c.children
                .into_iter()
                .next()
                .unwrap_or_else(|| Column::nulls(0))
        })
        .collect();
    let fields = b
        .fields
        .into_iter()
        .zip(&columns)
        .map(|(f, c)| Field::new(f.name, c.dtype.clone(), true))
        .collect();
    Batch {
        fields,
        columns,
        num_rows: n as usize,
    }
}
