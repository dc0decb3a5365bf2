//! The reader: cuts the input into blocks that end on record boundaries.
//!
//! Regular files are memory-mapped, and a block is a range of the map (no copy). Anything that
//! cannot be mapped (stdin, pipes, special files, empty or `/proc`-style files that report length 0)
//! is streamed: read in pieces into a recycled buffer, cut at the last record boundary, and the tail
//! carried to the next block. Nothing reads the whole input.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;

use memmap2::Mmap;

use crate::formats::text::{self, is_skipped, BOM};
use crate::formats::TextFormat;

/// One block of input: whole records.
pub enum Chunk {
    Mapped { map: Arc<Mmap>, range: Range<usize> },
    Owned(Vec<u8>),
}

impl Chunk {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Mapped { map, range } => &map[range.clone()],
            Chunk::Owned(v) => v,
        }
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.bytes().len()
    }

    /// Tells the kernel that a mapped block is done with, so resident memory stays flat on huge
    /// files; gives back the buffer of a streamed block for reuse.
    pub fn release(self) -> Option<Vec<u8>> {
        match self {
            Chunk::Mapped { map, range } => {
                #[cfg(unix)]
                // SAFETY: the map is a read-only shared file mapping, so MADV_DONTNEED only drops
                // clean page-cache-backed pages; a later access (a block still being solved that
                // shares the boundary page) faults them back in with the same contents.
                unsafe {
                    let _ = map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        range.start,
                        range.len(),
                    );
                }
                let _ = (map, range);
                None
            }
            Chunk::Owned(v) => Some(v),
        }
    }
}

/// Where a shard starts in its input, to number lines and separate answers as the whole input
/// would.
pub struct Shard {
    /// `None` for an empty input.
    map: Option<Arc<Mmap>>,
    /// The first byte after the header.
    first: usize,
    /// The shard's first byte.
    start: usize,
    /// Whether records precede the shard (so its first answer follows others').
    pub records_before: bool,
}

impl Shard {
    /// Line feeds between the header and the shard. Counted only when asked (a message needs a
    /// line number), so a shard with good records reads nothing before its range.
    pub fn lines_before(&self) -> u64 {
        self.map
            .as_ref()
            .map_or(0, |map| text::count_line_ends(&map[self.first..self.start]))
    }
}

enum Kind<'a> {
    Mapped {
        map: Arc<Mmap>,
        pos: usize,
        /// Where this reader stops: the map's end, or a shard's.
        end: usize,
    },
    Stream {
        inner: Box<dyn Read + 'a>,
        /// Bytes read but not yet handed out (the tail after the last boundary, or peeked bytes).
        carry: Vec<u8>,
        eof: bool,
        /// The last read found the input paused (see [`fill`]): whoever writes the pipe has
        /// paused, so the records that have come are answered now rather than when a block is
        /// full.
        idle: bool,
        /// The last block was cut at a pause just after a CR, taken as a line end: an LF that
        /// comes next is the rest of a CRLF and is dropped, so the line ends once, as unpaused.
        after_cr: bool,
        /// The descriptor read, where there is one: after a read that filled all it asked
        /// for, whether more has come tells a pause from a writer still writing.
        fd: Option<Fd>,
    },
}

/// Splits an input into blocks of whole records.
pub struct Reader<'a> {
    kind: Kind<'a>,
    block_size: usize,
    /// A mapped block is at most this share of what is left, and at least `min_block` (see
    /// [`Reader::share`]).
    parts: usize,
    min_block: usize,
}

/// What a regular input file looked like when it was opened. A write into the file while it is
/// read changes its modification time (and maybe its length), which [`InputStamp::changed`]
/// notices, so the run does not call answers of mixed bytes complete. Replacing the file by a
/// rename is not a change: the run goes on reading the file it opened.
pub struct InputStamp {
    file: File,
    len: u64,
    modified: io::Result<std::time::SystemTime>,
}

impl InputStamp {
    /// The stamp of `file` now, if it is a regular file (a pipe's bytes come once).
    pub fn of(file: &File) -> io::Result<Option<InputStamp>> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(None);
        }
        Ok(Some(InputStamp {
            file: file.try_clone()?,
            len: meta.len(),
            modified: meta.modified(),
        }))
    }

    /// True when the file's length or modification time is not what it was at open (or can no
    /// longer be read).
    pub fn changed(&self) -> bool {
        match self.file.metadata() {
            Ok(meta) => match (&self.modified, meta.modified()) {
                (Ok(then), Ok(now)) => meta.len() != self.len || *then != now,
                _ => meta.len() != self.len,
            },
            Err(_) => true,
        }
    }
}

const READ_PIECE: usize = 64 * 1024;
/// A streamed record may grow a block up to this size; beyond it the run stops with an error
/// rather than holding an unbounded record in memory (a mapped file has no such limit).
const MAX_STREAMED_RECORD: usize = 256 << 20;

impl<'a> Reader<'a> {
    /// Maps `file` if it is a non-empty regular file and mapping works; streams it otherwise.
    pub fn from_file(file: File, block_size: usize) -> io::Result<Reader<'a>> {
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the contract of a file mapping is that nobody truncates or rewrites the file
            // while it is mapped; if someone does, the bytes may change under us or a read may
            // fault (SIGBUS). That is the same contract ripgrep and other mmap readers accept for
            // batch input; the map is read-only and every access is bounds-checked against it.
            if let Ok(map) = unsafe { Mmap::map(&file) } {
                #[cfg(unix)]
                let _ = map.advise(memmap2::Advice::Sequential);
                return Ok(Reader {
                    kind: Kind::Mapped {
                        end: map.len(),
                        map: Arc::new(map),
                        pos: 0,
                    },
                    block_size,
                    parts: 1,
                    min_block: block_size,
                });
            }
        }
        let fd = fd_of(&file);
        Ok(Reader::from_stream(Box::new(file), block_size).with_fd(fd))
    }

    /// A stream read from `with` (through a reader that may put bytes back first): its
    /// descriptor tells a pause after a read that filled all it asked for.
    pub(crate) fn with_fd(mut self, with: Option<Fd>) -> Reader<'a> {
        if let Kind::Stream { fd, .. } = &mut self.kind {
            *fd = with;
        }
        self
    }

    /// Streams any reader (stdin, a pipe) in blocks.
    pub fn from_stream(inner: Box<dyn Read + 'a>, block_size: usize) -> Reader<'a> {
        Reader {
            kind: Kind::Stream {
                inner,
                carry: Vec::new(),
                eof: false,
                idle: false,
                after_cr: false,
                fd: None,
            },
            block_size,
            parts: 1,
            min_block: block_size,
        }
    }

    /// Shares a mapped input among `workers`: towards its end, blocks shrink to a share of what
    /// is left, `1 / (ahead * workers)` of it (never below `min_block`), so the workers run out
    /// of work together instead of one of them solving a last full block alone (guided
    /// self-scheduling). A stream's size is not known, so its blocks keep their size.
    pub fn share(&mut self, workers: usize, min_block: usize, ahead: usize) {
        // One worker has nobody to finish with.
        self.parts = match workers > 1 {
            true => workers * ahead.max(1),
            false => 1,
        };
        self.min_block = min_block.min(self.block_size);
    }

    /// Caps a streamed input's blocks at `size` bytes (its length is unknown, so its blocks
    /// cannot shrink towards its end); a mapped input is left as it is.
    pub fn limit_streamed(&mut self, size: usize) {
        if let Kind::Stream { .. } = self.kind {
            self.block_size = self.block_size.min(size);
        }
    }

    /// Input size in bytes when known (mapped files), for the progress bar.
    pub fn total_len(&self) -> Option<u64> {
        match &self.kind {
            Kind::Mapped { pos, end, .. } => Some((end - pos) as u64),
            Kind::Stream { .. } => None,
        }
    }

    /// Narrows a mapped input to shard `index` (1-based) of `count`: the records whose first byte
    /// lies in the `index`-th of `count` equal byte ranges of what is left to read (the records
    /// after the header). `None` if the input is streamed, which cannot be sharded, unless it is
    /// empty (an empty file is not mapped): every shard of nothing is empty.
    pub fn shard(
        &mut self,
        format: &dyn TextFormat,
        index: u64,
        count: u64,
    ) -> io::Result<Option<Shard>> {
        let empty = Shard {
            map: None,
            first: 0,
            start: 0,
            records_before: false,
        };
        let Kind::Mapped { map, pos, end } = &mut self.kind else {
            return Ok(self.peek_window(1, |_| None)?.is_empty().then_some(empty));
        };
        let (data, first) = (&map[..], *pos);
        let len = (data.len() - first) as u128;
        let cut = |k: u64| first + (len * u128::from(k) / u128::from(count)) as usize;
        let start = format.shard_start(data, first, cut(index - 1));
        *end = format.shard_start(data, first, cut(index));
        *pos = start;
        Ok(Some(Shard {
            map: Some(Arc::clone(map)),
            first,
            start,
            records_before: format.holds_record(&data[first..start]),
        }))
    }

    /// Consumes a byte-order mark and the blank and `#` lines before the first record, however
    /// many there are (a comment block longer than the detection sample is still skipped, and
    /// held in memory one read at a time). Returns the number of lines consumed.
    pub fn skip_leading(&mut self) -> io::Result<u64> {
        match &mut self.kind {
            Kind::Mapped { map, pos, end } => {
                let data = &map[..*end];
                if data[*pos..].starts_with(BOM) {
                    *pos += BOM.len();
                }
                let mut lines = 0;
                while *pos < data.len() {
                    let next = text::line_end(data, *pos);
                    if !is_skipped(&data[*pos..next]) {
                        break;
                    }
                    lines += text::count_line_ends(&data[*pos..next]);
                    *pos = next;
                }
                Ok(lines)
            }
            Kind::Stream {
                inner,
                carry,
                eof,
                idle,
                fd,
                ..
            } => {
                while carry.len() < BOM.len() && !*eof {
                    (*eof, *idle) = fill(inner.as_mut(), *fd, carry, READ_PIECE)?;
                }
                if carry.starts_with(BOM) {
                    carry.drain(..BOM.len());
                }
                let (mut lines, mut comment) = (0, false);
                // Where the unread part of `carry` starts: the lines skipped are dropped in one
                // piece before each read and at the end (a drain per line made a long run of
                // blank lines from a pipe quadratic).
                let mut at = 0;
                loop {
                    // The first line end in `rest`, unless it is a CR that may be the first half
                    // of a CRLF still to come.
                    let line_end = |rest: &[u8], eof: bool| {
                        let i = memchr::memchr2(b'\n', b'\r', rest)?;
                        (eof || i + 1 < rest.len() || rest[i] == b'\n')
                            .then(|| text::line_end(rest, i))
                    };
                    let rest = &carry[at..];
                    if comment {
                        if let Some(next) = line_end(rest, *eof) {
                            at += next;
                            (lines, comment) = (lines + 1, false);
                            continue;
                        }
                        // The comment goes on: drop what has come of it, but a last CR.
                        at = carry.len() - usize::from(rest.last() == Some(&b'\r'));
                    } else {
                        match first_not_blank(rest, *eof) {
                            Some(i) if rest[i] == b'#' => {
                                comment = true;
                                continue;
                            }
                            Some(i) if rest[i] != b'\n' && rest[i] != b'\r' => {
                                carry.drain(..at);
                                return Ok(lines);
                            }
                            Some(_) => {
                                if let Some(next) = line_end(rest, *eof) {
                                    at += next;
                                    lines += 1;
                                    continue;
                                }
                            }
                            // Spaces so far, or nothing: a blank line or a record's indent.
                            None => {}
                        }
                    }
                    if *eof {
                        // A last line of spaces or a comment, without a line end.
                        carry.clear();
                        return Ok(lines);
                    }
                    carry.drain(..at);
                    at = 0;
                    (*eof, *idle) = fill(inner.as_mut(), *fd, carry, READ_PIECE)?;
                }
            }
        }
    }

    /// The detection window: the next bytes up to `n`, fewer at the end of the input, or fewer
    /// when `settled` says the bytes so far settle the format (`Some(len)`: the window is that
    /// long; it must say so of every longer prefix too). A pipe is waited on for those bytes
    /// however slowly they come, so the window, and all that is decided from it, is a function
    /// of the input's bytes alone.
    pub fn peek_window(
        &mut self,
        n: usize,
        settled: impl Fn(&[u8]) -> Option<usize>,
    ) -> io::Result<&[u8]> {
        match &mut self.kind {
            Kind::Mapped { map, pos, end } => {
                let window = &map[*pos..(*pos + n).min(*end)];
                Ok(&window[..settled(window).map_or(window.len(), |k| k.min(window.len()))])
            }
            Kind::Stream {
                inner,
                carry,
                eof,
                idle,
                fd,
                ..
            } => {
                let len = loop {
                    let window = &carry[..n.min(carry.len())];
                    if let Some(k) = settled(window) {
                        break k.min(window.len());
                    }
                    if window.len() >= n || *eof {
                        break window.len();
                    }
                    // At a pause, a CR at the end ends its line (see `boundary_at_pause`); the
                    // decision is the one a CRLF or a lone CR there would give.
                    if *idle && carry.last() == Some(&b'\r') {
                        carry.push(b'\r');
                        let k = settled(carry);
                        carry.pop();
                        if let Some(k) = k.filter(|&k| k <= carry.len()) {
                            break k;
                        }
                    }
                    (*eof, *idle) = fill(inner.as_mut(), *fd, carry, n - carry.len())?;
                };
                Ok(&carry[..len])
            }
        }
    }

    /// Consumes `n` bytes (at most what [`Reader::peek_window`] returned).
    pub fn skip(&mut self, n: usize) {
        match &mut self.kind {
            Kind::Mapped { pos, end, .. } => *pos = (*pos + n).min(*end),
            Kind::Stream {
                carry, after_cr, ..
            } => {
                // All that has come, up to a CR taken as a line end at a pause: an LF may follow.
                *after_cr = n >= carry.len() && carry.last() == Some(&b'\r');
                carry.drain(..n.min(carry.len()));
            }
        }
    }

    /// The next block of whole records, or `None` at the end. `buf` is a recycled buffer that a
    /// streamed block takes over.
    pub fn next_block(
        &mut self,
        format: &dyn TextFormat,
        buf: &mut Vec<u8>,
    ) -> io::Result<Option<Chunk>> {
        let block_size = self.block_size;
        match &mut self.kind {
            Kind::Mapped { map, pos, end } => {
                let len = *end;
                if *pos >= len {
                    return Ok(None);
                }
                let start = *pos;
                let size = if self.parts > 1 {
                    let share = (len - start) / self.parts;
                    block_size.min(share.max(self.min_block))
                } else {
                    block_size
                };
                let mut end = (start + size).min(len);
                while end < len {
                    if let Some(cut) = format.last_boundary(&map[start..end]) {
                        end = start + cut;
                        break;
                    }
                    // A record longer than the block: widen the window.
                    end = (start + 2 * (end - start)).min(len);
                }
                *pos = end;
                // The block's pages are mapped here, on the reading thread, in one call, so
                // the worker that answers it takes no page faults (about one per 64 KiB
                // otherwise, each costing more than the records it maps on easy puzzles).
                #[cfg(target_os = "linux")]
                let _ = map.advise_range(memmap2::Advice::PopulateRead, start, end - start);
                Ok(Some(Chunk::Mapped {
                    map: Arc::clone(map),
                    range: start..end,
                }))
            }
            Kind::Stream {
                inner,
                carry,
                eof,
                idle,
                after_cr,
                fd,
            } => {
                let mut block = std::mem::take(buf);
                block.clear();
                block.append(carry);
                let mut want = block_size;
                loop {
                    while block.len() < want && !*eof {
                        if *idle {
                            if let Some((cut, at_cr)) = boundary_at_pause(format, &mut block) {
                                (*idle, *after_cr) = (false, at_cr);
                                carry.extend_from_slice(&block[cut..]);
                                block.truncate(cut);
                                return Ok(Some(Chunk::Owned(block)));
                            }
                        }
                        // (`fill` may read a byte more than asked: never past the longest
                        // record, whose refusal must not depend on how the bytes came.)
                        let missing = want - block.len() - usize::from(want == MAX_STREAMED_RECORD);
                        (*eof, *idle) = fill(inner.as_mut(), *fd, &mut block, missing)?;
                        if *after_cr && !block.is_empty() {
                            if block[0] == b'\n' {
                                block.remove(0);
                            }
                            *after_cr = false;
                        }
                    }
                    if *eof {
                        return Ok((!block.is_empty()).then_some(Chunk::Owned(block)));
                    }
                    // The read that filled the block may have drained the pipe, too.
                    let cut = match *idle {
                        true => boundary_at_pause(format, &mut block),
                        false => format.last_boundary(&block).map(|cut| (cut, false)),
                    };
                    if let Some((cut, at_cr)) = cut {
                        (*idle, *after_cr) = (false, at_cr);
                        carry.extend_from_slice(&block[cut..]);
                        block.truncate(cut);
                        return Ok(Some(Chunk::Owned(block)));
                    }
                    if block.len() >= MAX_STREAMED_RECORD {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "a record longer than {} MiB (no record boundary found); map a file instead of piping it",
                                MAX_STREAMED_RECORD >> 20
                            ),
                        ));
                    }
                    want = (block.len() * 2).min(MAX_STREAMED_RECORD);
                }
            }
        }
    }
}

/// The last record boundary in `block`, read up to a pause of the writer, and whether it is
/// just past a CR that ends the block. Elsewhere a CR at the end waits for the next byte (it may
/// be the first half of a CRLF); at a pause its line is taken as ended, so a writer that ends
/// lines with a lone CR is answered at once too.
fn boundary_at_pause(format: &dyn TextFormat, block: &mut Vec<u8>) -> Option<(usize, bool)> {
    if block.last() != Some(&b'\r') {
        return format.last_boundary(block).map(|cut| (cut, false));
    }
    // A stand-in for the next byte: anything but an LF makes the CR a lone one, and a CR at the
    // end is never a boundary itself.
    block.push(b'\r');
    let cut = format.last_boundary(block);
    block.pop();
    cut.map(|cut| (cut, cut == block.len()))
}

/// Appends one read of up to `want` bytes (at most a read piece) to `buf`. Returns whether the
/// input ended, and whether the input has nothing more for now (the writer has paused): the read
/// came back short, or it filled all it asked for and `fd` has nothing more to read yet.
/// Without a descriptor, a read of less than a piece asks one byte more, so that the read that
/// completes a block still comes back short if it took all the writer had sent.
fn fill(
    inner: &mut dyn Read,
    fd: Option<Fd>,
    buf: &mut Vec<u8>,
    want: usize,
) -> io::Result<(bool, bool)> {
    let len = buf.len();
    let asked = match want {
        0..READ_PIECE if fd.is_none() => want + 1,
        _ => want.clamp(1, READ_PIECE),
    };
    buf.resize(len + asked, 0);
    let result = loop {
        match inner.read(&mut buf[len..]) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other,
        }
    };
    let n = *result.as_ref().unwrap_or(&0);
    buf.truncate(len + n);
    result.map(|n| (n == 0, n < asked || fd.is_some_and(|fd| !readable(fd))))
}

/// A descriptor a stream is read from.
#[cfg(unix)]
pub(crate) type Fd = std::os::fd::RawFd;
#[cfg(not(unix))]
pub(crate) type Fd = ();

#[cfg(unix)]
pub(crate) fn fd_of(source: &impl std::os::fd::AsRawFd) -> Option<Fd> {
    Some(source.as_raw_fd())
}

#[cfg(not(unix))]
pub(crate) fn fd_of<T>(_: &T) -> Option<Fd> {
    None
}

/// Whether a read of `fd` would return (bytes, the end, or an error) within a millisecond: a
/// writer that filled the pipe refills it sooner, unless it has paused. (Without the wait, a
/// fast writer not yet back at work would look paused, and blocks would shrink to a pipe's size.)
#[cfg(unix)]
fn readable(fd: Fd) -> bool {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd.
        match unsafe { libc::poll(&mut poll, 1, 1) } {
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
            // On an error, read on as before: the read will say what is wrong.
            -1 => return true,
            n => return n > 0,
        }
    }
}

#[cfg(not(unix))]
fn readable(_: Fd) -> bool {
    true
}

/// Where `carry` has its first byte that is neither whitespace (line ends aside) nor part of a
/// byte-order mark, as [`text::is_skipped`] sees a line; `None` if none has come yet (the first
/// bytes of a mark at the end wait for the rest, unless the input has ended).
fn first_not_blank(carry: &[u8], eof: bool) -> Option<usize> {
    let mut i = 0;
    while i < carry.len() {
        let rest = &carry[i..];
        if text::is_space(rest[0]) && rest[0] != b'\n' && rest[0] != b'\r' {
            i += 1;
        } else if rest.starts_with(BOM) {
            i += BOM.len();
        } else if !eof && BOM.starts_with(rest) {
            return None;
        } else {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::line::LineFormat;

    fn blocks(reader: &mut Reader<'_>, format: &dyn TextFormat) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        while let Some(chunk) = reader.next_block(format, &mut buf).unwrap() {
            out.push(chunk.bytes().to_vec());
        }
        out
    }

    #[test]
    fn streamed_blocks_end_on_lines_and_keep_every_byte() {
        let text: Vec<u8> = (0..1000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .chain(*b"last")
            .collect();
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(text.clone())), 100);
        let got = blocks(&mut reader, &LineFormat);
        assert!(got.len() > 10);
        assert!(got[..got.len() - 1].iter().all(|b| b.ends_with(b"\n")));
        assert_eq!(got.concat(), text);
    }

    #[test]
    fn long_records_widen_the_block() {
        let mut text = vec![b'x'; 10_000];
        text.extend_from_slice(b"\nshort\n");
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(text.clone())), 100);
        let got = blocks(&mut reader, &LineFormat);
        assert!(got[0].len() > 10_000 && got[0].ends_with(b"\n"));
        assert_eq!(got.concat(), text);
        let mut file = tempfile::NamedTempFile::new().unwrap();
        io::Write::write_all(&mut file, &text).unwrap();
        let mut mapped = Reader::from_file(file.reopen().unwrap(), 100).unwrap();
        assert!(mapped.total_len().is_some());
        let got = blocks(&mut mapped, &LineFormat);
        assert!(got[0].len() > 10_000);
        assert_eq!(got.concat(), text);
    }

    #[test]
    fn shared_mapped_blocks_shrink_towards_the_end() {
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("line {i:05}\n").into_bytes())
            .collect();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        io::Write::write_all(&mut file, &text).unwrap();
        let mut alone = Reader::from_file(file.reopen().unwrap(), 16 << 10).unwrap();
        let mut shared = Reader::from_file(file.reopen().unwrap(), 16 << 10).unwrap();
        shared.share(2, 1 << 10, 2);
        let (alone, shared) = (
            blocks(&mut alone, &LineFormat),
            blocks(&mut shared, &LineFormat),
        );
        assert_eq!((alone.concat(), shared.concat()), (text.clone(), text));
        let sizes: Vec<usize> = shared.iter().map(Vec::len).collect();
        // Full blocks while a quarter of what is left is more, then smaller ones down to the
        // floor (each cut back to its last line end), never growing again.
        assert!(sizes[0] > 15 << 10);
        assert!(sizes.windows(2).all(|w| w[1] <= w[0] + 11));
        let last_full = sizes.iter().rposition(|&n| n > 15 << 10).unwrap();
        assert!(sizes[last_full + 1..].iter().any(|&n| n < 2 << 10));
        assert!(sizes[..sizes.len() - 1].iter().all(|&n| n > (1 << 10) - 12));
        assert!(sizes.len() > alone.len());
    }

    #[test]
    fn peek_then_skip_on_a_stream() {
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(b"head\nrow\n".to_vec())), 4);
        assert_eq!(reader.peek_window(100, |_| None).unwrap(), b"head\nrow\n");
        reader.skip(5);
        assert_eq!(blocks(&mut reader, &LineFormat).concat(), b"row\n");
    }

    #[test]
    fn leading_blank_and_comment_lines_are_skipped_however_long() {
        let comment = format!("# {}\r\n", "c".repeat(3 * READ_PIECE));
        let input = format!("\u{feff}  \n{comment}\r\t# x\r\n\n  id,puzzle\n# kept\n");
        let mapped = {
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, input.as_bytes()).unwrap();
            Reader::from_file(file, 1 << 20).unwrap()
        };
        // A stream read one byte at a time finds the same place.
        struct Slow(io::Cursor<Vec<u8>>);
        impl Read for Slow {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(1);
                self.0.read(&mut buf[..n])
            }
        }
        let slow = Reader::from_stream(
            Box::new(Slow(io::Cursor::new(input.clone().into_bytes()))),
            64,
        );
        let fast = Reader::from_stream(Box::new(io::Cursor::new(input.into_bytes())), 64);
        for mut reader in [mapped, slow, fast] {
            assert_eq!(reader.skip_leading().unwrap(), 5);
            assert_eq!(
                blocks(&mut reader, &LineFormat).concat(),
                b"  id,puzzle\n# kept\n"
            );
        }
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(b"\n# c".to_vec())), 64);
        assert_eq!(reader.skip_leading().unwrap(), 1);
        assert!(blocks(&mut reader, &LineFormat).is_empty());
        // Many short lines, each counted, in several reads.
        let many = [&b"\n\r\n# c\n".repeat(100_000)[..], b"row\n"].concat();
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(many)), 64);
        assert_eq!(reader.skip_leading().unwrap(), 300_000);
        assert_eq!(blocks(&mut reader, &LineFormat).concat(), b"row\n");
    }

    #[test]
    fn the_window_waits_for_what_settles_it() {
        // Settled after the first line, whatever the size of the reads.
        let settled = |b: &[u8]| memchr::memchr(b'\n', b).map(|i| i + 1);
        let input = b"first\nsecond\n".to_vec();
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(input.clone())), 4);
        assert_eq!(reader.peek_window(100, settled).unwrap(), b"first\n");
        let mut reader = Reader::from_stream(Box::new(io::Cursor::new(input)), 4);
        assert_eq!(
            reader.peek_window(100, |_| None).unwrap(),
            b"first\nsecond\n"
        );
        assert_eq!(reader.peek_window(3, |_| None).unwrap(), b"fir");
    }
}
