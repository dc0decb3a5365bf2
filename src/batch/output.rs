//! Where the answers go: a caller's writer, or a file written atomically.
//!
//! A file is written under a temporary name beside its destination and renamed into place by
//! [`Sink::finish`]; dropping an unfinished sink removes the temporary file, so a failed run never
//! leaves a partial output under the final name. A destination that exists and is not a regular
//! file (`/dev/null`, a FIFO, a terminal) is written directly: renaming over it would replace the
//! device or pipe with a plain file.

use std::io::{self, Write};
use std::path::PathBuf;

/// An output being written.
pub enum Sink<'a> {
    Writer(Box<dyn Write + Send + 'a>),
    File {
        temp: tempfile::NamedTempFile,
        dest: PathBuf,
    },
    Special(std::fs::File),
}

impl<'a> Sink<'a> {
    /// Creates the temporary file beside `dest`, or opens `dest` itself if it is special.
    pub fn file(dest: PathBuf) -> io::Result<Sink<'a>> {
        let meta = std::fs::metadata(&dest);
        // Checked before any work: the final rename would fail only after the whole input.
        if meta.as_ref().is_ok_and(|m| m.is_dir()) {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "the output is a directory",
            ));
        }
        if meta.is_ok_and(|m| !m.is_file()) {
            return Ok(Sink::Special(
                std::fs::OpenOptions::new().write(true).open(&dest)?,
            ));
        }
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)?;
        Ok(Sink::File { temp, dest })
    }

    /// Flushes, and renames a temporary file into place (readable like a normal new file).
    pub fn finish(self) -> io::Result<()> {
        match self {
            Sink::Writer(mut w) => w.flush(),
            Sink::Special(mut file) => file.flush(),
            Sink::File { temp, dest } => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(&dest).map_or(0o644, |m| m.permissions().mode());
                    temp.as_file()
                        .set_permissions(std::fs::Permissions::from_mode(mode))?;
                }
                temp.persist(&dest).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Writer(w) => w.write(buf),
            Sink::File { temp, .. } => temp.as_file_mut().write(buf),
            Sink::Special(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Writer(w) => w.write_all(buf),
            Sink::File { temp, .. } => temp.as_file_mut().write_all(buf),
            Sink::Special(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Writer(w) => w.flush(),
            Sink::File { temp, .. } => temp.as_file_mut().flush(),
            Sink::Special(file) => file.flush(),
        }
    }
}
