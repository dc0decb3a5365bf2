//! Nothing lost or left behind: signals mid-run, an input that shrinks under the map, output
//! modes, symbolic links and long names. Each test drives the real binary.
#![cfg(unix)]

mod common;

use common::entries;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

fn sample() -> PathBuf {
    common::shipped("sample.txt")
}

/// Runs `command` reading `puzzles` 2,000 times over from a pipe that stays open (so the run is
/// certainly under way), sends it `signal` after 300 ms, and returns its status and stderr.
fn stopped_mid_run(
    mut command: Command,
    puzzles: &[u8],
    signal: i32,
) -> (std::process::ExitStatus, String) {
    let mut child = command
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for _ in 0..2000 {
        stdin.write_all(puzzles).unwrap();
    }
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let status = child.wait().unwrap();
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, err)
}

#[test]
fn a_signal_mid_run_leaves_no_file_and_exits_128_plus_n() {
    let puzzles = std::fs::read(sample()).unwrap();
    for (signal, code) in [
        (libc::SIGINT, Some(130)),
        (libc::SIGTERM, Some(143)),
        (libc::SIGHUP, Some(129)),
        (libc::SIGKILL, None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let mut solve = bin();
        solve.args(["solve", "-q", "-j", "2", "-", "-o"]).arg(&out);
        let (status, err) = stopped_mid_run(solve, &puzzles, signal);
        assert_eq!(status.code(), code, "signal {signal}");
        if let Some(code) = code {
            let name = match code {
                130 => "SIGINT",
                143 => "SIGTERM",
                _ => "SIGHUP",
            };
            let line = format!("sudoku-batch: error: stopped by {name}; no output was written\n");
            assert!(err.ends_with(&line), "signal {signal}: {err}");
        }
        assert_eq!(
            entries(dir.path()),
            Vec::<String>::new(),
            "signal {signal}: files left"
        );
    }
}

/// A signal that comes as a run ends finds its output either not yet in place (the old file is
/// untouched) or in place and whole, and says which: runs stopped at times spread around a run's
/// length, so that some land before, some after and, now and then, some at the rename.
#[test]
fn a_signal_at_the_end_of_a_run_says_whether_the_output_is_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let status = bin()
        .args(["generate", "-n", "20000", "--seed", "3", "-o"])
        .arg(&input)
        .status()
        .unwrap();
    assert!(status.success());
    let out = dir.path().join("out.txt");
    let solve = || {
        let mut c = bin();
        c.args(["solve", "-q", "-j", "2"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .stderr(Stdio::piped());
        c
    };
    let started = std::time::Instant::now();
    assert!(solve().status().unwrap().success());
    let length = started.elapsed();
    let whole = std::fs::read(&out).unwrap();
    // SIGBUS (which a shrinking input raises; here sent by hand) says where the output is too.
    for (signal, code, cause) in [
        (libc::SIGINT, 130, "stopped by SIGINT"),
        (
            libc::SIGBUS,
            2,
            "the input file changed (shrank?) while it was read",
        ),
    ] {
        let (mut before, mut after) = (0, 0);
        for i in 0..40u32 {
            std::fs::write(&out, "previous\n").unwrap();
            let child = solve().spawn().unwrap();
            std::thread::sleep(length * (60 + 2 * i) / 100);
            // SAFETY: kill(2) on our own child's pid (it may have exited: then nothing is sent).
            unsafe { libc::kill(child.id() as i32, signal) };
            let done = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&done.stderr);
            let now = std::fs::read(&out).unwrap();
            match done.status.code() {
                Some(0) => assert_eq!(now, whole, "run {i}: a finished run's output"),
                Some(c) if c == code && now == b"previous\n" => {
                    assert!(
                        err.ends_with(&format!("{cause}; no output was written\n")),
                        "{err}"
                    );
                    before += 1;
                }
                Some(c) if c == code => {
                    assert_eq!(now, whole, "run {i}: an output in place is whole");
                    assert!(
                        err.ends_with(&format!("{cause}; the output was already complete\n")),
                        "run {i}: the old output was replaced, so the message must say so: {err}"
                    );
                    after += 1;
                }
                // Stopped before its handler was set up (a slow start): nothing was written.
                None if now == b"previous\n"
                    && done.status.signal() == Some(signal)
                    && err.is_empty() =>
                {
                    before += 1
                }
                c => panic!("run {i}: exit {c:?}: {err}"),
            }
            assert_eq!(
                entries(dir.path()).len(),
                2,
                "run {i}: files left beside the output"
            );
        }
        eprintln!("{cause}: before the rename {before}, after it {after}");
    }
}

/// Waits (up to a minute) until the pipe whose read end is `reader` holds as many bytes as it can:
/// all it can, or all but less than a page and no more for 200 ms (the writer's last write may
/// not fit in what is left, and then blocks whole).
#[cfg(target_os = "linux")] // F_GETPIPE_SZ
fn wait_for_a_full_pipe(reader: &std::fs::File) {
    use std::os::fd::AsRawFd;
    let fd = reader.as_raw_fd();
    let capacity = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
    assert!(
        capacity > 0,
        "F_GETPIPE_SZ: {}",
        std::io::Error::last_os_error()
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let (mut last, mut same) = (-1, 0);
    loop {
        let mut queued: libc::c_int = 0;
        assert_eq!(unsafe { libc::ioctl(fd, libc::FIONREAD, &mut queued) }, 0);
        same = if queued == last { same + 1 } else { 0 };
        last = queued;
        if queued >= capacity || queued > capacity - 4096 && same >= 20 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the pipe held {queued} of {capacity} bytes after a minute"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// How a stalled run is given its input.
#[cfg(target_os = "linux")]
#[derive(Clone, Copy)]
enum Given {
    /// By name.
    Named,
    /// As standard input (`solve - < input`).
    OnStdin,
}

/// Runs `solve -j 1` on `input` (large) into a FIFO whose reader holds it without reading, so
/// the run stalls with most of its input unread; then calls `change` and drains the FIFO.
/// Returns what the run ended with.
#[cfg(target_os = "linux")]
fn solve_stalled_then(input: &Path, given: Given, change: impl FnOnce()) -> std::process::Output {
    use std::os::unix::fs::OpenOptionsExt;
    let fifo = input.with_extension("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut cmd = bin();
    cmd.args(["solve", "-q", "-j", "1"]);
    match given {
        Given::Named => cmd.arg(input),
        Given::OnStdin => cmd.arg("-").stdin(std::fs::File::open(input).unwrap()),
    };
    let child = cmd
        .arg("-o")
        .arg(&fifo)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Change the input only once the pipe is full: the run has opened its input, answered the
    // start of it and stalled (a fixed sleep could fire before a slow machine started the run).
    wait_for_a_full_pipe(&reader);
    change();
    let drain = std::thread::spawn(move || {
        let mut reader = reader;
        let mut buf = vec![0; 1 << 16];
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while std::time::Instant::now() < deadline {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("{e}"),
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    drain.join().unwrap();
    std::fs::remove_file(&fifo).unwrap();
    out
}

#[cfg(target_os = "linux")]
#[test]
fn an_input_that_shrinks_under_the_run_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    let puzzles = std::fs::read(sample()).unwrap();
    // Named (mapped: the shrinking raises SIGBUS), and on standard input (streamed: it ends
    // early, and the length tells).
    for (given, said) in [
        (
            Given::Named,
            "the input file changed (shrank?) while it was read; the answers written so far are \
             incomplete",
        ),
        (
            Given::OnStdin,
            "<stdin>: the input file changed while it was read (written in place?); the answers \
             written so far may not match it",
        ),
    ] {
        std::fs::write(&input, puzzles.repeat(20_000)).unwrap(); // 37 MB
        let out = solve_stalled_then(&input, given, || {
            std::fs::File::create(&input).unwrap(); // truncate it to nothing
        });
        assert_eq!(out.status.code(), Some(2), "{said}");
        // The answers went to a pipe, where what was written stays: the message must not say
        // that nothing was written.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(said) && !stderr.contains("no output was written"),
            "{stderr}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_input_written_in_place_during_the_run_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    let puzzles = std::fs::read(sample()).unwrap().repeat(20_000); // 37 MB

    // Named, and on standard input, which is then read as a stream.
    for (given, name) in [(Given::Named, "big.txt"), (Given::OnStdin, "<stdin>")] {
        std::fs::write(&input, &puzzles).unwrap();
        common::backdate(&input);
        // The same bytes, written in place: the answers would be right, but the run cannot
        // know.
        let out = solve_stalled_then(&input, given, || {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&input)
                .unwrap()
                .write_all(&puzzles)
                .unwrap();
        });
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{name}: the input file changed while it was read (written in place?); the answers written so far may not match it")),
            "{stderr}"
        );
    }
}

/// A Parquet file on standard input is checked too: it is read whole, after the output is
/// opened, and its stamp, taken before, is checked once it is answered.
#[cfg(all(target_os = "linux", feature = "parquet"))]
#[test]
fn a_parquet_input_on_stdin_written_in_place_during_the_run_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.parquet");
    let bytes = std::fs::read(common::shipped("sample.parquet")).unwrap();
    std::fs::write(&input, &bytes).unwrap();
    common::backdate(&input);
    let fifo = dir.path().join("out.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let child = bin()
        .args(["solve", "-q", "-", "-o"])
        .arg(&fifo)
        .stdin(std::fs::File::open(&input).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run blocks opening its output until a reader comes: by then it has taken the stamp
    // and read nothing.
    let wchan = format!("/proc/{}/wchan", child.id());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&wchan).unwrap_or_default() != "wait_for_partner" {
        assert!(
            std::time::Instant::now() < deadline,
            "the run did not reach its output in a minute"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    let mut answers = Vec::new();
    std::fs::File::open(&fifo)
        .unwrap()
        .read_to_end(&mut answers)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "<stdin>: the input file changed while it was read (written in place?); the answers \
             written so far may not match it"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn answers_appended_to_their_own_input_are_refused_before_any_work() {
    // `solve x >> x` (as `cat x >> x` is refused): standard output writes into the input file,
    // named or standard input.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.txt");
    let puzzles = std::fs::read(sample()).unwrap();
    for (given, name) in [
        ("x.txt", "x.txt"),
        ("- < x.txt", "<stdin>"),
        ("< x.txt", "<stdin>"),
    ] {
        for output in ["", "-o /dev/stdout"] {
            std::fs::write(&input, &puzzles).unwrap();
            let run = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "exec {} solve -q {output} {given} >> x.txt",
                    env!("CARGO_BIN_EXE_sudoku-batch")
                ))
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert_eq!(run.status.code(), Some(2), "{given} {output}");
            assert_eq!(
                String::from_utf8_lossy(&run.stderr),
                format!(
                    "sudoku-batch: error: {name}: the input file is also the output (the answers \
                     would be written into it as it is read); write them to another file\n"
                )
            );
            assert_eq!(std::fs::read(&input).unwrap(), puzzles, "{given} {output}");
        }
    }
    // Replaced whole, the input may be the output.
    let run = bin()
        .args(["solve", "-q", "x.txt", "-o", "x.txt"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
}

#[test]
fn new_files_follow_the_umask_and_replaced_files_keep_their_mode_without_setuid() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.txt");
    // `sh -c 'umask 027; ...'`: the umask of the child only.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 027 && exec {} solve -q {} -o {}",
            env!("CARGO_BIN_EXE_sudoku-batch"),
            sample().display(),
            new.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&new), 0o640);
    let old = dir.path().join("old.txt");
    std::fs::write(&old, "old").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o4751)).unwrap();
    let status = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .arg("-o")
        .arg(&old)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        mode(&old),
        0o751,
        "the mode is kept, the setuid bit dropped"
    );
    assert_eq!(std::fs::read_to_string(&old).unwrap().lines().count(), 20);
}

#[test]
fn a_symlinked_output_is_written_through_to_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.txt");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    let status = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .arg("-o")
        .arg(&link)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(&target).unwrap().lines().count(),
        20
    );
    assert_eq!(entries(dir.path()), ["link.txt", "target.txt"]);
}

#[test]
fn a_long_output_name_works() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("{}.txt", "n".repeat(250)));
    let status = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 20);
}

#[cfg(target_os = "linux")]
#[test]
fn an_output_named_through_proc_self_fd_reaches_the_real_stdout() {
    // Piped: the link names a pipe, written directly.
    let piped = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .args(["-o", "/proc/self/fd/1"])
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert_eq!(String::from_utf8(piped.stdout).unwrap().lines().count(), 20);
    // Redirected to a file: the file the link names gets the answers.
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    let status = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .args(["-o", "/proc/self/fd/1"])
        .stdout(std::fs::File::create(&real).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&real).unwrap().lines().count(), 20);
    assert_eq!(entries(dir.path()), ["real.txt"]);
}

/// `-o /dev/stdout` (or `/dev/fd/N`) when the shell sent that descriptor to a file: the answers
/// go through the shell's descriptor, so what the shell writes before and after them stays, and
/// `>>` appends (renaming a new file over it lost both).
#[cfg(target_os = "linux")]
#[test]
fn an_output_that_is_the_shells_own_file_keeps_what_the_shell_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let sh = |script: &str| {
        let status = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_sudoku-batch"))
            .arg(sample())
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "{script}");
    };
    let lines = |name: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        text.lines().map(str::to_string).collect()
    };
    sh(r#"{ echo header; "$0" solve -q "$1" -o /dev/stdout; echo footer; } > group.txt"#);
    let group = lines("group.txt");
    assert_eq!(group.len(), 22, "{group:?}");
    assert_eq!(
        (group[0].as_str(), group[21].as_str()),
        ("header", "footer")
    );
    assert!(group[1..21].iter().all(|l| l.len() == 81), "{group:?}");

    std::fs::write(dir.path().join("log.txt"), "earlier\n").unwrap();
    sh(r#""$0" solve -q "$1" -o /dev/stdout >> log.txt"#);
    sh(r#""$0" solve -q "$1" -o /dev/fd/3 3>> log.txt"#);
    let log = lines("log.txt");
    assert_eq!(log.len(), 41, "{log:?}");
    assert_eq!(log[0], "earlier");
    assert_eq!(log[1..21], log[21..41]);
    assert_eq!(entries(dir.path()), ["group.txt", "log.txt"]);
}

/// A stop while the answers go through the shell's own file (`-o /dev/stdout` with `> log`) says
/// that the output written so far is incomplete, as for `-o -`: that file is written directly.
/// And a descriptor open for reading only (`-o /dev/fd/3 3< file`) cannot take them: the file is
/// replaced atomically, as any other.
#[cfg(target_os = "linux")]
#[test]
fn a_stop_while_writing_the_shells_own_file_says_the_output_is_incomplete() {
    let puzzles = std::fs::read(sample()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    let mut solve = bin();
    solve
        .args(["solve", "-q", "-j", "2", "-", "-o", "/dev/stdout"])
        .stdout(std::fs::File::create(&log).unwrap());
    let (status, err) = stopped_mid_run(solve, &puzzles, libc::SIGINT);
    assert_eq!(status.code(), Some(130));
    assert!(
        err.contains("the output written so far is incomplete"),
        "{err}"
    );
    assert_eq!(entries(dir.path()), ["log.txt"]);

    let out = dir.path().join("read_only.txt");
    std::fs::write(&out, "old\n").unwrap();
    let status = Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" solve -q "$1" -o /dev/fd/3 3< "$2""#)
        .arg(env!("CARGO_BIN_EXE_sudoku-batch"))
        .arg(sample())
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 20);
}
