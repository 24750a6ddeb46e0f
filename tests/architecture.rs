//! `model/` and `analysis/` are pure: no file system, no terminal, no printing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly on purpose

use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn model_and_analysis_do_no_io() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root.join("model"), &mut files);
    sources(&root.join("analysis"), &mut files);
    assert!(files.len() >= 5);
    let forbidden = [
        "std::fs",
        "std::io",
        "std::net",
        "std::process",
        "File::",
        "crossterm",
        "ratatui",
        "notify",
        "println!",
        "eprintln!",
        "print!(",
        "stdout",
        "stderr",
        "crate::ingest",
        "crate::store",
        "crate::cli",
        "crate::tui",
    ];
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests may build sessions from text; the code under test may not.
        let text = text.split("#[cfg(test)]").next().unwrap();
        for word in forbidden {
            assert!(!text.contains(word), "{} uses {word}", file.display());
        }
    }
}
