//! `bench`'s report for people: Markdown tables and an SVG plot (plotters, CLI only).

use std::fmt::Write as _;
use std::path::Path;

use sudoku_batch::bench::{Mode, ModeReport, Report};

/// `1234567.8` as `1,234,568`.
pub fn grouped(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The report as Markdown tables: per file and mode at the first thread count, then scaling.
pub fn to_markdown(report: &Report) -> String {
    let mut s = String::new();
    let first = report.threads.first().copied().unwrap_or(1);
    let _ = writeln!(
        s,
        "{} cores; warm-up {} s and at least {} s per run; median pass.\n",
        report.cores, report.warmup_s, report.min_time_s
    );
    let _ = writeln!(
        s,
        "| file | puzzles | mode | puzzles/s ({first} thr) | µs/puzzle | no guess | guesses/puzzle | nodes/puzzle | unsolvable | 2+ solutions |"
    );
    let _ = writeln!(s, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for f in &report.files {
        for m in &f.modes {
            let r = &m.runs[0];
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.2} | {:.1}% | {:.2} | {:.2} | {} | {} |",
                f.file,
                f.puzzles,
                m.mode,
                grouped(r.puzzles_per_s),
                r.us_per_puzzle,
                m.no_guess_pct,
                m.guesses_per_puzzle,
                m.nodes_per_puzzle,
                m.unsolvable,
                m.multiple.map_or("-".into(), |n| n.to_string()),
            );
        }
    }
    let _ = write!(
        s,
        "\nThread scaling: puzzles/s (parallel efficiency)\n\n| file | mode |"
    );
    for t in &report.threads {
        let _ = write!(s, " {t} thr |");
    }
    let _ = write!(s, "\n|---|---|");
    for _ in &report.threads {
        let _ = write!(s, "---:|");
    }
    s.push('\n');
    for f in &report.files {
        for m in &f.modes {
            let _ = write!(s, "| {} | {} |", f.file, m.mode);
            for r in &m.runs {
                let eff = r
                    .efficiency
                    .map_or(String::new(), |e| format!(" ({:.0}%)", e * 100.0));
                let _ = write!(s, " {}{eff} |", grouped(r.puzzles_per_s));
            }
            s.push('\n');
        }
    }
    s
}

/// Writes an SVG plot of puzzles/s (log scale) against threads (evenly spaced in the order
/// measured), one line per file and mode, with its ideal linear scaling dashed.
///
/// The SVG is drawn in memory and written through the engine's atomic output, so a full disk
/// or an interrupted run never leaves a truncated plot in place of the old one.
pub fn plot(report: &Report, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let mut svg = String::new();
    draw(report, &mut svg)?;
    sudoku_batch::write_file_atomically(path, svg.as_bytes())?;
    Ok(())
}

fn draw(report: &Report, svg: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let threads = &report.threads;
    // Ideal linear scaling from each series' 1-thread rate, drawn dashed.
    let ideal = |m: &ModeReport| -> Vec<(f64, f64)> {
        m.runs
            .iter()
            .enumerate()
            .filter_map(|(k, r)| Some((k as f64, r.puzzles_per_s / r.efficiency?)))
            .collect()
    };
    let rates = report.files.iter().flat_map(|f| {
        f.modes.iter().flat_map(|m| {
            let ideal = ideal(m).into_iter().map(|p| p.1);
            m.runs.iter().map(|r| r.puzzles_per_s).chain(ideal)
        })
    });
    let (lo, hi) = rates.fold((f64::MAX, 0.0f64), |(lo, hi), r| (lo.min(r), hi.max(r)));
    let (lo, hi) = if hi > 0.0 {
        (lo / 3.0, hi * 6.0)
    } else {
        (1.0, 10.0)
    };
    let root = SVGBackend::with_string(svg, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let last = threads.len().saturating_sub(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "sudoku-batch bench: throughput vs threads ({} cores)",
                report.cores
            ),
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.25..last + 0.25, (lo..hi).log_scale())?;
    // Thread counts sit at integer positions; any other label position stays empty.
    let label = |x: &f64| {
        let i = x.round();
        match threads.get(i as usize) {
            Some(t) if (x - i).abs() < 1e-6 && i >= 0.0 => t.to_string(),
            _ => String::new(),
        }
    };
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .disable_x_mesh()
        .x_desc("threads")
        .y_desc("puzzles/s (log scale)")
        .x_labels(threads.len())
        .x_label_formatter(&label)
        .y_label_formatter(&|y| grouped(*y))
        .draw()?;
    let series: usize = report.files.iter().map(|f| f.modes.len()).sum();
    let mut i = 0;
    for f in &report.files {
        let name = Path::new(&f.file)
            .file_name()
            .map_or(f.file.clone(), |n| n.to_string_lossy().into_owned());
        for m in &f.modes {
            let color = Palette99::pick(i).to_rgba();
            i += 1;
            let points: Vec<(f64, f64)> = m
                .runs
                .iter()
                .enumerate()
                .map(|(k, r)| (k as f64, r.puzzles_per_s))
                .collect();
            let mode = if m.mode == Mode::First {
                "first"
            } else {
                "unique"
            };
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(format!("{name}, {mode}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
            let dashed = DashedLineSeries::new(ideal(m), 6, 5, color.mix(0.6).stroke_width(1));
            let drawn = chart.draw_series(dashed)?;
            if i == series {
                drawn
                    .label("dashed: ideal (1-thread rate x threads)")
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4).stroke_width(1))
                    });
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping() {
        assert_eq!(grouped(1234567.8), "1,234,568");
        assert_eq!(grouped(999.0), "999");
    }
}
