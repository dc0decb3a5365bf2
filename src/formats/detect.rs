//! Opening an input: the format is decided, a CSV header read, and every rule about which task
//! suits which format is checked here, once, before any record is read.

use std::sync::Arc;

use super::text::{is_skipped, line_end, lines, trim_start};
use super::{csv, grid, line, TextFormat};
use crate::task::Task;

/// The detection sample: bytes of the input's start (from its first record) that decide the
/// format and hold a CSV header, unless the first record settles it (see [`decided`]).
pub const PEEK: usize = 64 << 10;

/// The format asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FormatChoice {
    /// Detect from a sample of the input (see [`detect`]).
    #[default]
    Auto,
    /// One puzzle per line: 81 cells, then optional fields.
    Line,
    /// Nine lines of nine cells per puzzle, grids separated by blank or title lines.
    Grid,
    /// A header row naming the puzzle column, then one puzzle per row.
    Csv,
}

impl FormatChoice {
    /// Every choice's name: `auto`, then each format's.
    pub fn names() -> impl Iterator<Item = &'static str> {
        std::iter::once("auto").chain(FORMATS.iter().map(|f| f.name))
    }

    /// Its name: `auto`, or the format's name (`line`, `grid`, `csv`).
    pub fn name(self) -> &'static str {
        FORMATS
            .iter()
            .find(|f| f.choice == self)
            .map_or("auto", |f| f.name)
    }
}

impl std::fmt::Display for FormatChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FormatChoice {
    type Err = FormatError;

    fn from_str(name: &str) -> Result<FormatChoice, FormatError> {
        if name == "auto" {
            return Ok(FormatChoice::Auto);
        }
        FORMATS
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.choice)
            .ok_or_else(|| FormatError::UnknownFormat(name.to_string()))
    }
}

/// Why an input cannot be read in the chosen format with the chosen task.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
pub enum FormatError {
    #[error("unknown format {0:?}; expected auto, line, grid or csv")]
    UnknownFormat(String),
    #[error("unknown output format {0:?}; expected auto, line, csv, parquet or arrow")]
    UnknownOutputFormat(String),
    #[error("check needs puzzles that carry solutions (line or CSV format), not grids")]
    CheckNeedsSolutions,
    #[error("the CSV header row is longer than 64 KiB")]
    HeaderTooLong,
    #[error("the CSV input has no header row (a first row holding a puzzle is not a header)")]
    NoHeader,
    #[error("cannot read the CSV header: {0}")]
    UnreadableHeader(String),
    #[error("no column named {name:?} among the columns {names:?}")]
    NoSuchColumn { name: String, names: Vec<String> },
    #[error(
        "no puzzle column among the columns {names:?} (looked for {:?}); name it with --column",
        csv::PUZZLE_NAMES
    )]
    NoPuzzleColumn { names: Vec<String> },
    /// [`FormatError::NoPuzzleColumn`] in `dedupe --against`'s file.
    #[error(
        "no puzzle column among the columns {names:?} (looked for {:?}); name it with --against-column",
        csv::PUZZLE_NAMES
    )]
    NoAgainstPuzzleColumn { names: Vec<String> },
    #[error(
        "check needs a solution column; the columns {names:?} hold none of {:?} (name it with --solution-column)",
        csv::SOLUTION_NAMES
    )]
    NoSolutionColumn { names: Vec<String> },
    #[error("--solution-column {name:?} names the puzzle column")]
    SameColumn { name: String },
    #[error("dedupe needs records on lines (line or CSV format), not grids")]
    DedupeNeedsRecordLines,
    /// A columnar input's puzzle or solution column does not hold text.
    #[error("column {name:?} holds {data_type}, not text (puzzles and solutions are 81-character strings)")]
    NotText { name: String, data_type: String },
    /// The output format asked for cannot be written from this input.
    #[error("{output} output needs a Parquet or Arrow input; a {input} input is answered in its own format")]
    OutputFormat {
        output: &'static str,
        input: &'static str,
    },
    /// A CSV output of a table with a nested column (a struct, a list, a map), which CSV
    /// cannot hold.
    #[error("column {name:?} holds {data_type}, which a CSV output cannot hold: write Parquet or Arrow (an output name ending in .parquet or .arrow, or --output-format), or lines")]
    NestedInCsv { name: String, data_type: String },
    /// A Parquet output of a table with a column Parquet cannot hold (see
    /// `columnar::sink::not_in_parquet`).
    #[error("column {name:?} holds {data_type}, which a Parquet output cannot hold: write Arrow (an output name ending in .arrow, or --output-format arrow), or lines")]
    NotInParquet { name: String, data_type: String },
    /// `solve --output-format line` on a grid input, whose solutions are written as grids.
    #[error("a grid input's solutions are written as grids; --output-format line does not apply (convert the grids to lines first)")]
    GridSolutionsAsLines,
    /// The input is not text: a known binary format, or bytes no text file holds.
    #[error("not a text file of puzzles: {0}")]
    Binary(Binary),
    /// No line of the input's first 64 KiB is a puzzle in any format: it is not a puzzle file.
    #[error("not a file of puzzles: {0}")]
    NoPuzzles(String),
    /// Every line holds its puzzle after other fields, and no header row names the columns.
    #[error("the lines hold their puzzles in field {field} of {} separated rows, and no header row names the columns: add a header row naming the puzzle column (for example `{}`) to read it as CSV", shown_separator(*.separator).0, example_header(*.field, *.fields, *.separator))]
    Headerless {
        field: usize,
        fields: usize,
        separator: u8,
    },
    /// `grade --explain` ([`crate::Task::Explain`]) on an input it cannot answer as text.
    #[error("grade --explain writes each puzzle's steps as text, from puzzle lines or grids, not from {0} input")]
    Explain(&'static str),
    /// `check` on line records that carry no solution.
    #[error("check needs a solution after each puzzle (`puzzle,solution` lines, or CSV with a solution column); the first puzzle has nothing after it")]
    NoSolutions,
    /// A flag about columns, on an input that has none.
    #[error("{flag} is about a column, but a {format} input has no columns (it applies to CSV, Parquet and Arrow inputs)")]
    NoColumns {
        flag: &'static str,
        format: &'static str,
    },
}

/// A header row for headerless rows of `fields` fields with the puzzle in `field` (from 1):
/// `id` first, `puzzle` in its place, the others `f2`, `f3`, ... (`id,f2,puzzle`).
fn example_header(field: usize, fields: usize, separator: u8) -> String {
    let names: Vec<String> = (1..=fields.max(field))
        .map(|i| match i {
            _ if i == field => "puzzle".to_string(),
            1 => "id".to_string(),
            _ => format!("f{i}"),
        })
        .collect();
    names.join(shown_separator(separator).1)
}

/// A field separator's name in messages, and how an example shows it (`<TAB>` for the tab).
fn shown_separator(separator: u8) -> (&'static str, &'static str) {
    match separator {
        b'\t' => ("tab", "<TAB>"),
        b';' => ("semicolon", ";"),
        _ => ("comma", ","),
    }
}

/// What a binary input is, as far as its first bytes tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
pub enum Binary {
    #[cfg_attr(
        feature = "parquet",
        error("it is a Parquet file, which is read as a table, not in a text --format (leave --format out)")
    )]
    #[cfg_attr(
        not(feature = "parquet"),
        error(
            "it is a Parquet file, which this build cannot read (build with the `parquet` feature)"
        )
    )]
    Parquet,
    #[cfg_attr(
        feature = "parquet",
        error("it is an Arrow IPC (Feather) file, which is read as a table, not in a text --format (leave --format out)")
    )]
    #[cfg_attr(
        not(feature = "parquet"),
        error("it is an Arrow IPC (Feather) file, which this build cannot read (build with the `parquet` feature)")
    )]
    ArrowIpc,
    #[error("it is an Arrow IPC stream, which is not read; write it as an Arrow IPC file (Feather v2) or Parquet, for example with pyarrow's `feather.write_feather` or `parquet.write_table`")]
    ArrowStream,
    #[error("it is {kind}-compressed; decompress it first (for example `{tool} FILE | sudoku-batch solve -`)", kind = .0, tool = decompressor(.0))]
    Compressed(&'static str),
    #[error("it is a ZIP archive; extract the file first")]
    Zip,
    #[error("it is full of NUL bytes (binary data, or UTF-16 text: save it as UTF-8)")]
    Nul,
    #[error("it is {0} text (it starts with a {0} byte-order mark): save it as UTF-8")]
    Unicode(&'static str),
}

/// The command that writes a compressed file's text to stdout, for the hint.
fn decompressor(compression: &str) -> &'static str {
    match compression {
        "bzip2" => "bzcat",
        "xz" => "xzcat",
        "zstd" => "zstdcat",
        _ => "zcat",
    }
}

/// The binary format `prefix` (an input's first bytes) starts with, if it is not text.
pub fn binary(prefix: &[u8]) -> Option<Binary> {
    const MAGIC: [(&[u8], Binary); 12] = [
        (b"PAR1", Binary::Parquet),
        (b"ARROW1", Binary::ArrowIpc),
        (b"\x1f\x8b", Binary::Compressed("gzip")),
        (b"\x28\xb5\x2f\xfd", Binary::Compressed("zstd")),
        (b"\xfd7zXZ\x00", Binary::Compressed("xz")),
        (b"BZh", Binary::Compressed("bzip2")),
        (b"PK\x03\x04", Binary::Zip),
        // An Arrow IPC stream's first message: the continuation marker, then its length.
        (b"\xff\xff\xff\xff", Binary::ArrowStream),
        // Bytes no UTF-8 text starts with; most UTF-16 files are caught by their NULs too, but
        // not one that is short or holds no ASCII.
        (b"\xff\xfe\x00\x00", Binary::Unicode("UTF-32")),
        (b"\x00\x00\xfe\xff", Binary::Unicode("UTF-32")),
        (b"\xff\xfe", Binary::Unicode("UTF-16")),
        (b"\xfe\xff", Binary::Unicode("UTF-16")),
    ];
    // bzip2's magic is text; a block header must follow it.
    let bzip2 = |p: &[u8]| {
        p.len() >= 10 && (b'1'..=b'9').contains(&p[3]) && p[4..10] == *b"\x31\x41\x59\x26\x53\x59"
    };
    MAGIC
        .iter()
        .find(|(magic, what)| {
            prefix.starts_with(magic) && (*what != Binary::Compressed("bzip2") || bzip2(prefix))
        })
        .map(|&(_, what)| what)
        .or_else(|| {
            // A stray NUL in a text line is that record's problem (it gets its status); binary
            // data and UTF-16 text have them everywhere.
            let nuls = memchr::memchr_iter(0, prefix).count();
            (nuls >= 4 && nuls * 100 >= prefix.len()).then_some(Binary::Nul)
        })
}

/// An input opened for a task: its format and where its records start.
#[derive(Clone)]
pub(crate) struct Opened {
    pub format: Arc<dyn TextFormat>,
    /// Bytes the output starts with (the CSV output header row).
    pub header: Vec<u8>,
    /// Input bytes before the first record (a byte-order mark, the CSV header row and what
    /// precedes it).
    pub skip: usize,
    /// Input lines before the first record, so messages give whole-input line numbers.
    pub first_line: u64,
    /// Why the format was chosen, when detection had to weigh one reading against another (for
    /// the front end to show).
    pub note: Option<String>,
    /// `solve` on CSV: the input's solution column, which the answers fill in place.
    pub filled: Option<String>,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("format", &self.format.name())
            .field("skip", &self.skip)
            .field("first_line", &self.first_line)
            .finish()
    }
}

use super::text::BOM;

/// Opens an input whose first bytes are `prefix` (at most [`PEEK`] bytes; fewer only when that is
/// the whole input) for `task` in the format `choice`. `column` names the CSV puzzle column and
/// `solution_column` the CSV solution column (default: the usual names).
pub(crate) fn open(
    prefix: &[u8],
    choice: FormatChoice,
    column: Option<&str>,
    solution_column: Option<&str>,
    keep_solution: bool,
    task: Task,
) -> Result<Opened, FormatError> {
    if let Some(what) = binary(prefix) {
        return Err(FormatError::Binary(what));
    }
    let bom = if prefix.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    let (choice, note) = match choice {
        FormatChoice::Auto => {
            let detected = detect(prefix, column).readable()?;
            (detected.choice, detected.note)
        }
        chosen => (chosen, None),
    };
    let request = OpenRequest {
        prefix,
        bom,
        column,
        solution_column,
        keep_solution,
        task,
    };
    let open = FORMATS
        .iter()
        .find(|f| f.choice == choice)
        .map_or(line::open as Opener, |f| f.open);
    let opened = open(&request)?;
    if opened.format.name() != "csv" {
        // A column flag on an input without columns would be ignored: say so instead.
        let flag = match (column, solution_column, keep_solution) {
            (Some(_), _, _) => Some("--column"),
            (_, Some(_), _) => Some("--solution-column"),
            (_, _, true) => Some("--keep-solution-column"),
            _ => None,
        };
        if let (Some(flag), false) = (flag, request.body().is_empty()) {
            return Err(FormatError::NoColumns {
                flag,
                format: opened.format.name(),
            });
        }
    }
    Ok(Opened { note, ..opened })
}

/// How an input is opened in one format.
type Opener = fn(&OpenRequest<'_>) -> Result<Opened, FormatError>;

/// A format the engine reads: the choice that names it, its name, and how an input is opened
/// in it.
struct Registered {
    choice: FormatChoice,
    name: &'static str,
    open: Opener,
}

/// Every format the engine reads: a new format is its module, its [`FormatChoice`] variant, and
/// one line here.
#[rustfmt::skip]
const FORMATS: [Registered; 3] = [
    Registered { choice: FormatChoice::Line, name: "line", open: line::open },
    Registered { choice: FormatChoice::Grid, name: "grid", open: grid::open },
    Registered { choice: FormatChoice::Csv, name: "csv", open: csv::open },
];

/// What opening an input knows: its first bytes and what was asked.
pub(crate) struct OpenRequest<'a> {
    /// The input's first bytes (at most [`PEEK`]; fewer only when that is the whole input).
    pub prefix: &'a [u8],
    /// Bytes of a byte-order mark at the start.
    pub bom: usize,
    /// CSV: the puzzle column's name, if given.
    pub column: Option<&'a str>,
    /// CSV: the solution column's name, if given.
    pub solution_column: Option<&'a str>,
    /// `solve` keeps the solution column and adds the answers as a new one.
    pub keep_solution: bool,
    pub task: Task,
}

impl OpenRequest<'_> {
    /// The input after its byte-order mark.
    pub fn body(&self) -> &[u8] {
        &self.prefix[self.bom..]
    }

    /// A format that reads nothing before the first record.
    pub fn plain(&self, format: Arc<dyn TextFormat>) -> Opened {
        Opened {
            format,
            header: Vec::new(),
            skip: self.bom,
            first_line: 0,
            note: None,
            filled: None,
        }
    }
}

/// Where a CSV header row starts in `buf`: blank and `#` lines before it are skipped, like
/// everywhere else (the last line is never skipped, so a header-less input still has one).
pub(crate) fn header_start(buf: &[u8]) -> usize {
    let mut start = 0;
    while start < buf.len() {
        let end = line_end(buf, start);
        if !is_skipped(&buf[start..end]) || end == buf.len() {
            break;
        }
        start = end;
    }
    start
}

/// What [`detect`] chose, and why when it was a close call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Detected {
    /// The format chosen (never [`FormatChoice::Auto`]).
    pub choice: FormatChoice,
    /// Why, when detection weighed one reading against another.
    pub note: Option<String>,
    /// No line of a full sample is a puzzle in any format: the input is not a puzzle file, and
    /// is refused rather than answered with a line of `invalid` per line (`note` says why).
    pub unreadable: bool,
    /// The sample's lines hold their puzzles in this field (counting from 1, never the first)
    /// of rows of this many fields (the first row's) separated by this byte (comma, semicolon or
    /// tab), with no header row: a table that lost its header, refused with a hint rather than
    /// answered with a line of `invalid` per line.
    pub headerless: Option<(usize, usize, u8)>,
}

impl Detected {
    /// The detection, or the refusal of an input that is not read at all: one that holds no
    /// puzzle ([`Detected::unreadable`]) or a table's rows without their header row
    /// ([`Detected::headerless`]).
    pub fn readable(self) -> Result<Detected, FormatError> {
        if let Some((field, fields, separator)) = self.headerless {
            return Err(FormatError::Headerless {
                field,
                fields,
                separator,
            });
        }
        if self.unreadable {
            return Err(FormatError::NoPuzzles(self.note.unwrap_or_default()));
        }
        Ok(self)
    }
}

/// The first record of `body` (which starts at a record: no byte-order mark, no blank or `#`
/// line before it), when it is a whole puzzle by itself: an 81-cell line record, or nine 9-cell
/// grid rows (after a title line, if any; a boxed grid's rules among them). Returns its format
/// and the offset just past it. Only whole lines are judged (each has its line end, and a CR
/// the byte after it, which tells a lone CR from a CRLF, unless `cr_ends` says a CR at the very
/// end ends its line), so what this says of a prefix of an input it says of every longer one, at
/// the same offset.
pub(crate) fn first_record(body: &[u8], cr_ends: bool) -> Option<(FormatChoice, usize)> {
    // A line whose end has come: its bytes, and the offset past its end.
    let whole_line = |start: usize| {
        let i = start + memchr::memchr2(b'\n', b'\r', &body[start..])?;
        (body[i] == b'\n' || i + 1 < body.len() || cr_ends)
            .then(|| (&body[start..i], line_end(body, i)))
    };
    let (first, end) = whole_line(0)?;
    if line::parse_line(first).is_some_and(|p| p.is_ok()) {
        return Some((FormatChoice::Line, end));
    }
    // A grid may follow a title line (`Grid 01`); a boxed grid's rules come before, between and
    // after its rows.
    let mut end = if grid::is_title(first) { end } else { 0 };
    let mut rows = 0;
    while rows < 9 {
        let (line, next) = whole_line(end)?;
        if !grid::is_rule(line) {
            grid::parse_row(line.trim_ascii())?;
            rows += 1;
        }
        end = next;
    }
    Some((FormatChoice::Grid, end))
}

/// Where the bytes read so far settle how the input is opened in `choice`: the offset past
/// what settles it, so a reader need not wait for a full sample ([`PEEK`]). The input's first
/// record (after the blank and `#` lines before it) settles it when it is a whole puzzle of
/// that format, or of any format for [`FormatChoice::Auto`]; for `--format line`, any whole
/// record line; for `--format csv`, a whole
/// header row that names the puzzle column (one of the usual names, or `column`). `None`: the
/// reader waits for a full sample or the end of the input, however slowly the bytes come.
pub fn decided(prefix: &[u8], choice: FormatChoice, column: Option<&str>) -> Option<usize> {
    let body = prefix.strip_prefix(BOM).unwrap_or(prefix);
    let start = prefix.len() - body.len() + header_start(body);
    if choice == FormatChoice::Csv {
        let end = csv::first_row_end(&prefix[start..])?;
        let mut header = ::csv::ByteRecord::new();
        let delimiter = csv::delimiter_of(&prefix[start..]);
        csv::reader(&prefix[start..start + end], delimiter)
            .read_byte_record(&mut header)
            .ok()?;
        let named = header.iter().any(|field| {
            let name = field.trim_ascii();
            csv::PUZZLE_NAMES
                .iter()
                .copied()
                .chain(column)
                .any(|wanted| name.eq_ignore_ascii_case(wanted.as_bytes()))
        });
        return named.then_some(start + end);
    }
    if choice == FormatChoice::Line {
        // Every line stands alone: the first whole record line settles a line input, whatever
        // it holds, if it is text; past a header row, the line after it.
        // (A blank or `#` line here is the last one read: the record line is still to come. A
        // line that is not UTF-8, or holds a NUL, may start a binary file: the full sample
        // judges it, see `binary`.)
        let start = super::line::first_record_start(prefix);
        let body = &prefix[start..];
        let i = memchr::memchr2(b'\n', b'\r', body)?;
        let line = &body[..i];
        let text = std::str::from_utf8(line).is_ok() && !line.contains(&0);
        let whole = body[i] == b'\n' || i + 1 < body.len();
        return (whole && text && !is_skipped(line)).then(|| start + line_end(body, i));
    }
    let (found, end) = first_record(&prefix[start..], false)?;
    (choice == FormatChoice::Auto || choice == found).then_some(start + end)
}

/// Chooses the format of an input from its start, `prefix`: either a first record that settles
/// it (see [`decided`]), or a sample (the first [`PEEK`] bytes, or the whole input if shorter).
/// The choice is a function of those bytes alone, never of how fast they came.
///
/// - A first record that is a whole puzzle decides at once: an 81-cell line (line format), or
///   nine 9-cell rows, a boxed grid's rules among them (grid format).
/// - Otherwise the sample decides. CSV when the first record row is a header: none of its fields
///   is a puzzle, and either one is named like a puzzle column (`puzzle`, `quizzes`,
///   `question`, ..., or `column`, any case), or no field looks like data (a number, a long run
///   of digits) and the next row has as many fields with an 81-cell puzzle among them.
/// - Otherwise grid or line, whichever explains more of the sampled record lines (a grid row is
///   nine cells; a line record starts with 81 cells; a boxed grid's rules count for neither,
///   and as lines that fit neither only when line is chosen); ties go to line. A stray line of
///   the other kind stays a malformed record of the chosen format, in place.
/// - Rows whose puzzle is in the same field, not the first, of comma, semicolon or tab separated
///   fields (the first record line and nine in ten of the rest) are a table without its header:
///   `unreadable`, with `headerless` set, whatever the sample's size.
/// - A full sample none of whose lines is a puzzle in any format is `unreadable`, unless the
///   line it cuts holds a whole puzzle and a separator (a line record longer than the rest of
///   the sample), or, after a line-format header row and nothing but comment and blank lines,
///   a puzzle's start, a comment or nothing.
///
/// A byte-order mark, and blank and `#` lines before the first record, are skipped. The note
/// says what was weighed when the choice was not clear.
pub fn detect(prefix: &[u8], column: Option<&str>) -> Detected {
    let body = prefix.strip_prefix(BOM).unwrap_or(prefix);
    let body = &body[header_start(body)..];
    let chosen = |choice| Detected {
        choice,
        note: None,
        unreadable: false,
        headerless: None,
    };
    // A sample cut at PEEK may end inside a line: that last piece is not judged. Anything
    // shorter is the whole input, or a prefix that `decided` settled, where a CR at the end ends
    // its line (the byte after it, or the pause that settled it, said so; see `Reader::peek_window`).
    let full = prefix.len() >= PEEK;
    if let Some((choice, _)) = first_record(body, !full) {
        return chosen(choice);
    }
    let complete = if full {
        super::text::last_line_end(body).unwrap_or(0)
    } else {
        body.len()
    };
    let sample = &body[..complete];
    if let Some(note) = csv_header(sample, column) {
        return Detected {
            choice: FormatChoice::Csv,
            note,
            ..chosen(FormatChoice::Csv)
        };
    }
    // A line-format header row is no record (nor evidence for a format).
    let header = super::line::header_end(sample, true);
    let records: Vec<&[u8]> = lines(&sample[header.unwrap_or(0)..])
        .filter(|l| !is_skipped(l))
        .collect();
    // The line a full sample cuts (all of it, when it holds no line end). It is evidence of a
    // line file where it holds a whole puzzle and a separator (its trailing fields run past the
    // sample). After a header row with nothing but comment and blank lines after it, what the
    // sample holds of it need only be a puzzle's start, a comment or nothing: the header is the
    // evidence.
    let cut = &body[complete..];
    let cells = trim_start(cut);
    let cut_record = full
        && cells.len() > crate::grid::CELLS
        && super::line::parse_line(cut).is_some_and(|p| p.is_ok());
    let header_then_cut = full
        && header.is_some()
        && (is_skipped(cut)
            || cells.len() <= crate::grid::CELLS
                && cells.iter().all(|b| matches!(b, b'0'..=b'9' | b'.')));
    let first: &[u8] = match records.first() {
        Some(first) => first,
        None if cut_record || header_then_cut => return chosen(FormatChoice::Line),
        None if full => cut,
        None => return chosen(FormatChoice::Line),
    };
    let mut line_records = 0usize;
    let mut grid_rows = 0usize;
    // A boxed grid's rules: evidence of neither format.
    let mut rules = 0usize;
    for record in &records {
        let text = record.trim_ascii();
        if grid::is_rule(text) {
            rules += 1;
        } else if grid::parse_row(text).is_some() {
            grid_rows += 1;
        } else if super::line::parse_line(text).is_some_and(|p| p.is_ok()) {
            line_records += 1;
        }
    }
    let total = records.len();
    if line_records + grid_rows == 0 {
        if let Some(found) = headerless_field(&records) {
            return Detected {
                headerless: Some(found),
                unreadable: true,
                ..chosen(FormatChoice::Line)
            };
        }
        if cut_record {
            // Damaged records before a line record that runs past the sample.
            let first = String::from_utf8_lossy(&first[..first.len().min(40)]);
            return Detected {
                note: Some(format!(
                    "format: line (none of the first {total} record lines is a puzzle, but the \
                     line after them starts with one; the first is {first:?}); choose another \
                     with --format"
                )),
                ..chosen(FormatChoice::Line)
            };
        }
    }
    let first = String::from_utf8_lossy(&first[..first.len().min(40)]).into_owned();
    if full && line_records + grid_rows == 0 {
        return Detected {
            choice: FormatChoice::Line,
            note: Some(match total {
                // A table's header row that long cannot be read as CSV either: said, so that
                // the hint does not lead to another refusal.
                0 if complete == 0 && body.iter().any(|b| matches!(b, b',' | b';' | b'\t')) => {
                    format!(
                        "the first 64 KiB hold no line end (they start {first:?}); a CSV \
                         header row longer than 64 KiB is not read (name a format with \
                         --format to read the lines anyway)"
                    )
                }
                0 if complete == 0 => format!(
                    "the first 64 KiB hold no line end (they start {first:?}); name a format \
                     with --format to read it anyway"
                ),
                0 => format!(
                    "the first 64 KiB hold no record line, only a header row, comments or \
                     blank lines before a line they cut, which does not start with a puzzle \
                     (it starts {first:?}); name a format with --format to read it anyway"
                ),
                _ => format!(
                    "none of the first {total} record lines (64 KiB) is a puzzle in any format \
                     (the first is {first:?}); name a format with --format to read it anyway"
                ),
            }),
            unreadable: true,
            headerless: None,
        };
    }
    // Records, not lines, are weighed: nine grid rows make one grid.
    let grid = grid_rows > 9 * line_records;
    let (choice, name, explained, other) = if grid {
        (FormatChoice::Grid, "grid", grid_rows, line_records)
    } else {
        (FormatChoice::Line, "line", line_records, grid_rows)
    };
    // Doubtful: the other reading has some evidence too, or most lines fit neither.
    // Rules are part of the grids when those are chosen, lines that fit neither otherwise.
    let weighed = if grid { total - rules } else { total };
    let note = (other > 0 || explained == 0 || 2 * explained < weighed).then(|| {
        format!(
            "format: {name} (of the first {total} record lines, {line_records} start with an \
             81-cell puzzle and {grid_rows} are 9-cell grid rows; the first is {first:?}); \
             choose another with --format"
        )
    });
    Detected {
        choice,
        note,
        ..chosen(choice)
    }
}

/// The field (counting from 1) that holds the puzzle in the first of `records` and in at least
/// nine in ten of them, split at one separator (comma, semicolon or tab), when it is the same
/// field in each and not the first; with that separator: the rows of a table whose header row
/// is missing (`id,puzzle`), which the line format cannot read (a line record starts with its
/// puzzle) and CSV cannot either (its header names the puzzle column).
fn headerless_field(records: &[&[u8]]) -> Option<(usize, usize, u8)> {
    [b',', b';', b'\t'].into_iter().find_map(|separator| {
        let field = headerless_field_by(records, separator)?;
        let fields = records.first()?.split(|&b| b == separator).count();
        Some((field, fields, separator))
    })
}

/// [`headerless_field`] for one separator.
fn headerless_field_by(records: &[&[u8]], separator: u8) -> Option<usize> {
    let puzzle_field = |record: &[u8]| {
        record.split(|&b| b == separator).position(|field| {
            let field = field.trim_ascii();
            let field = field
                .strip_prefix(b"\"")
                .and_then(|f| f.strip_suffix(b"\""))
                .unwrap_or(field);
            crate::grid::Grid::parse(field).is_ok()
        })
    };
    let field = puzzle_field(records.first()?).filter(|&i| i > 0)?;
    let same = records
        .iter()
        .filter(|r| puzzle_field(r) == Some(field))
        .count();
    (same * 10 >= records.len() * 9).then_some(field + 1)
}

/// Whether a header field is data rather than a name: a number (`2.5`, `-3`), or a long run
/// of cell characters (a damaged puzzle: too short, one stray character).
fn looks_like_data(field: &[u8]) -> bool {
    let field = field.trim_ascii();
    let cells = field
        .iter()
        .filter(|b| b.is_ascii_digit() || **b == b'.')
        .count();
    let number = !field.is_empty()
        && field.iter().any(u8::is_ascii_digit)
        && field
            .iter()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    number || (field.len() >= 17 && cells * 10 >= field.len() * 9)
}

/// Whether `sample` starts with a CSV header row (see [`detect`]): `Some(note)` if so, the note
/// saying how the puzzle column was recognised when not by its name.
fn csv_header(sample: &[u8], column: Option<&str>) -> Option<Option<String>> {
    let start = header_start(sample);
    let delimiter = csv::delimiter_of(&sample[start..]);
    let mut reader = csv::reader(&sample[start..], delimiter);
    let mut header = ::csv::ByteRecord::new();
    reader.read_byte_record(&mut header).ok()?;
    let after_header = start + reader.position().byte() as usize;
    let is_puzzle = |field: &[u8]| crate::grid::Grid::parse(field.trim_ascii()).is_ok();
    // A puzzle in it makes it a record.
    if header.iter().any(is_puzzle) {
        return None;
    }
    let named = header.iter().any(|field| {
        let name = field.trim_ascii();
        csv::PUZZLE_NAMES
            .iter()
            .copied()
            .chain(column)
            .any(|wanted| name.eq_ignore_ascii_case(wanted.as_bytes()))
    });
    // The rows after it: how many have its width (and whether one holds a puzzle), how many
    // look like line records instead (another width, a puzzle first).
    let (mut same, mut other, mut line_like, mut found) = (0usize, 0usize, 0usize, false);
    let mut row = ::csv::ByteRecord::new();
    for _ in 0..64 {
        if !matches!(reader.read_byte_record(&mut row), Ok(true)) {
            break;
        }
        // A one-field row that is a puzzle and more fields, separated as in a line record (a
        // space), is a line record too: the header's one field is a line format's header.
        let line_record = |row: &::csv::ByteRecord| {
            row.len() == 1
                && row.get(0).is_some_and(|f| {
                    !is_puzzle(f) && is_puzzle(super::line::split_field(trim_start(f)).0)
                })
        };
        if row.len() == 1 && is_skipped(row.get(0).unwrap_or_default()) {
            continue; // blank or a comment to the line format (a byte-order mark alone): no evidence
        }
        if row.len() == header.len() && !line_record(&row) {
            same += 1;
            found |= row.iter().any(is_puzzle);
        } else {
            other += 1;
            line_like += usize::from(row.get(0).is_some_and(is_puzzle) || line_record(&row));
        }
    }
    if named {
        // A named title line before line records is not a header, nor is a damaged record that
        // ends in a column's name (`<80 cells>,sudoku`).
        let damaged = header.iter().any(looks_like_data);
        return (line_like <= same && !damaged).then_some(None);
    }
    // Unnamed, one field is no evidence of CSV (a title line), and a field that is data makes
    // the row a damaged record, not a header.
    if header.len() < 2 || header.iter().any(looks_like_data) || !found || other > same {
        return None;
    }
    let i = csv::first_puzzle_column(&sample[after_header..], header.len(), delimiter)?;
    Some(Some(format!(
        "format: csv (the header names no puzzle column, but column {:?} holds 81-cell puzzles)",
        String::from_utf8_lossy(header.get(i).unwrap_or_default().trim_ascii())
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(text: &[u8]) -> FormatChoice {
        detect(text, None).choice
    }

    const P: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn a_one_column_header_over_line_records_heads_the_line_format() {
        let solution =
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
        let rows = format!("{P} {solution}\n").repeat(3);
        assert_eq!(
            choice(format!("sudoku\n{rows}").as_bytes()),
            FormatChoice::Line
        );
        assert_eq!(
            choice(format!("sudoku\n{P}\n{P}\n").as_bytes()),
            FormatChoice::Csv
        );
        // Lines of files joined with `cat`, each saved with a byte-order mark.
        let marked = format!("{P} 1\n\u{feff}{P} 1\n\u{feff}\n").repeat(3);
        assert_eq!(
            choice(format!("sudoku\n{marked}").as_bytes()),
            FormatChoice::Line
        );
    }

    #[test]
    fn a_header_row_is_not_weighed_as_a_record_line() {
        // Nothing after it: no record, nothing doubtful.
        let alone = detect(b"puzzle solution\n", None);
        assert_eq!(alone.choice, FormatChoice::Line);
        assert!(alone.note.is_none() && !alone.unreadable);
        // A full sample with nothing but an unfinished line after it says what it holds.
        let long = format!("puzzle solution\n{}", "x".repeat(PEEK));
        let note = detect(&long.as_bytes()[..PEEK], None).note.unwrap();
        assert!(note.contains("only a header row"), "{note}");
        assert!(note.contains("it starts \"xxx"), "{note}");
        // Or a puzzle record whose trailing field runs past the sample: line.
        let long = format!("puzzle solution\n{P} {}", "x".repeat(PEEK));
        let d = detect(&long.as_bytes()[..PEEK], None);
        assert_eq!(d.choice, FormatChoice::Line);
        assert!(d.note.is_none() && !d.unreadable);
        // Comments to the end of the sample, or a record's start cut there, after a header
        // row: line. Without the header, or after lines that are no puzzle, a start of digits
        // is no evidence.
        for cut in ["# comm", "", "53..7", "   4"] {
            let text = format!("puzzle solution\n{}", "# c\n".repeat(PEEK / 4));
            let text = format!("{}{cut}", &text[..PEEK - cut.len()]);
            let d = detect(text.as_bytes(), None);
            assert_eq!(
                (d.choice, d.unreadable),
                (FormatChoice::Line, false),
                "{cut:?}"
            );
        }
        let log = "hello world\n".repeat(PEEK / 12) + &"2026-01-01 log line\n".repeat(9);
        assert!(detect(&log.as_bytes()[..PEEK], None).unreadable);
        // A table without its header stays one, wherever the sample ends.
        let table: String = (0..1000)
            .map(|i| format!("{},{P}\n", 10 + i % 90))
            .collect();
        for shift in 0..90 {
            let text = format!("#{}\n{table}", "c".repeat(shift));
            let d = detect(&text.as_bytes()[..PEEK], None);
            assert!(d.unreadable && d.headerless.is_some(), "{shift}");
        }
        // Damaged lines before a record longer than the rest of the sample: line, with a note.
        let text = format!("{}{P} {}", "bad line\n".repeat(20), "x".repeat(PEEK));
        let d = detect(&text.as_bytes()[..PEEK], None);
        assert_eq!((d.choice, d.unreadable), (FormatChoice::Line, false));
        assert!(d
            .note
            .unwrap()
            .contains("none of the first 20 record lines"));
        // Among record lines it does not count.
        let note = detect(b"puzzle solution\nbad line\n", None).note.unwrap();
        assert!(note.contains("of the first 1 record lines"), "{note}");
        assert!(note.contains("the first is \"bad line\""), "{note}");
    }

    #[test]
    fn detect_formats() {
        let line = format!("# c\n\n{}\n", "1.3".repeat(27));
        assert_eq!(choice(line.as_bytes()), FormatChoice::Line);
        assert_eq!(choice(b"quizzes,solutions\n0043"), FormatChoice::Csv);
        assert_eq!(choice(b"id,\"Puzzle\",solution\n"), FormatChoice::Csv);
        assert_eq!(choice(b"n,grid\n"), FormatChoice::Line);
        assert_eq!(detect(b"n,grid\n", Some("grid")).choice, FormatChoice::Csv);
        assert_eq!(choice(b"garbage, here\n"), FormatChoice::Line);
        assert_eq!(choice(b"0 3 5 4 6 9 2 7 8\r\n"), FormatChoice::Grid);
        assert_eq!(choice(b"103000509\n"), FormatChoice::Grid);
        let line = format!("{},{}", "1".repeat(81), "2".repeat(81));
        assert_eq!(choice(line.as_bytes()), FormatChoice::Line);
        assert_eq!(choice(b""), FormatChoice::Line);
        assert_eq!(choice(BOM), FormatChoice::Line);
    }

    #[test]
    fn boxed_grids_are_grids() {
        let rows = ["|53.|.7.|...|", "|6..|195|...|", "|.98|...|.6.|"];
        let band = rows.map(|r| format!("{r}\n")).concat();
        let rule = "|---+---+---|\n";
        let grid = format!("*-----------*\n{band}{rule}{band}{rule}{band}*-----------*\n");
        // The first record settles it, at its ninth row.
        let ninth = grid.len() - "*-----------*\n".len();
        assert_eq!(
            first_record(grid.as_bytes(), false),
            Some((FormatChoice::Grid, ninth))
        );
        assert_eq!(
            decided(grid.as_bytes(), FormatChoice::Auto, None),
            Some(ninth)
        );
        let spaced = "5 3 . | . 7 . | . . .\n".repeat(3);
        let text = format!("Grid 1\n{spaced}------+-------+------\n{spaced}{spaced}");
        assert!(first_record(text.as_bytes(), false).is_some());
        // A sample of boxed grids after a broken one: grid, and no doubt (rules fit neither
        // format, yet are no evidence against a grid).
        let broken = grid.replacen("|6..", "|6x.", 1);
        let text = format!("{broken}\n{grid}\n{grid}");
        assert_eq!(first_record(text.as_bytes(), false), None);
        let d = detect(text.as_bytes(), None);
        assert_eq!((d.choice, d.note), (FormatChoice::Grid, None));
        // Rules alone are no grid, nor any evidence: what is chosen is said.
        let rules = b"-----\n".repeat(20);
        assert_eq!(first_record(&rules, false), None);
        let note = detect(&rules, None).note.unwrap();
        assert!(note.contains("0 are 9-cell grid rows"), "{note}");
        // Among line records, rules are lines that fit neither.
        let text = format!("------\n{P}\n------\n{P}\n------\n");
        let d = detect(text.as_bytes(), None);
        assert_eq!(d.choice, FormatChoice::Line);
        assert!(d
            .note
            .unwrap()
            .contains("of the first 5 record lines, 2 start"));
    }

    #[test]
    fn a_titled_grid_with_lone_crs_is_a_grid_not_a_csv_header() {
        // `Sudoku` names a puzzle column, but the nine rows after it make a grid: in the whole
        // input, and in a prefix that `decided` settled at the ninth row's CR.
        let rows: String = (0..9).map(|_| "000000000\r").collect();
        for end in ["\r", ""] {
            let text = format!("Sudoku\r{rows}{end}");
            assert_eq!(choice(text.as_bytes()), FormatChoice::Grid, "{text:?}");
        }
    }

    #[test]
    fn detection_weighs_the_sample_not_one_line() {
        // A stray grid row before line records: line, with a note.
        let text = format!("000000000\n{}", format!("{P}\n").repeat(20));
        let d = detect(text.as_bytes(), None);
        assert_eq!(d.choice, FormatChoice::Line);
        assert!(d.note.unwrap().contains("20 start with an 81-cell puzzle"));
        // A puzzle followed by a word is a line record, not a CSV header.
        let text = format!("{P},sudoku\n{P}\n");
        assert_eq!(choice(text.as_bytes()), FormatChoice::Line);
        // Any header whose next row has an 81-cell field: CSV, whatever the column is called.
        let text = format!("source,q,a,rating\nx,{P},,3\n");
        let d = detect(text.as_bytes(), None);
        assert_eq!(d.choice, FormatChoice::Csv);
        assert!(d.note.unwrap().contains("\"q\""));
        // sudoku-extreme's layout, with a byte-order mark.
        let text = format!("\u{feff}source,question,answer,rating\nx,{P},,3\n");
        assert_eq!(
            detect(text.as_bytes(), None),
            Detected {
                choice: FormatChoice::Csv,
                note: None,
                unreadable: false,
                headerless: None,
            }
        );
        // Nine-row grids among a few bad lines: grid.
        let grid = "530070000\n".repeat(9);
        let text = format!("{grid}\n{grid}\nnot a row\n");
        assert_eq!(choice(text.as_bytes()), FormatChoice::Grid);
        // A sample cut inside a line does not judge the piece.
        let mut text = format!("{P}\n").repeat(PEEK / 82 + 1).into_bytes();
        text.truncate(PEEK);
        assert_eq!(detect(&text, None).note, None);
    }

    #[test]
    fn a_whole_first_puzzle_decides_and_nothing_after_it_changes_that() {
        let grid: String = (0..9)
            .map(|r| format!("{}\n", &P[9 * r..9 * r + 9]))
            .collect();
        let inputs = [
            format!("# c\r\n\n{P}\r\n{}", "530070000\n".repeat(30)),
            format!("\u{feff}{grid}\n{}", format!("{P}\n").repeat(3)),
            format!("x{},2.5\n{}", &P[1..], format!("{P},1.5\n").repeat(70)),
            format!("{},2.5\n{}", &P[..60], format!("{P},1.5\n").repeat(70)),
            format!("# c\nid,puzzle\n{}", format!("1,{P}\n").repeat(10)),
            format!("source,q\n{}", format!("x,{P}\n").repeat(1000)),
            "word\n".repeat(20_000),
        ];
        for input in &inputs {
            let input = input.as_bytes();
            let sample = &input[..input.len().min(PEEK)];
            let whole = detect(sample, None);
            // Every prefix a reader may stop at gives the same choice as the sample.
            for k in 0..sample.len() {
                if let Some(end) = decided(&sample[..k], FormatChoice::Auto, None) {
                    assert!(end <= k);
                    assert_eq!(detect(&sample[..k], None), whole, "cut at {k}");
                }
            }
        }
        let choices: Vec<_> = inputs
            .iter()
            .map(|i| detect(&i.as_bytes()[..i.len().min(PEEK)], None))
            .map(|d| (d.choice, d.unreadable))
            .collect();
        use FormatChoice::*;
        assert_eq!(
            choices,
            [
                (Line, false),
                (Grid, false),
                (Line, false),
                (Line, false),
                (Csv, false),
                (Csv, false),
                (Line, true)
            ]
        );
        // Settled: a puzzle line once its line end has come; nine grid rows; never CSV.
        let line = format!("{P}\n");
        assert_eq!(
            decided(&line.as_bytes()[..81], FormatChoice::Auto, None),
            None
        );
        assert_eq!(decided(line.as_bytes(), FormatChoice::Auto, None), Some(82));
        assert_eq!(decided(line.as_bytes(), FormatChoice::Grid, None), None);
        assert_eq!(
            decided(grid.as_bytes(), FormatChoice::Auto, None),
            Some(grid.len())
        );
        assert_eq!(
            decided(&grid.as_bytes()[..85], FormatChoice::Auto, None),
            None
        );
        assert_eq!(decided(b"id,puzzle\n", FormatChoice::Auto, None), None);
        assert_eq!(decided(line.as_bytes(), FormatChoice::Csv, None), None);
        // A named CSV header that names the puzzle column settles `--format csv`.
        assert_eq!(
            decided(b"# c\nid,puzzle\n", FormatChoice::Csv, None),
            Some(14)
        );
        assert_eq!(decided(b"id,puzzle", FormatChoice::Csv, None), None);
        assert_eq!(decided(b"id,q\n", FormatChoice::Csv, None), None);
        assert_eq!(decided(b"id,q\n", FormatChoice::Csv, Some("q")), Some(5));
    }

    #[test]
    fn a_bom_is_skipped_in_every_format() {
        let solve = Task::Solve { lexmin: false };
        let text = format!("\u{feff}{P}\n");
        let opened = open(
            text.as_bytes(),
            FormatChoice::Auto,
            None,
            None,
            false,
            solve,
        )
        .unwrap();
        assert_eq!((opened.format.name(), opened.skip), ("line", 3));
        let text = "\u{feff}id,puzzle\n1,x\n";
        let opened = open(
            text.as_bytes(),
            FormatChoice::Auto,
            None,
            None,
            false,
            solve,
        )
        .unwrap();
        assert_eq!(
            (opened.format.name(), opened.skip, opened.first_line),
            ("csv", 13, 1)
        );
        assert_eq!(opened.header, b"id,puzzle,solution,status\n");
        let text = format!("\u{feff}{}", "530070000\n".repeat(9));
        let opened = open(
            text.as_bytes(),
            FormatChoice::Auto,
            None,
            None,
            false,
            solve,
        )
        .unwrap();
        assert_eq!((opened.format.name(), opened.skip), ("grid", 3));
    }

    #[test]
    fn open_reads_the_header_and_counts_its_lines() {
        let input = b"# made by hand\n\nid,puzzle\r\n1,...\n";
        let opened = open(
            input,
            FormatChoice::Auto,
            None,
            None,
            false,
            Task::Count { limit: 2 },
        )
        .unwrap();
        assert_eq!(opened.format.name(), "csv");
        assert_eq!(opened.header, b"id,puzzle,count,status\n");
        assert_eq!(&input[opened.skip..], b"1,...\n");
        assert_eq!(opened.first_line, 3);
    }

    #[test]
    fn task_and_format_rules_are_checked_at_open() {
        let check = Task::Check { unique: false };
        assert_eq!(
            open(b"103000509\n", FormatChoice::Auto, None, None, false, check).unwrap_err(),
            FormatError::CheckNeedsSolutions
        );
        assert!(matches!(
            open(b"id,puzzle\n", FormatChoice::Csv, None, None, false, check),
            Err(FormatError::NoSolutionColumn { .. })
        ));
        assert!(matches!(
            open(
                b"a,b\n",
                FormatChoice::Csv,
                None,
                None,
                false,
                Task::Count { limit: 2 }
            ),
            Err(FormatError::NoPuzzleColumn { .. })
        ));
        let long = vec![b'a'; PEEK];
        assert_eq!(
            open(&long, FormatChoice::Csv, None, None, false, check).unwrap_err(),
            FormatError::HeaderTooLong
        );
        assert_eq!(
            open(b"", FormatChoice::Csv, None, None, false, check)
                .unwrap()
                .format
                .name(),
            "line"
        );
    }

    #[test]
    fn a_compressed_input_is_named_with_the_command_that_decompresses_it() {
        let bzip2 = b"BZh91AY&SY\x00\x00";
        for (prefix, tool) in [
            (&b"\x1f\x8b\x08\x00"[..], "`zcat FILE"),
            (&b"\x28\xb5\x2f\xfd\x00"[..], "`zstdcat FILE"),
            (&b"\xfd7zXZ\x00\x00"[..], "`xzcat FILE"),
            (&bzip2[..], "`bzcat FILE"),
        ] {
            let message = binary(prefix).expect("compressed").to_string();
            assert!(message.contains(tool), "{message}");
        }
    }
}
