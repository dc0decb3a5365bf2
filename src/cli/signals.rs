//! SIGINT, SIGTERM and SIGHUP end a run with a message, the exit code shells expect (128 + the
//! signal) and no output left behind (or, when the signal comes after the output file took its
//! name, the whole output, and a message that says so); SIGBUS, which a mapped input that shrinks under the run
//! raises, ends it with a message and exit 2 instead of a signal death; SIGXFSZ (a file-size
//! limit) is ignored, so the write fails and is reported like any write error.
//!
//! Unnamed output files (Linux) vanish with the process by themselves; the handler removes the
//! named temporary files of other systems through the engine's async-signal-safe
//! `remove_temporary_files`.

#[cfg(unix)]
pub fn install() {
    // Past a file-size limit (`ulimit -f`) a write then fails with EFBIG, a write error with a
    // message and exit 2, instead of the process dying of SIGXFSZ without a word.
    // SAFETY: ignoring a signal installs no handler.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGBUS] {
        // SAFETY: `on_signal` only calls async-signal-safe functions (unlink, write, _exit).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // Every signal blocked while the handler runs: a second one cannot enter it again.
            libc::sigfillset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
pub fn install() {}

/// Whether the answers go to a stream (stdout, a pipe) rather than a file written atomically:
/// what was written there stays, so the SIGBUS message must not say that nothing was.
static OUTPUT_IS_STREAM: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Tells the handler where the answers go.
pub fn output_is_stream(stream: bool) {
    OUTPUT_IS_STREAM.store(stream, std::sync::atomic::Ordering::Relaxed);
}

/// What a stopped run leaves where its answers go.
#[cfg(unix)]
#[derive(Clone, Copy)]
enum Output {
    /// A file that never took its name: nothing.
    None,
    /// A stream: what was written so far.
    Incomplete,
    /// A file renamed into place before the signal came: all of it.
    Whole,
}

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    sudoku_batch::remove_temporary_files();
    let code = if signal == libc::SIGBUS {
        let message: &[u8] = if OUTPUT_IS_STREAM.load(std::sync::atomic::Ordering::Relaxed) {
            b"sudoku-batch: error: the input file changed (shrank?) while it was read; the answers written so far are incomplete\n"
        } else {
            b"sudoku-batch: error: the input file changed (shrank?) while it was read; no output was written\n"
        };
        // SAFETY: write(2) on stderr with a static buffer is async-signal-safe.
        unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
        2
    } else {
        // One write of a whole line: nothing else on stderr can land inside it.
        let stream = OUTPUT_IS_STREAM.load(std::sync::atomic::Ordering::Relaxed);
        macro_rules! stopped {
            ($signal:literal, $output:literal) => {
                concat!(
                    "sudoku-batch: error: stopped by ",
                    $signal,
                    "; ",
                    $output,
                    "\n"
                )
                .as_bytes()
            };
        }
        // A stop just after the output file took its name leaves it whole: say so.
        let output = match stream {
            true => Output::Incomplete,
            false if sudoku_batch::output_committed() => Output::Whole,
            false => Output::None,
        };
        let message: &[u8] = match (signal, output) {
            (libc::SIGINT, Output::None) => stopped!("SIGINT", "no output was written"),
            (libc::SIGINT, Output::Incomplete) => {
                stopped!("SIGINT", "the output written so far is incomplete")
            }
            (libc::SIGINT, Output::Whole) => stopped!("SIGINT", "the output was already complete"),
            (libc::SIGTERM, Output::None) => stopped!("SIGTERM", "no output was written"),
            (libc::SIGTERM, Output::Incomplete) => {
                stopped!("SIGTERM", "the output written so far is incomplete")
            }
            (libc::SIGTERM, Output::Whole) => {
                stopped!("SIGTERM", "the output was already complete")
            }
            (_, Output::None) => stopped!("SIGHUP", "no output was written"),
            (_, Output::Incomplete) => {
                stopped!("SIGHUP", "the output written so far is incomplete")
            }
            (_, Output::Whole) => stopped!("SIGHUP", "the output was already complete"),
        };
        // SAFETY: write(2) on stderr with a static buffer is async-signal-safe.
        unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
        128 + signal
    };
    // SAFETY: _exit is async-signal-safe; nothing else runs after it.
    unsafe { libc::_exit(code) };
}
