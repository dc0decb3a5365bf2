//! The grader: every placement and every removal of every step agrees with the solution the
//! solver finds; a path that finishes without trial ends on that solution; the grade is the same
//! for every isomorph of a puzzle.

mod common;

use sudoku_batch::grade::{
    explain_with_options, grade, grade_with_options, logical_fill, Grade, Options, Technique,
};
use sudoku_batch::{Grid, Transform};

/// Grades `text`, checking each step against the solution; returns the grade.
fn checked(text: &str) -> Grade {
    checked_with(text, Options::default())
}

/// [`checked`] with `options`.
fn checked_with(text: &str, options: Options) -> Grade {
    let puzzle = Grid::parse(text.as_bytes()).expect("a puzzle");
    let solution = sudoku_batch::solve(&puzzle).solution.expect("solvable");
    let s = solution.cells();
    let mut steps = 0u32;
    let mut last = 0u8;
    // The diamond is the first step's score; the pearl, the highest score up to the first step
    // that places a digit (the whole path's, if none does).
    let (mut diamond, mut pearl) = (None, None);
    // Each step of the path once, however many of its units show its pattern (a step's
    // removals and placement are then made, so no step can recur).
    let mut path: Vec<sudoku_batch::grade::Step> = Vec::new();
    let g = explain_with_options(&puzzle, options, &mut |step| {
        steps += 1;
        assert!(!path.contains(step), "{text}: {step} twice");
        path.push(*step);
        if let Some((c, d)) = step.place {
            assert_eq!(s[usize::from(c)], d, "{text}: {step} places a wrong digit");
        }
        for (d, &m) in step.eliminations.iter().enumerate() {
            for (c, &v) in s.iter().enumerate() {
                if m >> c & 1 == 1 {
                    assert_ne!(
                        usize::from(v),
                        d + 1,
                        "{text}: {step} removes the solution's digit"
                    );
                }
            }
        }
        // Every step places or removes something, but the last word of a path that needs
        // deeper trial than the grader searches.
        let deeper = step.technique == Technique::Trial && step.length >= 2 && step.removed() == 0;
        assert!(
            step.place.is_some() || step.removed() > 0 || deeper,
            "{text}: {step} does nothing"
        );
        last = last.max(step.tenths);
        diamond.get_or_insert(step.tenths);
        if step.place.is_some() {
            pearl.get_or_insert(last);
        }
    })
    .expect("solvable");
    assert_eq!(g.steps, steps, "{text}");
    assert_eq!(g.tenths, last, "{text}");
    assert_eq!(g.diamond, diamond.unwrap_or(0), "{text}");
    assert_eq!(g.pearl, pearl.unwrap_or(last), "{text}");
    assert!(g.diamond <= g.pearl && g.pearl <= g.tenths, "{text}: {g:?}");
    // The values the ladder reaches agree with the solution; all of them unless it needed trial.
    let filled = logical_fill(&puzzle).unwrap();
    for (i, (&v, &w)) in filled.cells().iter().zip(s).enumerate() {
        assert!(v == 0 || v == w, "{text}: cell {i}");
    }
    if !g.hardest.is_some_and(Technique::is_trial) && g.unique {
        assert_eq!(filled, solution, "{text}: the ladder finished elsewhere");
    }
    g
}

fn shipped(name: &str, n: usize) -> Vec<String> {
    common::puzzle_texts(&common::shipped(name))
        .into_iter()
        .take(n)
        .collect()
}

#[test]
fn every_step_of_shipped_puzzles_agrees_with_the_solution() {
    let mut hardest = std::collections::BTreeMap::new();
    for file in [
        "generated_easy_2000.txt",
        "generated_minimal_2000.txt",
        "generated_unique25_2000.txt",
        "sample.txt",
    ] {
        for p in shipped(file, 150) {
            let g = checked(&p);
            *hardest.entry(g.hardest).or_insert(0) += 1;
        }
    }
    // The shipped sets reach well past singles.
    assert!(hardest.len() >= 6, "{hardest:?}");
}

#[test]
fn known_puzzles_grade_as_published() {
    // A singles-only classic: hidden singles in boxes and elsewhere, at most a naked single.
    let easy = checked(
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
    );
    assert!(easy.tenths <= 23, "{easy:?}");
    // "AI Escargot" needs far more than patterns.
    let hard = checked(
        "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    );
    assert!(hard.tenths >= 75, "{hard:?}");
    // A full grid has nothing to do.
    let full = "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
    let g = grade(&Grid::parse(full.as_bytes()).unwrap()).unwrap();
    assert_eq!((g.steps, g.tenths, g.hardest), (0, 0, None));
    assert_eq!((g.pearl, g.diamond), (0, 0));
    assert_eq!((g.band(), g.hardest_text()), ("easy", "none"));
    // One empty cell: one Full House.
    let one = format!("0{}", &full[1..]);
    let g = grade(&Grid::parse(one.as_bytes()).unwrap()).unwrap();
    assert_eq!(
        (g.steps, g.tenths, g.hardest),
        (1, 10, Some(Technique::FullHouse))
    );
    // No solution: no grade.
    let mut cells = [0u8; 81];
    cells[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    cells[80] = 9;
    assert_eq!(grade(&Grid::from_cells(cells).unwrap()), None);
}

#[test]
fn named_patterns_are_found_and_sound() {
    // Puzzles of the shipped sets whose paths use each pattern SE has no rule for; every step
    // is checked against the solution, and the pattern must be on the path (and on the paths of
    // isomorphs, which rename nothing).
    for (technique, p) in [
        (
            Technique::FinnedXWing,
            "093400001001000008840000300100096023060000700002040080054003000000520000000100005",
        ),
        (
            Technique::FinnedSwordfish,
            "061000700300250000000080090010300000600008000080790004007006009400000600000020050",
        ),
        (
            Technique::FinnedJellyfish,
            "090000300020037050000240008000000860840090030005406000200050900001000500300000020",
        ),
        (
            Technique::SimpleColoring,
            "000040000800020004003009000080006102005810000064090080000000008000050031300280705",
        ),
        (
            Technique::WWing,
            "800300000704806003100020000009000500000700008620000000008005040001070080005000201",
        ),
        (
            Technique::AlsXyWing,
            "400600020070000009805007000000900004300005000080001070008000040000000200590476310",
        ),
        (
            Technique::AlsXz,
            "300005742500300100020094000000000800060003004095080030200000001050000000700020008",
        ),
    ] {
        checked(p);
        let puzzle = Grid::parse(p.as_bytes()).unwrap();
        for k in 0..4 {
            let moved = if k == 0 {
                puzzle
            } else {
                Transform::random(40 + k).apply(&puzzle)
            };
            let (_, steps) = sudoku_batch::grade::explain(&moved).unwrap();
            assert!(
                steps.iter().any(|s| s.technique == technique),
                "{p} (isomorph {k}): no {technique} on the path"
            );
        }
    }
}

fn isomorphs_agree(puzzles: &[String], seed: u64) {
    for (i, p) in puzzles.iter().enumerate() {
        let puzzle = Grid::parse(p.as_bytes()).unwrap();
        let g = grade(&puzzle).unwrap();
        for k in 0..3 {
            let moved = Transform::random(seed + 10 * i as u64 + k).apply(&puzzle);
            let h = grade(&moved).unwrap();
            assert_eq!(g, h, "{p}: isomorph {k} grades differently");
        }
    }
}

#[test]
fn grades_are_the_same_for_isomorphs() {
    let mut puzzles = shipped("generated_minimal_2000.txt", 60);
    puzzles.extend(shipped("generated_unique25_2000.txt", 40));
    isomorphs_agree(&puzzles, 1);
}

/// Puzzles of the forum's hardest list (1106), which the standard grade ties at `Trial depth 2+`,
/// with the hardest technique each grades with nested trial (its highest-scoring step's).
const NEEDS_NESTED_TRIAL: [(&str, &str); 3] = [
    (
        "1....67....71.9...68..7......8.6.9..5....2.4.........2..1.9.8...4......3...3...5.",
        "Trial with Chains",
    ),
    (
        "..39.....4...8..36..8...1...4..6..738......1......2.....4.7..686........7.....5..",
        "Trial with Forcing Chains",
    ),
    (
        "5.......9.2.1...7...8...3...4...2.......5.......7.6.1...3...8...6...4.2.9.......5",
        "Trial with Forcing Chains",
    ),
];

#[test]
#[ignore = "about a second a puzzle in a release build, minutes in a debug one; CI runs it"]
fn nested_trial_is_sound_ranks_the_top_and_is_the_same_for_isomorphs() {
    let nested = Options { nested: true };
    let key = |g: &Grade| (g.tenths, g.hardest, g.trial_depth, g.steps);
    for (p, level) in NEEDS_NESTED_TRIAL {
        let puzzle = Grid::parse(p.as_bytes()).unwrap();
        let standard = grade(&puzzle).unwrap();
        assert_eq!(
            (standard.hardest_text(), standard.tenths),
            ("Trial depth 2+", 105)
        );
        let g = checked_with(p, nested);
        assert_eq!(g.hardest_text(), level, "{p}");
        assert!((100..120).contains(&g.tenths), "{p}: {g:?}");
        for k in 0..2 {
            let moved = Transform::random(40 + k).apply(&puzzle);
            let h = grade_with_options(&moved, nested).unwrap();
            assert_eq!(key(&g), key(&h), "{p}: isomorph {k} grades differently");
        }
        // The command line and its explanation.
        let line = bin()
            .args(["grade", "-q", "--nested"])
            .write_stdin(format!("{p}\n"))
            .assert()
            .success();
        let want = format!("{:.1} trial {level}\n", g.se_estimate());
        assert_eq!(String::from_utf8_lossy(&line.get_output().stdout), want);
    }
    // A puzzle with several solutions is not searched: logic cannot finish it at any depth.
    let open = Grid::parse(format!("1{}", ".".repeat(80)).as_bytes()).unwrap();
    let g = grade_with_options(&open, nested).unwrap();
    assert_eq!(
        (g.hardest_text(), g.tenths, g.unique),
        ("Trial depth 2+", 105, false)
    );
    // A puzzle that needs no nested trial grades as without the option.
    for p in shipped("generated_minimal_2000.txt", 30) {
        let puzzle = Grid::parse(p.as_bytes()).unwrap();
        let g = grade_with_options(&puzzle, nested).unwrap();
        assert_eq!(key(&g), key(&grade(&puzzle).unwrap()), "{p}");
    }
}

fn public(file: &str, n: usize) -> Vec<String> {
    let all = common::data_puzzles(file);
    let step = (all.len() / n).max(1);
    all.into_iter().step_by(step).take(n).collect()
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn every_step_of_public_puzzles_agrees_with_the_solution() {
    for (file, n) in [
        ("puzzles2_17_clue", 300),
        ("puzzles3_magictour_top1465", 150),
        ("puzzles5_forum_hardest_1905_11+", 10),
        ("puzzles6_forum_hardest_1106", 10),
        ("puzzles7_serg_benchmark", 100),
    ] {
        for p in public(file, n) {
            let g = checked(&p);
            if file.contains("serg") {
                assert!(
                    !g.unique && g.hardest == Some(Technique::Trial),
                    "{p}: {g:?}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn public_grades_are_the_same_for_isomorphs() {
    isomorphs_agree(&public("puzzles3_magictour_top1465", 60), 7);
    isomorphs_agree(&public("puzzles2_17_clue", 60), 8);
    isomorphs_agree(&public("puzzles7_serg_benchmark", 30), 9);
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR; about a second a puzzle in a release build"]
fn nested_grades_of_the_hardest_list_are_sound_and_the_same_for_isomorphs() {
    let nested = Options { nested: true };
    let mut levels = std::collections::BTreeSet::new();
    for (i, p) in public("puzzles6_forum_hardest_1106", 12).iter().enumerate() {
        let g = checked_with(p, nested);
        levels.insert(g.hardest_text());
        let moved = Transform::random(60 + i as u64).apply(&Grid::parse(p.as_bytes()).unwrap());
        let h = grade_with_options(&moved, nested).unwrap();
        assert_eq!(g, h, "{p}: an isomorph grades differently");
    }
    // The sample takes both levels that the hardest list needs (none needs trial of depth 2).
    let want = ["Trial with Chains", "Trial with Forcing Chains"];
    assert!(want.iter().all(|l| levels.contains(l)), "{levels:?}");
}

fn bin() -> assert_cmd::Command {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

#[test]
fn the_grade_command_answers_line_and_csv_input_with_bad_records_in_place() {
    let puzzles = shipped("generated_minimal_2000.txt", 30);
    let mut lines = puzzles.join("\n");
    lines.push_str("\n12345\n");
    let out = bin()
        .args(["grade", "-q"])
        .write_stdin(lines)
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got.len(), 31);
    for (p, line) in puzzles.iter().zip(&got) {
        let g = grade(&Grid::parse(p.as_bytes()).unwrap()).unwrap();
        let want = format!("{:.1} {} {}", g.se_estimate(), g.band(), g.hardest_text());
        assert_eq!(*line, want);
    }
    assert_eq!(got[30], "invalid: expected 81 cells, found 5");

    let mut csv = String::from("id,puzzle\n");
    for (i, p) in puzzles.iter().enumerate().take(5) {
        csv.push_str(&format!("{i},{p}\n"));
    }
    csv.push_str("5,oops\n");
    let out = bin()
        .args(["grade", "-q"])
        .write_stdin(csv)
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(
        rows[0],
        "id,puzzle,grade,se_estimate,hardest,steps,se_pearl,se_diamond,status"
    );
    for (i, p) in puzzles.iter().enumerate().take(5) {
        let g = grade(&Grid::parse(p.as_bytes()).unwrap()).unwrap();
        let want = format!(
            "{i},{p},{},{:.1},{},{},{:.1},{:.1},ok",
            g.band(),
            g.se_estimate(),
            g.hardest_text(),
            g.steps,
            g.se_pearl(),
            g.se_diamond()
        );
        assert_eq!(rows[i + 1], want);
    }
    assert_eq!(
        rows[6],
        "5,oops,,,,,,,\"invalid: expected 81 cells, found 4\""
    );
}

#[test]
fn explain_prints_each_step_and_the_grade() {
    let p = &shipped("generated_minimal_2000.txt", 1)[0];
    let (g, steps) = sudoku_batch::grade::explain(&Grid::parse(p.as_bytes()).unwrap()).unwrap();
    let explained = |puzzle: &str| {
        let out = bin()
            .args(["grade", "--explain"])
            .write_stdin(format!("{puzzle}\n"))
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let text = explained(p);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), steps.len() + 3, "{text}");
    assert_eq!(lines[1], format!("   1. {}", steps[0]));
    let grade_line = format!(
        "grade: {:.1} {} {} ({} steps; pearl {:.1}, diamond {:.1})",
        g.se_estimate(),
        g.band(),
        g.hardest_text(),
        steps.len(),
        g.se_pearl(),
        g.se_diamond()
    );
    assert_eq!(lines[steps.len() + 1], grade_line);
    // One blank left: one step, so "step".
    let solution = sudoku_batch::solve(&Grid::parse(p.as_bytes()).unwrap())
        .solution
        .unwrap();
    let text = explained(&format!(".{}", &solution.to_line()[1..]));
    assert!(
        text.ends_with("\ngrade: 1.0 easy Full House (1 step; pearl 1.0, diamond 1.0)\n\n"),
        "{text}"
    );
}

/// `--explain` runs in the batch engine like every task: the same bytes at any thread count, and
/// shards that join into the whole, from lines and from grids (whose blocks the writer would
/// otherwise separate with a blank line of their own), over many blocks.
#[test]
fn explain_is_the_same_at_any_thread_count_and_over_shards() {
    let puzzles = shipped("generated_minimal_2000.txt", 300);
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("p.txt");
    std::fs::write(&lines, puzzles.join("\n") + "\n").unwrap();
    let grids = dir.path().join("p.grids");
    let grid_text: Vec<String> = puzzles
        .iter()
        .map(|p| {
            let rows: Vec<&str> = (0..9).map(|r| &p[9 * r..9 * r + 9]).collect();
            rows.join("\n") + "\n"
        })
        .collect();
    std::fs::write(&grids, grid_text.join("\n")).unwrap();
    for input in [&lines, &grids] {
        let run = |args: &[&str]| {
            let out = bin()
                .args(["grade", "-q", "--explain"])
                .args(args)
                .arg(input)
                .assert()
                .success();
            String::from_utf8(out.get_output().stdout.clone()).unwrap()
        };
        let whole = run(&["-j", "1"]);
        assert_eq!(run(&["-j", "3"]), whole, "{}", input.display());
        let shards =
            run(&["--shard", "1/3"]) + &run(&["--shard", "2/3"]) + &run(&["--shard", "3/3"]);
        assert_eq!(shards, whole, "{}", input.display());
        // Each puzzle: its line, then its path, ending on a grade line and one blank line.
        assert_eq!(whole.matches("\ngrade: ").count(), puzzles.len());
        assert_eq!(whole.matches("\n\n").count(), puzzles.len());
        assert!(!whole.contains("\n\n\n"));
    }
}

/// Every record keeps its place: one that is not a puzzle gets its status and a blank line, a
/// puzzle without a solution its status under the puzzle, each with a message naming its line;
/// a byte-order mark is skipped.
#[test]
fn explain_gives_every_record_its_place_and_status() {
    let p = &shipped("generated_minimal_2000.txt", 1)[0];
    let clash = format!("11{}", ".".repeat(79));
    // No clash, but no solution: 9, the only digit left for r1c9, sees the given 9 in r2c9.
    let dead = format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63));
    let input = format!("\u{feff}{p}\noops\n{clash}\n{dead}\n{p}\n");
    let out = bin()
        .args(["grade", "--explain"])
        .write_stdin(input)
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let records: Vec<&str> = text.split_terminator("\n\n").collect();
    assert_eq!(records.len(), 5, "{text}");
    assert!(records[0].starts_with(&format!("{}\n   1. ", Grid::parse(p.as_bytes()).unwrap())));
    assert_eq!(records[0], records[4]);
    assert_eq!(records[1], "invalid: expected 81 cells, found 4");
    assert!(records[2].ends_with("\ninvalid: givens clash: digit 1 appears twice in row 1"));
    assert!(records[3].ends_with("\nunsolvable"), "{}", records[3]);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    for line in [
        "<stdin>:2: invalid",
        "<stdin>:3: invalid",
        "<stdin>:4: unsolvable",
    ] {
        assert!(err.contains(line), "{line} in {err}");
    }
}

/// An input `--explain` cannot answer as text is refused whole, with nothing written: a table
/// (CSV, Parquet), binary data.
#[test]
fn explain_refuses_inputs_it_cannot_write_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("q.csv");
    let p = &shipped("generated_minimal_2000.txt", 1)[0];
    std::fs::write(&csv, format!("quizzes,solutions\n{p},\n")).unwrap();
    let nul = dir.path().join("nul.txt");
    std::fs::write(&nul, vec![0u8; 100_000]).unwrap();
    let parquet = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.parquet");
    for (input, says) in [
        (&csv, "not from a CSV input"),
        (&nul, "NUL bytes"),
        (&parquet, "not from a Parquet or Arrow input"),
    ] {
        let out = bin()
            .args(["grade", "--explain"])
            .arg(input)
            .assert()
            .code(2);
        assert!(out.get_output().stdout.is_empty());
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(err.contains(says), "{says} in {err}");
    }
}

#[test]
fn the_long_version_names_the_grade_version() {
    let out = bin().arg("--version").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let want = format!("grade version: {}", sudoku_batch::grade::GRADE_VERSION);
    assert!(text.lines().any(|l| l == want), "{text}");
}
