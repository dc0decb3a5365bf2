//! SIGINT, SIGTERM and SIGHUP end a run with a message, the exit code shells expect (128 + the
//! signal) and no output left behind (or, when the signal comes after the output file took its
//! name, the whole output, and a message that says so); SIGBUS, which a mapped input that
//! shrinks under the run raises, ends it with a message and exit 2 instead of a signal death;
//! SIGXFSZ (a file-size limit) is ignored, so the write fails and is reported like any write
//! error.
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
            // Every signal blocked while the handler runs: a second one cannot enter it again in this
            // thread (`ENTERED` keeps other threads out).
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

/// Set by the first handler to run: a second signal, taken by another thread, waits for its
/// exit rather than writing a second message.
#[cfg(unix)]
static ENTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    if ENTERED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        loop {
            // SAFETY: a zeroed timespec is valid (some targets have private padding fields).
            let mut pause: libc::timespec = unsafe { std::mem::zeroed() };
            pause.tv_sec = 1;
            // SAFETY: nanosleep is async-signal-safe; the first handler's _exit ends this.
            unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
        }
    }
    // No output takes its name from now on; whether it already had, first.
    let left = sudoku_batch::stop_output();
    if left.is_some() {
        // (Not while a rename is stuck: the unlink in its directory would wait for it too.)
        sudoku_batch::remove_temporary_files();
    }
    let stream = OUTPUT_IS_STREAM.load(std::sync::atomic::Ordering::Relaxed);
    let bus = signal == libc::SIGBUS;
    let cause: &[u8] = match signal {
        libc::SIGBUS => b"the input file changed (shrank?) while it was read",
        libc::SIGINT => b"stopped by SIGINT",
        libc::SIGTERM => b"stopped by SIGTERM",
        _ => b"stopped by SIGHUP",
    };
    let output: &[u8] = match (stream, left) {
        (true, _) if bus => b"the answers written so far are incomplete",
        (true, _) => b"the output written so far is incomplete",
        (false, Some(false)) => b"no output was written",
        // The signal came after the output file took its name (a SIGBUS then was sent by
        // hand: the input had been read).
        (false, Some(true)) => b"the output was already complete",
        (false, None) => {
            b"the output is the old file or the new, complete one (its rename had not ended)"
        }
    };
    // One write of a whole line, assembled on the stack: nothing else on stderr can land
    // inside it.
    let mut line = [0u8; 192];
    let mut len = 0;
    for piece in [
        b"sudoku-batch: error: " as &[u8],
        cause,
        b"; ",
        output,
        b"\n",
    ] {
        line[len..len + piece.len()].copy_from_slice(piece);
        len += piece.len();
    }
    // SAFETY: write(2) on stderr with a stack buffer is async-signal-safe.
    unsafe { libc::write(2, line.as_ptr().cast(), len) };
    let code = if bus { 2 } else { 128 + signal };
    // SAFETY: _exit is async-signal-safe; nothing else runs after it.
    unsafe { libc::_exit(code) };
}
