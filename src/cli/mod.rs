//! The command-line front end: flags ([`args`]), what a person sees on stderr ([`console`]),
//! `bench`'s tables and plot ([`bench_report`]), signal handling ([`signals`]) and the long
//! version text ([`version`]). It does no search work itself.

pub mod args;
pub mod bench_report;
pub mod console;
pub mod signals;
pub mod version;

/// The manual page: clap's sections, with the exit codes in their own section (clap's would
/// title them `EXTRA`).
pub fn man(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(<args::Cli as clap::CommandFactory>::command());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    man.render_subcommands_section(out)?;
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    for (code, when) in args::EXIT_STATUS {
        // A line starting with `.` or `'` would be a roff request; none of these does.
        writeln!(out, ".TP\n{code}\n{when}")?;
    }
    man.render_version_section(out)
}
