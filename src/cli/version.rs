//! `sudoku-batch --version`: the version, the commit it was built from, the versions of the rating
//! and grading figures, the target, and the CPU
//! features the build was compiled for beside those the running CPU has.

/// The long version text.
pub fn long() -> String {
    format!(
        "{}\ncommit: {}\ntarget: {}-{}\n{}\nrating version: {}\ngrade version: {}",
        env!("CARGO_PKG_VERSION"),
        env!("SUDOKU_BATCH_COMMIT"),
        std::env::consts::ARCH,
        std::env::consts::OS,
        cpu_features(),
        sudoku_batch::RATE_VERSION,
        sudoku_batch::grade::GRADE_VERSION,
    )
}

/// Which of the instructions that matter to the solver (`popcnt` for counting candidates,
/// `bmi2` and `avx2`) the build uses, and which the CPU offers.
#[cfg(target_arch = "x86_64")]
fn cpu_features() -> String {
    let built: Vec<&str> = [
        ("popcnt", cfg!(target_feature = "popcnt")),
        ("bmi2", cfg!(target_feature = "bmi2")),
        ("avx2", cfg!(target_feature = "avx2")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    let host: Vec<&str> = [
        ("popcnt", std::is_x86_feature_detected!("popcnt")),
        ("bmi2", std::is_x86_feature_detected!("bmi2")),
        ("avx2", std::is_x86_feature_detected!("avx2")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    let list = |v: &[&str]| match v {
        [] => "none (baseline x86-64)".to_string(),
        v => v.join(", "),
    };
    format!(
        "cpu features used by this build: {}\ncpu features of this machine: {}",
        list(&built),
        list(&host)
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_features() -> String {
    "cpu features: the portable build (x86-64 feature detection only)".to_string()
}
