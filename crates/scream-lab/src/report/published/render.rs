//! The comparison as text: Markdown tables for the terminal or a report, and one CSV row
//! per published position.

use std::fmt::Write as _;

use super::score::{Comparison, Design, Position, Score};
use super::sensors2023::{PublishedAt, PublishedMetric, Sensors2023, TRANSITIONS};
use crate::report::tables::fmt;

/// The CSV file name of `scream report --compare-published sensors2023 --out DIR`.
pub const COMPARE_CSV: &str = "compare-sensors2023.csv";

fn metric_name(m: PublishedMetric) -> &'static str {
    match m {
        PublishedMetric::QueueDelay => "queue delay",
        PublishedMetric::Srtt => "sRTT",
        PublishedMetric::Throughput => "throughput",
    }
}

/// Our tied indexes as the paper's values (`all` when every one of the ten ties).
fn ours_at(paper: &Sensors2023, p: &Position) -> String {
    let Some(o) = &p.ours else {
        return String::new();
    };
    if o.indexes.len() == TRANSITIONS {
        return "all".to_owned();
    }
    let values = paper
        .parameter(&p.published.abbreviation)
        .map(|x| x.values.as_slice())
        .unwrap_or(&[]);
    o.indexes
        .iter()
        .map(|&i| {
            values
                .get(i)
                .map_or_else(|| format!("#{i}"), f64::to_string)
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn mark(p: &Position) -> String {
    match (&p.published.at, &p.marks) {
        (PublishedAt::NoEffect, _) => {
            let flat = p
                .ours
                .as_ref()
                .is_some_and(|o| o.indexes.len() == TRANSITIONS);
            if flat { "n/s (ours flat too)" } else { "n/s" }.to_owned()
        }
        (_, None) => "no value of ours".to_owned(),
        (_, Some(m)) if m.exact => "exact".to_owned(),
        (_, Some(m)) => {
            let parts: Vec<&str> = [(m.within_one, "±1"), (m.same_end, "same end")]
                .iter()
                .filter(|(on, _)| *on)
                .map(|&(_, s)| s)
                .collect();
            if parts.is_empty() {
                "miss".to_owned()
            } else {
                parts.join(", ")
            }
        }
    }
}

fn share(s: &Score, count: usize) -> String {
    format!("{count} ({:.0} %)", 100.0 * s.fraction(count))
}

fn score_row(out: &mut String, name: &str, s: &Score) {
    let _ = writeln!(
        out,
        "| {name} | {} | {} | {} | {} | {:.0} / {:.0} / {:.0} % | {} ({}) |",
        s.scoreable,
        share(s, s.exact),
        share(s, s.within_one),
        share(s, s.same_end),
        100.0 * s.chance.exact,
        100.0 * s.chance.within_one,
        100.0 * s.chance.same_end,
        s.not_scoreable,
        s.no_effect_agreed,
    );
}

/// The comparison in Markdown: positions, scores and single figures. `source` names the
/// results file.
pub fn markdown(paper: &Sensors2023, c: &Comparison, source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {source} against Sensors 2023 (Zubaydi, Jagmagji, Molnár, doi:10.3390/s23229148)\n"
    );
    if c.design == Design::OneAtATime {
        out.push_str(
            "## Positions (Tables 6-11)\n\nWhere the minimum (maximum) of each metric falls \
             over a parameter's ten values; values of the parameter in the paper's units.\n\n\
             | parameter | metric | L4S | end | published at (value) | ours at (value) | mark |\n\
             |---|---|---|---|---|---|---|\n",
        );
        for p in &c.positions {
            let r = &p.published;
            let published = match (&r.at, r.value) {
                (PublishedAt::At { note: Some(n), .. }, Some(v)) => {
                    format!("{} [{n}] ({} {})", r.printed_at, fmt(v), r.unit)
                }
                (_, Some(v)) => format!("{} ({} {})", r.printed_at, fmt(v), r.unit),
                (_, None) => r.printed_at.clone(),
            };
            let ours = p.ours.as_ref().map_or_else(String::new, |o| {
                format!("{} ({} {})", ours_at(paper, p), fmt(o.value), p.ours_unit)
            });
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {published} | {ours} | {} |",
                r.abbreviation,
                metric_name(r.metric),
                r.l4s,
                r.end,
                mark(p)
            );
        }
        out.push_str(
            "\n## Scores\n\nexact: the same value; ±1: at most one step apart; same end: \
             both in the lower five or both in the upper five values. A tie of ours counts \
             each tied value. Chance: expected for an index drawn uniformly from the ten. \
             n/s: `all (no effect)` in the paper, not scored (in brackets: ours flat \
             too).\n\n\
             | column | scored | exact | ±1 | same end | chance exact / ±1 / end | n/s (ours flat) |\n\
             |---|---|---|---|---|---|---|\n",
        );
        for s in &c.columns {
            let name = match (s.metric, s.l4s) {
                (Some(m), Some(l)) => format!("{}, L4S {l}", metric_name(m)),
                _ => "?".to_owned(),
            };
            score_row(&mut out, &name, s);
        }
        score_row(&mut out, "**all**", &c.overall);
        if c.overall.unmeasured > 0 {
            let _ = writeln!(
                out,
                "\n{} positions had no value of ours (every run of the axis failed or \
                 lacked the metric) and are not counted.",
                c.overall.unmeasured
            );
        }
        out.push('\n');
    }
    let heading = match c.design {
        Design::OneAtATime => {
            "## Defaults\n\nOurs: the mean of the points at the default of each axis.\n\n"
        }
        Design::Factorial => {
            "## Hybrid study averages\n\nOurs: the mean over every point of the base.\n\n"
        }
    };
    out.push_str(heading);
    out.push_str(
        "| L4S | metric | published | ours | points | source |\n|---|---|---|---|---|---|\n",
    );
    for f in &c.figures {
        let _ = writeln!(
            out,
            "| {} | {} | {} {} | {} | {} | {} |",
            f.published.l4s,
            metric_name(f.published.metric),
            fmt(f.published_value),
            f.unit,
            f.ours.map_or_else(String::new, fmt),
            f.points,
            f.published.source
        );
    }
    out
}

/// One CSV row per published position (one-at-a-time sweeps; a header alone otherwise).
pub fn csv_text(paper: &Sensors2023, c: &Comparison) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "parameter",
        "metric",
        "l4s",
        "end",
        "published_at",
        "published_value",
        "published_unit",
        "ours_at",
        "ours_value",
        "ours_unit",
        "exact",
        "within_one",
        "same_end",
        "chance_exact",
        "chance_within_one",
        "chance_same_end",
    ]);
    let flag = |b: Option<bool>| b.map_or_else(String::new, |b| u8::from(b).to_string());
    for p in &c.positions {
        let r = &p.published;
        let m = p.marks.as_ref();
        let _ = w.write_record([
            r.abbreviation.clone(),
            r.metric.to_string(),
            r.l4s.to_string(),
            r.end.to_string(),
            r.printed_at.clone(),
            r.value.map_or_else(String::new, |v| v.to_string()),
            r.unit.clone(),
            ours_at(paper, p),
            p.ours
                .as_ref()
                .map_or_else(String::new, |o| o.value.to_string()),
            p.ours_unit.to_owned(),
            flag(m.map(|m| m.exact)),
            flag(m.map(|m| m.within_one)),
            flag(m.map(|m| m.same_end)),
            m.map_or_else(String::new, |m| m.chance.exact.to_string()),
            m.map_or_else(String::new, |m| m.chance.within_one.to_string()),
            m.map_or_else(String::new, |m| m.chance.same_end.to_string()),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Several setups of one search compared: a ranking by exact matches (then within one
/// step, then same end), each setup's defaults beside the paper's, then the full
/// comparison of the best setup. `source` names the results file.
pub fn setups_markdown(
    paper: &Sensors2023,
    setups: &[(String, Comparison)],
    source: &str,
) -> String {
    let mut ranked: Vec<&(String, Comparison)> = setups.iter().collect();
    ranked.sort_by(|(_, a), (_, b)| {
        let key = |c: &Comparison| (c.overall.exact, c.overall.within_one, c.overall.same_end);
        key(b).cmp(&key(a))
    });
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {source}: {} setups against Sensors 2023 (doi:10.3390/s23229148)\n",
        setups.len()
    );
    out.push_str(
        "Ranked by exact positions of Tables 6-11, then within one step, then same end. \
         Then the defaults' means, ours / the paper's, per L4S mode and metric.\n\n\
         | setup | exact | ±1 | same end | scored | defaults: ours / published |\n\
         |---|---|---|---|---|---|\n",
    );
    for (name, c) in &ranked {
        let s = &c.overall;
        let figures: Vec<String> = c
            .figures
            .iter()
            .map(|f| {
                let ours = f.ours.map_or_else(|| "-".to_owned(), fmt);
                let p = &f.published;
                format!(
                    "{} {} {ours} / {}",
                    p.l4s,
                    metric_name(p.metric),
                    fmt(f.published_value)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "| {name} | {} ({:.0} %) | {} ({:.0} %) | {} ({:.0} %) | {} | {} |",
            s.exact,
            100.0 * s.fraction(s.exact),
            s.within_one,
            100.0 * s.fraction(s.within_one),
            s.same_end,
            100.0 * s.fraction(s.same_end),
            s.scoreable,
            figures.join("; ")
        );
    }
    if let Some((name, best)) = ranked.first() {
        let _ = writeln!(out, "\nBest setup: `{name}`.\n");
        out.push_str(&markdown(paper, best, &format!("{source} [{name}]")));
    }
    out
}
