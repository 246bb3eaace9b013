//! IoTDB deletion files (`.mods2` / `.mods`): parse the input, and when it parses, apply it to
//! the IoTDB-written fixtures (tree and table model); every read stays a consistent batch.
//! Seed corpus: `fixtures/tsfile/*.mods2`.
#![no_main]

use arrowsmith_tsfile::{Mods, Query, TsFile};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

const TREE: &[u8] = include_bytes!("../../../fixtures/tsfile/iotdb_mods_tree.tsfile");
const TABLE: &[u8] = include_bytes!("../../../fixtures/tsfile/iotdb_mods_table.tsfile");

fuzz_target!(|data: &[u8]| {
    let Ok(mods) = Mods::parse(data) else { return };
    let mods = Some(Arc::new(mods));
    for file in [TREE, TABLE] {
        let bytes = file.to_vec();
        let f = TsFile::open(&bytes).unwrap();
        for limit in [None, Some(3)] {
            let q = Query {
                mods: mods.clone(),
                limit,
                ..Default::default()
            };
            let b = f.read(&bytes, &q).unwrap();
            assert!(b.columns.iter().all(|c| c.len == b.num_rows));
            assert!(limit.is_none_or(|l| b.num_rows <= l));
        }
    }
});
