//! The shell examples of README.md and docs/*.md, run, so that they cannot go stale.
//!
//! Every ` ```sh ` block of those files is turned into a bash script (`bash -euo pipefail`) and
//! run with the real binary. The blocks of one Markdown file run in order in one fresh temporary
//! directory (so a later block may use a file an earlier one wrote, as a reader following along
//! would), which holds a symlink `data` to the repository's `data/`; the first entry of `PATH`
//! holds a `sudoku-batch` symlink to the binary under test.
//!
//! What is run, line by line (a line ending in `\` is joined with the next first):
//!
//! - lines whose first word is `sudoku-batch`, and the simple shell around them: the first word
//!   is one of [`SHELL`] (`cat`, `head`, `printf`, `cmp`, `{`, ...); pipes, `>` redirects and
//!   here-docs (`<<'EOF'` ... `EOF`) are bash's own;
//! - comment lines are kept (bash ignores them);
//! - every other line is skipped, and said so on stderr: lines starting with `cargo`, `pip`,
//!   `python`, `spark-submit`, `git`, `hyperfine`, `target/...` or any other tool are not run by
//!   this test. A block with a line `python -m sudoku_batch...` is skipped whole: it belongs to
//!   `python/tests/test_docs.py`, which runs it where pyspark is installed; so is a block with
//!   the line [`CLUSTER`]: `python/tests/test_spark_cluster.py` runs it on a standalone cluster.
//!
//! Annotations the test understands (trailing comments on a command line, except the last):
//!
//! - `# exits N`: the command exits with code N (not 0); the test asserts that code.
//! - `# -> TEXT`: the command prints TEXT on stdout (one line; compared with leading and
//!   trailing whitespace trimmed). Not on a line that opens a here-doc.
//! - `# not run by the tests: REASON`: as a comment line at the top of a block (after a shebang
//!   or other comments), the whole block is not run (it needs the public data sets, a cluster, or
//!   takes long); as a trailing comment, that line is not run.
//!
//! Shown output: a ` ```text ` block right after a ` ```sh ` block (blank lines between them
//! allowed) is what the block prints on the terminal, stdout and stderr together in the order
//! they are written; the test compares it line by line (trailing whitespace ignored). In it,
//! `[..]` matches any text within a line (timings, rates, the core count) and a line `...`
//! matches any number of lines. A block with shown output must run whole (no skipped line).
//!
//! Blocks that would need `SUDOKU_DATA_DIR`, a cluster or minutes of work are marked not run.
//! The whole test takes a few seconds in release mode.
//!
//! The other blocks: ` ```python ` blocks are run by `python/tests/test_docs.py`; ` ```rust `
//! blocks are compiled and run as doctests (src/lib.rs includes these files under
//! `cfg(doctest)`); ` ```text ` blocks that follow no ` ```sh ` block are only text.
#![cfg(unix)]

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Commands, besides `sudoku-batch`, that a runnable line may start with.
const SHELL: &[&str] = &[
    "cat", "head", "tail", "printf", "echo", "wc", "sort", "uniq", "cut", "paste", "diff", "cmp",
    "grep", "tr", "sed", "awk", "ls", "rm", "mkdir", "test", "{", "(", "for", "do", "done",
];

/// The annotation that keeps a block or a line from being run.
const NOT_RUN: &str = "# not run by the tests";

/// The annotation of the Spark cluster recipe's blocks, which the Python cluster test runs.
const CLUSTER: &str = "# run on a standalone cluster by python/tests/test_spark_cluster.py";

/// Longest a block may run.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, then docs/*.md in name order.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = fs::read_dir(repo().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    docs.insert(0, repo().join("README.md"));
    docs
}

/// A fenced code block of a Markdown file.
#[derive(Debug, Clone)]
struct Block {
    /// The info string after the opening fence (`sh`, `text`, `rust,ignore`, ...).
    lang: String,
    /// 1-based line of the block's first content line.
    line: usize,
    body: Vec<String>,
}

/// The fenced blocks of a Markdown file (fences at the start of a line, three backticks), each
/// with the number of blank lines between it and the previous block's closing fence (`None` if
/// any other text lies between).
fn blocks(text: &str) -> Vec<(Block, Option<usize>)> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    let mut gap: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut open {
            Some(block) => {
                if line.trim_end() == "```" {
                    out.push((open.take().unwrap(), gap));
                    gap = Some(0);
                } else {
                    block.body.push(line.to_string());
                }
            }
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some(Block {
                        lang: info.trim().to_string(),
                        line: i + 2,
                        body: Vec::new(),
                    });
                } else if line.trim().is_empty() {
                    gap = gap.map(|g| g + 1);
                } else {
                    gap = None;
                }
            }
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    out
}

/// Where an annotation comment starts in a line, if it has one.
fn annotation(line: &str, tag: &str) -> Option<usize> {
    let i = line.rfind(tag)?;
    (i == 0 || line[..i].ends_with(char::is_whitespace)).then_some(i)
}

/// What the script of one block holds, and what it skipped.
struct Script {
    text: String,
    skipped: Vec<String>,
    run_lines: usize,
}

/// Quotes `s` for bash, in single quotes.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The bash script for one ```sh block (`None`: the block is not run at all).
fn script(block: &Block, place: &str) -> Option<Script> {
    // The annotation may follow a shebang or other comments at the top of the block.
    let top = block
        .body
        .iter()
        .map(|l| l.trim_start())
        .take_while(|l| l.is_empty() || l.starts_with('#'));
    if top.into_iter().any(|l| l.starts_with(NOT_RUN)) {
        return None;
    }
    if block
        .body
        .iter()
        .any(|l| l.trim_start().starts_with("python -m sudoku_batch"))
    {
        return None; // python/tests/test_docs.py runs it
    }
    if block
        .body
        .iter()
        .any(|l| l.trim_start().starts_with(CLUSTER))
    {
        return None; // python/tests/test_spark_cluster.py runs it, on a standalone Spark cluster
    }
    // Logical lines: a trailing backslash joins the next line; here-doc bodies pass verbatim.
    let mut lines: Vec<(usize, String, bool)> = Vec::new(); // (doc line, text, is a here-doc body line)
    let mut heredoc: Option<String> = None; // the terminator of the here-doc being read
    let mut pending: Option<(usize, String)> = None;
    for (k, raw) in block.body.iter().enumerate() {
        let doc_line = block.line + k;
        if let Some(end) = &heredoc {
            let done = raw.trim() == end;
            lines.push((doc_line, raw.clone(), true));
            if done {
                heredoc = None;
            }
            continue;
        }
        let (start, mut text) = pending.take().unwrap_or((doc_line, String::new()));
        if let Some(head) = raw.strip_suffix('\\') {
            text.push_str(head);
            pending = Some((start, text));
            continue;
        }
        text.push_str(raw);
        if let Some(i) = text.find("<<") {
            let word: String = text[i + 2..]
                .trim_start_matches('-')
                .trim_start()
                .trim_start_matches(['\'', '"'])
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !word.is_empty() {
                heredoc = Some(word);
            }
        }
        lines.push((start, text, false));
    }
    assert!(
        pending.is_none(),
        "{place}: the block ends with a backslash"
    );
    assert!(heredoc.is_none(), "{place}: a here-doc is never ended");

    let mut text = String::from(PRELUDE);
    let mut skipped = Vec::new();
    let mut run_lines = 0;
    let mut skipping_body = false;
    for (doc_line, line, body) in lines {
        if body {
            if !skipping_body {
                text.push_str(&line);
                text.push('\n');
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            text.push_str(&line);
            text.push('\n');
            continue;
        }
        let word = trimmed.split_whitespace().next().unwrap_or("");
        let runnable = word == "sudoku-batch" || SHELL.contains(&word);
        skipping_body = !runnable || annotation(&line, NOT_RUN).is_some();
        if skipping_body {
            skipped.push(format!("{place}: line {doc_line}: {trimmed}"));
            continue;
        }
        run_lines += 1;
        let at = format!("line {doc_line}");
        if let Some(i) = annotation(&line, "# exits ") {
            let code: i32 = line[i + "# exits ".len()..]
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{place}: {at}: `# exits N` needs a number"));
            text.push_str(&format!(
                "{} && __docs_rc=0 || __docs_rc=$?; __docs_exits {code} \"$__docs_rc\" {}\n",
                line[..i].trim_end(),
                quote(&at)
            ));
        } else if let Some(i) = annotation(&line, "# -> ") {
            let want = line[i + "# -> ".len()..].trim();
            text.push_str(&format!(
                "__docs_out=\"$({})\"; printf '%s\\n' \"$__docs_out\"; __docs_prints {} \"$__docs_out\" {}\n",
                line[..i].trim_end(),
                quote(want),
                quote(&at)
            ));
        } else {
            text.push_str(&line);
            text.push('\n');
        }
    }
    Some(Script {
        text,
        skipped,
        run_lines,
    })
}

/// Helpers every script starts with: stderr joins stdout (the order a terminal shows), and the
/// checks behind `# exits N` and `# -> TEXT`.
const PRELUDE: &str = r#"exec 2>&1
__docs_exits() {
    if [ "$2" != "$1" ]; then
        echo "docs: $3: expected exit code $1, got $2"
        exit 90
    fi
}
__docs_prints() {
    local got
    got="$(printf '%s' "$2" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')"
    if [ "$got" != "$1" ]; then
        printf 'docs: %s: expected output: %s\ndocs: %s: printed:         %s\n' "$3" "$1" "$3" "$got"
        exit 91
    fi
}
"#;

/// Runs a script in `dir`; its exit status and output (stdout and stderr together).
fn run(script: &str, dir: &Path, path_dir: &Path) -> (Option<i32>, String) {
    let file = dir.join(".docs-block.sh");
    fs::write(&file, script).unwrap();
    let path = format!(
        "{}:{}",
        path_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("bash")
        .args(["-euo", "pipefail"])
        .arg(&file)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("SUDOKU_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("bash runs");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).unwrap();
        out
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > BLOCK_TIMEOUT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("a block ran longer than {BLOCK_TIMEOUT:?}:\n{script}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = reader.join().unwrap();
    let _ = fs::remove_file(&file);
    (status.code(), String::from_utf8_lossy(&out).into_owned())
}

/// Lines with trailing whitespace removed, and without trailing blank lines.
fn normalized(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Does `line` match `pattern`, where `[..]` in the pattern matches any text?
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("[..]");
    let first = parts.next().unwrap();
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (k, part) in parts.iter().enumerate() {
        if k + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Do the output lines match the shown lines (`...` lines match any number of lines)?
fn output_matches(want: &[String], got: &[String]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w == "..." => (0..=got.len()).any(|k| output_matches(rest, &got[k..])),
        Some((w, rest)) => {
            !got.is_empty() && line_matches(w, &got[0]) && output_matches(rest, &got[1..])
        }
    }
}

/// What one document's run found.
#[derive(Default, Debug)]
struct Report {
    blocks_run: usize,
    outputs_checked: usize,
    annotated: usize,
    not_run: usize,
    skipped_lines: Vec<String>,
}

fn run_document(doc: &Path, bin_dir: &Path) -> Report {
    let name = doc.strip_prefix(repo()).unwrap().display().to_string();
    let text = fs::read_to_string(doc).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo().join("data"), dir.path().join("data")).unwrap();
    let all = blocks(&text);
    let mut report = Report::default();
    for (k, (block, _)) in all.iter().enumerate() {
        if block.lang != "sh" {
            continue;
        }
        let place = format!("{name}:{}", block.line);
        let shown = all
            .get(k + 1)
            .filter(|(next, gap)| next.lang == "text" && gap.is_some())
            .map(|(next, _)| next.body.join("\n"));
        let Some(script) = script(block, &place) else {
            report.not_run += 1;
            continue;
        };
        report.skipped_lines.extend(script.skipped.iter().cloned());
        if script.run_lines == 0 {
            assert!(
                shown.is_none(),
                "{place}: the block shows output but none of its lines is run"
            );
            continue;
        }
        assert!(
            shown.is_none() || script.skipped.is_empty(),
            "{place}: the block shows output, so every line of it must run; skipped: {:?}",
            script.skipped
        );
        report.annotated += script.text.matches("__docs_rc=0").count()
            + script.text.matches("__docs_prints '").count();
        let (code, out) = run(&script.text, dir.path(), bin_dir);
        assert_eq!(
            code,
            Some(0),
            "{place}: the block failed (exit {code:?}); its output:\n{out}\n--- script:\n{}",
            script.text
        );
        report.blocks_run += 1;
        if let Some(shown) = shown {
            let want = normalized(&shown);
            let got = normalized(&out);
            assert!(
                output_matches(&want, &got),
                "{place}: the output differs from the text block after it\n--- shown:\n{}\n--- printed:\n{}\n",
                want.join("\n"),
                got.join("\n")
            );
            report.outputs_checked += 1;
        }
    }
    report
}

#[test]
fn shell_examples_in_the_docs_run_as_shown() {
    let start = Instant::now();
    let bin_dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_sudoku-batch"),
        bin_dir.path().join("sudoku-batch"),
    )
    .unwrap();
    let mut total = Report::default();
    for doc in documents() {
        let report = run_document(&doc, bin_dir.path());
        eprintln!(
            "{}: {} blocks run, {} outputs checked, {} annotated commands, {} blocks not run",
            doc.strip_prefix(repo()).unwrap().display(),
            report.blocks_run,
            report.outputs_checked,
            report.annotated,
            report.not_run
        );
        if doc.ends_with("README.md") {
            // Guards against a parser that silently finds nothing to run.
            assert!(
                report.blocks_run >= 8,
                "README.md: only {} blocks ran",
                report.blocks_run
            );
            assert!(
                report.outputs_checked >= 6,
                "README.md: only {} outputs checked",
                report.outputs_checked
            );
        }
        total.blocks_run += report.blocks_run;
        total.outputs_checked += report.outputs_checked;
        total.skipped_lines.extend(report.skipped_lines);
    }
    for line in &total.skipped_lines {
        eprintln!("not run (another tool, or marked): {line}");
    }
    eprintln!(
        "docs: {} blocks run, {} outputs checked, in {:.1} s",
        total.blocks_run,
        total.outputs_checked,
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn the_newcomer_test_command_is_marked_once() {
    // .ci/run greps the ```sh blocks of README.md for this marker and runs that line in a fresh
    // clone: it must be there exactly once, on the test command.
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let marked: Vec<&str> = readme
        .lines()
        .filter(|l| l.contains("# run the tests"))
        .collect();
    assert_eq!(
        marked.len(),
        1,
        "README.md: lines marked '# run the tests': {marked:?}"
    );
    assert!(
        marked[0].starts_with("cargo test --release"),
        "{}",
        marked[0]
    );
    let first = blocks(&readme)
        .into_iter()
        .next()
        .expect("README.md has a code block")
        .0;
    assert_eq!(first.lang, "sh");
    assert!(first.body.iter().any(|l| l.contains("# run the tests")));
    assert!(
        first.body[0].starts_with("cargo run --release -- solve data/sample.txt -o solutions.txt")
    );
}

#[test]
fn matcher_rules() {
    let v = |s: &str| normalized(s);
    assert!(output_matches(&v("a\n...\nd"), &v("a\nb\nc\nd")));
    assert!(output_matches(&v("a\n...\nb"), &v("a\nb")));
    assert!(!output_matches(&v("a\nb"), &v("a\nb\nc")));
    assert!(line_matches(
        "x [..] s, [..] puzzles/s",
        "x 0.001 s, 5376 puzzles/s"
    ));
    assert!(line_matches("[..]", "anything"));
    assert!(!line_matches("a[..]b", "ac"));
    assert!(!line_matches("abc", "abcd"));
    assert_eq!(
        annotation("sudoku-batch x   # exits 1", "# exits "),
        Some(17)
    );
    assert_eq!(annotation("printf 'a# exits 1'", "# exits "), None);
}
