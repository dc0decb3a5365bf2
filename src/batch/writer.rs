//! The ordered writer: takes solved blocks in any order, emits them strictly in input order while
//! later blocks are still being solved, prints the messages about bad records with their input line
//! numbers, and hands each block's buffers back to the reader (which bounds the blocks in flight).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;

use crossbeam_channel::{Receiver, Sender};
use indicatif::ProgressBar;

use super::reader::Chunk;
use crate::formats::{BlockOut, Tally};

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

/// Where the output goes. A file is written under a temporary name beside its destination and
/// renamed into place by [`Sink::finish`]; dropping an unfinished sink removes the temporary file.
///
/// A destination that exists and is not a regular file (`/dev/null`, a FIFO, a terminal) is
/// written directly: renaming over it would replace the device or pipe with a plain file.
pub enum Sink {
    Stdout,
    File {
        temp: tempfile::NamedTempFile,
        dest: PathBuf,
    },
    Special(std::fs::File),
}

impl Sink {
    /// Creates the temporary file beside `dest`, or opens `dest` itself if it is special.
    pub fn file(dest: PathBuf) -> io::Result<Sink> {
        if std::fs::metadata(&dest).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Ok(Sink::Special(
                std::fs::OpenOptions::new().write(true).open(&dest)?,
            ));
        }
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)?;
        Ok(Sink::File { temp, dest })
    }

    /// Flushes and renames the temporary file into place (readable like a normal new file).
    pub fn finish(self) -> io::Result<()> {
        match self {
            Sink::Stdout => io::stdout().flush(),
            Sink::Special(mut file) => file.flush(),
            Sink::File { temp, dest } => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(&dest).map_or(0o644, |m| m.permissions().mode());
                    temp.as_file()
                        .set_permissions(std::fs::Permissions::from_mode(mode))?;
                }
                temp.persist(&dest).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout => io::stdout().write(buf),
            Sink::File { temp, .. } => temp.write(buf),
            Sink::Special(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout => io::stdout().flush(),
            Sink::File { temp, .. } => temp.flush(),
            Sink::Special(file) => file.flush(),
        }
    }
}

/// What the writer needs to know besides the blocks.
pub struct Context {
    /// Bytes before the first block (the CSV header row).
    pub header: Vec<u8>,
    /// Bytes between two non-empty blocks (a blank line between grids).
    pub separator: &'static [u8],
    /// Input name for messages (`path` or `<stdin>`).
    pub name: String,
    /// Input lines consumed before the first block (the CSV header).
    pub first_line: u64,
    /// Messages about bad records printed at most this many times.
    pub message_cap: usize,
    pub progress: Option<ProgressBar>,
}

/// What the writer saw.
#[derive(Debug, Default)]
pub struct Written {
    pub tally: Tally,
    /// Messages about bad records that were not printed (beyond the cap).
    pub messages_dropped: u64,
}

/// Receives blocks until every sender is gone and writes them in order to `sink`.
pub fn write_ordered(
    blocks: Receiver<Done>,
    free: Sender<Slot>,
    sink: &mut Sink,
    ctx: Context,
) -> io::Result<Written> {
    let stdout = io::stdout();
    let mut out: Box<dyn Write + '_> = match sink {
        Sink::Stdout => Box::new(stdout.lock()),
        Sink::File { temp, .. } => Box::new(temp.as_file_mut()),
        Sink::Special(file) => Box::new(file),
    };
    let mut written = Written::default();
    let mut shown = 0usize;
    let mut line_base = ctx.first_line;
    let mut wrote_any = false;
    if !ctx.header.is_empty() {
        out.write_all(&ctx.header)?;
    }
    let mut pending = BTreeMap::new();
    let mut next = 0u64;
    for done in blocks {
        pending.insert(done.seq, done.slot);
        while let Some(mut slot) = pending.remove(&next) {
            next += 1;
            let block = &slot.out;
            if !block.bytes.is_empty() {
                if wrote_any {
                    out.write_all(ctx.separator)?;
                }
                out.write_all(&block.bytes)?;
                wrote_any = true;
            }
            written.tally.add(&block.tally);
            written.messages_dropped += block.notes_dropped;
            if !block.notes.is_empty() {
                let mut print = || {
                    let mut err = io::stderr().lock();
                    for note in &block.notes {
                        if shown < ctx.message_cap {
                            shown += 1;
                            let _ = writeln!(
                                err,
                                "{}:{}: {}",
                                ctx.name,
                                line_base + note.line,
                                note.text
                            );
                        } else {
                            written.messages_dropped += 1;
                        }
                    }
                };
                match &ctx.progress {
                    Some(bar) => bar.suspend(print),
                    None => print(),
                }
            }
            line_base += block.lines;
            if let Some(chunk) = slot.chunk.take() {
                if let Some(bar) = &ctx.progress {
                    bar.inc(chunk.size() as u64);
                    bar.set_message(format!("{} records", written.tally.records));
                }
                if let Some(buf) = chunk.release() {
                    slot.input = buf;
                }
            }
            // The reader may be gone already (an error); the slot is then simply dropped.
            let _ = free.send(slot);
        }
    }
    out.flush()?;
    Ok(written)
}
