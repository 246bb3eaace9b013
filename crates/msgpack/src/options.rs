//! What callers choose: how values become rows and columns, limits, fast paths.
//! `docs/msgpack.md` states every rule these options select.

/// How top-level values become rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// One top-level array → its elements are the rows; anything else → each top-level
    /// value is a row.
    #[default]
    Auto,
    /// The input must be exactly one top-level array; its elements are the rows.
    Array,
    /// Each top-level value is a row (concatenated values).
    Stream,
}

/// How rows that are arrays (tuples) become columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tuples {
    /// One `List` column (`FixedSizeList` when every row has the same length) when one
    /// item type holds every element; otherwise one column per position.
    #[default]
    Auto,
    /// Always one column per position (positional rows).
    Columns,
    /// Always one `List`/`FixedSizeList` column (a mix of kinds is then `TypeMismatch`).
    List,
}

/// How maps become columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Maps {
    /// Records: one column per key (Struct); non-str keys go by their text form.
    #[default]
    Records,
    /// Every map is an Arrow `Map<key, value>` (keys keep their own type).
    Map,
}

/// What records with more distinct keys than `max_keys` (or too sparse to hold as one
/// column per key) become.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ManyKeys {
    /// One `Map<Utf8, value>` column.
    #[default]
    Map,
    /// An `Unsupported` error naming the limit.
    Error,
}

/// A reading of one ext type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExtReading {
    /// `Struct{type: Int8, data: Binary}`.
    #[default]
    Struct,
    /// The data bytes as `Binary`.
    Binary,
    /// A JavaScript `Date` as notepack.io 2.x (ext 0: 8 data bytes, a big-endian int64)
    /// and msgpack-lite (ext 0x0d: the data is one MessagePack number) write it:
    /// milliseconds since the epoch → `Timestamp(Millisecond)`.
    TimestampMs,
    /// 8 data bytes, a big-endian int64 count of nanoseconds since the epoch →
    /// `Timestamp(Nanosecond)`.
    TimestampNs,
    /// msgpackr's record extension (structures defined in the data).
    MsgpackrRecord,
    /// JavaScript `undefined` as msgpackr and notepack.io write it (fixext1 of type 0,
    /// data 0) → null; other data of the type → `Struct`.
    Undefined,
    /// Fluentd's EventTime (ext 0 in the forward protocol, as fluent-logger and Fluent Bit
    /// write it): 8 data bytes, big-endian u32 seconds and u32 nanoseconds →
    /// `Timestamp(Nanosecond)`.
    EventTime,
}

/// msgpackr's record definitions use ext type 0x72 ("r").
pub const MSGPACKR_RECORD: i8 = 0x72;

/// The reading of each ext type (-128..=127; -1, the standard timestamp, is built in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extensions {
    readings: [ExtReading; 256],
    /// Type 0 was given a reading (`set`): its data `00` is then `undefined` only under
    /// the `Undefined` and `TimestampMs` readings.
    zero_set: bool,
}

impl Default for Extensions {
    fn default() -> Self {
        let mut t = [ExtReading::Struct; 256];
        t[MSGPACKR_RECORD as u8 as usize] = ExtReading::MsgpackrRecord;
        Extensions {
            readings: t,
            zero_set: false,
        }
    }
}

impl Extensions {
    /// How ext type `ty` is read.
    #[inline]
    pub fn get(&self, ty: i8) -> ExtReading {
        self.readings[ty as u8 as usize]
    }

    /// Read ext type `ty` as `reading` (the timestamp, type -1, cannot be changed).
    pub fn set(&mut self, ty: i8, reading: ExtReading) {
        if ty != -1 {
            self.readings[ty as u8 as usize] = reading;
            self.zero_set |= ty == 0;
        }
    }

    /// Whether fixext1 `d4 00 00` is JavaScript `undefined` (null): under an explicit
    /// `Undefined` or `TimestampMs` (JavaScript Dates) reading of type 0, or, with no
    /// reading given for type 0, where msgpackr's records are in force (`msgpackr`: a
    /// record structure has been defined in the input).
    #[inline]
    pub(crate) fn undefined(&self, msgpackr: bool) -> bool {
        match self.get(0) {
            ExtReading::Undefined | ExtReading::TimestampMs => true,
            _ => !self.zero_set && msgpackr,
        }
    }
}

/// How a decode reads its input (`Options::default()`: as `docs/msgpack.md` describes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Deepest allowed nesting of arrays/maps (the top-level array counts as 1).
    pub max_depth: usize,
    /// `false` switches off every bulk/SIMD fast path (for benchmarking); output is identical.
    pub fast_path: bool,
    /// Which values are the rows.
    pub layout: Layout,
    /// How rows and values that are arrays become columns.
    pub tuples: Tuples,
    /// Names of the columns of positional rows, by position (implies `Tuples::Columns`
    /// unless `tuples` is `List`).
    pub columns: Vec<String>,
    /// A single top-level map whose values are arrays of one length is a table with one
    /// column per key (default on).
    pub columnar: bool,
    /// How maps become columns.
    pub maps: Maps,
    /// How each ext type is read.
    pub extensions: Extensions,
    /// Distinct keys a records column may have before it becomes a Map column.
    pub max_keys: usize,
    /// What records past `max_keys` (or too sparse) become.
    pub many_keys: ManyKeys,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: 256,
            fast_path: true,
            layout: Layout::Auto,
            tuples: Tuples::Auto,
            columns: Vec::new(),
            columnar: true,
            maps: Maps::Records,
            extensions: Extensions::default(),
            max_keys: 1024,
            many_keys: ManyKeys::Map,
        }
    }
}

impl Options {
    /// The reading of positional rows that applies: `columns` implies positional columns.
    pub(crate) fn tuples(&self) -> Tuples {
        match self.tuples {
            Tuples::Auto if !self.columns.is_empty() => Tuples::Columns,
            t => t,
        }
    }
}

/// The names the option values go by in the APIs above the crate (the JS options object,
/// Python keyword arguments), one table per option, so that every binding spells them alike.
pub mod names {
    use super::{ExtReading, Layout, ManyKeys, Maps, Tuples};

    /// `layout`.
    pub const LAYOUT: &[(&str, Layout)] = &[
        ("auto", Layout::Auto),
        ("array", Layout::Array),
        ("stream", Layout::Stream),
    ];
    /// `tuples`.
    pub const TUPLES: &[(&str, Tuples)] = &[
        ("auto", Tuples::Auto),
        ("columns", Tuples::Columns),
        ("list", Tuples::List),
    ];
    /// `maps`.
    pub const MAPS: &[(&str, Maps)] = &[("records", Maps::Records), ("map", Maps::Map)];
    /// `manyKeys` / `many_keys`.
    pub const MANY_KEYS: &[(&str, ManyKeys)] =
        &[("map", ManyKeys::Map), ("error", ManyKeys::Error)];
    /// The readings an `extensions` entry may name (msgpackr's records are built in).
    pub const READINGS: &[(&str, ExtReading)] = &[
        ("struct", ExtReading::Struct),
        ("binary", ExtReading::Binary),
        ("timestamp-ms", ExtReading::TimestampMs),
        ("timestamp-ns", ExtReading::TimestampNs),
        ("undefined", ExtReading::Undefined),
        ("eventtime", ExtReading::EventTime),
    ];

    /// The value named `name` in `table`, or `None`.
    pub fn lookup<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
        table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// The names of `table`, as "a, b or c" (for error messages).
    pub fn list<T>(table: &[(&str, T)]) -> String {
        let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        match names.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}
