//! MessagePack natively: bytes in memory to one `RecordBatch`, or a reader (a file, a
//! socket) decoded as a stream of concatenated values in bounded batches.

use std::io::Read;

use arrow_array::RecordBatch;
use arrowsmith_msgpack::StreamDecoder;
pub use arrowsmith_msgpack::{
    names, split, ExtReading, Extensions, Layout, ManyKeys, Maps, Options, Piece, Split, Tuples,
};

use crate::convert::record_batch;
use crate::error::Result;

/// Every row of `bytes`, decoded as `opts` says.
pub fn read_msgpack(bytes: &[u8], opts: &Options) -> Result<RecordBatch> {
    Ok(record_batch(arrowsmith_msgpack::decode(bytes, opts)?)?)
}

/// One piece of a [`split`]: its bytes, where they start in the whole input (error offsets
/// stay absolute) and whether its rows are elements of a top-level array. Pieces decoded one
/// by one hold the rows one decode of the whole input holds (their columns can differ when
/// the rows do).
pub fn read_msgpack_piece(
    bytes: &[u8],
    base: u64,
    in_array: bool,
    opts: &Options,
) -> Result<RecordBatch> {
    Ok(record_batch(arrowsmith_msgpack::decode_piece(
        bytes, base, in_array, opts,
    )?)?)
}

/// Bytes read from the input at a time.
const CHUNK: usize = 1 << 20;

/// Concatenated MessagePack values from `input`, at most `rows` per batch.
pub struct MsgpackBatches<I> {
    input: I,
    decoder: StreamDecoder,
    rows: usize,
    done: bool,
    ended: bool,
    buf: Vec<u8>,
}

impl<I: Read> MsgpackBatches<I> {
    /// Decode `input` as a stream (each top-level value a row), `rows` per batch at most.
    pub fn new(input: I, opts: Options, rows: usize) -> Self {
        MsgpackBatches {
            input,
            decoder: StreamDecoder::new(opts),
            rows: rows.max(1),
            done: false,
            ended: false,
            buf: vec![0; CHUNK],
        }
    }

    fn step(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if self.ended {
                return Ok(None);
            }
            if self.done {
                self.ended = true;
                return match self.decoder.finish()? {
                    Some(b) => Ok(Some(record_batch(b)?)),
                    None => Ok(None),
                };
            }
            if self.decoder.ready_rows() >= self.rows {
                if let Some(b) = self.decoder.take_batch(self.rows)? {
                    return Ok(Some(record_batch(b)?));
                }
            }
            let n = self.input.read(&mut self.buf)?;
            if n == 0 {
                self.done = true;
            } else {
                self.decoder.push(&self.buf[..n])?;
            }
        }
    }
}

impl<I: Read> Iterator for MsgpackBatches<I> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.step() {
            Ok(b) => b.map(Ok),
            Err(e) => {
                // One error ends the stream.
                self.ended = true;
                Some(Err(e))
            }
        }
    }
}
