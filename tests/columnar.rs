#![cfg(feature = "parquet")]
//! Parquet and Arrow IPC files through the real binary: every input column kept with its type
//! and row order, result columns typed, statuses as a column, one output row group per input
//! row group, shards by row group, other output formats, and binary inputs that are not
//! columnar refused. The files are written here with the arrow-rs writers; the solutions are
//! checked by the tests' own checker.

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, Int32Array, LargeStringArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use assert_cmd::Command;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

/// The shipped unique-solution puzzles, with two bad rows: a null (row 6) and a short text
/// (row 8).
fn puzzles() -> Vec<Option<String>> {
    let text = std::fs::read_to_string(common::shipped("generated_unique25_2000.txt")).unwrap();
    let mut puzzles: Vec<Option<String>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(1000)
        .map(|l| Some(l[..81].to_string()))
        .collect();
    puzzles[5] = None;
    puzzles[7] = Some("123".into());
    puzzles
}

/// A table shaped like the HuggingFace sudoku-extreme files: `source`, `question` (large
/// strings), an empty `answer` column, and an int `rating`, in row groups of `group` rows.
fn write_parquet(path: &Path, puzzles: &[Option<String>], group: usize) {
    let n = puzzles.len();
    let schema = Arc::new(Schema::new(vec![
        Field::new("source", DataType::Utf8, false),
        Field::new("question", DataType::LargeUtf8, true),
        Field::new("answer", DataType::Utf8, true),
        Field::new("rating", DataType::Int32, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec!["gen"; n])),
        Arc::new(LargeStringArray::from(
            puzzles.iter().map(|p| p.as_deref()).collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(vec![None::<&str>; n])),
        Arc::new(Int32Array::from_iter_values(0..n as i32)),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    write_batch(path, &batch, Some(group));
}

/// Writes `batch` as a Parquet file, in row groups of at most `group` rows (else the writer's
/// default).
fn write_batch(path: &Path, batch: &RecordBatch, group: Option<usize>) {
    let mut properties = WriterProperties::builder();
    if let Some(rows) = group {
        properties = properties.set_max_row_group_row_count(Some(rows));
    }
    let mut writer = ArrowWriter::try_new(
        File::create(path).unwrap(),
        batch.schema(),
        Some(properties.build()),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

/// Every row of a Parquet file, and its row groups' sizes.
fn read_parquet(path: &Path) -> (RecordBatch, Vec<i64>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let groups = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    let schema = Arc::clone(builder.schema());
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    (
        arrow_select::concat::concat_batches(&schema, &batches).unwrap(),
        groups,
    )
}

fn strings(batch: &RecordBatch, name: &str) -> Vec<Option<String>> {
    let column = batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"));
    let column = arrow_cast_to_strings(column.as_ref());
    column
}

fn arrow_cast_to_strings(column: &dyn Array) -> Vec<Option<String>> {
    match column.data_type() {
        DataType::Utf8 => column
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(String::from))
            .collect(),
        DataType::LargeUtf8 => column
            .as_string::<i64>()
            .iter()
            .map(|s| s.map(String::from))
            .collect(),
        other => panic!("not a string column: {other}"),
    }
}

/// The first `n` of [`puzzles`] that are whole puzzles (neither of its bad rows).
fn whole_puzzles(n: usize) -> Vec<String> {
    puzzles()
        .into_iter()
        .flatten()
        .filter(|p| p.len() == 81)
        .take(n)
        .collect()
}

/// The puzzles as a line-format file, and the answers as line-format output, for the checker.
fn check_solutions(
    puzzles: &[Option<String>],
    answers: &[Option<String>],
    statuses: &[Option<String>],
) {
    let input: String = puzzles
        .iter()
        .map(|p| format!("{}\n", p.as_deref().unwrap_or("null")))
        .collect();
    let output: String = answers
        .iter()
        .zip(statuses)
        .map(|(a, s)| format!("{}\n", a.as_deref().or(s.as_deref()).unwrap()))
        .collect();
    let checked = common::check_output(input.as_bytes(), &output, 0);
    assert_eq!(checked.solved, puzzles.len() - 2, "{checked:?}");
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().unwrap())
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

#[test]
fn solve_fills_the_answer_column_keeping_every_column_type_row_and_row_group() {
    let dir = Dir::new();
    let (input, output) = (dir.path("x.parquet"), dir.path("y.parquet"));
    let puzzles = puzzles();
    write_parquet(&input, &puzzles, 300);
    let out = bin()
        .arg("solve")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let name = input.display();
    assert!(
        stderr.contains(&format!("{name}:6: invalid: the puzzle is null")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{name}:8: invalid: expected 81 cells, found 3")),
        "{stderr}"
    );
    assert!(
        stderr.contains("records 1000, solved 998, unsolvable 0, invalid 2"),
        "{stderr}"
    );

    let (table, groups) = read_parquet(&output);
    assert_eq!(groups, vec![300, 300, 300, 100]);
    let fields: Vec<(String, DataType)> = table
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("source".into(), DataType::Utf8),
            ("question".into(), DataType::LargeUtf8),
            ("answer".into(), DataType::Utf8),
            ("rating".into(), DataType::Int32),
            ("status".into(), DataType::Utf8),
        ]
    );
    assert_eq!(strings(&table, "question"), puzzles);
    let ratings: Vec<i32> = table
        .column(3)
        .as_primitive::<Int32Type>()
        .values()
        .to_vec();
    assert_eq!(ratings, (0..1000).collect::<Vec<i32>>(), "row order kept");
    let statuses = strings(&table, "status");
    assert_eq!(statuses[5].as_deref(), Some("invalid: the puzzle is null"));
    assert_eq!(statuses[0].as_deref(), Some("solved"));
    let answers = strings(&table, "answer");
    assert_eq!(
        answers[5], None,
        "a bad row's answer stays as it was (null)"
    );
    check_solutions(&puzzles, &answers, &statuses);
}

#[test]
fn count_and_rate_add_typed_columns_and_a_name_that_is_taken_gets_a_suffix() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    let puzzles = puzzles();
    write_parquet(&input, &puzzles, 1000);
    let counted = dir.path("count.parquet");
    bin()
        .args(["count", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&counted)
        .assert()
        .code(1);
    let (table, _) = read_parquet(&counted);
    let count = table.column_by_name("count").unwrap();
    assert_eq!(count.data_type(), &DataType::Int64);
    let count = count.as_primitive::<Int64Type>();
    assert_eq!(count.value(0), 1);
    assert!(count.is_null(5) && count.is_null(7));
    assert_eq!(
        (0..1000)
            .filter(|&i| count.is_valid(i) && count.value(i) == 1)
            .count(),
        998
    );

    let rated = dir.path("rate.parquet");
    bin()
        .args(["rate", "-q", "--column", "question"])
        .arg(&input)
        .arg("-o")
        .arg(&rated)
        .assert()
        .code(1);
    let (table, _) = read_parquet(&rated);
    let names: Vec<&str> = table
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        ["source", "question", "answer", "rating", "rating_2", "singles", "status"]
    );
    assert_eq!(table.column(4).data_type(), &DataType::Float64);
    assert_eq!(table.column(5).data_type(), &DataType::Boolean);
    let figures = table.column(4).as_primitive::<Float64Type>();
    assert!(figures.is_valid(0) && figures.value(0) >= 0.0 && figures.is_null(5));
}

#[test]
fn shards_split_by_row_group_and_together_are_the_whole_output() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    write_parquet(&input, &puzzles(), 150);
    let whole = dir.path("whole.parquet");
    bin()
        .args(["canon", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&whole)
        .assert()
        .code(1);
    let (whole, _) = read_parquet(&whole);
    let mut parts = Vec::new();
    for k in 1..=3 {
        let part = dir.path(&format!("part{k}.parquet"));
        bin()
            .args(["canon", "-q", "--shard", &format!("{k}/3")])
            .arg(&input)
            .arg("-o")
            .arg(&part)
            .assert()
            .code(if k == 1 { 1 } else { 0 });
        parts.push(read_parquet(&part).0);
    }
    assert!(parts.iter().all(|p| p.num_rows() > 0));
    let joined = arrow_select::concat::concat_batches(&whole.schema(), &parts).unwrap();
    assert_eq!(joined, whole);
}

#[test]
fn csv_output_of_a_table_has_its_header_even_without_rows() {
    // Sharded: more shards than row groups, so the first shard gets none; the header is still
    // its to write, and the shards put together are the whole output.
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    write_parquet(&input, &puzzles()[..200], 30);
    let whole = bin()
        .args(["canon", "-q", "--output-format", "csv"])
        .arg(&input)
        .output()
        .unwrap();
    let mut joined = Vec::new();
    for k in 1..=9 {
        let part = bin()
            .args([
                "canon",
                "-q",
                "--output-format",
                "csv",
                "--shard",
                &format!("{k}/9"),
            ])
            .arg(&input)
            .output()
            .unwrap();
        if k == 1 {
            assert_eq!(
                part.stdout,
                b"source,question,answer,rating,canonical,status\n"
            );
        }
        joined.extend_from_slice(&part.stdout);
    }
    assert_eq!(joined, whole.stdout);
    // The same with a puzzle column that only its values show: the first shard, with no row
    // group of its own, still finds it in the file's first rows.
    let unnamed = dir.path("unnamed.parquet");
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("grid", DataType::Utf8, true),
    ]));
    let texts: Vec<Option<String>> = puzzles()[..200].to_vec();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from_iter_values(0..200)),
        Arc::new(StringArray::from(
            texts.iter().map(|p| p.as_deref()).collect::<Vec<_>>(),
        )),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    write_batch(&unnamed, &batch, Some(30));
    let first = bin()
        .args(["canon", "-q", "--output-format", "csv", "--shard", "1/9"])
        .arg(&unnamed)
        .output()
        .unwrap();
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(first.stdout, b"id,grid,canonical,status\n");
    // A table of no rows: the header alone.
    let empty = dir.path("empty.parquet");
    write_parquet(&empty, &[], 30);
    bin()
        .args(["solve", "-q", "--output-format", "csv"])
        .arg(&empty)
        .assert()
        .code(0)
        .stdout("source,question,answer,rating,status\n");
}

#[cfg(unix)]
#[test]
fn a_table_through_a_named_pipe_is_read_like_stdin() {
    use std::os::unix::fs::OpenOptionsExt;
    // `sudoku-batch solve <(cat x.parquet)`: a FIFO cannot be mapped or read twice.
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    write_parquet(&input, &puzzles(), 1000);
    let fifo = dir.path("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = {
        let (input, fifo) = (input.clone(), fifo.clone());
        std::thread::spawn(move || std::fs::write(&fifo, std::fs::read(&input).unwrap()))
    };
    let piped = bin().args(["solve", "-q"]).arg(&fifo).output().unwrap();
    // Had the run ended without opening the pipe, the writer would wait in `open` for ever: a
    // reader opened here (without waiting) lets it go, and its failed write shows below.
    let _ = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo);
    writer.join().unwrap().expect("the run read the whole pipe");
    let direct = bin().args(["solve", "-q"]).arg(&input).output().unwrap();
    assert_eq!(
        piped.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    assert_eq!(piped.stdout, direct.stdout);
}

#[test]
fn lines_and_csv_outputs_match_the_text_formats() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    let puzzles = puzzles();
    write_parquet(&input, &puzzles, 400);
    let text: String = puzzles
        .iter()
        .map(|p| format!("{}\n", p.as_deref().unwrap_or("")))
        .collect();
    // The null row has no line in a text file; compare the others.
    let lines = bin().args(["solve", "-q"]).arg(&input).output().unwrap();
    let from_text = bin()
        .args(["solve", "-q", "--format", "line", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let mut expected: Vec<&str> = std::str::from_utf8(&from_text.stdout)
        .unwrap()
        .lines()
        .collect();
    expected.insert(5, "invalid: the puzzle is null");
    let got: Vec<&str> = std::str::from_utf8(&lines.stdout)
        .unwrap()
        .lines()
        .collect();
    assert_eq!(got, expected);

    let csv = dir.path("y.csv");
    bin()
        .args(["solve", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&csv)
        .assert()
        .code(1);
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut rows = csv.lines();
    assert_eq!(rows.next(), Some("source,question,answer,rating,status"));
    let first = rows.next().unwrap();
    assert!(
        first.starts_with(&format!(
            "gen,{},{},0,solved",
            puzzles[0].as_deref().unwrap(),
            got[0]
        )),
        "{first}"
    );
    assert_eq!(rows.count(), 999);
}

/// A table's CSV output holds the same result columns as the same rows' CSV input gives: a
/// count at the limit is `N+` (an int64 column cannot say it: there the limit itself means "that
/// many or more"), a rating has two decimals.
#[test]
fn a_tables_csv_output_writes_results_as_a_csv_inputs_output_does() {
    let dir = Dir::new();
    let mut cells: Vec<Option<String>> = whole_puzzles(6).into_iter().map(Some).collect();
    cells[1] = Some(".".repeat(81)); // many solutions: at the limit
    cells[2] = None;
    cells[3] = Some("not a puzzle".into());
    let texts: Vec<Option<&str>> = cells.iter().map(|c| c.as_deref()).collect();
    let input = dir.path("x.parquet");
    write_batch(&input, &puzzle_table(&texts), None);
    let csv_input: String = std::iter::once("puzzle\n".to_string())
        .chain(
            cells
                .iter()
                .map(|c| format!("{}\n", c.as_deref().unwrap_or(""))),
        )
        .collect();
    let tasks: [&[&str]; 4] = [
        &["count", "--limit", "5"],
        &["count"],
        &["rate", "--samples", "4"],
        &["grade"],
    ];
    for task in tasks {
        let from_table = bin()
            .args(task)
            .args(["-q", "--output-format", "csv", "-o", "-"])
            .arg(&input)
            .output()
            .unwrap();
        let from_csv = bin()
            .args(task)
            .args(["-q", "--format", "csv", "-o", "-", "-"])
            .write_stdin(csv_input.clone())
            .output()
            .unwrap();
        let table_rows: Vec<&str> = std::str::from_utf8(&from_table.stdout)
            .unwrap()
            .lines()
            .collect();
        let csv_rows: Vec<&str> = std::str::from_utf8(&from_csv.stdout)
            .unwrap()
            .lines()
            .collect();
        assert_eq!(table_rows.len(), 7, "{task:?}: {table_rows:?}");
        // The null row is a blank line in CSV, which is no row: compare the others.
        let mut others = table_rows.clone();
        assert!(others.remove(3).ends_with(",invalid: the puzzle is null"));
        assert_eq!(others, csv_rows, "{task:?}");
        if task == ["count", "--limit", "5"] {
            assert!(table_rows[2].ends_with(",5+,ok"), "{table_rows:?}");
        }
        if task[0] == "rate" {
            let rating = table_rows[1].split(',').nth(1).unwrap();
            assert_eq!(rating.split('.').nth(1).map(str::len), Some(2), "{rating}");
        }
    }
    // Typed: the count column is int64, the limit itself where it was reached.
    let output = dir.path("counted.parquet");
    bin()
        .args(["count", "-q", "--limit", "5"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .assert()
        .code(1);
    let (table, _) = read_parquet(&output);
    let counts = table.column_by_name("count").unwrap();
    assert_eq!(counts.data_type(), &DataType::Int64);
    let counts = counts.as_primitive::<Int64Type>();
    assert_eq!((counts.value(0), counts.value(1)), (1, 5));
}

#[test]
fn arrow_ipc_files_are_read_and_written_and_stdin_takes_parquet() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    let puzzles = puzzles();
    write_parquet(&input, &puzzles, 1000);
    let feather = dir.path("y.feather");
    bin()
        .args(["solve", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&feather)
        .assert()
        .code(1);
    let back = dir.path("z.parquet");
    // The Arrow file (solved already) read back: its answer column is full, so solve keeps it.
    bin()
        .args(["solve", "-q"])
        .arg(&feather)
        .arg("-o")
        .arg(&back)
        .assert()
        .code(1);
    let (table, _) = read_parquet(&back);
    assert_eq!(strings(&table, "question"), puzzles);
    let answers = strings(&table, "answer");
    check_solutions(&puzzles, &answers, &strings(&table, "status"));

    let piped = bin()
        .args(["solve", "-q", "-"])
        .pipe_stdin(&input)
        .unwrap()
        .output()
        .unwrap();
    let direct = bin().args(["solve", "-q"]).arg(&input).output().unwrap();
    assert_eq!(piped.stdout, direct.stdout);
    assert_eq!(
        std::str::from_utf8(&direct.stdout).unwrap().lines().count(),
        1000
    );
}

#[test]
fn a_closed_output_pipe_ends_a_table_run_quietly_in_every_output_format() {
    use std::process::Command as Std;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.parquet");
    let mut many = puzzles();
    many.retain(|p| p.as_ref().is_some_and(|p| p.len() == 81));
    let many: Vec<Option<String>> = many.iter().cycle().take(60_000).cloned().collect();
    write_parquet(&input, &many, 5_000);
    for format in ["csv", "parquet", "arrow", "line"] {
        let (code, stderr) = common::run_into_a_closed_pipe(
            Std::new(env!("CARGO_BIN_EXE_sudoku-batch"))
                .args(["solve", "--output-format", format])
                .arg(&input),
        );
        assert_eq!(code, Some(0), "{format}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{format}: {stderr}");
    }
}

#[test]
fn dedupe_drops_repeated_rows_and_keeps_the_schema() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    let mut puzzles = puzzles();
    puzzles.truncate(100);
    let repeated = puzzles[0].clone();
    puzzles.extend([repeated.clone(), repeated]);
    write_parquet(&input, &puzzles, 40);
    let output = dir.path("d.parquet");
    let out = bin()
        .arg("dedupe")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("records 102, kept 100, duplicates 2"),
        "{stderr}"
    );
    let (table, _) = read_parquet(&output);
    assert_eq!(table.num_columns(), 4);
    assert_eq!(strings(&table, "question"), puzzles[..100].to_vec());
}

#[test]
fn unreadable_inputs_are_refused_with_one_message_and_no_output() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    write_parquet(&input, &puzzles(), 1000);
    let output = dir.path("out.txt");
    let bytes = std::fs::read(&input).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "cut.parquet",
            bytes[..bytes.len() / 2].to_vec(),
            "read error",
        ),
        (
            "nul.txt",
            b"1\x002\x003\x004\x005\x00\n".to_vec(),
            "it is full of NUL bytes",
        ),
        (
            "z.gz",
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00".to_vec(),
            "gzip-compressed",
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.path(name);
        std::fs::write(&path, bytes).unwrap();
        let out = bin()
            .arg("solve")
            .arg(&path)
            .arg("-o")
            .arg(&output)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(says) && stderr.lines().count() == 1,
            "{name}: {stderr}"
        );
        assert!(!output.exists(), "{name}: no output file");
    }
    let out = bin()
        .args(["solve", "--column", "rating"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("column \"rating\" holds Int32, not text"));
    let out = bin().args(["check"]).arg(&input).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the empty answer column is read: every row is wrong"
    );
    let text = dir.path("p.txt");
    std::fs::copy(common::shipped("sample.txt"), &text).unwrap();
    let out = bin()
        .args(["solve", "--output-format", "parquet"])
        .arg(&text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("parquet output needs a Parquet or Arrow input"));
    // `solve` writes a grid input's solutions as grids: `line` asked for is refused, not
    // ignored; `count` writes a line per grid, so it is that task's own format.
    let grids = common::shipped("classic_spaces.txt");
    let out = bin()
        .args(["solve", "--output-format", "line"])
        .arg(&grids)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("a grid input's solutions are written as grids; --output-format line"));
    let counted = bin()
        .args(["count", "--output-format", "line"])
        .arg(&grids)
        .output()
        .unwrap();
    let plain = bin().arg("count").arg(&grids).output().unwrap();
    assert_eq!(counted.status.code(), Some(0));
    assert_eq!(counted.stdout, plain.stdout);
}

#[test]
fn solve_says_how_many_values_it_replaced_and_can_keep_the_column() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    let puzzles: Vec<Option<String>> = puzzles().into_iter().take(10).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("question", DataType::Utf8, true),
        Field::new("answer", DataType::Utf8, true),
    ]));
    // Three old values: two that an answer replaces, one on the null puzzle's row (kept).
    let old: Vec<Option<&str>> = (0..10)
        .map(|i| [1, 5, 6].contains(&i).then_some("old"))
        .collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(
            puzzles.iter().map(|p| p.as_deref()).collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(old)),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    write_batch(&input, &batch, None);

    let filled = dir.path("filled.parquet");
    let out = bin()
        .args(["solve", "--stats", "json"])
        .arg(&input)
        .arg("-o")
        .arg(&filled)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("column \"answer\" filled in place: 2 of its values were replaced"),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    assert_eq!(
        (json["replaced"].as_u64(), json["filled_column"].as_str()),
        (Some(2), Some("answer"))
    );
    let (table, _) = read_parquet(&filled);
    assert_eq!(strings(&table, "answer")[5].as_deref(), Some("old"));

    let kept = dir.path("kept.parquet");
    let out = bin()
        .args(["solve", "--keep-solution-column"])
        .arg(&input)
        .arg("-o")
        .arg(&kept)
        .output()
        .unwrap();
    assert!(!String::from_utf8(out.stderr)
        .unwrap()
        .contains("filled in place"));
    let (table, _) = read_parquet(&kept);
    let names: Vec<String> = table
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["question", "answer", "solution", "status"]);
    let answer = strings(&table, "answer");
    assert_eq!(
        answer
            .iter()
            .filter(|a| a.as_deref() == Some("old"))
            .count(),
        3
    );
    let solutions = strings(&table, "solution");
    assert!(solutions[0].as_ref().is_some_and(|s| s.len() == 81));
    assert_eq!(solutions[5], None, "the null puzzle has no answer");
}

/// A zoned time in seconds in a Parquet file written by pyarrow (milliseconds in Parquet, its
/// Arrow type `timestamp[s, tz=Z]` stored beside it) keeps its zone, at the top level and in
/// lists and structs: read as `timestamp[ms, tz=Z]`, as pyarrow reads it, not as UTC. A zone
/// arrow-rs cannot use (pyarrow takes any text) is left as read, so a CSV output still works.
#[test]
fn a_parquet_zoned_time_in_seconds_keeps_its_zone() {
    use arrow_array::{FixedSizeListArray, ListArray, StructArray, TimestampMillisecondArray};
    use arrow_schema::{Fields, TimeUnit};
    use parquet::arrow::arrow_writer::ArrowWriterOptions;
    use parquet::file::metadata::KeyValue;
    let dir = Dir::new();
    let zoned = |unit, zone: &str| DataType::Timestamp(unit, Some(zone.into()));
    let millis = |zone: &str| {
        TimestampMillisecondArray::from(vec![1_704_164_645_000i64, 0, -86_400_000])
            .with_timezone(zone)
    };
    // The schema pyarrow stores (`unit` seconds) and the one it writes (milliseconds, the zone
    // that arrow-rs cannot use already UTC, as arrow-rs reads it).
    let schema_of = |unit, odd: &str| {
        let inner = Field::new("at", zoned(unit, "Asia/Tokyo"), true);
        let item = Field::new_list_field(zoned(unit, "+05:30"), true);
        Schema::new(vec![
            Field::new("puzzle", DataType::Utf8, true),
            Field::new("made", zoned(unit, "Europe/Paris"), true),
            Field::new_list(
                "times",
                Field::new_list_field(zoned(unit, "UTC"), true),
                true,
            ),
            Field::new_struct("when", Fields::from(vec![inner]), true),
            Field::new_fixed_size_list("pair", item, 1, true),
            Field::new("odd", zoned(unit, odd), true),
        ])
    };
    let stored = schema_of(TimeUnit::Second, "Z");
    let written = Arc::new(schema_of(TimeUnit::Millisecond, "UTC"));
    let field_of = |i: usize| match written.field(i).data_type() {
        DataType::List(f) | DataType::FixedSizeList(f, _) => Arc::clone(f),
        _ => unreachable!(),
    };
    let DataType::Struct(inner) = written.field(3).data_type().clone() else {
        unreachable!()
    };
    let offsets = arrow_buffer::OffsetBuffer::from_lengths([1, 1, 1]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(whole_puzzles(3))),
        Arc::new(millis("Europe/Paris")),
        Arc::new(ListArray::new(
            field_of(2),
            offsets,
            Arc::new(millis("UTC")),
            None,
        )),
        Arc::new(StructArray::new(
            inner,
            vec![Arc::new(millis("Asia/Tokyo"))],
            None,
        )),
        Arc::new(FixedSizeListArray::new(
            field_of(4),
            1,
            Arc::new(millis("+05:30")),
            None,
        )),
        Arc::new(millis("UTC")),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&written), columns).unwrap();
    // As pyarrow writes it: the batch, and the stored schema in `ARROW:schema`.
    let write = |path: &Path, batch: &RecordBatch, stored: &Schema| {
        let schema_text = parquet::arrow::encode_arrow_schema(stored);
        let properties = WriterProperties::builder()
            .set_key_value_metadata(Some(vec![KeyValue::new(
                "ARROW:schema".into(),
                schema_text,
            )]))
            .build();
        let options = ArrowWriterOptions::new()
            .with_properties(properties)
            .with_skip_arrow_metadata(true);
        let file = File::create(path).unwrap();
        let mut writer = ArrowWriter::try_new_with_options(file, batch.schema(), options).unwrap();
        writer.write(batch).unwrap();
        writer.close().unwrap();
    };
    let input = dir.path("pyarrow.parquet");
    write(&input, &batch, &stored);
    // CSV holds no lists or structs: the top-level columns alone.
    let flat = dir.path("flat.parquet");
    let top = [0, 1, 5];
    write(
        &flat,
        &batch.project(&top).unwrap(),
        &stored.project(&top).unwrap(),
    );
    for (from, out) in [
        (&input, "zoned.parquet"),
        (&input, "zoned.arrow"),
        (&flat, "zoned.csv"),
    ] {
        let output = dir.path(out);
        solve_into(from, &output);
        let schema = match out.rsplit('.').next() {
            Some("arrow") => {
                arrow_ipc::reader::FileReader::try_new(File::open(&output).unwrap(), None)
                    .unwrap()
                    .schema()
            }
            Some("parquet") => Arc::clone(read_parquet(&output).0.schema_ref()),
            _ => continue,
        };
        for i in 1..6 {
            assert_eq!(schema.field(i), batch.schema().field(i), "{out}");
        }
    }
    // The same instants, each written in its zone in CSV.
    let (answered, _) = read_parquet(&dir.path("zoned.parquet"));
    for i in 1..6 {
        assert_eq!(answered.column(i), batch.column(i));
    }
    let csv = std::fs::read_to_string(dir.path("zoned.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap();
    assert!(row.contains(",2024-01-02T04:04:05+01:00,"), "{row}");
}

/// A zoned time whose zone arrow cannot use (pyarrow takes any text as a zone: `Z`, `utc`) goes
/// to CSV in UTC, the same instant (a zoned time counts from 1970 in UTC), instead of failing
/// the writer at the first row; a zone it can use is written as before, and so is a table with
/// no rows and a filtering task's kept rows.
#[test]
fn a_csv_output_writes_a_time_whose_zone_arrow_cannot_use_in_utc() {
    use arrow_array::{TimestampMicrosecondArray, TimestampSecondArray};
    let dir = Dir::new();
    let at = 1_704_164_645i64; // 2024-01-02T03:04:05Z
    let zoned = |zone: &str| -> ArrayRef {
        Arc::new(TimestampSecondArray::from(vec![Some(at), None]).with_timezone(zone))
    };
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("puzzle", Arc::new(StringArray::from(whole_puzzles(2)))),
        ("z", zoned("Z")),
        ("lower", zoned("utc")),
        ("nowhere", zoned("Mars/Olympus_Mons")),
        ("paris", zoned("Europe/Paris")),
        (
            "micros",
            Arc::new(
                TimestampMicrosecondArray::from(vec![at * 1_000_000 + 7; 2]).with_timezone("Z"),
            ),
        ),
        (
            "coded",
            arrow_cast::cast(
                &zoned("Z"),
                &DataType::Dictionary(
                    Box::new(DataType::Int32),
                    Box::new(zoned("Z").data_type().clone()),
                ),
            )
            .unwrap(),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    assert!(matches!(
        batch.schema().field(6).data_type(),
        DataType::Dictionary(..)
    ));
    let input = dir.path("zones.arrow");
    write_arrow(&input, &batch, None);
    let output = dir.path("zones.csv");
    for task in ["solve", "dedupe"] {
        bin()
            .args([task, "-q"])
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .assert()
            .code(0);
        let csv = std::fs::read_to_string(&output).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert!(
            rows[0].starts_with("puzzle,z,lower,nowhere,paris,micros,coded"),
            "{task}: {csv}"
        );
        let cells: Vec<&str> = rows[1].split(',').collect();
        assert_eq!(
            cells[1..7],
            [
                "2024-01-02T03:04:05Z",
                "2024-01-02T03:04:05Z",
                "2024-01-02T03:04:05Z",
                "2024-01-02T04:04:05+01:00",
                "2024-01-02T03:04:05.000007Z",
                "2024-01-02T03:04:05Z",
            ],
            "{task}"
        );
        let cells: Vec<&str> = rows[2].split(',').collect();
        assert_eq!(cells[1..5], ["", "", "", ""], "{task}");
    }
    // No rows: the header alone.
    let empty = dir.path("empty.arrow");
    write_arrow(&empty, &batch.slice(0, 0), None);
    solve_into(&empty, &output);
    let csv = std::fs::read_to_string(&output).unwrap();
    assert_eq!(
        csv,
        "puzzle,z,lower,nowhere,paris,micros,coded,solution,status\n"
    );
}

/// A dictionary of views (polars writes its `Categorical` columns so in Arrow files) goes to
/// Parquet as a dictionary of plain strings or bytes, the same values; a column Parquet cannot
/// hold (a union, an interval of months, days and nanoseconds) is refused before any work,
/// naming it, with no file left, where arrow's writer used to panic or fail at the first batch.
#[test]
fn a_parquet_output_takes_dictionaries_of_views_and_refuses_what_it_cannot_hold() {
    use arrow_array::types::{IntervalMonthDayNanoType, UInt32Type};
    use arrow_array::{
        BinaryViewArray, DictionaryArray, IntervalMonthDayNanoArray, StringViewArray, UInt32Array,
        UnionArray,
    };
    let dir = Dir::new();
    let keys = UInt32Array::from(vec![0u32, 1, 0, 1]);
    let words = Arc::new(StringViewArray::from(vec!["easy", "hard"]));
    let bytes = Arc::new(BinaryViewArray::from(vec![&b"x"[..], b"y"]));
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("puzzle", Arc::new(StringArray::from(whole_puzzles(4)))),
        (
            "level",
            Arc::new(DictionaryArray::<UInt32Type>::try_new(keys.clone(), words).unwrap()),
        ),
        (
            "tag",
            Arc::new(DictionaryArray::<UInt32Type>::try_new(keys.clone(), bytes).unwrap()),
        ),
    ];
    let mut batch = RecordBatch::try_from_iter(columns).unwrap();
    // polars' `List(Categorical)`: the same dictionary in a list (one item a row).
    let items = Arc::clone(batch.column(1));
    let item = Arc::new(Field::new_list_field(items.data_type().clone(), true));
    let offsets = arrow_buffer::OffsetBuffer::from_lengths([1; 4]);
    let listed = arrow_array::ListArray::new(item, offsets, items, None);
    batch = batch_with(&batch, "levels", Arc::new(listed));
    let input = dir.path("categorical.arrow");
    write_arrow(&input, &batch, None);
    let output = dir.path("categorical.parquet");
    solve_into(&input, &output);
    let (answered, _) = read_parquet(&output);
    let level = arrow_cast::cast(answered.column(1), &DataType::Utf8).unwrap();
    let level: Vec<&str> = level
        .as_string::<i32>()
        .iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(level, ["easy", "hard", "easy", "hard"]);
    let tag = arrow_cast::cast(answered.column(2), &DataType::Binary).unwrap();
    let tag: Vec<&[u8]> = tag.as_binary::<i32>().iter().map(Option::unwrap).collect();
    assert_eq!(tag, [b"x", b"y", b"x", b"y"]);
    let levels = answered.column_by_name("levels").unwrap().as_list::<i32>();
    let levels = arrow_cast::cast(levels.values(), &DataType::Utf8).unwrap();
    assert_eq!(
        levels
            .as_string::<i32>()
            .iter()
            .flatten()
            .collect::<Vec<_>>(),
        ["easy", "hard", "easy", "hard"]
    );
    let status = answered.column_by_name("status").unwrap();
    assert_eq!(strings_of(status), ["solved"; 4]);

    let union = UnionArray::try_new(
        [(0i8, Arc::new(Field::new("n", DataType::Int32, false)))]
            .into_iter()
            .collect(),
        vec![0i8; 4].into(),
        None,
        vec![Arc::new(Int32Array::from(vec![1, 2, 3, 4])) as ArrayRef],
    )
    .unwrap();
    let interval =
        IntervalMonthDayNanoArray::from(vec![IntervalMonthDayNanoType::make_value(1, 2, 3); 4]);
    for (name, column) in [
        ("choice", Arc::new(union) as ArrayRef),
        ("period", Arc::new(interval)),
    ] {
        let puzzles: ArrayRef = Arc::new(StringArray::from(whole_puzzles(4)));
        let batch = RecordBatch::try_from_iter([("puzzle", puzzles), (name, column)]).unwrap();
        let input = dir.path(&format!("{name}.arrow"));
        write_arrow(&input, &batch, None);
        let (code, stderr, left) = solve_to_file(&input, &dir.path("refused.parquet"));
        assert_eq!(code, Some(2), "{stderr}");
        let said = format!("column \"{name}\" holds ");
        assert!(stderr.contains(&said), "{stderr}");
        assert!(
            stderr.contains("which a Parquet output cannot hold"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!left, "no output file");
        // Arrow holds them.
        solve_into(&input, &dir.path("kept.arrow"));
    }
}

/// A Parquet file's dictionaries are its row groups' own: a dictionary column whose dictionary
/// changes from one row group to the next goes to an Arrow file (one dictionary per column) as
/// its values, where arrow's writer refused the second row group mid-run. An Arrow input's
/// dictionary columns stay dictionaries.
#[test]
fn a_parquet_dictionary_column_goes_to_an_arrow_output_as_its_values() {
    use arrow_array::types::Int32Type;
    use arrow_array::DictionaryArray;
    let dir = Dir::new();
    let group = |from: usize, words: [&str; 2]| {
        let keys = Int32Array::from(vec![0, 1, 0, 1]);
        let words = Arc::new(StringArray::from(words.to_vec()));
        let puzzles: ArrayRef =
            Arc::new(StringArray::from(whole_puzzles(from + 4)[from..].to_vec()));
        let level: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, words).unwrap());
        // The same dictionary in a struct.
        let inner = Field::new("level", level.data_type().clone(), true);
        let when: ArrayRef = Arc::new(arrow_array::StructArray::new(
            vec![inner].into(),
            vec![Arc::clone(&level)],
            None,
        ));
        RecordBatch::try_from_iter([("puzzle", puzzles), ("level", level), ("when", when)]).unwrap()
    };
    let (first, second) = (group(0, ["easy", "hard"]), group(4, ["hard", "easy"]));
    let input = dir.path("groups.parquet");
    let mut writer =
        ArrowWriter::try_new(File::create(&input).unwrap(), first.schema(), None).unwrap();
    for batch in [&first, &second] {
        writer.write(batch).unwrap();
        writer.flush().unwrap();
    }
    writer.close().unwrap();
    let output = dir.path("groups.arrow");
    solve_into(&input, &output);
    let reader =
        arrow_ipc::reader::FileReader::try_new(File::open(&output).unwrap(), None).unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    let all = arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap();
    assert_eq!(all.schema().field(1).data_type(), &DataType::Utf8);
    let level: Vec<&str> = all
        .column(1)
        .as_string::<i32>()
        .iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(
        level,
        ["easy", "hard", "easy", "hard", "hard", "easy", "hard", "easy"]
    );
    let when = all.column(2).as_struct();
    assert_eq!(when.column(0).data_type(), &DataType::Utf8);
    assert_eq!(when.column(0).as_ref(), all.column(1).as_ref());
    let status = all.column_by_name("status").unwrap();
    assert_eq!(strings_of(status), ["solved"; 8]);
    // From an Arrow file, the dictionary is kept.
    let arrow_in = dir.path("one.arrow");
    write_arrow(&arrow_in, &first, None);
    let kept = dir.path("kept.arrow");
    solve_into(&arrow_in, &kept);
    let reader = arrow_ipc::reader::FileReader::try_new(File::open(&kept).unwrap(), None).unwrap();
    assert_eq!(
        reader.schema().field(1).data_type(),
        first.schema().field(1).data_type()
    );
}

/// `batch` with `column` added last, named `name`.
fn batch_with(batch: &RecordBatch, name: &str, column: ArrayRef) -> RecordBatch {
    let mut columns: Vec<(String, ArrayRef)> = batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, c)| (f.name().clone(), Arc::clone(c)))
        .collect();
    columns.push((name.into(), column));
    RecordBatch::try_from_iter(columns).unwrap()
}

/// A text column's values (nulls as "").
fn strings_of(column: &ArrayRef) -> Vec<String> {
    arrow_cast_to_strings(column.as_ref())
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
}

/// The puzzle column found by its data is found in the file's first rows even when the file
/// starts with an empty row group (a streaming writer may leave one), by every shard.
#[test]
fn a_puzzle_column_is_found_past_empty_row_groups_by_every_shard() {
    let dir = Dir::new();
    let table = |n: usize, from: usize| {
        let ids: ArrayRef = Arc::new(Int32Array::from_iter_values(from as i32..(from + n) as i32));
        let puzzles = whole_puzzles(from + n)[from..].to_vec();
        let q: ArrayRef = Arc::new(StringArray::from(puzzles));
        RecordBatch::try_from_iter([("id", ids), ("q", q)]).unwrap()
    };
    let input = dir.path("empty_first.parquet");
    let mut writer =
        ArrowWriter::try_new(File::create(&input).unwrap(), table(0, 0).schema(), None).unwrap();
    for (n, from) in [(0, 0), (10, 0), (0, 10), (10, 10)] {
        if n == 0 {
            // An empty row group: arrow's writer skips an empty batch, so its columns by hand
            // (these calls are deprecated for the lower-level writer, which needs far more).
            #[allow(deprecated)]
            let columns = writer.get_column_writers().unwrap();
            let chunks = columns.into_iter().map(|c| c.close().unwrap()).collect();
            #[allow(deprecated)]
            writer.append_row_group(chunks).unwrap();
        } else {
            writer.write(&table(n, from)).unwrap();
            writer.flush().unwrap();
        }
    }
    writer.close().unwrap();
    let groups = ParquetRecordBatchReaderBuilder::try_new(File::open(&input).unwrap())
        .unwrap()
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect::<Vec<_>>();
    assert_eq!(groups, [0, 10, 0, 10]);
    let mut lines = Vec::new();
    for shard in ["1/4", "2/4", "3/4", "4/4"] {
        let out = bin()
            .args(["solve", "-q", "--shard", shard])
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{shard} of {groups:?}: {out:?}");
        lines.extend(
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(String::from),
        );
    }
    let whole = bin().args(["solve", "-q"]).arg(&input).output().unwrap();
    assert_eq!(whole.status.code(), Some(0), "{whole:?}");
    let whole: Vec<String> = String::from_utf8(whole.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(whole.len(), 20);
    assert_eq!(lines, whole);
}

/// Times in seconds and `date64`, which Parquet cannot name, are written to Parquet as pyarrow
/// writes them (milliseconds, `date32`), with Parquet's logical types, so that every reader
/// reads times and dates, not bare integers; the instants and days are the same. An Arrow
/// output keeps the types as they were.
#[test]
fn times_in_seconds_and_date64_go_to_parquet_as_times_and_dates() {
    use arrow_array::{Date64Array, Time32SecondArray, TimestampSecondArray};
    use arrow_schema::TimeUnit;
    let dir = Dir::new();
    let seconds = [1_704_164_645i64, 0, -86_400];
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "puzzle",
            Arc::new(StringArray::from(whole_puzzles(3))) as ArrayRef,
        ),
        (
            "created",
            Arc::new(TimestampSecondArray::from(seconds.to_vec())),
        ),
        (
            "zoned",
            Arc::new(TimestampSecondArray::from(seconds.to_vec()).with_timezone("Europe/Paris")),
        ),
        (
            "day",
            Arc::new(Date64Array::from(vec![
                1_704_153_600_000i64,
                0,
                -86_400_000,
            ])),
        ),
        (
            "at",
            Arc::new(Time32SecondArray::from(vec![3600, 0, 86_399])),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let input = dir.path("times.arrow");
    write_arrow(&input, &batch, None);
    let output = dir.path("times.parquet");
    solve_into(&input, &output);
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&output).unwrap()).unwrap();
    let parquet = builder.parquet_schema();
    for (i, name) in ["created", "zoned", "day", "at"].iter().enumerate() {
        let column = parquet.column(i + 1);
        assert_eq!(column.name(), *name);
        assert!(column.logical_type_ref().is_some(), "{name}: {column:?}");
    }
    let (table, _) = read_parquet(&output);
    let want = [
        DataType::Timestamp(TimeUnit::Millisecond, None),
        DataType::Timestamp(TimeUnit::Millisecond, Some("Europe/Paris".into())),
        DataType::Date32,
        DataType::Time32(TimeUnit::Millisecond),
    ];
    for (i, want) in want.iter().enumerate() {
        let got = table.column(i + 1);
        assert_eq!(got.data_type(), want);
        // The same values, in the input's types again.
        let back = arrow_cast::cast(got, batch.column(i + 1).data_type()).unwrap();
        assert_eq!(&back, batch.column(i + 1), "{want}");
    }
    // Arrow IPC names every type: kept as they came.
    let output = dir.path("times_out.arrow");
    solve_into(&input, &output);
    let reader =
        arrow_ipc::reader::FileReader::try_new(File::open(&output).unwrap(), None).unwrap();
    let schema = reader.schema();
    for i in 1..5 {
        assert_eq!(schema.field(i), batch.schema().field(i));
    }
    // A time too far from 1970 to count in milliseconds is an error naming its column, never a
    // null: no output file.
    let far = RecordBatch::try_from_iter([
        (
            "puzzle",
            Arc::new(StringArray::from(whole_puzzles(1))) as ArrayRef,
        ),
        (
            "created",
            Arc::new(TimestampSecondArray::from(vec![i64::MAX])),
        ),
    ])
    .unwrap();
    let input = dir.path("far.arrow");
    write_arrow(&input, &far, None);
    let output = dir.path("far.parquet");
    let out = bin()
        .args(["solve", "-q"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("column \"created\" cannot be written to Parquet"),
        "{stderr}"
    );
    assert!(!output.exists());
    // To stdout, a stream that holds what was written before: the message says it is not
    // whole. The time comes in the file's second record batch, after the first was written.
    let two = arrow_select::concat::concat_batches(&far.schema(), [&at_1970(&far), &far]);
    let input = dir.path("far_second.arrow");
    let mut writer =
        arrow_ipc::writer::FileWriter::try_new(File::create(&input).unwrap(), &far.schema())
            .unwrap();
    let two = two.unwrap();
    writer.write(&two.slice(0, 1)).unwrap();
    writer.write(&two.slice(1, 1)).unwrap();
    writer.finish().unwrap();
    let out = bin()
        .args(["solve", "-q", "--output-format", "parquet"])
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.ends_with("; the output written so far is incomplete\n"),
        "{stderr}"
    );
}

/// `batch` with its times at 1970, which every format can hold.
fn at_1970(batch: &RecordBatch) -> RecordBatch {
    use arrow_array::TimestampSecondArray;
    let times = Arc::new(TimestampSecondArray::from(vec![0; batch.num_rows()]));
    RecordBatch::try_new(batch.schema(), vec![Arc::clone(batch.column(0)), times]).unwrap()
}

/// An answer column of Arrow's `null` type (pandas writes an all-`None` column so): `solve`
/// fills it in place as text, in Parquet, Arrow and CSV alike, or adds a `solution` column
/// beside it with `--keep-solution-column`; `check` refuses it, as it has no solutions.
#[test]
fn solve_fills_an_answer_column_of_the_null_type_and_check_refuses_it() {
    use arrow_array::NullArray;
    let dir = Dir::new();
    let input = dir.path("nulls.parquet");
    let puzzles = whole_puzzles(30);
    let texts: Vec<&str> = puzzles.iter().map(String::as_str).collect();
    let mut cells: Vec<Option<&str>> = texts.iter().copied().map(Some).collect();
    cells[7] = Some("not a puzzle");
    let batch = RecordBatch::try_from_iter([
        ("quizzes", Arc::new(StringArray::from(cells)) as ArrayRef),
        ("answer", Arc::new(NullArray::new(texts.len())) as ArrayRef),
    ])
    .unwrap();
    assert_eq!(batch.schema().field(1).data_type(), &DataType::Null);
    write_batch(&input, &batch, Some(10));

    for format in ["parquet", "arrow"] {
        let output = dir.path(&format!("filled.{format}"));
        let out = bin()
            .arg("solve")
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let table = match format {
            "parquet" => read_parquet(&output).0,
            _ => {
                let reader =
                    arrow_ipc::reader::FileReader::try_new(File::open(&output).unwrap(), None)
                        .unwrap();
                let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
                arrow_select::concat::concat_batches(&batches[0].schema(), &batches).unwrap()
            }
        };
        let schema = table.schema();
        let fields: Vec<(&str, &DataType)> = schema
            .fields()
            .iter()
            .map(|f| (f.name().as_str(), f.data_type()))
            .collect();
        assert_eq!(
            fields,
            [
                ("quizzes", &DataType::Utf8),
                ("answer", &DataType::Utf8),
                ("status", &DataType::Utf8)
            ],
            "{format}"
        );
        let answers = strings(&table, "answer");
        assert_eq!(answers[7], None, "the bad row keeps its null ({format})");
        let solved: String = answers
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 7)
            .map(|(_, a)| format!("{}\n", a.as_deref().unwrap()))
            .collect();
        let given: Vec<&str> = texts
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != 7)
            .map(|(_, p)| *p)
            .collect();
        let checked = common::check_output(given.join("\n").as_bytes(), &solved, 0);
        assert_eq!(checked.solved, given.len(), "{format}: {checked:?}");
    }

    // CSV output: the column is filled too (the same answers, as text).
    let out = bin()
        .arg("solve")
        .arg(&input)
        .args(["-o", "-", "--output-format", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], ["quizzes", "answer", "status"]);
    assert_eq!(rows.len(), texts.len() + 1);
    assert!(rows[1][1].len() == 81 && rows[8][1].is_empty(), "{rows:?}");

    // Kept: a solution column is added beside it, which stays null.
    let kept = dir.path("kept.parquet");
    bin()
        .args(["solve", "--keep-solution-column"])
        .arg(&input)
        .arg("-o")
        .arg(&kept)
        .assert()
        .code(1);
    let (table, _) = read_parquet(&kept);
    let schema = table.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["quizzes", "answer", "solution", "status"]);
    assert_eq!(schema.field(1).data_type(), &DataType::Null);
    assert_eq!(
        strings(&table, "solution")[0].as_deref().map(str::len),
        Some(81)
    );

    // check has nothing to check against: refused up front, naming the column, no output.
    let output = dir.path("checked.parquet");
    let out = bin()
        .arg("check")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("answer") && stderr.contains("Null"),
        "{stderr}"
    );
    assert!(!output.exists());
}

/// A one-column table of puzzle texts.
fn puzzle_table(cells: &[Option<&str>]) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "puzzle",
        DataType::Utf8,
        true,
    )]));
    let column: ArrayRef = Arc::new(StringArray::from(cells.to_vec()));
    RecordBatch::try_new(schema, vec![column]).unwrap()
}

#[test]
fn dedupe_as_lines_writes_one_line_per_kept_row() {
    let dir = Dir::new();
    let input = dir.path("x.parquet");
    let texts = common::puzzle_texts(&common::shipped("sample.txt"));
    let (p, q) = (&texts[0], &texts[1]);
    let two = format!("{p}\n{p}");
    let with_crlf = format!("{q}\r\n");
    // Rows that could not be one line as they came: a line break inside, a null, a blank, a
    // `#` comment; then a bad row that can, a duplicate (dropped), and a puzzle with a line end
    // after it (written without it).
    let cells = [
        Some(two.as_str()),
        None,
        Some(p),
        Some(""),
        Some("#x"),
        Some("abc"),
        Some(p),
        Some(&with_crlf),
    ];
    let batch = puzzle_table(&cells);
    write_batch(&input, &batch, None);
    let out = bin().args(["dedupe", "-q"]).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[0].starts_with("invalid: "), "{text}");
    assert_eq!(lines[1], "invalid: the puzzle is null");
    assert_eq!(lines[2], p);
    assert!(lines[3].starts_with("invalid: ") && lines[4].starts_with("invalid: "));
    assert_eq!(lines[5], "abc");
    assert_eq!(lines[6], q);
    // Read back as lines, the output has a record per kept row.
    let back = bin()
        .args(["dedupe", "--stats", "json", "-q", "-"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&back.stderr).unwrap();
    assert_eq!(stats["records"], 7, "{stats}");
}

/// The exit code and stderr of `solve FILE -o OUT`, and whether OUT was left.
fn solve_to_file(input: &Path, output: &Path) -> (Option<i32>, String, bool) {
    let out = bin()
        .arg("solve")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap();
    let left = output.exists();
    let _ = std::fs::remove_file(output);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        left,
    )
}

/// `solve -q INPUT -o OUTPUT`, which must succeed (exit 0).
fn solve_into(input: &Path, output: &Path) {
    bin()
        .args(["solve", "-q"])
        .arg(input)
        .arg("-o")
        .arg(output)
        .assert()
        .code(0);
}

/// Writes `batch` as an Arrow IPC file, its buffers compressed with `codec` if one is given.
fn write_arrow(path: &Path, batch: &RecordBatch, codec: Option<arrow_ipc::CompressionType>) {
    let options = arrow_ipc::writer::IpcWriteOptions::default()
        .try_with_compression(codec)
        .unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new_with_options(
        File::create(path).unwrap(),
        &batch.schema(),
        options,
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
}

#[test]
fn compressed_arrow_files_as_dense_as_their_codec_makes_them_are_read() {
    // A column of one repeated byte compresses about as far as each codec can (Zstandard's
    // blocks of one byte, LZ4's longest matches): the check of stated lengths must pass them.
    let dir = Dir::new();
    let puzzles: Vec<Option<String>> = puzzles().into_iter().take(8).collect();
    let pad = "0".repeat(1 << 20);
    let schema = Arc::new(Schema::new(vec![
        Field::new("puzzle", DataType::Utf8, true),
        Field::new("pad", DataType::Utf8, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(puzzles.clone())),
        Arc::new(StringArray::from(vec![pad.as_str(); puzzles.len()])),
    ];
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    for codec in [
        arrow_ipc::CompressionType::LZ4_FRAME,
        arrow_ipc::CompressionType::ZSTD,
    ] {
        let arrow = dir.path("dense.arrow");
        write_arrow(&arrow, &batch, Some(codec));
        let size = std::fs::metadata(&arrow).unwrap().len();
        assert!(size < 64 << 10, "{codec:?}: {size} bytes for 8 MiB of text");
        let output = dir.path("dense.csv");
        let (code, stderr, left) = solve_to_file(&arrow, &output);
        // Answered (the sample has bad rows, exit 1), not refused as corrupt (exit 2).
        assert!(matches!(code, Some(0 | 1)), "{codec:?}: {stderr}");
        assert!(left && stderr.contains("records 8"), "{codec:?}: {stderr}");
    }
}

#[test]
fn a_compressed_buffer_stating_more_than_its_frames_hold_is_refused() {
    // A length prefix its codec could reach from the buffer's size (up to 32 GiB for 1 MiB of
    // Zstandard) but its frames' headers cannot: the reader would allocate it before
    // decompressing, and a failed allocation aborts the process.
    let dir = Dir::new();
    // About 2 MB of digits, which compress to about half (Zstandard) or not at all (LZ4).
    let mut seed = 1u64;
    let rows: Vec<Option<String>> = (0..25_000)
        .map(|_| {
            let row = (0..81).map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b'0' + (seed >> 60) as u8 % 10)
            });
            Some(row.collect())
        })
        .collect();
    let cells: Vec<Option<&str>> = rows.iter().map(|c| c.as_deref()).collect();
    let batch = puzzle_table(&cells);
    let output = dir.path("out.txt");
    for (codec, magic, stated) in [
        (
            arrow_ipc::CompressionType::ZSTD,
            [0x28, 0xB5, 0x2F, 0xFD],
            16u64 << 30,
        ),
        (
            arrow_ipc::CompressionType::LZ4_FRAME,
            [0x04, 0x22, 0x4D, 0x18],
            512 << 20,
        ),
    ] {
        let arrow = dir.path("x.arrow");
        write_arrow(&arrow, &batch, Some(codec));
        let mut bytes = std::fs::read(&arrow).unwrap();
        // The buffer whose frames start furthest from the next one: the text's.
        let starts: Vec<usize> = (0..bytes.len() - 4)
            .filter(|&i| bytes[i..i + 4] == magic)
            .collect();
        let ends = starts.iter().skip(1).copied().chain([bytes.len()]);
        let (_, at) = ends
            .zip(&starts)
            .map(|(end, &at)| (end - at, at))
            .max()
            .unwrap();
        assert!(bytes.len() > 1 << 20, "{codec:?}: {} bytes", bytes.len());
        bytes[at - 8..at].copy_from_slice(&stated.to_le_bytes());
        let broken = dir.path("broken.arrow");
        std::fs::write(&broken, &bytes).unwrap();
        let (code, stderr, left) = solve_to_file(&broken, &output);
        assert_eq!(code, Some(2), "{codec:?}: {stderr}");
        assert!(!left, "{codec:?}");
        assert!(
            stderr.contains(&format!(
                "states {stated} bytes uncompressed; its frames hold at most"
            )),
            "{codec:?}: {stderr}"
        );
        // The same length before bytes that are no frame at all (a changed magic number, as
        // where a corrupt offset points into the data): Zstandard's decoder reads nothing else,
        // so the buffer is refused; LZ4's ratio bounds the length to what can be allocated.
        bytes[at] ^= 0xa5;
        std::fs::write(&broken, &bytes).unwrap();
        let (code, stderr, left) = solve_to_file(&broken, &output);
        assert_eq!(code, Some(2), "{codec:?}, no frame: {stderr}");
        assert!(!left, "{codec:?}, no frame");
        assert!(
            stderr.starts_with("sudoku-batch: error: ") && stderr.lines().count() == 1,
            "{codec:?}, no frame: {stderr}"
        );
        if codec == arrow_ipc::CompressionType::ZSTD {
            assert!(
                stderr.contains(&format!(
                    "states {stated} bytes uncompressed and is not Zstandard frames)"
                )),
                "{codec:?}, no frame: {stderr}"
            );
        }
    }
}

#[test]
fn corrupt_parquet_and_arrow_files_are_refused_never_a_crash() {
    let dir = Dir::new();
    let output = dir.path("out.txt");
    let cells: Vec<Option<String>> = puzzles().into_iter().take(40).collect();
    let cells: Vec<Option<&str>> = cells.iter().map(|c| c.as_deref()).collect();
    let batch = puzzle_table(&cells);
    let parquet = dir.path("x.parquet");
    write_batch(&parquet, &batch, None);
    // Arrow files plain and compressed (pyarrow's `write_feather` compresses with LZ4 by
    // default): each compressed buffer starts with the length it decompresses to, which the
    // decoder allocates before it decompresses.
    let codecs = [
        ("x.arrow", None),
        ("x.lz4.arrow", Some(arrow_ipc::CompressionType::LZ4_FRAME)),
        ("x.zstd.arrow", Some(arrow_ipc::CompressionType::ZSTD)),
    ];
    let mut files = vec![parquet];
    for (name, codec) in codecs {
        let arrow = dir.path(name);
        write_arrow(&arrow, &batch, codec);
        files.push(arrow);
    }
    // Every byte of each file changed in turn: a decoder that panics or asks for gigabytes
    // must still give one message and exit 2 (or, where the change is only data, answers).
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let broken = dir.path("broken");
        for at in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[at] ^= 0xa5;
            std::fs::write(&broken, &changed).unwrap();
            let (code, stderr, left) = solve_to_file(&broken, &output);
            let case = format!("{} byte {at}: {code:?} {stderr}", file.display());
            match code {
                Some(0 | 1) => assert!(left, "{case}"),
                Some(2) => {
                    assert!(!left, "{case}");
                    assert!(stderr.starts_with("sudoku-batch: error: "), "{case}");
                    assert_eq!(stderr.lines().count(), 1, "{case}");
                }
                _ => panic!("{case}"),
            }
        }
    }
}

/// A table whose eighth row group's puzzle pages are destroyed: the first seven read, the
/// eighth fails to decode.
fn parquet_broken_at_row_group_8(dir: &Dir) -> PathBuf {
    let path = dir.path("broken.parquet");
    let puzzles = whole_puzzles(1000);
    let cells: Vec<Option<&str>> = puzzles.iter().map(|p| Some(p.as_str())).collect();
    let batch = puzzle_table(&cells);
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(100))
        .set_dictionary_enabled(false)
        .build();
    let mut writer = ArrowWriter::try_new(
        File::create(&path).unwrap(),
        batch.schema(),
        Some(properties),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let reader =
        parquet::file::serialized_reader::SerializedFileReader::new(File::open(&path).unwrap())
            .unwrap();
    let chunk = parquet::file::reader::FileReader::metadata(&reader)
        .row_group(7)
        .column(0)
        .clone();
    let mut bytes = std::fs::read(&path).unwrap();
    let start = chunk.data_page_offset() as usize;
    let len = chunk.compressed_size() as usize;
    bytes[start..start + len].fill(0xff);
    std::fs::write(&path, &bytes).unwrap();
    path
}

#[test]
fn a_read_error_mid_table_leaves_a_stream_unfinished_and_says_so() {
    let dir = Dir::new();
    let input = parquet_broken_at_row_group_8(&dir);
    // Written to stdout, the output cannot be taken back: a table stops without its footer (no
    // reader takes it for a whole table), and the message says the output is incomplete.
    for (format, magic) in [
        ("parquet", &b"PAR1"[..]),
        ("arrow", &b"ARROW1"[..]),
        ("csv", &b""[..]),
    ] {
        let out = bin()
            .args(["solve", "-q", "--output-format", format])
            .arg(&input)
            .assert()
            .code(2);
        let stdout = &out.get_output().stdout;
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(stderr.contains("read error"), "{format}: {stderr}");
        assert!(
            stderr
                .trim_end()
                .ends_with("; the output written so far is incomplete"),
            "{format}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{format}: {stderr}");
        if !magic.is_empty() {
            assert!(
                stdout.starts_with(magic),
                "{format}: the output was started"
            );
            assert!(!stdout.ends_with(magic), "{format}: a footer was written");
        }
    }
    let parquet_out = bin()
        .args(["solve", "-q", "--output-format", "parquet"])
        .arg(&input)
        .output()
        .unwrap()
        .stdout;
    assert!(ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(parquet_out)).is_err());
    // A read error before any answer (a directory, a file cut short of its footer) leaves the
    // stream empty, and the message says nothing of an output.
    let cut = dir.path("cut.parquet");
    std::fs::write(&cut, &std::fs::read(&input).unwrap()[..100]).unwrap();
    for early in [dir.path(""), cut] {
        let out = bin().args(["solve", "-q"]).arg(&early).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr);
        assert!(out.get_output().stdout.is_empty(), "{stderr}");
        assert!(!stderr.contains("incomplete"), "{stderr}");
    }
    // To a file, nothing is left, and the message needs no word on it.
    let output = dir.path("out.parquet");
    let (code, stderr, left) = solve_to_file(&input, &output);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        !left && stderr.contains("read error") && !stderr.contains("incomplete"),
        "{stderr}"
    );
}

#[test]
fn grade_adds_typed_columns_and_bad_rows_get_statuses_in_place() {
    let dir = Dir::new();
    let input = dir.path("g.parquet");
    let puzzles: Vec<Option<String>> = puzzles().into_iter().take(200).collect();
    write_parquet(&input, &puzzles, 64);
    let graded = dir.path("graded.parquet");
    bin()
        .args(["grade", "-q", "--column", "question"])
        .arg(&input)
        .arg("-o")
        .arg(&graded)
        .assert()
        .code(1);
    let (table, groups) = read_parquet(&graded);
    assert_eq!(groups, [64, 64, 64, 8]);
    let names: Vec<&str> = table
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "source",
            "question",
            "answer",
            "rating",
            "grade",
            "se_estimate",
            "hardest",
            "steps",
            "se_pearl",
            "se_diamond",
            "status"
        ]
    );
    assert_eq!(table.column(5).data_type(), &DataType::Float64);
    assert_eq!(table.column(7).data_type(), &DataType::Int64);
    assert_eq!(table.column(8).data_type(), &DataType::Float64);
    assert_eq!(table.column(9).data_type(), &DataType::Float64);
    let se = table.column(5).as_primitive::<Float64Type>();
    let pearl = table.column(8).as_primitive::<Float64Type>();
    let diamond = table.column(9).as_primitive::<Float64Type>();
    let hardest = strings(&table, "hardest");
    let status = strings(&table, "status");
    for (i, p) in puzzles.iter().enumerate() {
        match p
            .as_deref()
            .map(|p| sudoku_batch::Grid::parse(p.as_bytes()))
        {
            Some(Ok(grid)) => {
                let g = sudoku_batch::grade::grade(&grid).unwrap();
                assert_eq!(se.value(i), g.se_estimate(), "row {i}");
                assert_eq!(pearl.value(i), g.se_pearl(), "row {i}");
                assert_eq!(diamond.value(i), g.se_diamond(), "row {i}");
                assert_eq!(hardest[i].as_deref(), Some(g.hardest_text()), "row {i}");
                assert_eq!(status[i].as_deref(), Some("ok"));
            }
            _ => {
                assert!(se.is_null(i) && hardest[i].is_none(), "row {i}");
                assert!(pearl.is_null(i) && diamond.is_null(i), "row {i}");
                assert!(
                    status[i].as_deref().unwrap().starts_with("invalid"),
                    "row {i}"
                );
            }
        }
    }
}

#[test]
fn other_columnar_inputs_get_a_message_that_says_what_is_wrong() {
    let dir = Dir::new();
    let refused = |path: &Path, says: &str| {
        let out = bin().arg("solve").arg(path).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(out.stdout.is_empty());
    };
    // An Arrow IPC stream (not the file format).
    let p = common::puzzle_texts(&common::shipped("sample.txt")).swap_remove(0);
    let batch = puzzle_table(&[Some(&p)]);
    let stream = dir.path("s.arrow");
    let mut writer =
        arrow_ipc::writer::StreamWriter::try_new(File::create(&stream).unwrap(), &batch.schema())
            .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    refused(&stream, "it is an Arrow IPC stream");
    // A puzzle column of numbers: its type is the problem, not its name.
    let numbers = dir.path("n.parquet");
    let schema = Arc::new(Schema::new(vec![Field::new(
        "puzzle",
        DataType::Int64,
        false,
    )]));
    let column: ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![1, 2]));
    let batch = RecordBatch::try_new(Arc::clone(&schema), vec![column]).unwrap();
    write_batch(&numbers, &batch, None);
    refused(&numbers, "column \"puzzle\" holds Int64, not text");
    // `check` with a solution column of numbers: its type is the problem, not a missing column.
    let schema = Arc::new(Schema::new(vec![
        Field::new("puzzle", DataType::Utf8, false),
        Field::new("solution", DataType::Int64, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![p.as_str()])),
        Arc::new(arrow_array::Int64Array::from(vec![1])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    write_batch(&numbers, &batch, None);
    let out = bin().arg("check").arg(&numbers).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("column \"solution\" holds Int64, not text"),
        "{stderr}"
    );
    // A null solution is said to be one (not "no solution after the puzzle", the line format's
    // words); a null puzzle beside it is the puzzle's problem.
    let schema = Arc::new(Schema::new(vec![
        Field::new("puzzle", DataType::Utf8, true),
        Field::new("solution", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![Some(p.as_str()), None])),
        Arc::new(StringArray::from(vec![None::<&str>, None])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    write_batch(&numbers, &batch, None);
    let out = bin().arg("check").arg(&numbers).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "invalid: the solution is null\ninvalid: the puzzle is null\n"
    );
    // A text --format on a Parquet file.
    let out = bin()
        .args(["solve", "--format", "csv"])
        .arg(common::shipped("sample.parquet"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("not in a text --format (leave --format out)") && !stderr.contains("build"),
        "{stderr}"
    );
    // A text input with an output named like Parquet: refused, no file.
    let named = dir.path("t.parquet");
    let out = bin()
        .arg("solve")
        .arg(common::shipped("sample.txt"))
        .arg("-o")
        .arg(&named)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("parquet output needs a Parquet or Arrow input"));
    assert!(!named.exists());
    // A shard of a Parquet file on stdin: refused before anything is read.
    let out = bin()
        .args(["solve", "--shard", "2/2", "-"])
        .pipe_stdin(common::shipped("sample.parquet"))
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("--shard needs a regular file"));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_table_that_names_no_puzzle_column_gets_the_column_csv_would_take_and_says_so() {
    let dir = Dir::new();
    let shipped = common::puzzle_texts(&common::shipped("sample.txt"));
    let clues: Vec<&str> = shipped.iter().take(3).map(String::as_str).collect();
    // Before the puzzles: a column of full grids (a solution column by another name) and one
    // whose first value is null. A full grid is the puzzle column only if nothing else is.
    let full = "123456789456789123789123456231564897564897231897231564312645978645978312978312645";
    let schema = Arc::new(Schema::new(vec![
        Field::new("grid", DataType::Utf8, false),
        Field::new("hint", DataType::Utf8, true),
        Field::new("clues", DataType::Utf8, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![full; 3])),
        Arc::new(StringArray::from(vec![
            None,
            Some(clues[1]),
            Some(clues[2]),
        ])),
        Arc::new(StringArray::from(clues.clone())),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    // A row group per row: the second shard's own first row has a puzzle in `hint`.
    let parquet = dir.path("t.parquet");
    write_batch(&parquet, &batch, Some(1));
    let csv = dir.path("t.csv");
    let mut text = String::from("grid,hint,clues\n");
    for (i, c) in clues.iter().enumerate() {
        let hint = if i == 0 { "" } else { c };
        text += &format!("{full},{hint},{c}\n");
    }
    std::fs::write(&csv, &text).unwrap();
    let expected: String = clues.iter().map(|c| format!("{c}\n")).collect();
    for (input, format) in [(&parquet, "parquet"), (&csv, "csv")] {
        let out = bin()
            .args(["solve", "--output-format", "csv"])
            .arg(input)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains(&format!("format: {format} (the "))
                && stderr.contains(
                    "names no puzzle column, but column \"clues\" holds 81-cell puzzles)"
                ),
            "{stderr}"
        );
        // The input's columns, then `solution` and `status`.
        let table = String::from_utf8(out.stdout).unwrap();
        let answers: String = table
            .lines()
            .skip(1)
            .map(|row| format!("{}\n", row.split(',').nth(3).unwrap()))
            .collect();
        let checked = common::check_output(expected.as_bytes(), &answers, 0);
        assert_eq!(checked.not_solved, 0, "{answers}");
    }
    let solve = |args: &[&str], input: &Path| {
        let out = bin().arg("solve").args(args).arg(input).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        (String::from_utf8(out.stdout).unwrap(), stderr)
    };
    // Every shard takes the column the whole file takes.
    let (lines, stderr) = solve(&["--shard", "2/2"], &parquet);
    assert!(stderr.contains("column \"clues\""), "{stderr}");
    let checked = common::check_output(&expected.as_bytes()[82..], &lines, 0);
    assert_eq!(checked.solved, 2, "{lines}");
    // A column named by --column: taken, with no note.
    let (_, stderr) = solve(&["--column", "clues"], &parquet);
    assert!(!stderr.contains("names no puzzle column"), "{stderr}");
    // Full grids alone: that column is the puzzle column.
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("g", DataType::Utf8, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![1])),
        Arc::new(StringArray::from(vec![full])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    let grids = dir.path("g.parquet");
    write_batch(&grids, &batch, None);
    let (lines, stderr) = solve(&[], &grids);
    assert!(
        stderr.contains("column \"g\" holds 81-cell puzzles"),
        "{stderr}"
    );
    assert_eq!(lines, format!("{full}\n"));
}

/// Columns of bytes and dictionary-encoded columns, as pyarrow, pandas and polars write them:
/// a `binary` puzzle column reads and writes back as text in CSV (arrow's CSV writer spells
/// bytes in hex); a dictionary-encoded solution column (a polars `Categorical`) is filled in
/// place, as plain text; and a dictionary-encoded column with every row null (an empty
/// dictionary) is read, not a crash.
#[test]
fn columns_of_bytes_and_dictionaries_are_read_filled_and_written_as_text() {
    use arrow_array::types::UInt32Type;
    use arrow_array::{BinaryArray, DictionaryArray};
    let dir = Dir::new();
    let puzzles = whole_puzzles(50);
    let texts: Vec<&str> = puzzles.iter().map(String::as_str).collect();

    // Bytes: the CSV output holds the puzzles and solutions as text, and reads back.
    let input = dir.path("bytes.parquet");
    let batch = RecordBatch::try_from_iter([
        (
            "puzzle",
            Arc::new(BinaryArray::from_iter_values(
                texts.iter().map(|p| p.as_bytes()),
            )) as ArrayRef,
        ),
        (
            "solution",
            Arc::new(BinaryArray::from(vec![None::<&[u8]>; texts.len()])) as ArrayRef,
        ),
    ])
    .unwrap();
    write_batch(&input, &batch, None);
    let csv = dir.path("bytes.csv");
    bin()
        .arg("solve")
        .arg(&input)
        .arg("-o")
        .arg(&csv)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0], ["puzzle", "solution", "status"]);
    for (row, puzzle) in rows[1..].iter().zip(&puzzles) {
        assert_eq!(row[0], puzzle);
        assert_eq!((row[1].len(), row[2]), (81, "solved"), "{row:?}");
    }
    let again = bin().arg("check").arg(&csv).arg("-q").output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{again:?}");

    // A dictionary-encoded, empty solution column: filled in place, as text.
    let input = dir.path("categorical.parquet");
    let empty: DictionaryArray<UInt32Type> = vec![None::<&str>; texts.len()].into_iter().collect();
    let batch = RecordBatch::try_from_iter([
        (
            "quizzes",
            Arc::new(StringArray::from(texts.clone())) as ArrayRef,
        ),
        ("solutions", Arc::new(empty) as ArrayRef),
    ])
    .unwrap();
    write_batch(&input, &batch, None);
    let output = dir.path("filled.parquet");
    bin()
        .arg("solve")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .assert()
        .code(0);
    let (table, _) = read_parquet(&output);
    let schema = table.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["quizzes", "solutions", "status"]);
    let answers: String = strings(&table, "solutions")
        .iter()
        .map(|a| format!("{}\n", a.as_deref().unwrap()))
        .collect();
    let checked = common::check_output(texts.join("\n").as_bytes(), &answers, 0);
    assert_eq!(checked.solved, texts.len(), "{checked:?}");

    // Every row null in a dictionary-encoded puzzle column: a status per row, no crash.
    let input = dir.path("nulls.parquet");
    let nulls: DictionaryArray<UInt32Type> = vec![None::<&str>; 3].into_iter().collect();
    let batch = RecordBatch::try_from_iter([("puzzle", Arc::new(nulls) as ArrayRef)]).unwrap();
    write_batch(&input, &batch, None);
    let out = bin()
        .arg("solve")
        .arg(&input)
        .arg("-o")
        .arg("-")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "invalid: the puzzle is null\n".repeat(3)
    );
}

/// A CSV output of a table with a timestamp in a named time zone (what pandas writes) keeps it;
/// one with a nested column (a struct, a list) is refused at once, naming the column, with no
/// output file.
#[test]
fn csv_output_keeps_zoned_timestamps_and_refuses_nested_columns_up_front() {
    use arrow_array::{ListArray, StructArray, TimestampMicrosecondArray};
    let dir = Dir::new();
    let puzzles = whole_puzzles(3);
    let texts: Vec<&str> = puzzles.iter().map(String::as_str).collect();
    let at = TimestampMicrosecondArray::from(vec![1_704_164_645_000_000; 3]);
    let columns = [
        ("puzzle", Arc::new(StringArray::from(texts)) as ArrayRef),
        ("utc", Arc::new(at.clone().with_timezone("UTC")) as ArrayRef),
        (
            "new_york",
            Arc::new(at.with_timezone("America/New_York")) as ArrayRef,
        ),
    ];
    let input = dir.path("zoned.parquet");
    write_batch(
        &input,
        &RecordBatch::try_from_iter(columns.clone()).unwrap(),
        None,
    );
    let csv = dir.path("zoned.csv");
    bin()
        .arg("solve")
        .arg(&input)
        .arg("-o")
        .arg(&csv)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "puzzle,utc,new_york,solution,status");
    assert!(
        rows[1].contains(",2024-01-02T03:04:05Z,2024-01-01T22:04:05-05:00,"),
        "{}",
        rows[1]
    );

    let nested = [
        Arc::new(StructArray::from(vec![(
            Arc::new(Field::new("p", DataType::Utf8, false)),
            Arc::new(StringArray::from(vec!["x"; 3])) as ArrayRef,
        )])) as ArrayRef,
        Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
            Some(
                vec![Some(1)]
            );
            3
        ])),
    ];
    for (name, column) in ["a_struct", "a_list"].into_iter().zip(nested) {
        let mut with = columns.to_vec();
        with.insert(1, (name, column));
        let input = dir.path(&format!("{name}.parquet"));
        write_batch(&input, &RecordBatch::try_from_iter(with).unwrap(), None);
        let csv = dir.path(&format!("{name}.csv"));
        for task in ["solve", "dedupe"] {
            let out = bin()
                .arg(task)
                .arg(&input)
                .arg("-o")
                .arg(&csv)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{out:?}");
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert!(
                stderr.contains(&format!("column \"{name}\" holds")),
                "{stderr}"
            );
            assert!(
                stderr.contains("which a CSV output cannot hold"),
                "{stderr}"
            );
            assert!(!csv.exists());
        }
        // Parquet keeps it.
        let parquet = dir.path(&format!("{name}.out.parquet"));
        bin()
            .arg("solve")
            .arg(&input)
            .arg("-o")
            .arg(&parquet)
            .assert()
            .code(0);
    }
}

/// `dedupe --against` a table with no puzzle column: the message points to `--against-column`
/// (`--column` names the input's), and with it the named column is compared.
#[test]
fn dedupe_against_a_table_without_a_usual_name_points_to_against_column() {
    let dir = Dir::new();
    let puzzles = whole_puzzles(4);
    let input = dir.path("train.txt");
    std::fs::write(&input, puzzles.join("\n") + "\n").unwrap();
    let against = dir.path("split.parquet");
    // The puzzle comes after the first rows that the column is looked for in (64).
    let mut cells = vec!["none yet"; 70];
    cells[69] = puzzles[1].as_str();
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int32Array::from_iter_values(0..70)) as ArrayRef,
        ),
        ("grid_text", Arc::new(StringArray::from(cells)) as ArrayRef),
    ])
    .unwrap();
    write_batch(&against, &batch, None);
    let out = bin()
        .arg("dedupe")
        .arg(&input)
        .arg("--against")
        .arg(&against)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("name it with --against-column"), "{stderr}");
    let out = bin()
        .arg("dedupe")
        .arg(&input)
        .arg("--against")
        .arg(&against)
        .args(["--against-column", "grid_text"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "its second row is malformed: {out:?}"
    );
    let kept: Vec<&str> = [0, 2, 3].iter().map(|&i| puzzles[i].as_str()).collect();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        kept.join("\n") + "\n"
    );
}

#[test]
fn a_parquet_input_written_in_place_during_the_run_leaves_no_output() {
    // Once the run has opened the file, the same bytes are written into it in place.
    struct Rewrite(PathBuf);
    impl sudoku_batch::Observer for Rewrite {
        fn start(&mut self, _work: sudoku_batch::Work, _note: Option<&str>) {
            use std::io::Write;
            let bytes = std::fs::read(&self.0).unwrap();
            let mut file = File::options().write(true).open(&self.0).unwrap();
            file.write_all(&bytes).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.parquet");
    write_parquet(&input, &puzzles(), 300);
    common::backdate(&input);
    let output = dir.path().join("out.parquet");
    let result = sudoku_batch::run(
        &sudoku_batch::Config::new(sudoku_batch::Task::Solve { lexmin: false }),
        sudoku_batch::Input::Path(input.clone()),
        sudoku_batch::Output::Path(output.clone()),
        &mut Rewrite(input),
    );
    assert!(
        matches!(result, Err(sudoku_batch::BatchError::InputChanged { .. })),
        "{result:?}"
    );
    assert!(!output.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

/// Asks the run to stop at its first look.
struct StopAtOnce;

impl sudoku_batch::Observer for StopAtOnce {
    fn should_stop(&mut self) -> bool {
        true
    }
}

#[test]
fn a_stopped_run_leaves_the_records_it_has_not_answered_in_text_and_tables() {
    use std::time::{Duration, Instant};
    use sudoku_batch::{BatchError, Config, Input, Output, Task, TaskOptions};
    // 6,000 records of 4,096 searches each (about 10 ms a record in a release build, 30 s on two
    // threads; the table is one batch, the text a few blocks): a run that finished the batch or
    // blocks it had started before it stopped would take seconds at least.
    let text = std::fs::read_to_string(common::shipped("generated_minimal_2000.txt")).unwrap();
    let puzzles: Vec<Option<String>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && l.len() >= 81)
        .map(|l| Some(l[..81].to_string()))
        .cycle()
        .take(6000)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("slow.txt");
    let joined: String = puzzles.iter().flatten().map(|p| format!("{p}\n")).collect();
    std::fs::write(&lines, joined).unwrap();
    let table = dir.path().join("slow.parquet");
    write_parquet(&table, &puzzles, puzzles.len());
    let rate = Task::named("rate", TaskOptions::default().samples(4096)).unwrap();
    for input in [lines, table] {
        let output = dir.path().join("out");
        let started = Instant::now();
        let result = sudoku_batch::run(
            &Config::new(rate).threads(2),
            Input::Path(input.clone()),
            Output::Path(output.clone()),
            &mut StopAtOnce,
        );
        let took = started.elapsed();
        assert!(matches!(result, Err(BatchError::Stopped)), "{result:?}");
        assert!(
            took < Duration::from_secs(3),
            "{}: stopped after {took:?}",
            input.display()
        );
        assert!(!output.exists(), "no output after a stop");
    }
}
