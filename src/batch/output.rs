//! Where the answers go: a caller's writer, or a file written atomically.
//!
//! A file output never appears under its final name until it is complete, and nothing is left
//! beside it by a failed or killed run:
//!
//! - On Linux the answers go to an unnamed file (`O_TMPFILE`) in the destination's directory. It
//!   has no name until [`Sink::finish`] syncs it (`fsync`), links it under a short temporary name
//!   and renames that over the destination; a run that dies before (even by SIGKILL) leaves
//!   nothing behind. Elsewhere, or on file systems without unnamed files, a named temporary file
//!   is used instead; it is removed when the sink is dropped, and on SIGINT/SIGTERM/SIGHUP by the
//!   front end's handler through [`remove_temporary_files`].
//! - A new file gets mode 0666 minus the umask; a replaced file keeps its mode, without the
//!   setuid and setgid bits, and its owner and group where the user may give them (root, or a
//!   group the user is in); otherwise the new file belongs to the user who ran the command, as
//!   with any editor that saves by renaming.
//! - A destination that is a symbolic link is written through: its target is replaced
//!   (atomically, in the target's directory) and the link stays a link.
//! - A destination that exists and is not a regular file (`/dev/null`, a FIFO, a terminal) is
//!   written directly: renaming over it would replace the device or pipe with a plain file.
//! - A regular file that is already this process's standard output or error, open for writing
//!   (`-o /dev/stdout` with `> file`), is written through that descriptor, as `-o -` would be:
//!   renaming over it would lose what the shell writes to it before and after the run. Like
//!   any stream, it holds what was written when a run fails ([`written_directly`]).
//! - A destination that is a directory, or a name that ends with `/` (a directory that does not
//!   exist, or a file named as one), is refused at once, before any input is read.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// An output being written.
pub enum Sink<'a> {
    Writer(Box<dyn Write + Send + 'a>),
    File(AtomicFile),
    Special(File),
}

/// A file written where nobody sees it, then moved into place whole.
pub struct AtomicFile {
    file: File,
    /// The file that the output replaces or creates (a symbolic link's target).
    dest: PathBuf,
    /// Where the temporary name is made.
    dir: PathBuf,
    /// The named temporary file, when no unnamed one could be made.
    named: Option<Registered>,
    /// The mode to give the output: the replaced file's, or 0666 minus the umask.
    mode: Option<u32>,
    /// The replaced file's owner and group.
    owner: Option<(u32, u32)>,
}

impl<'a> Sink<'a> {
    /// Prepares an atomic output at `dest`, or opens `dest` itself if it is special.
    pub fn file(dest: PathBuf) -> io::Result<Sink<'a>> {
        // Through every link, including the kernel's `/proc/self/fd/N`, which names pipes.
        let meta = std::fs::metadata(&dest);
        if meta.as_ref().is_ok_and(|m| m.is_dir()) {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "the output is a directory",
            ));
        }
        // `out/` names a directory: without this, the temporary file would be made in `out/`'s
        // parent and the run would fail only at its end, renaming onto `out/`.
        if dest.as_os_str().as_encoded_bytes().ends_with(b"/") {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "the output name ends with `/`, which names a directory; give a file name",
            ));
        }
        let meta = match meta {
            // A name that cannot be looked up (too long, a component that is not a directory
            // or cannot be searched, a loop of links) cannot be written either: said now, not
            // after the run. Only a name that does not exist yet is made.
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            meta => meta,
        };
        if meta.as_ref().is_ok_and(|m| !m.is_file()) {
            return Ok(Sink::Special(
                std::fs::OpenOptions::new().write(true).open(&dest)?,
            ));
        }
        if let Some(file) = meta.as_ref().ok().and_then(|m| already_open(&dest, m)) {
            return Ok(Sink::Special(file));
        }
        let dest = resolve_links(&dest)?;
        let old_mode = meta.as_ref().ok().map(|m| mode_of(m) & !0o6000);
        let owner = meta.as_ref().ok().and_then(owner_of);
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Ok(meta) = &meta {
            may_replace(&dir, meta)?;
        }
        if let Some(file) = unnamed_file(&dir) {
            return Ok(Sink::File(AtomicFile {
                file,
                dest,
                dir,
                named: None,
                // The kernel applied the umask to 0666 already.
                mode: old_mode,
                owner,
            }));
        }
        let (file, path) = create_temporary(&dir).map_err(|e| match &meta {
            // The file is there: what failed is the new file that replaces it.
            Ok(_) => io::Error::new(
                e.kind(),
                format!(
                    "the new file that replaces it cannot be made in {}: {e}",
                    dir.display()
                ),
            ),
            Err(_) => e,
        })?;
        Ok(Sink::File(AtomicFile {
            file,
            dest,
            dir,
            named: Some(Registered::new(path)),
            mode: Some(old_mode.unwrap_or_else(new_file_mode)),
            owner,
        }))
    }

    /// Flushes, and moves a file output into place.
    pub fn finish(self) -> io::Result<()> {
        match self {
            Sink::Writer(mut w) => w.flush(),
            Sink::Special(mut file) => file.flush(),
            Sink::File(f) => f.finish(),
        }
    }
}

impl AtomicFile {
    /// The file the output will replace or create (a symbolic link's target).
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    fn finish(mut self) -> io::Result<()> {
        self.file.flush()?;
        if let Some((uid, gid)) = self.owner {
            give_owner(&self.file, uid, gid);
        }
        // After the owner: changing it clears the setuid and setgid bits, which the mode sets.
        if let Some(mode) = self.mode {
            set_mode(&self.file, mode)?;
        }
        // On disk before it has a name: a crash right after a "successful" run cannot leave an
        // empty or partial file under the final name.
        self.file.sync_all()?;
        // From here to the rename's end a signal handler's verdict waits for the rename's (see
        // `commit`); the paths the calls take are made first: nothing in that window allocates
        // (a signal that interrupted another thread inside the allocator would hold its lock,
        // and the rename would wait on it, and the handler on the rename).
        let dest = SysPath::new(&self.dest)?;
        match self.named.take() {
            Some(named) => {
                let from = SysPath::new(named.path())?;
                let Some(committing) = commit::begin() else {
                    commit::wait_for_exit()
                };
                // Unregistered inside the window, where no handler runs: once the name is gone,
                // it may be another process's.
                if let Err(e) = from.rename_to(&dest) {
                    from.unlink(); // removed before the handler may say nothing was written
                    named.forget();
                    committing.end(false);
                    return Err(e);
                }
                named.forget();
                committing.end(true);
            }
            None => {
                // The file has the temporary name only inside the window, so the name is not
                // registered for the handler to remove: before the link it may be another's.
                let link = LinkUnnamed::new(&self.file);
                loop {
                    let to = SysPath::new(&temporary_name(&self.dir))?;
                    let Some(committing) = commit::begin() else {
                        commit::wait_for_exit()
                    };
                    match link.link(&to) {
                        Ok(()) => {}
                        // Held by another file (another process with the same id: before a
                        // reboot, in another container): not ours to remove; the next name.
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                            committing.end(false);
                            continue;
                        }
                        Err(e) => {
                            committing.end(false);
                            return Err(e);
                        }
                    }
                    if let Err(e) = to.rename_to(&dest) {
                        to.unlink(); // removed before the handler may say nothing was written
                        committing.end(false);
                        return Err(e);
                    }
                    committing.end(true);
                    break;
                }
            }
        }
        // The rename itself on disk too.
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Writer(w) => w.write(buf),
            Sink::File(f) => f.file.write(buf),
            Sink::Special(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Writer(w) => w.write_all(buf),
            Sink::File(f) => f.file.write_all(buf),
            Sink::Special(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Writer(w) => w.flush(),
            Sink::File(f) => f.file.flush(),
            Sink::Special(file) => file.flush(),
        }
    }
}

/// Whether the file `meta` describes, in `dir`, may be replaced by renaming over it (see
/// [`sticky_forbids`]): said before the run, which would otherwise fail only at its end.
#[cfg(unix)]
fn may_replace(dir: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let Ok(dir_meta) = std::fs::metadata(dir) else {
        return Ok(()); // making the temporary file there reports it
    };
    if dir_meta.mode() & 0o1000 == 0 {
        return Ok(());
    }
    // SAFETY: `geteuid` takes nothing and cannot fail.
    let me = unsafe { libc::geteuid() };
    if sticky_forbids(me, dir_meta.uid(), meta.uid()) && !may_own_any_file(me) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the file belongs to another user, in a directory with the sticky bit, where only \
             its owner may replace it",
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn may_replace(_dir: &Path, _meta: &std::fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// In a directory with the sticky bit (`/tmp`), a file may be renamed over only by its owner,
/// the directory's, or a process that may act as any file's owner (see [`may_own_any_file`]),
/// whatever the file's own mode.
#[cfg(unix)]
fn sticky_forbids(me: u32, dir_owner: u32, file_owner: u32) -> bool {
    file_owner != me && dir_owner != me
}

/// Whether this process may act as the owner of any file (`CAP_FOWNER`, which root normally
/// has and a user may be given): read from `/proc` on Linux; elsewhere, whether it is root.
#[cfg(unix)]
fn may_own_any_file(me: u32) -> bool {
    const CAP_FOWNER: u32 = 3;
    let effective = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
            u64::from_str_radix(line["CapEff:".len()..].trim(), 16).ok()
        });
    match effective {
        Some(caps) => caps >> CAP_FOWNER & 1 == 1,
        None => me == 0,
    }
}

/// Follows symbolic links (at most 40, as the kernel does) to the path that will be replaced.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The number in the next temporary name.
static NEXT_TEMPORARY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A short temporary name in `dir` (whatever the length of the destination's name).
fn temporary_name(dir: &Path) -> PathBuf {
    let n = NEXT_TEMPORARY.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!(".sudoku-batch.{}.{n}.tmp", std::process::id()))
}

/// Creates a new file under a temporary name in `dir`, readable by its owner only until
/// [`AtomicFile::finish`] sets its mode. Its errors are the system's, without the temporary
/// name: the caller reports them against the output name the user gave.
fn create_temporary(dir: &Path) -> io::Result<(File, PathBuf)> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    loop {
        let path = temporary_name(dir);
        match options.open(&path) {
            // Left by another process with the same id (a name from an earlier boot): next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            result => return result.map(|file| (file, path)),
        }
    }
}

#[cfg(target_os = "linux")]
fn unnamed_file(dir: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn unnamed_file(_dir: &Path) -> Option<File> {
    None
}

/// A path as a system call takes it, made ahead of the call (see [`AtomicFile::finish`]).
struct SysPath {
    #[cfg(unix)]
    c: std::ffi::CString,
    #[cfg(not(unix))]
    path: PathBuf,
}

impl SysPath {
    fn new(path: &Path) -> io::Result<SysPath> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let c =
                std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
            Ok(SysPath { c })
        }
        #[cfg(not(unix))]
        Ok(SysPath {
            path: path.to_path_buf(),
        })
    }

    /// Renames this path to `to`, without allocating on Unix.
    fn rename_to(&self, to: &SysPath) -> io::Result<()> {
        #[cfg(unix)]
        {
            // SAFETY: both are NUL-terminated strings that live across the call.
            match unsafe { libc::rename(self.c.as_ptr(), to.c.as_ptr()) } {
                0 => Ok(()),
                _ => Err(io::Error::last_os_error()),
            }
        }
        #[cfg(not(unix))]
        std::fs::rename(&self.path, &to.path)
    }

    /// Removes the file at this path if there is one, without allocating on Unix.
    fn unlink(&self) {
        #[cfg(unix)]
        // SAFETY: a NUL-terminated string that lives across the call.
        unsafe {
            libc::unlink(self.c.as_ptr());
        }
        #[cfg(not(unix))]
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Gives an unnamed file a name: the calls' arguments, made ahead of them.
#[cfg(target_os = "linux")]
struct LinkUnnamed {
    fd: std::os::unix::io::RawFd,
    proc_path: std::ffi::CString,
}

#[cfg(target_os = "linux")]
impl LinkUnnamed {
    fn new(file: &File) -> LinkUnnamed {
        use std::os::unix::io::AsRawFd;
        let fd = file.as_raw_fd();
        let proc_path =
            std::ffi::CString::new(format!("/proc/self/fd/{fd}")).expect("no NUL in a number");
        LinkUnnamed { fd, proc_path }
    }

    /// Links the file as `to`; the file stays open meanwhile.
    fn link(&self, to: &SysPath) -> io::Result<()> {
        // SAFETY: both paths are NUL-terminated strings that live across the call.
        let linked = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                self.proc_path.as_ptr(),
                libc::AT_FDCWD,
                to.c.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if linked == 0 {
            return Ok(());
        }
        let through_proc = io::Error::last_os_error();
        if !matches!(
            through_proc.raw_os_error(),
            Some(libc::ENOENT | libc::EACCES | libc::EPERM)
        ) {
            // /proc is there and the link itself failed (the name taken, no space, a read-only
            // disk): the fallback would fail the same way, or say less.
            return Err(through_proc);
        }
        // Without /proc, or denied it (a security module): AT_EMPTY_PATH on the descriptor
        // itself (needs CAP_DAC_READ_SEARCH, or on Linux 6.10 and later, the file's opener).
        // SAFETY: as above; the empty string is static, and the descriptor is open.
        let linked = unsafe {
            libc::linkat(
                self.fd,
                c"".as_ptr(),
                libc::AT_FDCWD,
                to.c.as_ptr(),
                libc::AT_EMPTY_PATH,
            )
        };
        if linked == 0 {
            return Ok(());
        }
        match io::Error::last_os_error() {
            // Refused for want of the capability: /proc's error says more.
            e if e.raw_os_error() == Some(libc::ENOENT) => Err(through_proc),
            e => Err(e),
        }
    }
}

#[cfg(not(target_os = "linux"))]
struct LinkUnnamed;

#[cfg(not(target_os = "linux"))]
impl LinkUnnamed {
    fn new(_file: &File) -> LinkUnnamed {
        LinkUnnamed
    }

    fn link(&self, _to: &SysPath) -> io::Result<()> {
        unreachable!("unnamed files are made on Linux only")
    }
}

/// Whether [`Sink::file`] writes `dest` directly rather than replacing it atomically: a device,
/// a pipe, or a file already open for writing as standard output or error (see
/// [`already_open`]). A run stopped there has written part of its output.
pub fn written_directly(dest: &Path) -> bool {
    match std::fs::metadata(dest) {
        Ok(meta) => !meta.is_file() || already_open(dest, &meta).is_some(),
        Err(_) => false,
    }
}

/// A copy of this process's descriptor for the regular file `dest`, if standard output or
/// error is that file, or `dest` names a descriptor (`/dev/fd/N`, `/proc/self/fd/N`) open on
/// it: what `-o /dev/stdout` is when the shell sent standard output to a file (`> log`,
/// `>> log`, a `{ ...; } > file` group). Renaming a new file over it would cut the shell's
/// descriptor off from the answers and lose what the shell writes before and after them, so
/// the answers go through the descriptor instead, at its offset, appending if it appends, as
/// with `-o -`.
#[cfg(unix)]
fn already_open(dest: &Path, meta: &std::fs::Metadata) -> Option<File> {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::FromRawFd;
    let bytes = dest.as_os_str().as_encoded_bytes();
    let named = [&b"/dev/fd/"[..], b"/proc/self/fd/"]
        .iter()
        .find_map(|prefix| bytes.strip_prefix(*prefix))
        .and_then(|n| std::str::from_utf8(n).ok()?.parse::<libc::c_int>().ok());
    [1, 2].into_iter().chain(named).find_map(|fd| {
        // SAFETY: F_DUPFD_CLOEXEC on any number is safe: it fails (-1) if `fd` is not open,
        // and on success returns a new descriptor that the `File` then owns.
        let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
        if copy < 0 {
            return None;
        }
        // SAFETY: `copy` is a new descriptor that nothing else owns.
        let file = unsafe { File::from_raw_fd(copy) };
        // A descriptor open for reading only (`1< file`) cannot take the answers: the file is
        // then replaced as any other.
        // SAFETY: F_GETFL on the descriptor `file` owns.
        let flags = unsafe { libc::fcntl(copy, libc::F_GETFL) };
        if flags < 0 || flags & libc::O_ACCMODE == libc::O_RDONLY {
            return None;
        }
        let open = file.metadata().ok()?;
        (open.is_file() && open.dev() == meta.dev() && open.ino() == meta.ino()).then_some(file)
    })
}

#[cfg(not(unix))]
fn already_open(_dest: &Path, _meta: &std::fs::Metadata) -> Option<File> {
    None
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

/// A file's owner and group.
#[cfg(unix)]
fn owner_of(meta: &std::fs::Metadata) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.uid(), meta.gid()))
}

#[cfg(not(unix))]
fn owner_of(_meta: &std::fs::Metadata) -> Option<(u32, u32)> {
    None
}

/// Gives `file` the owner and group of the file it replaces, as far as the user may: the owner
/// only as root, the group if the user is in it. What is not permitted is left as it is.
#[cfg(unix)]
fn give_owner(file: &File, uid: u32, gid: u32) {
    use std::os::unix::io::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fchown on a descriptor this function borrows; -1 (as uid_t) leaves a field alone.
    unsafe {
        if libc::fchown(fd, uid, gid) != 0 {
            // Not root: the group alone, if the user is in it; else the user's own.
            libc::fchown(fd, u32::MAX, gid);
        }
    }
}

#[cfg(not(unix))]
fn give_owner(_file: &File, _uid: u32, _gid: u32) {}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o666
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// 0666 minus the process's umask (what `creat` would give a new file).
#[cfg(unix)]
#[allow(clippy::useless_conversion)] // mode_t is u16 on some systems
fn new_file_mode() -> u32 {
    // SAFETY: umask only swaps the process's mask; it is put back at once.
    let mask = unsafe {
        let mask = libc::umask(0o022);
        libc::umask(mask);
        mask
    };
    0o666 & !u32::from(mask)
}

#[cfg(not(unix))]
fn new_file_mode() -> u32 {
    0o666
}

/// Named temporary files, for [`remove_temporary_files`]: a fixed table of leaked C strings, so
/// that a signal handler can read it without locks or allocation.
#[cfg(unix)]
mod registry {
    use std::ffi::{c_char, CString};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering};

    const SLOTS: usize = 16;
    static PATHS: [AtomicPtr<c_char>; SLOTS] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

    /// Records `path`; returns its slot (`None` if the table is full: the file is then only
    /// removed on drop).
    pub fn add(path: &Path) -> Option<usize> {
        let c = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
        for (i, slot) in PATHS.iter().enumerate() {
            let free =
                slot.compare_exchange(std::ptr::null_mut(), c, Ordering::SeqCst, Ordering::SeqCst);
            if free.is_ok() {
                return Some(i);
            }
        }
        // SAFETY: `c` came from `into_raw` just above and was not shared.
        drop(unsafe { CString::from_raw(c) });
        None
    }

    /// Forgets slot `i`. The string is leaked: a handler running now may still read it.
    pub fn remove(i: usize) {
        PATHS[i].store(std::ptr::null_mut(), Ordering::SeqCst);
    }

    /// Unlinks every recorded path. Async-signal-safe: atomic loads and `unlink` only.
    pub fn unlink_all() {
        for slot in &PATHS {
            let p = slot.load(Ordering::SeqCst);
            if !p.is_null() {
                // SAFETY: `p` is a leaked, NUL-terminated string that is never freed.
                unsafe { libc::unlink(p) };
            }
        }
    }
}

/// Whether the run's output has been renamed into place, for a signal handler that must say
/// whether the run left its output. The rename is the one moment a run's output appears; a
/// handler and the rename each claim the moment, so the handler's verdict is the rename's.
mod commit {
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::time::Duration;

    const NONE: u8 = 0;
    const RENAMING: u8 = 1;
    const RENAMED: u8 = 2;
    /// A handler is ending the process: no rename may start.
    const STOPPING: u8 = 3;
    static STATE: AtomicU8 = AtomicU8::new(NONE);

    /// A rename under way, with the signals a front end stops on blocked in its thread (a handler
    /// then runs in another thread, or once the rename is over).
    pub struct Committing {
        _blocked: Blocked,
    }

    /// Claims the moment for a rename; `None` when a handler is ending the process.
    pub fn begin() -> Option<Committing> {
        let blocked = Blocked::stop_signals();
        loop {
            let now = STATE.load(Ordering::SeqCst);
            if now == STOPPING {
                return None;
            }
            if STATE
                .compare_exchange(now, RENAMING, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return Some(Committing { _blocked: blocked });
            }
        }
    }

    impl Committing {
        /// The rename is over: `renamed`, or it failed and nothing took the output's name.
        pub fn end(self, renamed: bool) {
            let now = if renamed { RENAMED } else { NONE };
            STATE.store(now, Ordering::SeqCst);
        }
    }

    /// A handler is ending the process: the rename must not start; its `_exit` comes soon.
    pub fn wait_for_exit() -> ! {
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }

    /// For a handler about to end the process: no rename starts from now on, and whether the
    /// output was renamed into place (`Some(true)`), was not (`Some(false)`), or is still being
    /// renamed after about five seconds (`None`: a stalled network file system; the file is then
    /// the old or the new one, whole). Async-signal-safe: atomic operations and `nanosleep`.
    #[cfg(unix)]
    pub fn stop() -> Option<bool> {
        for _ in 0..5000 {
            match STATE.compare_exchange(NONE, STOPPING, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) | Err(STOPPING) => return Some(false),
                Err(RENAMED) => return Some(true),
                Err(_) => {
                    // SAFETY: a zeroed timespec is valid (some targets have private padding).
                    let mut pause: libc::timespec = unsafe { std::mem::zeroed() };
                    pause.tv_nsec = 1_000_000;
                    // SAFETY: nanosleep is async-signal-safe; `pause` is a valid timespec.
                    unsafe { libc::nanosleep(&pause, std::ptr::null_mut()) };
                }
            }
        }
        None
    }

    /// SIGINT, SIGTERM, SIGHUP and SIGBUS blocked in this thread until dropped.
    struct Blocked {
        #[cfg(unix)]
        old: libc::sigset_t,
    }

    impl Blocked {
        fn stop_signals() -> Blocked {
            #[cfg(unix)]
            // SAFETY: the sets are initialised by sigemptyset/sigaddset before use, and
            // pthread_sigmask only changes this thread's mask.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                // SIGBUS too, when sent by hand: a rename reads no mapped input, so no fault
                // of its own can raise it here.
                for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGBUS] {
                    libc::sigaddset(&mut set, signal);
                }
                let mut old: libc::sigset_t = std::mem::zeroed();
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
                Blocked { old }
            }
            #[cfg(not(unix))]
            Blocked {}
        }
    }

    impl Drop for Blocked {
        fn drop(&mut self) {
            #[cfg(unix)]
            // SAFETY: restores the mask saved by `stop_signals`.
            unsafe {
                libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
            }
        }
    }
}

/// For a SIGINT/SIGTERM/SIGHUP/SIGBUS handler about to end the process (one output file per
/// process, as a CLI run has): from now on no output is renamed into place, and whether the
/// output already was (`Some(true)`: it is whole), was not (`Some(false)`: the old file is
/// untouched), or is still being renamed after about five seconds (`None`). Async-signal-safe.
#[cfg(unix)]
pub fn stop_output() -> Option<bool> {
    commit::stop()
}

/// Removes the named temporary files of the outputs being written. Async-signal-safe: a front
/// end calls it from its SIGINT/SIGTERM/SIGHUP handler before exiting (unnamed files need nothing:
/// they vanish with the process).
pub fn remove_temporary_files() {
    #[cfg(unix)]
    registry::unlink_all();
}

/// A temporary path, recorded for the signal handler and removed on drop.
struct Registered {
    path: PathBuf,
    #[cfg(unix)]
    slot: Option<usize>,
}

impl Registered {
    fn new(path: PathBuf) -> Registered {
        Registered {
            #[cfg(unix)]
            slot: registry::add(&path),
            path,
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }

    /// Stops tracking the path without removing it: it holds the finished output, or is gone.
    fn forget(mut self) {
        self.unregister();
        std::mem::forget(self);
    }

    fn unregister(&mut self) {
        #[cfg(unix)]
        if let Some(i) = self.slot.take() {
            registry::remove(i);
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        // The file first: a signal handler in between still finds its name to remove.
        let _ = std::fs::remove_file(&self.path);
        self.unregister();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::{may_own_any_file, sticky_forbids, Sink};
    use std::io::Write;

    #[test]
    fn a_temporary_name_another_file_holds_is_left_alone() {
        // The next names this process makes, taken by files that are not the run's (another
        // process's with the same id). Other tests running meanwhile take names too: many are
        // taken. On Linux the finished file is linked under such a name; elsewhere, or where
        // the file system has no unnamed files, it is created under one: both skip those taken.
        let dir = tempfile::tempdir().unwrap();
        let next = super::NEXT_TEMPORARY.load(std::sync::atomic::Ordering::SeqCst);
        let taken: Vec<_> = (next..next + 500)
            .map(|n| {
                dir.path()
                    .join(format!(".sudoku-batch.{}.{n}.tmp", std::process::id()))
            })
            .collect();
        for path in &taken {
            std::fs::write(path, b"not ours\n").unwrap();
        }
        let dest = dir.path().join("out.txt");
        let mut sink = Sink::file(dest.clone()).unwrap();
        sink.write_all(b"answers\n").unwrap();
        sink.finish().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"answers\n");
        for path in &taken {
            assert_eq!(
                std::fs::read(path).unwrap(),
                b"not ours\n",
                "{}",
                path.display()
            );
        }
        // Nothing else left beside them.
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            taken.len() + 1
        );
    }

    #[test]
    fn in_a_sticky_directory_only_owners_may_replace_a_file() {
        // Another user's file in another user's directory: refused (unless the process may act
        // as any file's owner).
        assert!(sticky_forbids(1000, 0, 0));
        // The file's owner, the directory's owner.
        assert!(!sticky_forbids(1000, 0, 1000));
        assert!(!sticky_forbids(1000, 1000, 0));
    }

    #[test]
    fn a_process_with_cap_fowner_may_own_any_file() {
        // The test runs as whoever runs it: its answer must match its capabilities as the
        // kernel reports them (root with full capabilities in the usual case).
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if let Some(line) = status.lines().find(|l| l.starts_with("CapEff:")) {
            let caps = u64::from_str_radix(line[7..].trim(), 16).unwrap();
            // SAFETY: `geteuid` takes nothing and cannot fail.
            let me = unsafe { libc::geteuid() };
            assert_eq!(may_own_any_file(me), caps >> 3 & 1 == 1);
        }
    }
}
