//! The Arrow schema of a dataset: one field per compound member, or one named after the
//! dataset; trailing dimensions nest as FixedSizeList.

use arrowsmith_core::{DataType, Field};

use crate::dataspace::Dataspace;
use crate::datatype::Datatype;

/// The Arrow fields `read` returns (types of VL strings are reported as Utf8; a column
/// whose bytes are not valid UTF-8 comes back as Binary).
pub(crate) fn arrow_fields(dt: &Datatype, space: &Dataspace, path: &str) -> Vec<Field> {
    let wrap = |t: DataType| {
        space
            .dims
            .iter()
            .skip(1)
            .rev()
            .fold(t, |t, &d| fixed_size_list(t, d))
    };
    match dt {
        Datatype::Compound { members, .. } => members
            .iter()
            .map(|m| Field::new(m.name.clone(), wrap(m.dtype.arrow_type()), true))
            .collect(),
        _ => vec![Field::new(column_name(path), wrap(dt.arrow_type()), true)],
    }
}

/// The type of a list of `d` items of type `item` (one trailing dimension).
pub(crate) fn fixed_size_list(item: DataType, d: u64) -> DataType {
    DataType::FixedSizeList(Box::new(Field::new("item", item, true)), d as i32)
}

/// The column of a non-compound dataset is named after the path's last component.
pub(crate) fn column_name(path: &str) -> &str {
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or("/")
}
