//! What the retries of one decode decided (`Plan`), and why an attempt stops to be retried
//! (`Restart`). A decode is one pass; a finding that only the whole input can settle
//! (see `parser/rows.rs`) ends the attempt with a `Restart`, and the next attempt starts
//! from the beginning with the plan that it changed.

/// Decisions that earlier attempts at one input made.
#[derive(Debug, Default, Clone)]
pub(crate) struct Plan {
    /// Rows that are arrays are positional (one column per position).
    pub positional: bool,
    /// `Layout::Auto` input with bytes after its top-level array: each value is a row.
    pub values: bool,
    /// Serials of the records columns that are Map columns.
    pub wide: Vec<usize>,
    /// Ids (`Builder::id`) of the nested columns whose arrays are positional (a Struct
    /// with one field per position), and of the columns of Rust enums (`Shape::Tagged`).
    pub tuples: Vec<u64>,
    pub enums: Vec<u64>,
    /// Columns that mix str and maps but are not enums (a map of other than one key).
    pub not_enums: Vec<u64>,
}

impl Plan {
    /// The nested columns that earlier attempts gave a shape of their own (positional,
    /// enum, or not an enum after all).
    pub(crate) fn shaped_count(&self) -> usize {
        self.tuples.len() + self.enums.len() + self.not_enums.len()
    }

    /// Whether some column reads its values another way than by their kinds.
    #[inline]
    pub fn shaped(&self) -> bool {
        !self.tuples.is_empty() || !self.enums.is_empty()
    }
}

/// Why an attempt stops to be retried (the retry decodes from the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Restart {
    /// Rows that are arrays mix kinds: one column per position.
    Positional,
    /// The records column with this serial becomes a Map column.
    Wide(usize),
    /// `Layout::Auto`: more values follow the top-level array, so each top-level value
    /// is a row.
    Values,
    /// The nested column with this id holds arrays of mixed kinds: positional structs.
    Tuple(u64),
    /// The column with this id mixes str and maps: Rust externally tagged enums.
    Enum(u64),
    /// The column with this id is not one of Rust enums (a map of other than one key).
    NotEnum(u64),
}
