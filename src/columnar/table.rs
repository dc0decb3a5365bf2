//! A table's records: which column holds the puzzles (and the solutions), the records of one
//! record batch read in place from its arrays, and the batch written back with the task's
//! result columns ([`Task::columns`]) and statuses.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BinaryViewBuilder, BooleanBuilder, Float64Builder, Int64Builder,
    LargeBinaryBuilder, LargeStringBuilder, StringBuilder, StringViewBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::formats::{FormatError, PUZZLE_NAMES, SOLUTION_NAMES};
use crate::grid::{Grid, CELLS};
use crate::task::{ColumnType, Invalid, Outcome, Record, Task, Value, STATUS};

/// The text cells of a string or binary column, read in place.
pub(crate) enum Strings<'a> {
    Utf8(&'a arrow_array::StringArray),
    LargeUtf8(&'a arrow_array::LargeStringArray),
    Utf8View(&'a arrow_array::StringViewArray),
    Binary(&'a arrow_array::BinaryArray),
    LargeBinary(&'a arrow_array::LargeBinaryArray),
    BinaryView(&'a arrow_array::BinaryViewArray),
    /// Dictionary-encoded text (a pandas category): each row's index into `values`.
    Dictionary {
        keys: Vec<usize>,
        nulls: &'a dyn Array,
        values: Box<Strings<'a>>,
    },
    /// A column of Arrow's `null` type, every row null (pandas writes an all-`None` column
    /// so): a solution column that `solve` fills.
    Null,
}

impl<'a> Strings<'a> {
    /// The column's cells, if it holds text.
    pub fn new(array: &'a dyn Array) -> Option<Strings<'a>> {
        Some(match array.data_type() {
            DataType::Utf8 => Strings::Utf8(array.as_string()),
            DataType::LargeUtf8 => Strings::LargeUtf8(array.as_string()),
            DataType::Utf8View => Strings::Utf8View(array.as_string_view()),
            DataType::Binary => Strings::Binary(array.as_binary()),
            DataType::LargeBinary => Strings::LargeBinary(array.as_binary()),
            DataType::BinaryView => Strings::BinaryView(array.as_binary_view()),
            DataType::Dictionary(_, _) => {
                let dictionary = array.as_any_dictionary_opt()?;
                Strings::Dictionary {
                    // An empty dictionary (every row null) has no keys to normalize: arrow
                    // asserts on it.
                    keys: match dictionary.values().is_empty() {
                        true => vec![0; array.len()],
                        false => dictionary.normalized_keys(),
                    },
                    nulls: array,
                    values: Box::new(Strings::new(dictionary.values().as_ref())?),
                }
            }
            DataType::Null => Strings::Null,
            _ => return None,
        })
    }

    /// Whether a column of this type holds text.
    pub fn holds_text(data_type: &DataType) -> bool {
        match data_type {
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView => true,
            DataType::Dictionary(_, values) => Strings::holds_text(values),
            _ => false,
        }
    }

    /// Row `i`'s bytes, `None` where it is null.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        fn cell<'b, A: Array>(
            array: &A,
            i: usize,
            value: impl FnOnce() -> &'b [u8],
        ) -> Option<&'b [u8]> {
            (!array.is_null(i)).then(value)
        }
        match self {
            Strings::Utf8(a) => cell(*a, i, || a.value(i).as_bytes()),
            Strings::LargeUtf8(a) => cell(*a, i, || a.value(i).as_bytes()),
            Strings::Utf8View(a) => cell(*a, i, || a.value(i).as_bytes()),
            Strings::Binary(a) => cell(*a, i, || a.value(i)),
            Strings::LargeBinary(a) => cell(*a, i, || a.value(i)),
            Strings::BinaryView(a) => cell(*a, i, || a.value(i)),
            Strings::Dictionary {
                keys,
                nulls,
                values,
            } => {
                if nulls.is_null(i) {
                    return None;
                }
                values.get(keys[i])
            }
            Strings::Null => None,
        }
    }

    /// Row `i` as a record; `solution` is the solution column (`check`).
    pub fn record(&self, i: usize, solution: Option<&Strings<'a>>) -> Record<'a> {
        let record = match self.get(i) {
            Some(text) => Record::parse(text),
            None => Record::new(Err(Invalid::Null)),
        };
        match solution {
            Some(solutions) => {
                record.with_solution_value(solutions.get(i).ok_or(Invalid::NullSolution))
            }
            None => record,
        }
    }
}

/// Where a table's records are, and what its output looks like.
#[derive(Debug)]
pub(crate) struct Layout {
    pub task: Task,
    /// The puzzle column's index.
    pub puzzle: usize,
    /// The solution column's index (`check` reads it, `solve` fills it).
    pub solution: Option<usize>,
    /// `solve` writes its answers into the solution column instead of adding one.
    pub fills: bool,
    /// The output's columns: the input's, then the task's result columns and the status.
    pub schema: SchemaRef,
    /// How many columns the output adds to the input's.
    added: usize,
    /// The puzzle column was recognised by its values, no name saying which it is.
    pub by_values: bool,
}

impl Layout {
    /// Finds the puzzle column of a table with `schema`: the one named `column`, else the
    /// first text column with one of the usual names ([`PUZZLE_NAMES`]), else the column
    /// holding puzzles in `first` (the first batch) as CSV finds it
    /// ([`puzzle_column_by_values`]).
    /// The solution column likewise (`solution_column`, else [`SOLUTION_NAMES`]).
    pub fn find(
        schema: &SchemaRef,
        first: Option<&RecordBatch>,
        column: Option<&str>,
        solution_column: Option<&str>,
        keep_solution: bool,
        task: Task,
    ) -> Result<Layout, FormatError> {
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let text = |i: usize| Strings::holds_text(schema.field(i).data_type());
        // `solve` fills a solution column of the `null` type too: it holds no values yet.
        let solution_type = |i: usize| {
            text(i)
                || (task.fills_solution_column() && schema.field(i).data_type() == &DataType::Null)
        };
        let usual = |wanted: &[&str], except: Option<usize>, fits: &dyn Fn(usize) -> bool| {
            wanted.iter().find_map(|w| {
                (0..names.len())
                    .find(|&i| Some(i) != except && fits(i) && names[i].eq_ignore_ascii_case(w))
            })
        };
        let named = |name: &str, fits: &dyn Fn(usize) -> bool| -> Result<usize, FormatError> {
            let i = names
                .iter()
                .position(|n| n == name)
                .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(name)))
                .ok_or_else(|| FormatError::NoSuchColumn {
                    name: name.to_string(),
                    names: names.clone(),
                })?;
            match fits(i) {
                true => Ok(i),
                false => Err(FormatError::NotText {
                    name: names[i].clone(),
                    data_type: schema.field(i).data_type().to_string(),
                }),
            }
        };
        let mut by_values = false;
        let puzzle = match column {
            Some(name) => named(name, &text)?,
            None => {
                let by_data = || {
                    by_values = true;
                    first.and_then(puzzle_column_by_values)
                };
                match usual(&PUZZLE_NAMES, None, &text).or_else(by_data) {
                    Some(i) => i,
                    // A column named like the puzzle column but of another type: say so.
                    None => match PUZZLE_NAMES
                        .iter()
                        .find_map(|w| names.iter().find(|n| n.eq_ignore_ascii_case(w)))
                    {
                        Some(name) => named(name, &text)?,
                        None => {
                            return Err(FormatError::NoPuzzleColumn {
                                names: names.clone(),
                            })
                        }
                    },
                }
            }
        };
        let solution = match solution_column {
            Some(name) => {
                let i = named(name, &solution_type)?;
                if i == puzzle {
                    return Err(FormatError::SameColumn {
                        name: name.to_string(),
                    });
                }
                Some(i)
            }
            None => usual(&SOLUTION_NAMES, Some(puzzle), &solution_type),
        };
        if task.needs_solution() && solution.is_none() {
            // A column named like the solution column but of another type: say so.
            let not_text = SOLUTION_NAMES.iter().find_map(|w| {
                (0..names.len()).find(|&i| i != puzzle && names[i].eq_ignore_ascii_case(w))
            });
            return Err(match not_text {
                Some(i) => FormatError::NotText {
                    name: names[i].clone(),
                    data_type: schema.field(i).data_type().to_string(),
                },
                None => FormatError::NoSolutionColumn { names },
            });
        }
        let fills = task.fills_solution_column()
            && !keep_solution
            && solution.is_some_and(|i| fillable(schema.field(i).data_type()));
        let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
        if let Some(i) = solution.filter(|_| fills) {
            let field = fields[i].as_ref();
            if field.data_type() != filled_type(field.data_type()) {
                // Decoded (the field's metadata described the encoding: polars' categorical),
                // or text where there were only nulls.
                let text = Field::new(field.name(), filled_type(field.data_type()).clone(), true);
                fields[i] = Arc::new(text);
            }
        }
        if !task.filters() {
            let mut added = |name: &str, data_type: DataType| {
                let name = (1..)
                    .map(|k| match k {
                        1 => name.to_string(),
                        k => format!("{name}_{k}"),
                    })
                    .find(|n| !fields.iter().any(|f| f.name().eq_ignore_ascii_case(n)))
                    .expect("some suffix is free");
                fields.push(Arc::new(Field::new(name, data_type, true)));
            };
            if !fills {
                for column in task.columns() {
                    added(column.name, arrow_type(column.kind));
                }
            }
            added(STATUS.name, arrow_type(STATUS.kind));
        }
        let added = fields.len() - schema.fields().len();
        let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        Ok(Layout {
            task,
            puzzle,
            solution,
            fills,
            schema,
            added,
            by_values,
        })
    }

    /// Values of the solution column of `batch` that filling it with the answers replaces:
    /// non-empty, and not the answer.
    pub fn replaced(&self, batch: &RecordBatch, outcomes: &[Outcome]) -> u64 {
        let Some(cells) = self
            .solution
            .filter(|_| self.fills)
            .and_then(|i| Strings::new(batch.column(i).as_ref()))
        else {
            return 0;
        };
        let mut value = Vec::with_capacity(81);
        let mut replaced = 0;
        for (row, outcome) in outcomes.iter().enumerate() {
            value.clear();
            if let (Some(old), true) = (cells.get(row), outcome.write_value(&mut value)) {
                let old = crate::formats::text::trim(old);
                replaced += u64::from(!old.is_empty() && old != value.as_slice());
            }
        }
        replaced
    }

    /// The solution column that `solve` fills in place, if it does.
    pub fn filled(&self) -> Option<String> {
        let i = self.solution.filter(|_| self.fills)?;
        Some(self.schema.field(i).name().clone())
    }

    /// Names of the output columns that hold grids: the puzzle and solution columns, and the
    /// task's grid result columns.
    pub fn grid_columns(&self) -> impl Iterator<Item = &str> {
        let fields = self.schema.fields();
        let added = fields.len() - self.added;
        let grids = self
            .task
            .columns()
            .iter()
            .map(|c| c.kind == ColumnType::Grid);
        [Some(self.puzzle), self.solution]
            .into_iter()
            .flatten()
            .chain(
                grids
                    .enumerate()
                    .filter(|&(_, grid)| grid && !self.fills)
                    .map(move |(i, _)| added + i),
            )
            .map(move |i| fields[i].name().as_str())
    }

    /// The records of `batch`, answered for the task on the current pool, in order.
    /// `None` once `stop` is raised (the run stopped): the rows not yet answered are left.
    pub fn answer(&self, batch: &RecordBatch, stop: &AtomicBool) -> Option<Vec<Outcome>> {
        use rayon::prelude::*;
        let puzzles = Strings::new(batch.column(self.puzzle).as_ref()).expect("a text column");
        let solutions = self
            .solution
            .filter(|_| self.task.needs_solution())
            .map(|i| Strings::new(batch.column(i).as_ref()).expect("a text column"));
        let task = self.task;
        let (min, max) = task.job_len(64);
        let outcomes = (0..batch.num_rows())
            .into_par_iter()
            .with_min_len(min)
            .with_max_len(max)
            .map(|i| match stop.load(Ordering::Relaxed) {
                // A placeholder: the batch is dropped unwritten (collecting `Option`s would
                // lose rayon's exact-length collect).
                true => Outcome::Unsolvable,
                false => puzzles.record(i, solutions.as_ref()).answer(task),
            })
            .collect::<Vec<_>>();
        (!stop.load(Ordering::Relaxed)).then_some(outcomes)
    }

    /// `batch` with the task's answers: the solution column filled in place, or the result
    /// columns appended (`typed`: of their Arrow types, else as the text a CSV input's output
    /// holds, such as `2+` for a count at the limit and `30.00` for a rating); then the statuses.
    pub fn render(&self, batch: &RecordBatch, outcomes: &[Outcome], typed: bool) -> RecordBatch {
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        if self.fills {
            let i = self.solution.expect("fills a solution column");
            columns[i] = filled(columns[i].as_ref(), outcomes);
        } else {
            for (index, column) in self.task.columns().iter().enumerate() {
                columns.push(match typed {
                    true => result_column(column.kind, index, outcomes),
                    false => text_column(index, outcomes),
                });
            }
        }
        let mut status = StringBuilder::with_capacity(outcomes.len(), outcomes.len() * 6);
        let mut text = Vec::new();
        for outcome in outcomes {
            text.clear();
            outcome.write_status(&mut text);
            status.append_value(std::str::from_utf8(&text).expect("statuses are UTF-8"));
        }
        columns.push(Arc::new(status.finish()));
        let schema = match typed {
            true => Arc::clone(&self.schema),
            // The added columns (results and status) as text.
            false => {
                let fields = self.schema.fields();
                let from = fields.len() - self.added;
                let text = fields.iter().enumerate().map(|(i, f)| match i >= from {
                    true => Arc::new(f.as_ref().clone().with_data_type(DataType::Utf8)),
                    false => Arc::clone(f),
                });
                Arc::new(Schema::new_with_metadata(
                    text.collect::<Vec<_>>(),
                    self.schema.metadata().clone(),
                ))
            }
        };
        RecordBatch::try_new(schema, columns).expect("columns match the schema")
    }
}

/// The puzzle column of a table that names none, found by its values as a CSV file's is (the
/// same rule): among the first 64 rows of `batch`, the first text column whose value is an
/// 81-cell puzzle with a blank (a full grid there is more likely a solution column), else any
/// 81-cell value. A null is no value. Front ends that read tables themselves (Spark) use it to
/// pick the column the CLI would.
pub fn puzzle_column_by_values(batch: &RecordBatch) -> Option<usize> {
    let columns: Vec<(usize, Strings)> = (0..batch.num_columns())
        .filter_map(|i| Some((i, Strings::new(batch.column(i).as_ref())?)))
        .collect();
    let mut full = None;
    for row in 0..batch.num_rows().min(64) {
        for (i, cells) in &columns {
            let Some(grid) = cells
                .get(row)
                .and_then(|v| Grid::parse(crate::formats::text::trim(v)).ok())
            else {
                continue;
            };
            if grid.givens() < CELLS {
                return Some(*i);
            }
            full = full.or(Some(*i));
        }
    }
    full
}

/// The Arrow type of a result column.
fn arrow_type(kind: ColumnType) -> DataType {
    match kind {
        ColumnType::Grid | ColumnType::Text => DataType::Utf8,
        ColumnType::Count => DataType::Int64,
        ColumnType::Float => DataType::Float64,
        ColumnType::Bool => DataType::Boolean,
    }
}

/// Whether `solve` can write solutions into a column of this type: text or bytes, plain or
/// dictionary-encoded, or nulls alone (see [`filled_type`]).
fn fillable(data_type: &DataType) -> bool {
    matches!(
        filled_type(data_type),
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// The type of a solution column once `solve` has filled it: its own, or a dictionary's value
/// type (a column of solutions has as many values as rows, so a dictionary of them saves
/// nothing; a polars `Categorical` or pandas `category` column comes out as plain text), or
/// text for a column of the `null` type.
fn filled_type(data_type: &DataType) -> &DataType {
    const TEXT: &DataType = &DataType::Utf8;
    match data_type {
        DataType::Dictionary(_, values) => values,
        DataType::Null => TEXT,
        other => other,
    }
}

/// Result column `index` of the task (of type `kind`) for these outcomes; null where an
/// outcome has no value.
fn result_column(kind: ColumnType, index: usize, outcomes: &[Outcome]) -> ArrayRef {
    let n = outcomes.len();
    let values = outcomes.iter().map(|o| o.value(index));
    match kind {
        ColumnType::Grid | ColumnType::Text => {
            let mut b = StringBuilder::with_capacity(n, n * CELLS);
            let mut text = [0u8; CELLS];
            for value in values {
                match value {
                    Some(Value::Grid(grid)) => {
                        grid.write_digits(&mut text);
                        b.append_value(std::str::from_utf8(&text).expect("digits are ASCII"));
                    }
                    Some(Value::Text(name)) => b.append_value(name),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        ColumnType::Count => {
            let mut b = Int64Builder::with_capacity(n);
            for value in values {
                match value {
                    Some(Value::Count(found)) => b.append_value(i64::from(found)),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        ColumnType::Float => {
            let mut b = Float64Builder::with_capacity(n);
            for value in values {
                match value {
                    Some(Value::Float(x)) => b.append_value(x),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        ColumnType::Bool => {
            let mut b = BooleanBuilder::with_capacity(n);
            for value in values {
                match value {
                    Some(Value::Bool(x)) => b.append_value(x),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
    }
}

/// Result column `index` of the task as text, as a text input's output writes it; null where an
/// outcome has no value.
fn text_column(index: usize, outcomes: &[Outcome]) -> ArrayRef {
    let mut b = StringBuilder::with_capacity(outcomes.len(), outcomes.len() * 8);
    let mut text = Vec::new();
    for outcome in outcomes {
        text.clear();
        match outcome.write_column(index, &mut text) {
            true => b.append_value(std::str::from_utf8(&text).expect("values are UTF-8")),
            false => b.append_null(),
        }
    }
    Arc::new(b.finish())
}

/// The solution column with each solved row's solution, other rows as they were; same type.
fn filled(column: &dyn Array, outcomes: &[Outcome]) -> ArrayRef {
    let cells = Strings::new(column).expect("a fillable column holds text");
    let n = outcomes.len();
    let mut solution = [0u8; CELLS];
    macro_rules! build {
        ($builder:expr, $convert:expr) => {{
            let mut b = $builder;
            for (i, outcome) in outcomes.iter().enumerate() {
                match outcome.value(0) {
                    Some(Value::Grid(grid)) => {
                        grid.write_digits(&mut solution);
                        b.append_value($convert(&solution[..]));
                    }
                    _ => match cells.get(i) {
                        Some(v) => b.append_value($convert(v)),
                        None => b.append_null(),
                    },
                }
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    // Both kinds of value are UTF-8 already: the column's own (a text column) and digits.
    fn text(v: &[u8]) -> &str {
        std::str::from_utf8(v).expect("text of a text column")
    }
    match filled_type(column.data_type()) {
        DataType::Utf8 => build!(StringBuilder::with_capacity(n, n * CELLS), text),
        DataType::LargeUtf8 => build!(LargeStringBuilder::with_capacity(n, n * CELLS), text),
        DataType::Utf8View => build!(StringViewBuilder::with_capacity(n), text),
        DataType::Binary => build!(BinaryBuilder::with_capacity(n, n * CELLS), |v| v),
        DataType::LargeBinary => build!(LargeBinaryBuilder::with_capacity(n, n * CELLS), |v| v),
        DataType::BinaryView => build!(BinaryViewBuilder::with_capacity(n), |v| v),
        other => unreachable!("{other} is not fillable"),
    }
}
