//! Columnar inputs: Parquet and Arrow IPC (Feather v2) files, read by their own readers and
//! answered batch by batch.
//!
//! ```text
//! FILE --reader thread: one unit at a time (a Parquet row group, an Arrow record batch),
//!        decoded in record batches of at most BATCH_ROWS rows
//!      --> this thread: the puzzle column read in place, every row answered on the engine's pool
//!      --> writer thread: tally and messages (row numbers), result columns built, written in
//!          order (Parquet, Arrow, CSV or lines) --> OUTPUT (atomic, as every run's)
//! ```
//!
//! Both channels are bounded, so a few batches are in flight whatever the file's size; a
//! Parquet output gets one row group per input row group. A shard is a contiguous run of
//! units: the outputs of shards 1..=N, read in order, hold the unsharded output's rows.

mod frames;
mod sink;
mod table;

pub use table::puzzle_column_by_values;

use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_buffer::{Buffer, MutableBuffer};
use arrow_ipc::reader::FileDecoder;
use arrow_schema::{ArrowError, DataType, FieldRef, Schema, SchemaRef};
use bytes::Bytes;
use crossbeam_channel::{bounded, Receiver};
use memmap2::Mmap;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::file::reader::ChunkReader;

use crate::batch::output::Sink;
use crate::batch::{write_error, BatchError, Config, Filter, Next, OutputFormat, Summary};
use crate::engine::Engine;
use crate::formats::FormatError;
use crate::observe::{Message, Observer, Progress, Work};
use crate::task::{Outcome, Tally, Task};
use sink::TableWriter;
use table::{Layout, Strings};

/// Rows decoded and answered at a time: enough to keep every worker busy, few enough that the
/// batches in flight stay a few megabytes.
const BATCH_ROWS: usize = 32 * 1024;

/// A columnar file format, known by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Parquet,
    Arrow,
}

impl Kind {
    /// The format `head` (a file's first bytes) starts with, if it is a columnar one.
    pub fn of(head: &[u8]) -> Option<Kind> {
        if head.starts_with(b"PAR1") {
            Some(Kind::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(Kind::Arrow)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Parquet => "parquet",
            Kind::Arrow => "arrow",
        }
    }
}

/// A columnar input's bytes: a file (read where needed, never whole), or a stream read into
/// memory (Parquet's index is at the end of the file).
pub(crate) enum Data {
    File(File),
    Memory(Bytes),
}

impl Data {
    /// A stream's bytes, read whole: `head` is what was read of it already.
    pub fn read_all(head: Vec<u8>, mut rest: impl Read) -> io::Result<Data> {
        let mut all = head;
        rest.read_to_end(&mut all)?;
        Ok(Data::Memory(Bytes::from(all)))
    }
}

/// The puzzle of every row of a columnar input, in order, from its puzzle column (found as a
/// run finds it): what `bench` times. A decoder that fails, or panics on a corrupt file, is an
/// error, never a short list.
pub(crate) fn puzzles(kind: Kind, data: Data) -> Result<Vec<crate::records::Puzzle>, String> {
    decode(|| {
        let mut source = open_source(kind, data)?;
        let schema = source.schema();
        let (mut out, mut layout, mut failed) = (Vec::new(), None::<Layout>, None);
        for unit in 0..source.units().len() {
            source.read(unit, &mut |batch| {
                let layout = match &mut layout {
                    Some(layout) => layout,
                    none => match Layout::find(
                        &schema,
                        Some(&batch),
                        None,
                        None,
                        false,
                        Task::default(),
                    ) {
                        Ok(found) => none.insert(found),
                        Err(e) => {
                            failed = Some(e.to_string());
                            return false;
                        }
                    },
                };
                let cells =
                    Strings::new(batch.column(layout.puzzle).as_ref()).expect("a text column");
                out.extend((0..batch.num_rows()).map(|i| cells.record(i, None).puzzle));
                true
            })?;
            if let Some(e) = failed.take() {
                return Err(e);
            }
        }
        Ok(out)
    })
}

thread_local! {
    /// Whether this thread is inside [`decode`], whose panics are reported as errors.
    static DECODING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs a step of the Parquet or Arrow decoders, which panic on some corrupt files: a panic
/// becomes an error naming its reason, so a corrupt file is refused with one message (exit 2),
/// never a crash, and never mistaken for the end of the input (which would make a short output
/// look complete). The panic is not printed as well: the error says it.
fn decode<T>(step: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        // Every other panic is printed by the hook there was before.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = DECODING.with(|d| d.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(step));
    DECODING.with(|d| d.set(outer));
    result.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no reason given");
        Err(format!("the file is corrupt (its decoder failed: {what})"))
    })
}

/// A table read one unit at a time.
trait Source: Send {
    fn schema(&self) -> SchemaRef;
    /// Rows of each unit.
    fn units(&self) -> Vec<u64>;
    /// Decodes unit `i` and hands over its batches.
    fn read(
        &mut self,
        unit: usize,
        each: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<(), String>;
}

/// What can be opened again for another row group's reader.
trait Reopen: ChunkReader + Sized + 'static {
    fn reopen(&self) -> io::Result<Self>;
}

impl Reopen for File {
    fn reopen(&self) -> io::Result<File> {
        self.try_clone()
    }
}

impl Reopen for Bytes {
    fn reopen(&self) -> io::Result<Bytes> {
        Ok(self.clone())
    }
}

struct ParquetSource<T> {
    data: T,
    metadata: ArrowReaderMetadata,
}

impl<T: Reopen> ParquetSource<T> {
    fn open(data: T) -> Result<ParquetSource<T>, String> {
        let metadata = ArrowReaderMetadata::load(&data, ArrowReaderOptions::new())
            .map_err(|e| e.to_string())?;
        let metadata = with_stored_zones(metadata);
        Ok(ParquetSource { data, metadata })
    }
}

/// `metadata` reading each timestamp with the time zone of the Arrow schema stored in the file.
/// pyarrow writes a `timestamp[s, tz=Z]` column in milliseconds (Parquet has no seconds) and
/// stores its Arrow type beside it; arrow-rs takes a stored type's zone only when its unit is
/// the one read, and reads such a column as `timestamp[ms, tz=UTC]`: the same instants, with
/// the zone lost in the output. pyarrow reads it as `timestamp[ms, tz=Z]`, as this does.
fn with_stored_zones(metadata: ArrowReaderMetadata) -> ArrowReaderMetadata {
    let Some(stored) = stored_schema(metadata.metadata().file_metadata()) else {
        return metadata;
    };
    let read = metadata.schema();
    let whole = |schema: &Schema| DataType::Struct(schema.fields().clone());
    let Some(DataType::Struct(fields)) = zoned(&whole(read), &whole(&stored)) else {
        return metadata;
    };
    let schema = Arc::new(Schema::new_with_metadata(fields, read.metadata().clone()));
    let options = ArrowReaderOptions::new().with_schema(schema);
    // A hint arrow-rs refuses leaves the schema it read.
    ArrowReaderMetadata::try_new(Arc::clone(metadata.metadata()), options).unwrap_or(metadata)
}

/// The Arrow schema a Parquet file stores under `ARROW:schema` (base64 of an IPC message).
fn stored_schema(file: &parquet::file::metadata::FileMetaData) -> Option<Schema> {
    use base64::Engine;
    let pairs = file.key_value_metadata()?;
    let text = pairs
        .iter()
        .find(|kv| kv.key == "ARROW:schema")?
        .value
        .as_ref()?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()?;
    arrow_ipc::convert::try_schema_from_ipc_buffer(&bytes).ok()
}

/// `read` with the time zones of `stored` where a timestamp's differ, in lists, maps and structs
/// too; None where nothing changes.
fn zoned_field(read: &FieldRef, stored: &FieldRef) -> Option<FieldRef> {
    let to = zoned(read.data_type(), stored.data_type())?;
    Some(Arc::new(read.as_ref().clone().with_data_type(to)))
}

fn zoned(read: &DataType, stored: &DataType) -> Option<DataType> {
    use DataType::*;
    match (read, stored) {
        // Only a zone that arrow-rs can use: one it cannot parse (pyarrow takes any text, such
        // as `Z`) would fail a CSV output, which writes each time in its zone.
        (Timestamp(unit, Some(zone)), Timestamp(_, Some(stored)))
            if zone != stored && stored.parse::<arrow_array::timezone::Tz>().is_ok() =>
        {
            Some(Timestamp(*unit, Some(Arc::clone(stored))))
        }
        (List(read), List(stored)) => zoned_field(read, stored).map(List),
        (LargeList(read), LargeList(stored)) => zoned_field(read, stored).map(LargeList),
        (FixedSizeList(read, n), FixedSizeList(stored, _)) => {
            zoned_field(read, stored).map(|f| FixedSizeList(f, *n))
        }
        (Map(read, sorted), Map(stored, _)) => zoned_field(read, stored).map(|f| Map(f, *sorted)),
        (Struct(read), Struct(stored)) if read.len() == stored.len() => {
            let mut changed = false;
            let fields: Vec<FieldRef> = read
                .iter()
                .zip(stored)
                .map(|(read, stored)| match zoned_field(read, stored) {
                    Some(field) => {
                        changed = true;
                        field
                    }
                    None => Arc::clone(read),
                })
                .collect();
            changed.then(|| Struct(fields.into()))
        }
        _ => None,
    }
}

impl<T: Reopen> Source for ParquetSource<T> {
    fn schema(&self) -> SchemaRef {
        Arc::clone(self.metadata.schema())
    }

    fn units(&self) -> Vec<u64> {
        let groups = self.metadata.metadata().row_groups();
        groups.iter().map(|g| g.num_rows().max(0) as u64).collect()
    }

    fn read(
        &mut self,
        unit: usize,
        each: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<(), String> {
        let data = self.data.reopen().map_err(|e| e.to_string())?;
        let reader =
            ParquetRecordBatchReaderBuilder::new_with_metadata(data, self.metadata.clone())
                .with_row_groups(vec![unit])
                .with_batch_size(BATCH_ROWS)
                .build()
                .map_err(|e| e.to_string())?;
        for batch in reader {
            if !each(batch.map_err(|e| e.to_string())?) {
                break;
            }
        }
        Ok(())
    }
}

/// An Arrow IPC file decoded in place: a record batch's columns point into the file's bytes (the
/// map of a file, or a stream's bytes), not into a copy, so a batch of millions of rows costs
/// no memory of its own; only a compressed file's batch is decompressed, whole. The pages of
/// mapped batches answered and written go back to the kernel, a megabyte or more at a time, as
/// the text reader's blocks do, so resident memory stays flat however many batches the file
/// has (the batches in flight: about two or three).
struct ArrowSource {
    bytes: Buffer,
    /// The file's map (none for a stream's bytes).
    map: Option<Arc<MappedFile>>,
    schema: SchemaRef,
    decoder: FileDecoder,
    blocks: Vec<arrow_ipc::Block>,
    units: Vec<u64>,
}

/// A mapped Arrow file, and how far into it pages were last given back to the kernel.
struct MappedFile {
    map: Mmap,
    released_to: AtomicUsize,
}

/// The kernel maps a file's pages in folios of up to this much (2 MiB on x86-64 with 4 KiB
/// pages; more on some arm64 kernels, where a release then leaves some pages mapped), so one
/// touch maps pages of the blocks around it too: a release goes back this far before where the
/// last one ended.
const FOLIO_BYTES: usize = 2 << 20;
/// Blocks done with are given back together once they make this much, so that a file of
/// many small batches does not cost a system call each.
const RELEASE_BYTES: usize = 1 << 20;

impl MappedFile {
    /// Gives back the pages of a block done with, `offset..end`, and of what the file holds
    /// before it since the last release: the run reads the blocks in order, and whatever lies
    /// before a block done with is done with too. Pages still in use (a block being answered
    /// that shares a folio) are read in again from the file, unchanged.
    fn done_with(&self, offset: usize, end: usize) {
        let to = self.released_to.load(Ordering::Relaxed);
        let from = if end <= to {
            // Out of order: a block kept to the end (a shard's sample of another unit).
            offset
        } else if end - to < RELEASE_BYTES {
            return;
        } else {
            to.saturating_sub(FOLIO_BYTES)
        };
        #[cfg(unix)]
        // SAFETY: a read-only shared file mapping: MADV_DONTNEED drops clean page-cache-backed
        // pages only, and a later access reads the same bytes again.
        unsafe {
            let _ = self.map.unchecked_advise_range(
                memmap2::UncheckedAdvice::DontNeed,
                from,
                end - from,
            );
        }
        let _ = from;
        self.released_to.fetch_max(end, Ordering::Relaxed);
    }
}

/// The whole map as the owner of [`Bytes`], so the decoded arrays keep it alive.
struct Mapped(Arc<MappedFile>);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.0.map
    }
}

/// One record batch's block in the map, as the owner of the bytes its arrays are decoded from:
/// when the last of them is dropped (every slice of the batch answered and written), the block
/// is done with.
struct BlockPages {
    file: Arc<MappedFile>,
    offset: usize,
    len: usize,
}

impl AsRef<[u8]> for BlockPages {
    fn as_ref(&self) -> &[u8] {
        &self.file.map[self.offset..self.offset + self.len]
    }
}

impl Drop for BlockPages {
    fn drop(&mut self) {
        self.file.done_with(self.offset, self.offset + self.len);
    }
}

impl ArrowSource {
    /// Maps `file`, or reads it whole where it cannot be mapped.
    fn map(mut file: File) -> Result<ArrowSource, String> {
        // SAFETY: the contract of a file mapping is that nobody truncates or rewrites the file
        // while it is mapped; if someone does, the bytes may change under us or a read may
        // fault (SIGBUS), as for a mapped text input. The map is read-only and the decoder
        // checks every buffer against it.
        match unsafe { Mmap::map(&file) } {
            Ok(map) => {
                let file = Arc::new(MappedFile {
                    map,
                    released_to: AtomicUsize::new(0),
                });
                let bytes = Buffer::from(Bytes::from_owner(Mapped(Arc::clone(&file))));
                ArrowSource::open(bytes, Some(file))
            }
            Err(_) => {
                let mut bytes = Vec::new();
                io::Seek::rewind(&mut file)
                    .and_then(|()| file.read_to_end(&mut bytes))
                    .map_err(|e| e.to_string())?;
                ArrowSource::open(Buffer::from(bytes), None)
            }
        }
    }

    fn open(bytes: Buffer, map: Option<Arc<MappedFile>>) -> Result<ArrowSource, String> {
        let failed = |e: ArrowError| e.to_string();
        check_arrow_blocks(&mut io::Cursor::new(bytes.as_slice()))?;
        // Checked there: the file ends with its footer, its length and the magic.
        let len = bytes.len();
        let tail: [u8; 10] = bytes[len - 10..].try_into().expect("ten bytes");
        let footer_len = arrow_ipc::reader::read_footer_length(tail).map_err(failed)?;
        let footer = arrow_ipc::root_as_footer(&bytes[len - 10 - footer_len..len - 10])
            .map_err(|e| format!("the file is corrupt (its footer does not parse: {e:?})"))?;
        let (Some(blocks), Some(ipc_schema)) = (footer.recordBatches(), footer.schema()) else {
            return Err("the file is corrupt (its footer lists no batches or schema)".to_string());
        };
        if !ipc_schema.endianness().equals_to_target_endianness() {
            return Err("the file's byte order is not this machine's".to_string());
        }
        let schema = Arc::new(arrow_ipc::convert::fb_to_schema(ipc_schema));
        let mut decoder = FileDecoder::new(Arc::clone(&schema), footer.version());
        for block in footer.dictionaries().into_iter().flatten() {
            check_block(&bytes, block)?;
            let (offset, len) = block_range(block);
            decoder
                .read_dictionary(block, &aligned(bytes.slice_with_length(offset, len)))
                .map_err(failed)?;
        }
        let blocks: Vec<_> = blocks.iter().copied().collect();
        let mut source = ArrowSource {
            bytes,
            map,
            schema,
            decoder,
            blocks,
            units: Vec::new(),
        };
        // The footer does not give each batch's rows: decoding each batch once does (in place,
        // so this costs a pass over the file, not its size in memory), and refuses a corrupt
        // batch before any work.
        for unit in 0..source.blocks.len() {
            let rows = source.batch(unit)?.map_or(0, |b| b.num_rows() as u64);
            source.units.push(rows);
        }
        // The run reads the blocks again from the start.
        if let Some(file) = &source.map {
            file.released_to.store(0, Ordering::Relaxed);
        }
        Ok(source)
    }

    fn batch(&self, unit: usize) -> Result<Option<RecordBatch>, String> {
        let block = &self.blocks[unit];
        check_block(&self.bytes, block)?;
        let (offset, len) = block_range(block);
        let bytes = match &self.map {
            Some(file) => Buffer::from(Bytes::from_owner(BlockPages {
                file: Arc::clone(file),
                offset,
                len,
            })),
            None => self.bytes.slice_with_length(offset, len),
        };
        self.decoder
            .read_record_batch(block, &aligned(bytes))
            .map_err(|e| e.to_string())
    }
}

/// A block's bytes where the format wants them: at a multiple of 8 bytes. A block the writer
/// misplaced (the format requires the alignment; arrow's decoder copies a misaligned buffer of
/// most types, but refuses one of a union) is copied to an aligned buffer, as it would be read.
fn aligned(block: Buffer) -> Buffer {
    if block.as_ptr().align_offset(8) == 0 {
        return block;
    }
    let mut copy = MutableBuffer::with_capacity(block.len());
    copy.extend_from_slice(block.as_slice());
    copy.into()
}

/// Checks a block's compressed buffers before it is decoded (`check_compressed_lengths`); the
/// block is read only then, so that checking a file does not bring all of it into memory.
fn check_block(bytes: &Buffer, block: &arrow_ipc::Block) -> Result<(), String> {
    let (offset, len) = block_range(block);
    let meta = block.metaDataLength() as u64;
    let mut data = io::Cursor::new(bytes.as_slice());
    check_compressed_lengths(&mut data, offset as u64, meta, len as u64 - meta)
}

/// Where a block (its message and body) lies in the file; `check_arrow_blocks` has checked that
/// it lies inside.
fn block_range(block: &arrow_ipc::Block) -> (usize, usize) {
    let len = i64::from(block.metaDataLength()) + block.bodyLength();
    (block.offset() as usize, len as usize)
}

impl Source for ArrowSource {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn units(&self) -> Vec<u64> {
        self.units.clone()
    }

    fn read(
        &mut self,
        unit: usize,
        each: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<(), String> {
        if let Some(batch) = self.batch(unit)? {
            // A big batch is answered in slices, as a Parquet row group is.
            let mut start = 0;
            while start < batch.num_rows() {
                let len = BATCH_ROWS.min(batch.num_rows() - start);
                if !each(batch.slice(start, len)) {
                    break;
                }
                start += len;
            }
        }
        Ok(())
    }
}

/// Checks that the footer of an Arrow IPC file, and every block it lists, lies inside the file;
/// `check_block` checks, before a block is decoded, that no compressed buffer states an
/// uncompressed length its codec could not produce from its bytes. The decoder allocates a
/// buffer's stated length before decompressing it: a corrupt length of a few bytes' change would
/// otherwise ask for gigabytes or terabytes, and abort the process.
fn check_arrow_blocks<R: Read + io::Seek>(data: &mut R) -> Result<(), String> {
    use io::SeekFrom;
    let failed = |e: io::Error| e.to_string();
    let len = data.seek(SeekFrom::End(0)).map_err(failed)?;
    let mut tail = [0u8; 10];
    if len >= 10 {
        data.seek(SeekFrom::End(-10)).map_err(failed)?;
        data.read_exact(&mut tail).map_err(failed)?;
    }
    let footer_len = match arrow_ipc::reader::read_footer_length(tail) {
        Ok(footer_len) if footer_len as u64 + 10 <= len => footer_len,
        Ok(footer_len) => {
            return Err(format!(
                "the file is corrupt (its footer of {footer_len} bytes is longer than the \
                 file's {len} bytes)"
            ))
        }
        Err(_) => {
            return Err(
                "the file is corrupt or cut short (it does not end with the Arrow \
                        footer)"
                    .to_string(),
            )
        }
    };
    let mut footer = vec![0u8; footer_len];
    data.seek(SeekFrom::End(-10 - footer_len as i64))
        .map_err(failed)?;
    data.read_exact(&mut footer).map_err(failed)?;
    // A footer that does not parse is the reader's to report.
    if let Ok(footer) = arrow_ipc::root_as_footer(&footer) {
        let blocks = footer.dictionaries().into_iter().flatten();
        for block in blocks.chain(footer.recordBatches().into_iter().flatten()) {
            let (offset, meta, body) = (
                i128::from(block.offset()),
                i128::from(block.metaDataLength()),
                i128::from(block.bodyLength()),
            );
            if offset < 0 || meta < 0 || body < 0 || offset + meta + body > i128::from(len) {
                return Err(format!(
                    "the file is corrupt (a block of {meta} + {body} bytes at offset {offset} \
                     lies outside its {len} bytes)"
                ));
            }
        }
    }
    data.seek(SeekFrom::Start(0)).map_err(failed)?;
    Ok(())
}

/// The most bytes one byte of a compressed buffer can stand for: an LZ4 frame's longest match
/// adds 255 bytes per byte of its length (doubled here for a margin), and a Zstandard block of
/// one repeated byte (4 bytes with its header) stands for at most 128 KiB (exact: a frame's
/// own header and the slack keep a valid buffer under the bound). This refuses impossible
/// lengths only: a large buffer may still state a false length its codec could reach.
const LZ4_MAX_RATIO: u64 = 512;
const ZSTD_MAX_RATIO: u64 = 1 << 15;
const FRAME_SLACK: u64 = 1 << 10;
/// Stated lengths above this are checked against the buffer's frames: an allocation this small
/// does not fail, and a false one is the decoder's to report after decompressing.
const FRAMES_CHECKED_ABOVE: u64 = 16 << 20;

/// The message of an Arrow IPC block, parsed as the reader parses it: after an optional
/// continuation marker and the length, to the end of what it is given.
fn message_in(block: &[u8]) -> Option<arrow_ipc::Message<'_>> {
    let skip = if block.starts_with(&[0xFF; 4]) { 8 } else { 4 };
    arrow_ipc::root_as_message(block.get(skip..)?).ok()
}

/// For the record or dictionary batch whose message and body are at `offset`, refuses a
/// compressed buffer whose stated uncompressed length (its first 8 bytes) is more than its
/// codec can make of the bytes that follow. A message that does not parse, or a buffer outside
/// the body, is left to the reader to report.
fn check_compressed_lengths<R: Read + io::Seek>(
    data: &mut R,
    offset: u64,
    meta: u64,
    body: u64,
) -> Result<(), String> {
    use arrow_ipc::CompressionType;
    use io::SeekFrom;
    let failed = |e: io::Error| e.to_string();
    // Metadata: an optional continuation marker and the message's length, then the flatbuffer
    // message, which the reader parses from there to the block's end (it may run into the body
    // when the lengths are corrupt): the same bytes are parsed here, so this sees the message
    // the reader will. The metadata alone holds a sound message; the whole block is read only
    // when it does not.
    let read = |data: &mut R, len: u64| -> Result<Vec<u8>, String> {
        let mut bytes = vec![0u8; len as usize];
        data.seek(SeekFrom::Start(offset)).map_err(failed)?;
        data.read_exact(&mut bytes).map_err(failed)?;
        Ok(bytes)
    };
    let mut block = read(data, meta)?;
    if message_in(&block).is_none() {
        block = read(data, meta + body)?;
    }
    let Some(message) = message_in(&block) else {
        return Ok(());
    };
    let batch = message
        .header_as_record_batch()
        .or_else(|| message.header_as_dictionary_batch().and_then(|d| d.data()));
    let Some(batch) = batch else {
        return Ok(());
    };
    let Some(compression) = batch.compression() else {
        return Ok(());
    };
    let (codec, ratio) = match compression.codec() {
        CompressionType::ZSTD => (frames::Codec::Zstd, ZSTD_MAX_RATIO),
        CompressionType::LZ4_FRAME => (frames::Codec::Lz4Frame, LZ4_MAX_RATIO),
        // A codec the reader does not know: its own message says so.
        _ => return Ok(()),
    };
    let start = offset + meta;
    for buffer in batch.buffers().into_iter().flatten() {
        let (at, length) = (buffer.offset(), buffer.length());
        if at < 0 || length < 8 || (at as u64).saturating_add(length as u64) > body {
            continue;
        }
        let mut prefix = [0u8; 8];
        data.seek(SeekFrom::Start(start + at as u64))
            .map_err(failed)?;
        data.read_exact(&mut prefix).map_err(failed)?;
        let stated = i64::from_le_bytes(prefix);
        let most = (length as u64 - 8).saturating_mul(ratio) + FRAME_SLACK;
        // -1 marks a buffer stored uncompressed; other negative lengths the reader refuses.
        if stated > 0 && stated as u64 > most {
            return Err(format!(
                "the file is corrupt (a compressed buffer of {length} bytes states {stated} \
                 bytes uncompressed)"
            ));
        }
        // A possible length may still be false: the frames' headers bound it more closely
        // (a read per frame block, so only where a false length could hurt).
        if stated > FRAMES_CHECKED_ABOVE as i64 {
            let (from, to) = (start + at as u64, start + (at + length) as u64);
            match frames::frames_bound(data, from + 8, to, codec).map_err(failed)? {
                frames::Walked::Bound(bound) if stated as u64 > bound => {
                    return Err(format!(
                        "the file is corrupt (a compressed buffer of {length} bytes states \
                         {stated} bytes uncompressed; its frames hold at most {bound})"
                    ));
                }
                // Bytes that are no Zstandard frames are no buffer the decoder reads either;
                // where a decoder may read what the walk does not follow, the codec's ratio
                // above is the bound.
                frames::Walked::NotZstd => {
                    return Err(format!(
                        "the file is corrupt (a compressed buffer of {length} bytes states \
                         {stated} bytes uncompressed and is not Zstandard frames)"
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn open_source(kind: Kind, data: Data) -> Result<Box<dyn Source>, String> {
    Ok(match (kind, data) {
        (Kind::Parquet, Data::File(f)) => Box::new(ParquetSource::open(f)?),
        (Kind::Parquet, Data::Memory(b)) => Box::new(ParquetSource::open(b)?),
        (Kind::Arrow, Data::File(f)) => Box::new(ArrowSource::map(f)?),
        (Kind::Arrow, Data::Memory(b)) => Box::new(ArrowSource::open(Buffer::from(b), None)?),
    })
}

/// What the reader thread hands on.
enum Piece {
    Batch(RecordBatch),
    /// The end of a unit (a Parquet output ends its row group here).
    UnitEnd,
    Failed(String),
}

/// What this thread hands the writer.
enum Answered {
    Batch(RecordBatch, Vec<Outcome>),
    UnitEnd,
    /// The input could not be read to its end: the table is left unfinished (no footer), so
    /// that a stream's partial output cannot pass for a whole table.
    Failed,
}

/// A columnar run: what the batch pipeline settled before handing the input over.
pub(crate) struct Run<'c> {
    pub config: &'c Config,
    pub engine: Arc<Engine>,
    /// The input's name in messages.
    pub name: String,
    /// The output format (not `Auto`).
    pub format: OutputFormat,
    /// A regular input file's stamp, taken at open.
    pub stamp: Option<crate::batch::reader::InputStamp>,
}

impl Run<'_> {
    /// Answers every row of a columnar input: the columnar counterpart of the text pipeline's
    /// run, with the same summary, messages (numbered by row) and output guarantees.
    pub fn run(
        self,
        kind: Kind,
        data: Data,
        mut sink: Sink<'_>,
        out_name: String,
        observer: &mut dyn Observer,
        filter: Option<&mut (dyn Filter + 'static)>,
    ) -> Result<Summary, BatchError> {
        let Run {
            config,
            engine,
            name,
            format,
            stamp,
        } = self;
        let started = Instant::now();
        let read_error = |message: String| BatchError::Read {
            name: name.clone(),
            source: io::Error::new(io::ErrorKind::InvalidData, message),
        };
        let mut source = decode(|| open_source(kind, data)).map_err(read_error)?;
        let schema = source.schema();
        let units = source.units();
        let (first_unit, last_unit) = match config.shard {
            Some(shard) => {
                let (k, n, len) = (shard.index(), shard.count(), units.len() as u64);
                (((k - 1) * len / n) as usize, (k * len / n) as usize)
            }
            None => (0, units.len()),
        };
        // A shard looks for an unnamed puzzle column where the whole file does: in the file's
        // first rows, of its first row group that has rows (a writer may leave empty ones), so
        // every shard takes the same column. Only the shard that starts with that row group
        // finds them in its own first batch; the others read them first.
        let mut sample = None;
        let sample_unit = units.iter().position(|&n| n > 0);
        let own_first = sample_unit == Some(first_unit) && last_unit > first_unit;
        let unit = sample_unit.filter(|_| !own_first && config.column.is_none());
        if let Some(unit) = unit {
            decode(|| {
                source.read(unit, &mut |batch| {
                    sample = Some(batch);
                    false
                })
            })
            .map_err(read_error)?;
        }
        let rows_before: u64 = units[..first_unit].iter().sum();
        let rows: u64 = units[first_unit..last_unit].iter().sum();

        let (piece_tx, piece_rx) = bounded::<Piece>(2);
        let (done_tx, done_rx) = bounded::<Answered>(2);
        let first_shard = config.shard.is_none_or(|s| s.index() == 1);
        let closed = std::sync::atomic::AtomicBool::new(false);
        // Raised by the writer when the observer stops the run: the batch being answered is
        // then left.
        let stop = AtomicBool::new(false);
        let (read, answered, written) = std::thread::scope(|scope| {
            let reader = std::thread::Builder::new()
                .name("sudoku-batch-reader".into())
                .spawn_scoped(scope, move || {
                    for unit in first_unit..last_unit {
                        let mut open = true;
                        let read = decode(|| {
                            source.read(unit, &mut |batch| {
                                open = piece_tx.send(Piece::Batch(batch)).is_ok();
                                open
                            })
                        });
                        if let Err(message) = read {
                            let _ = piece_tx.send(Piece::Failed(message));
                            return;
                        }
                        if !open || piece_tx.send(Piece::UnitEnd).is_err() {
                            return;
                        }
                    }
                })
                .expect("cannot start the reader thread");
            // The first batch shows which column holds the puzzles when no name says so.
            let first = match piece_rx.recv() {
                Ok(Piece::Failed(message)) => return (Err(message), Ok(None), None),
                Ok(piece) => Some(piece),
                Err(_) => None,
            };
            let first_batch = match &first {
                _ if sample.is_some() => sample.as_ref(),
                Some(Piece::Batch(batch)) => Some(batch),
                _ => None,
            };
            let layout = match Layout::find(
                &schema,
                first_batch,
                config.column.as_deref(),
                config.solution_column.as_deref(),
                config.keep_solution_column,
                config.task,
            ) {
                Ok(layout) => layout,
                Err(e) => {
                    drop(piece_rx);
                    let _ = reader.join();
                    return (Ok(()), Err(e), None);
                }
            };
            // CSV has no nested cells, and Parquet no unions (arrow's writers would fail at
            // the first batch): said before any work.
            let named = |f: &FieldRef| (f.name().clone(), f.data_type().to_string());
            let fields = schema.fields().iter();
            let unwritable = match format {
                OutputFormat::Csv => fields.clone().find(|f| f.data_type().is_nested()).map(|f| {
                    let (name, data_type) = named(f);
                    FormatError::NestedInCsv { name, data_type }
                }),
                OutputFormat::Parquet => fields
                    .clone()
                    .find(|f| sink::not_in_parquet(f.data_type()))
                    .map(|f| {
                        let (name, data_type) = named(f);
                        FormatError::NotInParquet { name, data_type }
                    }),
                _ => None,
            };
            if let Some(e) = unwritable {
                drop(piece_rx);
                let _ = reader.join();
                return (Ok(()), Err(e), None);
            }
            let note = layout.by_values.then(|| {
                format!(
                    "format: {} (the table names no puzzle column, but column {:?} holds \
                     81-cell puzzles)",
                    kind.name(),
                    schema.field(layout.puzzle).name()
                )
            });
            observer.start(Work::Records(rows), note.as_deref());
            let layout = Arc::new(layout);
            let sink = sink::Watched {
                sink: &mut sink,
                closed: &closed,
            };
            let for_writer = Arc::clone(&layout);
            let stop_for_writer = &stop;
            let writer = std::thread::Builder::new()
                .name("sudoku-batch-writer".into())
                .spawn_scoped(scope, move || {
                    let layout = &*for_writer;
                    // A Parquet file's dictionaries are its row groups' own (see `sink`).
                    let dictionaries_as_values = kind == Kind::Parquet;
                    let out = TableWriter::new(
                        format,
                        sink,
                        layout,
                        first_shard,
                        dictionaries_as_values,
                    )?;
                    write_table(
                        done_rx,
                        out,
                        layout,
                        observer,
                        filter,
                        config.max_messages,
                        rows_before,
                        stop_for_writer,
                    )
                })
                .expect("cannot start the writer thread");
            let mut read = Ok(());
            for piece in first.into_iter().chain(piece_rx.iter()) {
                let answered = match piece {
                    Piece::Batch(batch) => match engine.install(|| layout.answer(&batch, &stop)) {
                        Some(outcomes) => Answered::Batch(batch, outcomes),
                        None => break, // stopped: the writer has returned
                    },
                    Piece::UnitEnd => Answered::UnitEnd,
                    Piece::Failed(message) => {
                        read = Err(message);
                        let _ = done_tx.send(Answered::Failed);
                        break;
                    }
                };
                if done_tx.send(answered).is_err() {
                    break;
                }
            }
            drop(done_tx);
            drop(piece_rx);
            let _ = reader.join();
            let written = writer.join().expect("the writer thread panicked");
            (read, Ok(layout.filled()), Some(written))
        });
        let filled_column = match answered {
            Ok(filled) => filled,
            Err(e) => return Err(BatchError::Format { name, source: e }),
        };
        let written = match written {
            Some(written) => written.map_err(|e| {
                if closed.load(std::sync::atomic::Ordering::Relaxed) {
                    BatchError::OutputClosed
                } else {
                    write_error(&out_name, e)
                }
            })?,
            None => return Err(read_error(read.expect_err("a failed read"))),
        };
        if written.stopped {
            return Err(BatchError::Stopped);
        }
        read.map_err(read_error)?;
        crate::batch::unchanged(stamp.as_ref(), &name, &sink)?;
        crate::batch::finish_output(sink, &out_name)?;
        let seconds = started.elapsed().as_secs_f64();
        Ok(Summary {
            tally: written.tally,
            seconds,
            puzzles_per_second: written.tally.records as f64 / seconds.max(1e-9),
            format: kind.name(),
            threads: engine.threads(),
            messages_not_shown: written.messages_not_shown,
            against_unread: None,
            against_first: None,
            against_note: None,
            filled_column,
        })
    }
}

/// What the writer saw.
#[derive(Debug, Default)]
struct Written {
    tally: Tally,
    messages_not_shown: u64,
    stopped: bool,
}

/// Counts and reports every answered batch, and writes it (its kept rows, for a filter).
#[allow(clippy::too_many_arguments)] // the writer thread's whole share of the run
fn write_table(
    batches: Receiver<Answered>,
    mut out: TableWriter<'_, '_>,
    layout: &Layout,
    observer: &mut dyn Observer,
    mut filter: Option<&mut (dyn Filter + 'static)>,
    max_messages: usize,
    rows_before: u64,
    stop: &AtomicBool,
) -> io::Result<Written> {
    let mut written = Written::default();
    let mut shown = 0usize;
    let mut row = rows_before;
    loop {
        let answered = match crate::batch::next_answer(&batches, observer, stop) {
            Next::Answer(answered) => answered,
            Next::Stopped => {
                written.stopped = true;
                return Ok(written);
            }
            Next::End => break,
        };
        let (batch, outcomes) = match answered {
            Answered::Batch(batch, outcomes) => (batch, outcomes),
            Answered::UnitEnd => {
                out.end_unit()?;
                continue;
            }
            Answered::Failed => return Ok(written),
        };
        let mut keep = Vec::new();
        written.tally.replaced += layout.replaced(&batch, &outcomes);
        for outcome in &outcomes {
            row += 1;
            written.tally.count(outcome);
            if let Some(problem) = outcome.problem() {
                if shown < max_messages {
                    shown += 1;
                    observer.message(&Message { line: row, problem });
                } else {
                    written.messages_not_shown += 1;
                }
            }
            if let Some(filter) = filter.as_deref_mut() {
                let kept = filter.keep(outcome);
                written.tally.duplicates += u64::from(!kept);
                keep.push(kept);
            }
        }
        match filter {
            Some(_) => out.write_kept(&batch, &outcomes, &keep, layout)?,
            None => out.write(&batch, &outcomes, layout)?,
        }
        observer.progress(Progress::new(0, written.tally.records));
        if crate::batch::stops(observer, stop) {
            written.stopped = true;
            return Ok(written);
        }
    }
    out.finish()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, ArrayRef, Int64Array, StringArray, UnionArray};
    use arrow_schema::{Field, UnionFields};

    /// An Arrow file of `rows` 81-character rows (`{i:081}`) in batches of `batch_rows`, and
    /// its rows.
    fn puzzle_file(rows: usize, batch_rows: usize) -> (Vec<String>, File) {
        let rows: Vec<String> = (0..rows).map(|i| format!("{:081}", i)).collect();
        let column = StringArray::from_iter_values(&rows);
        let batch = RecordBatch::try_from_iter([("puzzle", Arc::new(column) as _)]).unwrap();
        let mut file = tempfile::tempfile().unwrap();
        let mut writer =
            arrow_ipc::writer::FileWriter::try_new(&mut file, &batch.schema()).unwrap();
        for start in (0..rows.len()).step_by(batch_rows) {
            let len = batch_rows.min(rows.len() - start);
            writer.write(&batch.slice(start, len)).unwrap();
        }
        writer.finish().unwrap();
        drop(writer);
        (rows, file)
    }

    /// A record batch's text is read where it lies in the mapped file, not copied: a batch of
    /// any size costs no memory of its own.
    #[test]
    fn arrow_batches_are_decoded_in_place() {
        let (puzzles, file) = puzzle_file(5000, 5000);
        let mut source = ArrowSource::map(file).unwrap();
        assert_eq!(source.units(), [5000]);
        let file = source.map.clone().unwrap();
        let inside = |p: *const u8| file.map.as_ptr_range().contains(&p);
        let mut seen = 0;
        source
            .read(0, &mut |slice| {
                let text = slice.column(0).to_data();
                assert!(inside(text.buffers()[1].as_ptr()), "the text was copied");
                let text = slice
                    .column(0)
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .unwrap();
                for puzzle in text {
                    assert_eq!(puzzle, Some(puzzles[seen].as_str()));
                    seen += 1;
                }
                true
            })
            .unwrap();
        assert_eq!(seen, 5000);
    }

    /// A block at an odd offset (the format forbids it, but such files exist) is decoded from
    /// an aligned copy: arrow's decoder refuses a misaligned union buffer.
    #[test]
    fn misaligned_blocks_are_copied_aligned() {
        let mut bytes = MutableBuffer::new(64);
        bytes.extend_from_slice(&(0u8..64).collect::<Vec<_>>());
        let bytes = Buffer::from(bytes);
        let odd = bytes.slice_with_length(1, 40);
        assert_ne!(odd.as_ptr().align_offset(8), 0);
        let copy = aligned(odd.clone());
        assert_eq!(copy.as_ptr().align_offset(8), 0);
        assert_eq!(copy.as_slice(), odd.as_slice());
        let even = bytes.slice_with_length(8, 40);
        assert_eq!(
            aligned(even.clone()).as_ptr(),
            even.as_ptr(),
            "an aligned block is not copied"
        );

        // A whole file at an odd address, with a union column: every block is misaligned.
        let types = UnionFields::try_new(
            [0, 1],
            [
                Field::new("n", DataType::Int64, false),
                Field::new("s", DataType::Utf8, false),
            ],
        )
        .unwrap();
        let union = UnionArray::try_new(
            types,
            vec![0i8, 1, 0].into(),
            Some(vec![0i32, 0, 1].into()),
            vec![
                Arc::new(Int64Array::from(vec![7, 9])),
                Arc::new(StringArray::from(vec!["x"])),
            ],
        )
        .unwrap();
        let puzzles = StringArray::from(vec![".".repeat(81); 3]);
        let batch = RecordBatch::try_from_iter([
            ("puzzle", Arc::new(puzzles) as ArrayRef),
            ("u", Arc::new(union) as ArrayRef),
        ])
        .unwrap();
        let mut file = Vec::new();
        let mut writer =
            arrow_ipc::writer::FileWriter::try_new(&mut file, &batch.schema()).unwrap();
        writer.write(&batch).unwrap();
        writer.finish().unwrap();
        drop(writer);
        let mut shifted = MutableBuffer::new(file.len() + 1);
        shifted.push(0u8);
        shifted.extend_from_slice(&file);
        let shifted = Buffer::from(shifted).slice(1);
        let mut source = ArrowSource::open(shifted, None).unwrap();
        let mut read = Vec::new();
        source
            .read(0, &mut |b| {
                read.push(b);
                true
            })
            .unwrap();
        assert_eq!(read, [batch]);
    }

    /// The pages of the batches read are given back as the run goes: after reading a file of
    /// many batches, little of its map is resident. (Whether the kernel maps this file in large
    /// folios, which `FOLIO_BYTES` is for, depends on its page cache: not tested here.)
    #[cfg(target_os = "linux")]
    #[test]
    fn arrow_pages_are_given_back_as_batches_are_read() {
        let (rows, file) = puzzle_file(300_000, 4096);

        let mut source = ArrowSource::map(file).unwrap();
        let mapped = source.map.clone().unwrap();
        assert!(mapped.map.len() > 24 << 20);
        // The counting pass read every batch; the run starts again from the top.
        assert_eq!(mapped.released_to.load(Ordering::Relaxed), 0);
        assert!(
            resident_kib(&mapped.map) < 6 << 10,
            "after the counting pass"
        );
        let mut seen = 0;
        for unit in 0..source.units().len() {
            source
                .read(unit, &mut |b| {
                    seen += b.num_rows();
                    true
                })
                .unwrap();
        }
        assert_eq!(seen, rows.len());
        let released = mapped.released_to.load(Ordering::Relaxed);
        assert!(released > mapped.map.len() - (2 << 20), "{released}");
        let resident = resident_kib(&mapped.map);
        assert!(resident < 6 << 10, "{resident} KiB of the map resident");

        // A block done with out of order (a shard's sample) leaves the mark where it is.
        mapped.done_with(0, 4096);
        assert_eq!(mapped.released_to.load(Ordering::Relaxed), released);
    }

    /// The resident size of `map`, from this process's `/proc/self/smaps`.
    #[cfg(target_os = "linux")]
    fn resident_kib(map: &Mmap) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let start = format!("{:x}-", map.as_ptr() as usize);
        let entry = smaps
            .split_inclusive('\n')
            .skip_while(|line| !line.starts_with(&start))
            .find(|line| line.starts_with("Rss:"))
            .expect("the map's entry");
        entry.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}
