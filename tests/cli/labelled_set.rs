//! The labelled set of real compactions (tests/labelled/real-sessions.json): every
//! compaction of ../shared/real-sessions is found, every finding ctxlens reports there
//! was labelled by a person, and the precision holds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn labelled() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labelled/real-sessions.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (file, short compaction id, kind, token) of a finding.
type Key = (String, String, String, String);

fn key(file: &str, finding: &Value) -> Key {
    let compaction: String = finding["compaction"]
        .as_str()
        .unwrap_or("")
        .chars()
        .take(8)
        .collect();
    (
        file.to_owned(),
        compaction,
        finding["kind"].as_str().unwrap().to_owned(),
        // A token, or the start of a dropped instruction.
        finding["token"]
            .as_str()
            .or(finding["text"].as_str())
            .unwrap_or("")
            .chars()
            .take(40)
            .collect(),
    )
}

/// A row's precision: true of reported, to two places.
fn precision((reported, true_ones): (usize, usize)) -> String {
    match reported {
        0 => "none reported".to_owned(),
        _ => format!("{:.2}", true_ones as f64 / reported as f64),
    }
}

/// (reported, true) of each finding kind in each tier, as docs/signals.md's per-kind
/// table gives them for one labelled set.
#[derive(Default)]
struct ByKind(std::collections::BTreeMap<(String, String), (usize, usize)>);

impl ByKind {
    fn count(&mut self, finding: &Value, label: bool) {
        let tier = match finding["severity"].as_str().unwrap() {
            "note" => "note",
            _ => "alert",
        };
        let row = self
            .0
            .entry((
                finding["kind"].as_str().unwrap().to_owned(),
                tier.to_owned(),
            ))
            .or_default();
        row.0 += 1;
        row.1 += usize::from(label);
    }

    /// The rows docs/signals.md must hold for the set named `set`.
    fn rows(&self, set: &str) -> Vec<String> {
        self.0
            .iter()
            .map(|((kind, tier), &counts)| {
                format!(
                    "| {set} | `{kind}` | {tier} | {} | {} | {} |",
                    counts.0,
                    counts.1,
                    precision(counts)
                )
            })
            .collect()
    }
}

/// The README's "how far to trust an alarm" says `phrase` (its line breaks read as
/// spaces): the run's own figures.
fn the_readme_says(phrase: &str) {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(phrase), "README.md lacks: {phrase}");
}

/// docs/signals.md's precision table holds each of these rows: the run's own figures.
fn the_docs_show(table: &[String]) {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/signals.md"))
            .unwrap();
    let missing: Vec<&String> = table
        .iter()
        .filter(|row| !docs.contains(row.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/signals.md lacks rows of this precision table:\n{}",
        table.join("\n")
    );
}

#[test]
fn precision_on_the_labelled_real_sessions_holds() {
    let Some(dir) = real_sessions_dir("precision_on_the_labelled_real_sessions_holds") else {
        return;
    };
    let set = labelled();
    let labels: Vec<(Key, bool, Value)> = set["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                key(l["file"].as_str().unwrap(), l),
                l["label"].as_bool().unwrap(),
                l["severity"].clone(),
            )
        })
        .collect();
    let (mut errors, mut true_errors, mut recalled, mut true_recalled) = (0, 0, 0, 0);
    // Alerts: errors and warnings, each a claim of loss (notes are not).
    let mut alerts = (0, 0);
    let mut by_kind = ByKind::default();
    for session in set["sessions"].as_array().unwrap() {
        let file = session["file"].as_str().unwrap();
        let (report, code) = audit_json(&dir.join(file), &[]);
        assert_ne!(code, 2, "{file}");
        assert_eq!(report["format"], session["format"], "{file}");
        let ids: Vec<&Value> = report["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| &c["id"])
            .collect();
        let expected: Vec<&Value> = session["compactions"].as_array().unwrap().iter().collect();
        assert_eq!(ids, expected, "{file}: every compaction found");
        for finding in report["findings"].as_array().unwrap() {
            if finding["kind"] == "malformed_line" {
                continue;
            }
            let k = key(file, finding);
            let Some((_, label, _)) = labels.iter().find(|(l, _, _)| *l == k) else {
                panic!("{k:?} is not in the labelled set: read the transcript and label it");
            };
            by_kind.count(finding, *label);
            if finding["severity"] == "error" {
                errors += 1;
                true_errors += usize::from(*label);
                assert!(
                    *label,
                    "{k:?}: an error a person reading the transcript calls false"
                );
            }
            if finding["severity"] != "note" {
                alerts.0 += 1;
                alerts.1 += usize::from(*label);
            }
            if finding["recalled"] == true {
                assert_eq!(
                    finding["severity"], "note",
                    "{k:?}: a recalled use claims no loss"
                );
                recalled += 1;
                true_recalled += usize::from(*label);
            }
        }
    }
    // The precision table in the docs is this run's.
    let error_precision = match (errors, true_errors == errors) {
        (0, _) => "no error".to_owned(),
        (_, true) => "no false error".to_owned(),
        _ => precision((errors, true_errors)),
    };
    let table = [
        format!("| alerts (errors and warnings) | {} | {} | {} |", alerts.0, alerts.1, precision(alerts)),
        format!("| errors (`dropped_binding`, `regenerated_binding`, …) | {errors} | {true_errors} | {error_precision} |"),
        format!("| `dropped_binding` notes with `recalled: true` | {recalled} | {true_recalled} | {} |", precision((recalled, true_recalled))),
    ];
    the_docs_show(&table);
    the_docs_show(&by_kind.rows("20 transcripts"));
    the_readme_says(&format!(
        "**0 false errors**; {} of {} alerts true; `recalled` notes are true in {true_recalled} of {recalled} cases",
        alerts.1, alerts.0
    ));
    assert!(
        errors == 0 || true_errors * 10 >= errors * 9,
        "error precision"
    );
    // Warnings: no worse than when the set was labelled (5 true of 17).
    assert!(
        recalled == 0 || true_recalled * 17 >= recalled * 5,
        "recalled-use precision fell: {true_recalled}/{recalled}"
    );
}

/// The labelled sample of tokens (tests/labelled/tokens.json): of its identifiers, the
/// share the extractor reads; of what it reads, the share that is noise. Both are the
/// numbers docs/signals.md states, and within issue 41's bounds.
#[test]
fn the_labelled_tokens_are_read_as_labelled() {
    let Some(dir) = real_sessions_dir("the_labelled_tokens_are_read_as_labelled") else {
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labelled/tokens.json");
    let set: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut read_by_file: std::collections::HashMap<String, std::collections::HashSet<String>> =
        Default::default();
    let (mut identifiers, mut identifiers_read, mut read, mut noise_read) = (0, 0, 0, 0);
    for labelled in set["tokens"].as_array().unwrap() {
        let file = labelled["file"].as_str().unwrap();
        let tokens = read_by_file.entry(file.to_owned()).or_insert_with(|| {
            let session = ctxlens::ingest::load(&dir.join(file)).unwrap();
            (0..session.tokens.len())
                .map(|i| {
                    let info = session.tokens.get(ctxlens_core::model::TokenId(i as u32));
                    format!("{}\t{}", info.class.as_str(), info.text)
                })
                .collect()
        });
        let key = format!(
            "{}\t{}",
            labelled["class"].as_str().unwrap(),
            labelled["token"].as_str().unwrap()
        );
        let is_read = tokens.contains(&key);
        let identifier = labelled["label"] == "identifier";
        identifiers += usize::from(identifier);
        identifiers_read += usize::from(identifier && is_read);
        read += usize::from(is_read);
        noise_read += usize::from(!identifier && is_read);
    }
    let row = format!(
        "| {} | {identifiers} | {identifiers_read} | {read} | {noise_read} |",
        set["tokens"].as_array().unwrap().len()
    );
    eprintln!("labelled tokens: {row}");
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/signals.md"))
            .unwrap();
    assert!(
        docs.contains(&row),
        "docs/signals.md lacks this row of the token table:\n{row}"
    );
    assert!(
        identifiers_read * 100 >= identifiers * 95,
        "identifiers read"
    );
    assert!(noise_read * 100 <= read * 15, "noise among what is read");
}

/// The sessions labelled by `../shared/labelled/RULES.md` (an operator's standard: a
/// finding is true when acting on it would have helped), with the labels as given:
/// every compaction is found in the right format, there is no false error, and at
/// least 80% of the alerts are true. An alert no label covers fails the test: label it
/// by `RULES.md`, with its why. Notes are counted, not held to a precision.
#[test]
fn alerts_on_the_sessions_labelled_by_rules_md_hold() {
    let Some(dir) = labelled_dir("alerts_on_the_sessions_labelled_by_rules_md_hold") else {
        return;
    };
    let mut labels: Vec<_> = std::fs::read_dir(dir.join("labels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    labels.sort();
    assert_eq!(labels.len(), 12, "the 12 labelled sessions");
    let (mut alerts, mut true_alerts, mut notes, mut compactions) = (0, 0, 0, 0);
    let mut by_kind = ByKind::default();
    let mut ssh_harm = None;
    let added = added_labels();
    for path in labels {
        let label: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let file = label["file"].as_str().unwrap();
        let (report, code) = audit_json(&dir.join(format!("{file}.jsonl")), &[]);
        assert_ne!(code, 2, "{file}");
        assert_eq!(report["format"], label["ctxlens_format"], "{file}");
        let present = label["compactions_present"].as_u64().unwrap();
        assert_eq!(
            report["compactions"].as_array().unwrap().len() as u64,
            present,
            "{file}: every compaction found"
        );
        compactions += present;
        for finding in report["findings"].as_array().unwrap() {
            if finding["kind"] == "malformed_line" {
                continue;
            }
            let verdict = rules_md_label(&label, finding)
                .or_else(|| added_label(&added, file, finding))
                .unwrap_or_else(|| {
                    panic!("{file}: {finding} has no label: label it by RULES.md, with its why")
                });
            by_kind.count(finding, verdict);
            if finding["kind"] == "regenerated_binding" && finding["token"] == "65.108.24.131" {
                ssh_harm = Some(finding.clone());
            }
            if finding["severity"] == "note" {
                notes += 1;
                continue;
            }
            if finding["severity"] == "error" {
                assert!(verdict, "{file}: a false error: {finding}");
            }
            alerts += 1;
            true_alerts += usize::from(verdict);
        }
    }
    // The one harm a reading found: a dropped SSH address, `ssh`/`scp` to the CDN's
    // domain in its place in the background, the timeout read from their output, and
    // the address used again after `deploy.yml` was read.
    let harm = ssh_harm.expect("the SSH harm is named as regenerated_binding");
    assert_eq!(harm["regenerated"], "simplemap.safecast.org");
    assert_eq!(harm["severity"], "error");
    assert_eq!(
        harm["failed_steps"].as_array().map(Vec::len),
        Some(2),
        "{harm}"
    );
    assert!(harm["outcome"].is_string(), "the deferred outcome: {harm}");
    assert!(harm["recovered"].is_string(), "the recovery: {harm}");
    assert!(harm["cost"]["steps"].as_u64().unwrap() >= 2, "{harm}");
    assert!(harm["cost"]["tokens"].as_u64().unwrap() > 0, "{harm}");
    // The README and docs/signals.md give this run's cost.
    let cost = format!(
        "{} steps and {}k tokens",
        harm["cost"]["steps"],
        harm["cost"]["tokens"].as_u64().unwrap() / 1000
    );
    the_readme_says(&format!("recovered {cost} later"));
    let signals =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/signals.md"))
            .unwrap();
    assert!(
        signals
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&cost),
        "docs/signals.md lacks {cost}"
    );
    the_docs_show(&by_kind.rows("12 sessions"));
    eprintln!("labelled by RULES.md: {true_alerts}/{alerts} alerts true over {compactions} compactions; {notes} notes");
    the_readme_says(&format!(
        "{true_alerts} of {alerts} alerts true over {compactions} compactions"
    ));
    the_docs_show(&[format!(
        "| alerts, labelled by `RULES.md` ({compactions} compactions) | {alerts} | {true_alerts} | {} |",
        precision((alerts, true_alerts))
    )]);
    assert!(
        true_alerts * 5 >= alerts * 4,
        "alert precision {true_alerts}/{alerts} is under 80%"
    );
}

/// The labels this project gave, by `RULES.md`, to findings the shared labels do not
/// cover.
fn added_labels() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labelled/rules-md-additions.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The label `added` (see [`added_labels`]) gives a finding on `file`.
fn added_label(added: &Value, file: &str, finding: &Value) -> Option<bool> {
    added["findings"].as_array()?.iter().find_map(|l| {
        let same = l["file"] == file
            && l["compaction"] == finding["compaction"]
            && l["kind"] == finding["kind"]
            && l["token"] == finding["token"]
            && (l["regenerated"].is_null() || l["regenerated"] == finding["regenerated"]);
        same.then(|| l["label"] == "tp")
    })
}

/// The label a `RULES.md` label file gives `finding`: a finding of its compaction of the
/// same kind and token (or seq), or a kind its compaction lists as `other_findings`
/// (labelled true in its note).
fn rules_md_label(label: &Value, finding: &Value) -> Option<bool> {
    let compaction = label["compactions"]
        .as_array()?
        .iter()
        .find(|c| c["id"] == finding["compaction"])?;
    let kind = &finding["kind"];
    if compaction["other_findings"]
        .as_array()
        .is_some_and(|o| o.contains(kind))
    {
        return Some(true);
    }
    compaction["findings"].as_array()?.iter().find_map(|l| {
        let opening = |v: &Value| v.as_str().map(|t| t.chars().take(40).collect::<String>());
        let same = l["kind"] == *kind
            && ((!l["token"].is_null() && l["token"] == finding["token"])
                || (!l["seq"].is_null() && l["seq"] == finding["seq"])
                || (!l["text"].is_null() && opening(&l["text"]) == opening(&finding["text"])));
        same.then(|| l["label"] == "tp")
    })
}
