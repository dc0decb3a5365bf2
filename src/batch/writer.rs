//! The ordered writer: takes solved blocks in any order, emits them strictly in input order while
//! later blocks are still being solved, hands the messages about bad records to the [`Observer`]
//! with their input line numbers, and gives each block's buffers back to the reader (which bounds
//! the blocks in flight).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::atomic::AtomicBool;

use crossbeam_channel::{Receiver, Sender};

use super::reader::Chunk;
use super::{Filter, Next};
use crate::observe::{Message, Observer, Progress};
use crate::records::BlockOut;
use crate::task::Tally;

/// The buffers of one block in flight: the streamed input (when not mapped) and the output.
#[derive(Default)]
pub struct Slot {
    pub input: Vec<u8>,
    pub chunk: Option<Chunk>,
    pub out: BlockOut,
}

/// A solved block and its place in the input.
pub struct Done {
    pub seq: u64,
    pub slot: Slot,
}

/// What the writer needs to know besides the blocks.
pub struct Context<'h> {
    /// Bytes before the first block (the CSV header row).
    pub header: &'h [u8],
    /// Bytes between two non-empty blocks (a blank line between grids).
    pub separator: &'static [u8],
    /// Input lines consumed before the first block (the CSV header).
    pub first_line: u64,
    /// A shard: the input lines between the header and its first block, counted only when a
    /// message needs them.
    pub lines_before: Option<super::reader::Shard>,
    /// Whether answers of earlier records precede this output (a shard's), so the first block
    /// gets a separator.
    pub answers_before: bool,
    /// Messages handed to the observer at most this many times.
    pub max_messages: usize,
    /// A filtering task (`dedupe`): decides which of a block's records are written.
    pub filter: Option<&'h mut (dyn Filter + 'static)>,
}

/// What the writer saw.
#[derive(Debug, Default)]
pub struct Written {
    pub tally: Tally,
    /// Messages about bad records that were not handed on (beyond the cap).
    pub messages_not_shown: u64,
    /// The observer stopped the run before the end of the input.
    pub stopped: bool,
}

/// Receives blocks until every sender is gone and writes them in order to `out`.
pub fn write_ordered(
    blocks: Receiver<Done>,
    free: Sender<Slot>,
    out: &mut dyn Write,
    observer: &mut dyn Observer,
    mut ctx: Context<'_>,
    stop: &AtomicBool,
) -> io::Result<Written> {
    let mut written = Written::default();
    let mut shown = 0usize;
    // Lines of earlier blocks; where the first block starts is added when a message needs it.
    let mut line_base = 0u64;
    let mut origin = None;
    let mut input_done = 0u64;
    let mut wrote_any = ctx.answers_before;
    if !ctx.header.is_empty() {
        out.write_all(ctx.header)?;
    }
    let mut pending = BTreeMap::new();
    let mut next = 0u64;
    loop {
        let done = match super::next_answer(&blocks, observer, stop) {
            Next::Answer(done) => done,
            Next::Stopped => {
                written.stopped = true;
                return Ok(written);
            }
            Next::End => break,
        };
        pending.insert(done.seq, done.slot);
        while let Some(mut slot) = pending.remove(&next) {
            next += 1;
            let block = &slot.out;
            if let Some(filter) = ctx.filter.as_deref_mut() {
                let mut start = 0;
                for kept in &block.kept {
                    if filter.keep(&kept.outcome) {
                        out.write_all(&block.bytes[start..kept.end])?;
                    } else {
                        written.tally.duplicates += 1;
                    }
                    start = kept.end;
                }
            } else if !block.bytes.is_empty() {
                if wrote_any {
                    out.write_all(ctx.separator)?;
                }
                out.write_all(&block.bytes)?;
                wrote_any = true;
            }
            written.tally.add(&block.tally);
            written.messages_not_shown += block.messages_dropped;
            for m in &block.messages {
                if shown < ctx.max_messages {
                    shown += 1;
                    let origin = *origin.get_or_insert_with(|| {
                        ctx.first_line + ctx.lines_before.as_ref().map_or(0, |s| s.lines_before())
                    });
                    observer.message(&Message {
                        line: origin + line_base + m.line,
                        ..*m
                    });
                } else {
                    written.messages_not_shown += 1;
                }
            }
            line_base += block.lines;
            if let Some(chunk) = slot.chunk.take() {
                input_done += chunk.size() as u64;
                observer.progress(Progress::new(input_done, written.tally.records));
                if let Some(buf) = chunk.release() {
                    slot.input = buf;
                }
            }
            // The reader may be gone already (an error); the slot is then simply dropped.
            let _ = free.send(slot);
            if super::stops(observer, stop) {
                // Dropping the free slots' sender stops the reader at its next block.
                written.stopped = true;
                return Ok(written);
            }
        }
    }
    out.flush()?;
    Ok(written)
}
