//! tdoku-style throughput benchmark with thread scaling.
//!
//! Every file is parsed once up front; timed work is solving only. For each file, mode (first
//! solution, uniqueness) and thread count, a warm-up runs at least one full pass that validates
//! every result, then passes repeat for at least the minimum time; the reported rate is the median
//! pass's puzzles per second.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::engine::Engine;
use crate::formats::FormatChoice;
use crate::grid::Grid;
use crate::observe::Observer;
use crate::solver;
use crate::task::Invalid;

/// What to run: [`BenchConfig::new`] and the setters.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BenchConfig {
    /// Puzzle files, in any format a run reads.
    pub files: Vec<PathBuf>,
    /// Their text format ([`FormatChoice::Auto`]: detected, as a run does; a Parquet or Arrow
    /// file is known by its first bytes then).
    pub format: FormatChoice,
    /// Minimum warm-up per run (at least one validated pass is always made).
    pub warmup: Duration,
    /// Minimum measured time per run (at least one pass is always made).
    pub min_time: Duration,
    /// Thread counts to measure, in order; the 1-thread rate is the efficiency baseline.
    pub threads: Vec<usize>,
}

impl BenchConfig {
    /// `files`, 0.3 s of warm-up and 1 s of measurement per run, at 1, 2, 4, ... threads up to
    /// the cores.
    pub fn new(files: Vec<PathBuf>) -> BenchConfig {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        BenchConfig {
            files,
            format: FormatChoice::Auto,
            warmup: Duration::from_millis(300),
            min_time: Duration::from_secs(1),
            threads: default_threads(cores),
        }
    }
    /// The files' text format.
    pub fn format(mut self, format: FormatChoice) -> Self {
        self.format = format;
        self
    }
    /// Minimum warm-up per run.
    pub fn warmup(mut self, warmup: Duration) -> Self {
        self.warmup = warmup;
        self
    }
    /// Minimum measured time per run.
    pub fn min_time(mut self, min_time: Duration) -> Self {
        self.min_time = min_time;
        self
    }
    /// Thread counts to measure, in order.
    pub fn threads(mut self, threads: Vec<usize>) -> Self {
        self.threads = threads;
        self
    }
}

/// Why a benchmark could not run or did not pass validation.
#[derive(Debug, thiserror::Error)]
#[allow(missing_docs)] // each variant's message says what it is
pub enum BenchError {
    #[error("cannot read {}: {source}", crate::path_label(path))]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: no puzzles", crate::path_label(path))]
    Empty { path: PathBuf },
    #[error("no puzzle files (*.txt) found in {}", crate::path_label(.0))]
    NoData(PathBuf),
    #[error("cannot start {threads} threads: {message}")]
    Threads { threads: usize, message: String },
    /// The solver returned a wrong result: the benchmark's figures would be meaningless.
    #[error(
        "VALIDATION FAILED: {} line {line} ({mode}): {problem}",
        crate::path_label(path)
    )]
    Wrong {
        path: PathBuf,
        line: usize,
        mode: Mode,
        problem: &'static str,
    },
}

/// Solver entry point being timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Mode {
    /// `solver::solve`: stop at the first solution.
    #[serde(rename = "first-solution")]
    First,
    /// `solver::count(_, 2)`: prove the solution unique (or find a second).
    #[serde(rename = "uniqueness")]
    Unique,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::First => "first solution",
            Mode::Unique => "uniqueness (limit 2)",
        })
    }
}

/// The whole run, as printed by `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Cores the machine reports (`available_parallelism`).
    pub cores: usize,
    /// Minimum warm-up seconds per run.
    pub warmup_s: f64,
    /// Minimum measured seconds per run.
    pub min_time_s: f64,
    /// Thread counts measured.
    pub threads: Vec<usize>,
    /// One report per file.
    pub files: Vec<FileReport>,
}

/// One puzzle file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// The file's path.
    pub file: String,
    /// Puzzles measured.
    pub puzzles: usize,
    /// Lines that are not puzzles (too short, bad characters, clashing givens), reported and
    /// skipped.
    pub skipped: Vec<Skipped>,
    /// One report per mode.
    pub modes: Vec<ModeReport>,
}

/// A line left out of the benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// Its 1-based line.
    pub line: usize,
    /// Why it is not a puzzle.
    pub reason: String,
}

/// One mode on one file.
#[derive(Debug, Clone, Serialize)]
pub struct ModeReport {
    /// The solver entry point timed.
    pub mode: Mode,
    /// Percentage of puzzles solved without a guess.
    pub no_guess_pct: f64,
    /// Mean guesses (branch points) per puzzle.
    pub guesses_per_puzzle: f64,
    /// Mean states visited per puzzle (the root and every child tried at a branch point): the
    /// search's work, which guesses undercount where a branch point has more than two children.
    pub nodes_per_puzzle: f64,
    /// Puzzles with no solution.
    pub unsolvable: usize,
    /// Puzzles with two or more solutions (uniqueness mode only).
    pub multiple: Option<usize>,
    /// One entry per thread count.
    pub runs: Vec<Run>,
}

/// One thread count.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// Worker threads.
    pub threads: usize,
    /// Measured passes over the file.
    pub passes: usize,
    /// Median pass rate.
    pub puzzles_per_s: f64,
    /// Every measured pass's rate, summarised as hyperfine does a command's times.
    pub rate: Spread,
    /// Wall-clock microseconds per puzzle at this thread count (1e6 / rate).
    pub us_per_puzzle: f64,
    /// rate / (threads x rate at 1 thread); `None` without a 1-thread run.
    pub efficiency: Option<f64>,
}

/// Mean, standard deviation, median, minimum and maximum of a run's per-pass rates (puzzles/s).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Spread {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation.
    pub stddev: f64,
    /// The median (the run's `puzzles_per_s`).
    pub median: f64,
    /// The slowest pass.
    pub min: f64,
    /// The fastest pass.
    pub max: f64,
}

impl Spread {
    /// The spread of `v` (not empty).
    pub fn of(v: &mut [f64]) -> Spread {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        // The sample standard deviation (n - 1), as hyperfine reports; 0 for one pass.
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        Spread {
            mean,
            stddev: var.sqrt(),
            median: median(v),
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// Thread counts 1, 2, 4, ... up to `cores`, plus `cores` itself if it is not a power of two.
pub fn default_threads(cores: usize) -> Vec<usize> {
    let mut out: Vec<usize> = std::iter::successors(Some(1usize), |&n| Some(n * 2))
        .take_while(|&n| n <= cores.max(1))
        .collect();
    if out.last() != Some(&cores) && cores > 1 {
        out.push(cores);
    }
    out
}

/// The generated sets shipped in `data/` (`generated_*.txt`; the other files there are format
/// samples): from `./data`, or from the source tree's `data/`
/// when the current directory has none, sorted by name.
pub fn shipped_sets() -> Result<Vec<PathBuf>, BenchError> {
    let local = PathBuf::from("data");
    let dir = if local.is_dir() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
    };
    let entries = std::fs::read_dir(&dir).map_err(|source| BenchError::Read {
        path: dir.clone(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.starts_with("generated_") && name.ends_with(".txt") && p.is_file()
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(BenchError::NoData(dir));
    }
    Ok(files)
}

/// A parsed file: puzzles and their 1-based line numbers.
struct Set {
    puzzles: Vec<Grid>,
    lines: Vec<usize>,
    skipped: Vec<Skipped>,
}

/// The puzzles of a file, in any format a run reads (line, grid, CSV, Parquet, Arrow), read by
/// the same readers and detection as a run, with their lines (rows for a columnar file).
fn records(
    path: &Path,
    bytes: Vec<u8>,
    format: FormatChoice,
) -> Result<Vec<(usize, crate::records::Puzzle)>, BenchError> {
    let unreadable = |message: String| BenchError::Read {
        path: path.to_owned(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, message),
    };
    #[cfg(feature = "parquet")]
    if let Some(kind) = crate::columnar::Kind::of(&bytes).filter(|_| format == FormatChoice::Auto) {
        let data = crate::columnar::Data::Memory(bytes.into());
        let puzzles = crate::columnar::puzzles(kind, data).map_err(unreadable)?;
        return Ok(puzzles
            .into_iter()
            .enumerate()
            .map(|(i, p)| (i + 1, p))
            .collect());
    }
    let prefix = &bytes[..bytes.len().min(crate::formats::PEEK)];
    let opened = crate::formats::open(prefix, format, None, None, false, crate::Task::default())
        .map_err(|e| unreadable(e.to_string()))?;
    let mut records = Vec::new();
    opened
        .format
        .puzzles(&bytes[opened.skip..], &mut |line, puzzle| {
            records.push(((opened.first_line + line) as usize, puzzle));
        });
    Ok(records)
}

/// Reads the records of a file (see [`records`]); a record that is not a puzzle, or whose
/// givens clash, is reported and skipped.
fn load(path: &Path, format: FormatChoice) -> Result<Set, BenchError> {
    let bytes = std::fs::read(path).map_err(|source| BenchError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut set = Set {
        puzzles: Vec::new(),
        lines: Vec::new(),
        skipped: Vec::new(),
    };
    for (line, puzzle) in records(path, bytes, format)? {
        // Clashing givens make an invalid record, as in `solve`: skipped, not timed as unsolvable.
        let puzzle = puzzle.and_then(|g| match g.first_clash() {
            Some(clash) => Err(Invalid::Clash(clash)),
            None => Ok(g),
        });
        match puzzle {
            Ok(g) => {
                set.puzzles.push(g);
                set.lines.push(line);
            }
            Err(e) => set.skipped.push(Skipped {
                line,
                reason: e.to_string(),
            }),
        }
    }
    if set.puzzles.is_empty() {
        return Err(BenchError::Empty {
            path: path.to_owned(),
        });
    }
    Ok(set)
}

/// Per-pass totals; identical on every pass of the same file and mode.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    no_guess: usize,
    guesses: u64,
    nodes: u64,
    unsolvable: usize,
    multiple: usize,
}

impl Tally {
    fn add(self, o: Tally) -> Tally {
        Tally {
            no_guess: self.no_guess + o.no_guess,
            guesses: self.guesses + o.guesses,
            nodes: self.nodes + o.nodes,
            unsolvable: self.unsolvable + o.unsolvable,
            multiple: self.multiple + o.multiple,
        }
    }

    fn one(guesses: u64, nodes: u64, solutions: u32) -> Tally {
        Tally {
            no_guess: usize::from(guesses == 0),
            guesses,
            nodes,
            unsolvable: usize::from(solutions == 0),
            multiple: usize::from(solutions >= 2),
        }
    }
}

fn run_one(mode: Mode, g: &Grid) -> Tally {
    match mode {
        Mode::First => {
            let s = solver::solve(g);
            Tally::one(s.guesses, s.nodes, u32::from(s.solution.is_some()))
        }
        Mode::Unique => {
            let c = solver::count(g, 2);
            Tally::one(c.guesses, c.nodes, c.solutions)
        }
    }
}

/// Puzzles per rayon task: big enough to hide scheduling, small enough to balance hard puzzles.
const GRAIN: usize = 64;

fn timed_pass(mode: Mode, puzzles: &[Grid]) -> Tally {
    puzzles
        .par_chunks(GRAIN)
        .map(|chunk| {
            chunk.iter().fold(Tally::default(), |t, g| {
                t.add(run_one(mode, std::hint::black_box(g)))
            })
        })
        .reduce(Tally::default, Tally::add)
}

/// A pass that also checks every result: a first solution must solve its puzzle, and the
/// uniqueness count must agree with the first-solution search about solvability.
fn validated_pass(mode: Mode, path: &Path, set: &Set) -> Result<Tally, BenchError> {
    set.puzzles
        .par_iter()
        .zip(set.lines.par_iter())
        .map(|(g, &line)| {
            let first = solver::solve(g);
            let wrong = |problem| BenchError::Wrong {
                path: path.to_owned(),
                line,
                mode,
                problem,
            };
            if first.solution.is_some_and(|s| !s.solves(g)) {
                return Err(wrong("the solution does not solve the puzzle"));
            }
            let tally = run_one(mode, g);
            if (tally.unsolvable == 1) != first.solution.is_none() {
                return Err(wrong(
                    "count and first-solution search disagree on solvability",
                ));
            }
            Ok(tally)
        })
        .try_reduce(Tally::default, |a, b| Ok(a.add(b)))
}

/// The median of `v` (the mean of the middle two for an even count); NaN-safe ordering.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs the benchmark. `observer` gets a status line after each file and mode.
///
/// The thread counts of one file and mode are measured interleaved (one pass each in turn), so a
/// load that comes and goes on the machine affects them alike.
pub fn run(config: &BenchConfig, observer: &mut dyn Observer) -> Result<Report, BenchError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pools = config
        .threads
        .iter()
        .map(|&threads| {
            Engine::new(threads).map_err(|e| BenchError::Threads {
                threads,
                message: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Every file is read and checked before any is timed: a bad last file fails at once.
    let sets = config
        .files
        .iter()
        .map(|path| load(path, config.format))
        .collect::<Result<Vec<_>, _>>()?;
    let mut files = Vec::new();
    for (path, set) in config.files.iter().zip(sets) {
        let n = set.puzzles.len() as f64;
        let mut modes = Vec::new();
        for mode in [Mode::First, Mode::Unique] {
            let mut tally = Tally::default();
            for pool in &pools {
                pool.install(|| -> Result<(), BenchError> {
                    let start = Instant::now();
                    tally = validated_pass(mode, path, &set)?;
                    while start.elapsed() < config.warmup {
                        std::hint::black_box(timed_pass(mode, &set.puzzles));
                    }
                    Ok(())
                })?;
            }
            let mut rates = vec![Vec::new(); pools.len()];
            let mut spent = vec![Duration::ZERO; pools.len()];
            while spent.iter().any(|&s| s < config.min_time) || rates.iter().any(Vec::is_empty) {
                for (k, pool) in pools.iter().enumerate() {
                    if spent[k] >= config.min_time && !rates[k].is_empty() {
                        continue;
                    }
                    let t = Instant::now();
                    pool.install(|| std::hint::black_box(timed_pass(mode, &set.puzzles)));
                    let elapsed = t.elapsed();
                    spent[k] += elapsed;
                    rates[k].push(n / elapsed.as_secs_f64());
                }
            }
            let passes: Vec<usize> = rates.iter().map(Vec::len).collect();
            let spreads: Vec<Spread> = rates.iter_mut().map(|r| Spread::of(r)).collect();
            let rates: Vec<f64> = spreads.iter().map(|s| s.median).collect();
            let base = config
                .threads
                .iter()
                .position(|&t| t == 1)
                .map(|k| rates[k]);
            let runs: Vec<Run> = config
                .threads
                .iter()
                .zip(rates.iter().zip(passes).zip(spreads))
                .map(|(&threads, ((&rate, passes), spread))| Run {
                    threads,
                    passes,
                    puzzles_per_s: rate,
                    rate: spread,
                    us_per_puzzle: 1e6 / rate,
                    efficiency: base.map(|b| rate / (threads as f64 * b)),
                })
                .collect();
            let summary: Vec<String> = runs
                .iter()
                .map(|r| format!("{} thr {:.0}/s", r.threads, r.puzzles_per_s))
                .collect();
            observer.status(&format!(
                "{}: {mode}: {}",
                crate::path_label(path),
                summary.join(", ")
            ));
            modes.push(ModeReport {
                mode,
                no_guess_pct: 100.0 * tally.no_guess as f64 / n,
                guesses_per_puzzle: tally.guesses as f64 / n,
                nodes_per_puzzle: tally.nodes as f64 / n,
                unsolvable: tally.unsolvable,
                multiple: (mode == Mode::Unique).then_some(tally.multiple),
                runs,
            });
        }
        files.push(FileReport {
            file: path.display().to_string(),
            puzzles: set.puzzles.len(),
            skipped: set.skipped,
            modes,
        });
    }
    Ok(Report {
        cores,
        warmup_s: config.warmup.as_secs_f64(),
        min_time_s: config.min_time.as_secs_f64(),
        threads: config.threads.clone(),
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_threads_double_up_to_cores() {
        assert_eq!(default_threads(1), vec![1]);
        assert_eq!(default_threads(2), vec![1, 2]);
        assert_eq!(default_threads(6), vec![1, 2, 4, 6]);
        assert_eq!(default_threads(8), vec![1, 2, 4, 8]);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
