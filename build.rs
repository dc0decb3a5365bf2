//! Records the git commit the binary is built from, for `sudoku-batch --version`. Outside a git
//! checkout (a source tarball, `cargo install` from a registry) it is `unknown`, never an error.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).map_or_else(
        || "unknown".to_string(),
        |hash| {
            // Uncommitted changes to tracked files: the commit alone does not say what was built.
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        },
    );
    println!("cargo:rustc-env=SUDOKU_BATCH_COMMIT={commit}");
    // Rebuilt when HEAD moves (a commit, a checkout) or the index changes; a missing path is
    // harmless (cargo then reruns the script on every build, which is cheap).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
