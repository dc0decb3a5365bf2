//! The command-line front end: flags ([`args`]), what a person sees on stderr ([`console`]),
//! `bench`'s tables and plot ([`bench_report`]), signal handling ([`signals`]) and the long
//! version text ([`version`]). It does no search work itself.

pub mod args;
pub mod bench_report;
pub mod console;
pub mod signals;
pub mod version;

/// The manual page: clap's, with the exit codes in a section of their own before `VERSION`
/// (clap's `after_help` section would be titled `EXTRA`).
pub fn man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(<args::Cli as clap::CommandFactory>::command()).render(&mut page)?;
    let page = String::from_utf8(page).map_err(std::io::Error::other)?;
    let mut section = String::from(".SH \"EXIT STATUS\"\n");
    for (code, when) in args::EXIT_STATUS {
        // roff: `\-` is a minus sign (a plain `-` may print as a hyphen); no line starts
        // with `.` or `'`.
        let when = when.replace('\\', "\\e").replace('-', "\\-");
        section += &format!(".TP\n{code}\n{when}\n");
    }
    let at = page.find(".SH VERSION").unwrap_or(page.len());
    out.write_all(&page.as_bytes()[..at])?;
    out.write_all(section.as_bytes())?;
    out.write_all(&page.as_bytes()[at..])
}
