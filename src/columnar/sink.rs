//! Writing an answered table: Parquet, Arrow IPC, CSV (every column, then the results) or
//! lines (one answer per row, as the line format writes them).

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use arrow_array::builder::StringBuilder;
use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use super::table::{Layout, Strings};
use crate::batch::output::Sink;
use crate::batch::OutputFormat;
use crate::task::Outcome;

/// Rows per output row group at most (a smaller input row group is kept as it is).
const MAX_ROW_GROUP: usize = 128 * 1024;

/// The output of a columnar run, in its format.
pub(crate) enum TableWriter<'s, 'a> {
    /// The writer and the columns cast to a type Parquet can name (see [`parquet_schema`]).
    Parquet(ArrowWriter<Watched<'s, 'a>>, Vec<(usize, DataType)>),
    /// The writer and the dictionary columns written as their values (see [`dictionary_values`]).
    Arrow(
        arrow_ipc::writer::FileWriter<Watched<'s, 'a>>,
        Vec<(usize, DataType)>,
    ),
    /// The writer and the schema, for a header row even when no row comes; the grid columns
    /// held as bytes, written as their text (see [`bytes_as_text`]); the times written in UTC
    /// (see [`csv_zones`]).
    Csv(
        arrow_csv::Writer<Watched<'s, 'a>>,
        SchemaRef,
        Vec<usize>,
        Vec<(usize, DataType)>,
    ),
    Lines(Watched<'s, 'a>, Vec<u8>),
}

/// The output, noting in `closed` when a write finds its reader gone (a closed pipe): the
/// Parquet, Arrow and CSV writers wrap that error in their own (the CSV writer keeps only its
/// text), and a closed pipe ends a run quietly where any other write error fails it.
pub(crate) struct Watched<'s, 'a> {
    pub sink: &'s mut Sink<'a>,
    pub closed: &'s AtomicBool,
}

impl Watched<'_, '_> {
    fn note<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            if e.kind() == io::ErrorKind::BrokenPipe {
                self.closed.store(true, Ordering::Relaxed);
            }
        }
        result
    }
}

impl Write for Watched<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.sink.write(buf);
        self.note(written)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let written = self.sink.write_all(buf);
        self.note(written)
    }
    fn flush(&mut self) -> io::Result<()> {
        let flushed = self.sink.flush();
        self.note(flushed)
    }
}

fn other(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

/// Whether a column of this type holds bytes (plain or dictionary-encoded).
fn is_bytes(data_type: &DataType) -> bool {
    match data_type {
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => true,
        DataType::Dictionary(_, values) => is_bytes(values),
        _ => false,
    }
}

/// `batch` with its columns `bytes` (grids held as bytes: a puzzle column typed `binary`, the
/// solution column filled in it) as text. Arrow's CSV writer spells bytes in hex, and a
/// puzzle written so does not read back; a cell that is not UTF-8 (not a puzzle either) has
/// its bad bytes replaced by U+FFFD.
fn bytes_as_text(batch: &RecordBatch, bytes: &[usize]) -> RecordBatch {
    let mut columns = batch.columns().to_vec();
    let schema = batch.schema();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for &i in bytes {
        let cells = Strings::new(columns[i].as_ref()).expect("a column of bytes");
        let n = batch.num_rows();
        let mut text = StringBuilder::with_capacity(n, n * 81);
        for row in 0..n {
            match cells.get(row) {
                Some(cell) => text.append_value(String::from_utf8_lossy(cell)),
                None => text.append_null(),
            }
        }
        columns[i] = std::sync::Arc::new(text.finish());
        fields[i] = Field::new(fields[i].name(), DataType::Utf8, true);
    }
    RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), columns)
        .expect("the same columns, as text")
}

/// The schema a Parquet output is written with, and the columns whose type changes: a time in
/// seconds (`timestamp[s]`, `time32[s]`, which Parquet cannot name: written as bare integers,
/// they read back as numbers) becomes one in milliseconds, and a `date64` a `date32`, as
/// pyarrow writes them; the values are the same instants and days. Plain columns only: one
/// inside a list or struct, or dictionary-encoded, is written as it is.
fn parquet_schema(schema: &SchemaRef) -> (SchemaRef, Vec<(usize, DataType)>) {
    use arrow_schema::TimeUnit;
    let mut casts = Vec::new();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let to = match f.data_type() {
                DataType::Timestamp(TimeUnit::Second, zone) => {
                    DataType::Timestamp(TimeUnit::Millisecond, zone.clone())
                }
                DataType::Time32(TimeUnit::Second) => DataType::Time32(TimeUnit::Millisecond),
                DataType::Date64 => DataType::Date32,
                // Arrow's Parquet writer cannot take a dictionary of views (polars writes its
                // `Categorical` so), here or in a list or struct: the same dictionary, of plain
                // strings or bytes.
                other => match rewritten(other, &plain_dictionary) {
                    Some(to) => to,
                    None => return f.as_ref().clone(),
                },
            };
            casts.push((i, to.clone()));
            f.as_ref().clone().with_data_type(to)
        })
        .collect();
    match casts.is_empty() {
        true => (std::sync::Arc::clone(schema), casts),
        false => {
            let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
            (std::sync::Arc::new(schema), casts)
        }
    }
}

/// The columns a CSV output writes in UTC, and their type so: a timestamp whose zone arrow
/// cannot use (pyarrow takes any text as a zone, such as `Z` or `utc`) would fail arrow's CSV
/// writer, which writes each time in its zone. The values are the same instants (a zoned
/// timestamp counts from 1970 in UTC, whatever its zone), written with `Z`.
fn csv_zones(schema: &SchemaRef) -> Vec<(usize, DataType)> {
    // A dictionary of such times too; CSV holds no lists or structs.
    casts_by(schema, &|data_type| match data_type {
        DataType::Timestamp(unit, Some(zone))
            if zone.parse::<arrow_array::timezone::Tz>().is_err() =>
        {
            Some(DataType::Timestamp(*unit, Some("UTC".into())))
        }
        _ => None,
    })
}

/// `schema` with the types of `casts`.
fn cast_schema(schema: &Schema, casts: &[(usize, DataType)]) -> Schema {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for (i, to) in casts {
        fields[*i] = fields[*i].clone().with_data_type(to.clone());
    }
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

/// The dictionary columns an Arrow output of a Parquet input writes as their values, and their
/// type so. A Parquet file's dictionaries are its row groups' own, and may differ from one to the
/// next, where an Arrow file holds one dictionary per column (arrow's writer refuses another).
fn dictionary_values(schema: &SchemaRef) -> Vec<(usize, DataType)> {
    // In lists, maps and structs too.
    casts_by(schema, &|data_type| match data_type {
        DataType::Dictionary(_, values) => Some(values.as_ref().clone()),
        _ => None,
    })
}

/// A dictionary of views as a dictionary of their plain type.
fn plain_dictionary(data_type: &DataType) -> Option<DataType> {
    match data_type {
        DataType::Dictionary(keys, values) => {
            view_as_plain(values).map(|values| DataType::Dictionary(keys.clone(), Box::new(values)))
        }
        _ => None,
    }
}

/// The columns of `schema` whose type [`rewritten`] changes, with their new type.
fn casts_by(
    schema: &SchemaRef,
    rewrite: &dyn Fn(&DataType) -> Option<DataType>,
) -> Vec<(usize, DataType)> {
    let fields = schema.fields().iter().enumerate();
    fields
        .filter_map(|(i, f)| rewritten(f.data_type(), rewrite).map(|to| (i, to)))
        .collect()
}

/// `data_type` with `rewrite` applied to it and to every type inside it (list items, map
/// entries, struct fields, dictionary values), inside first; None where nothing changes.
fn rewritten(
    data_type: &DataType,
    rewrite: &dyn Fn(&DataType) -> Option<DataType>,
) -> Option<DataType> {
    use std::sync::Arc;
    use DataType::*;
    let field = |f: &arrow_schema::FieldRef| {
        let to = rewritten(f.data_type(), rewrite)?;
        Some(Arc::new(f.as_ref().clone().with_data_type(to)))
    };
    let inside = match data_type {
        List(f) => field(f).map(List),
        LargeList(f) => field(f).map(LargeList),
        ListView(f) => field(f).map(ListView),
        LargeListView(f) => field(f).map(LargeListView),
        FixedSizeList(f, n) => field(f).map(|f| FixedSizeList(f, *n)),
        Map(f, sorted) => field(f).map(|f| Map(f, *sorted)),
        Struct(fields) => {
            let to: Vec<_> = fields.iter().map(field).collect();
            to.iter().any(Option::is_some).then(|| {
                let kept = fields.iter().zip(to);
                Struct(
                    kept.map(|(f, to)| to.unwrap_or_else(|| Arc::clone(f)))
                        .collect(),
                )
            })
        }
        Dictionary(keys, values) => {
            rewritten(values, rewrite).map(|to| Dictionary(keys.clone(), Box::new(to)))
        }
        _ => None,
    };
    rewrite(inside.as_ref().unwrap_or(data_type)).or(inside)
}

/// The plain type of a view type (`string_view`, `binary_view`).
fn view_as_plain(data_type: &DataType) -> Option<DataType> {
    match data_type {
        DataType::Utf8View => Some(DataType::Utf8),
        DataType::BinaryView => Some(DataType::Binary),
        _ => None,
    }
}

/// Whether a Parquet output cannot hold a column of this type: a union or an interval of
/// months, days and nanoseconds, here or inside (arrow's Parquet writer has neither).
pub(crate) fn not_in_parquet(data_type: &DataType) -> bool {
    use arrow_schema::IntervalUnit;
    match data_type {
        DataType::Union(..) | DataType::Interval(IntervalUnit::MonthDayNano) => true,
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => not_in_parquet(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| not_in_parquet(f.data_type())),
        DataType::Dictionary(_, values) => not_in_parquet(values),
        DataType::RunEndEncoded(_, values) => not_in_parquet(values.data_type()),
        _ => false,
    }
}

/// `batch` with the columns of `casts` cast to the types `format` can write; a time too far from
/// 1970 to count in milliseconds is an error, never a null.
fn cast_columns(
    batch: &RecordBatch,
    casts: &[(usize, DataType)],
    format: &str,
) -> io::Result<RecordBatch> {
    let checked = arrow_cast::CastOptions {
        safe: false,
        ..Default::default()
    };
    let mut columns = batch.columns().to_vec();
    let schema = batch.schema();
    for (i, to) in casts {
        columns[*i] = arrow_cast::cast_with_options(&columns[*i], to, &checked).map_err(|e| {
            let name = schema.field(*i).name();
            io::Error::other(format!(
                "column {name:?} cannot be written to {format}: {e}"
            ))
        })?;
    }
    let schema = cast_schema(&schema, casts);
    RecordBatch::try_new(std::sync::Arc::new(schema), columns).map_err(other)
}

impl<'s, 'a> TableWriter<'s, 'a> {
    /// A writer of `format` (not `Auto`) for tables laid out as `layout` says; `header`: a CSV
    /// output starts with its header row (the first shard's does); `dictionaries_as_values`: an
    /// Arrow output writes dictionary columns as their values (see [`dictionary_values`]).
    pub fn new(
        format: OutputFormat,
        sink: Watched<'s, 'a>,
        layout: &Layout,
        header: bool,
        dictionaries_as_values: bool,
    ) -> io::Result<TableWriter<'s, 'a>> {
        let schema = std::sync::Arc::clone(&layout.schema);
        Ok(match format {
            OutputFormat::Parquet => {
                // Grids are nearly all distinct: a dictionary for their columns is work that
                // ends in a fallback to plain pages. Other columns (a source, the status) keep it.
                let mut properties = WriterProperties::builder()
                    .set_compression(Compression::ZSTD(
                        ZstdLevel::try_new(1).expect("a valid level"),
                    ))
                    .set_statistics_enabled(EnabledStatistics::Chunk)
                    // A row group is held in memory until it is complete: this bounds the heap
                    // whatever the input's row groups (pyarrow writes 1 Mi rows per group).
                    .set_max_row_group_row_count(Some(MAX_ROW_GROUP));
                for name in layout.grid_columns() {
                    properties = properties.set_column_dictionary_enabled(name.into(), false);
                }
                let properties = properties.build();
                let (schema, casts) = parquet_schema(&schema);
                TableWriter::Parquet(
                    ArrowWriter::try_new(sink, schema, Some(properties)).map_err(other)?,
                    casts,
                )
            }
            OutputFormat::Arrow => {
                let casts = match dictionaries_as_values {
                    true => dictionary_values(&schema),
                    false => Vec::new(),
                };
                let schema = cast_schema(&schema, &casts);
                TableWriter::Arrow(
                    arrow_ipc::writer::FileWriter::try_new(sink, &schema).map_err(other)?,
                    casts,
                )
            }
            OutputFormat::Csv => {
                let fields = schema.fields();
                let bytes = layout
                    .grid_columns()
                    .filter_map(|name| fields.iter().position(|f| f.name() == name))
                    .filter(|&i| is_bytes(fields[i].data_type()))
                    .collect();
                let zones = csv_zones(&schema);
                TableWriter::Csv(
                    arrow_csv::WriterBuilder::new()
                        .with_header(header)
                        .build(sink),
                    std::sync::Arc::new(cast_schema(&schema, &zones)),
                    bytes,
                    zones,
                )
            }
            OutputFormat::Line | OutputFormat::Auto => TableWriter::Lines(sink, Vec::new()),
        })
    }

    /// Writes `batch` with its answers.
    pub fn write(
        &mut self,
        batch: &RecordBatch,
        outcomes: &[Outcome],
        layout: &Layout,
    ) -> io::Result<()> {
        match self {
            TableWriter::Lines(sink, text) => {
                text.clear();
                for outcome in outcomes {
                    outcome.write_line(text);
                }
                sink.write_all(text)
            }
            // CSV: the result columns' text, as for a CSV input (`2+` at a count's limit).
            table => {
                let typed = !matches!(table, TableWriter::Csv(..));
                table.write_batch(&layout.render(batch, outcomes, typed))
            }
        }
    }

    /// Writes the rows of `batch` that `keep` keeps, as they came (a filtering task).
    ///
    /// As lines, a kept puzzle is written as it came when it reads back as one record, else
    /// without the whitespace around it (a cell that ends with a line end) when that does; one
    /// that would not (null, blank, a `#` comment, holding a line break inside) is written as its
    /// status instead, so the output still has one line per kept record.
    pub fn write_kept(
        &mut self,
        batch: &RecordBatch,
        outcomes: &[Outcome],
        keep: &[bool],
        layout: &Layout,
    ) -> io::Result<()> {
        match self {
            TableWriter::Lines(sink, text) => {
                let puzzles =
                    Strings::new(batch.column(layout.puzzle).as_ref()).expect("a text column");
                text.clear();
                let trimmed = |cell| match is_one_record(cell) {
                    true => cell,
                    false => crate::formats::text::trim(cell),
                };
                for (i, _) in keep.iter().enumerate().filter(|(_, &k)| k) {
                    match puzzles.get(i).map(trimmed) {
                        Some(cell) if is_one_record(cell) => {
                            text.extend_from_slice(cell);
                            text.push(b'\n');
                        }
                        _ => outcomes[i].write_line(text),
                    }
                }
                sink.write_all(text)
            }
            table => {
                let mask = BooleanArray::from(keep.to_vec());
                let kept =
                    arrow_select::filter::filter_record_batch(batch, &mask).map_err(other)?;
                table.write_batch(&kept)
            }
        }
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        match self {
            TableWriter::Parquet(w, casts) if !casts.is_empty() => w
                .write(&cast_columns(batch, casts, "Parquet")?)
                .map_err(other),
            TableWriter::Parquet(w, _) => w.write(batch).map_err(other),
            TableWriter::Arrow(w, casts) if !casts.is_empty() => w
                .write(&cast_columns(batch, casts, "Arrow")?)
                .map_err(other),
            TableWriter::Arrow(w, _) => w.write(batch).map_err(other),
            TableWriter::Csv(w, _, bytes, zones) => {
                let text = (!bytes.is_empty()).then(|| bytes_as_text(batch, bytes));
                let batch = text.as_ref().unwrap_or(batch);
                let zoned = (!zones.is_empty())
                    .then(|| cast_columns(batch, zones, "CSV"))
                    .transpose()?;
                w.write(zoned.as_ref().unwrap_or(batch)).map_err(other)
            }
            TableWriter::Lines(..) => unreachable!("lines are written from outcomes"),
        }
    }

    /// The end of an input unit: a Parquet output closes its row group.
    pub fn end_unit(&mut self) -> io::Result<()> {
        match self {
            TableWriter::Parquet(w, _) if w.in_progress_rows() > 0 => w.flush().map_err(other),
            _ => Ok(()),
        }
    }

    /// Completes the output (a Parquet or Arrow file's footer, a CSV header if no row came).
    pub fn finish(self) -> io::Result<()> {
        match self {
            TableWriter::Parquet(w, _) => w.close().map(drop).map_err(other),
            TableWriter::Arrow(mut w, _) => w.finish().map_err(other),
            TableWriter::Csv(mut w, schema, ..) => {
                // The header row comes with the first batch written; a table with no rows (or a
                // first shard with no row group) still gets it. No rows: nothing else is written.
                w.write(&RecordBatch::new_empty(schema)).map_err(other)?;
                w.into_inner().flush()
            }
            TableWriter::Lines(mut sink, _) => sink.flush(),
        }
    }
}

/// Whether `cell`, written as a line, reads back as one record: not blank, not a `#` comment,
/// no line break inside.
fn is_one_record(cell: &[u8]) -> bool {
    !crate::formats::text::is_skipped(cell) && memchr::memchr2(b'\n', b'\r', cell).is_none()
}
