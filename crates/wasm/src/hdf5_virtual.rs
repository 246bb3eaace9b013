//! Virtual datasets whose sources are in other files: JS opens those files (through the
//! `resolve` option) and serves what a read asks of them. A read records every source it
//! misses (a dataset's shape and type, then rows of raw element bytes) and returns nothing;
//! JS supplies them and reads again (at most a few rounds: shapes, then rows).

use std::cell::RefCell;
use std::collections::HashMap;

use arrowsmith_core::{DecodeError, ErrorCode, Format, Result};
use arrowsmith_hdf5::{SourceInfo, VirtualSources};

use crate::json;

/// What JS has supplied of other files, and what the last read missed.
#[derive(Default)]
pub struct JsSources {
    /// By (file, dataset); `None`: the resolver has no such file.
    infos: HashMap<(String, String), Option<SourceInfo>>,
    rows: HashMap<(String, String, u64, u64), Vec<u8>>,
    /// Requests of the last read, as JSON objects.
    needs: RefCell<Vec<String>>,
}

impl JsSources {
    pub fn supply_info(&mut self, file: &str, dataset: &str, info: Option<SourceInfo>) {
        self.infos.insert((file.into(), dataset.into()), info);
    }
    pub fn supply_rows(
        &mut self,
        file: &str,
        dataset: &str,
        start: u64,
        count: u64,
        bytes: Vec<u8>,
    ) {
        self.rows
            .insert((file.into(), dataset.into(), start, count), bytes);
    }
    pub fn clear(&mut self) {
        self.infos.clear();
        self.rows.clear();
        self.needs.borrow_mut().clear();
    }
    /// Start a read: forget what the previous one missed.
    pub fn begin(&self) {
        self.needs.borrow_mut().clear();
    }
    /// What the last read missed, as a JSON array (`[]`: nothing).
    pub fn needs(&self) -> String {
        format!("[{}]", self.needs.borrow().join(","))
    }
    pub fn missed(&self) -> bool {
        !self.needs.borrow().is_empty()
    }
    fn need(&self, j: String) -> DecodeError {
        self.needs.borrow_mut().push(j);
        DecodeError::new(
            Format::Hdf5,
            0,
            ErrorCode::NotFound,
            "a virtual dataset source the host has not supplied yet",
        )
    }
}

impl VirtualSources for JsSources {
    fn info(&self, file: &str, dataset: &str) -> Result<Option<SourceInfo>> {
        match self.infos.get(&(file.to_string(), dataset.to_string())) {
            Some(i) => Ok(i.clone()),
            None => Err(self.need(
                json::obj()
                    .str("file", file)
                    .str("dataset", dataset)
                    .finish(),
            )),
        }
    }
    fn rows(&self, file: &str, dataset: &str, start: u64, count: u64) -> Result<Vec<u8>> {
        match self
            .rows
            .get(&(file.to_string(), dataset.to_string(), start, count))
        {
            Some(b) => Ok(b.clone()),
            None => Err(self.need(
                json::obj()
                    .str("file", file)
                    .str("dataset", dataset)
                    .num("start", start)
                    .num("count", count)
                    .finish(),
            )),
        }
    }
}

/// A source dataset's shape and type as JSON `{"dims", "dtype", "elementSize"}`.
pub fn info_json(i: &SourceInfo) -> String {
    let dims = json::array(i.dims.iter(), |d| d.to_string());
    json::obj()
        .raw("dims", &dims)
        .str("dtype", &i.dtype)
        .num("elementSize", i.element_size)
        .finish()
}
