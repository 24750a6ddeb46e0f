//! The model, the parsers and the analysis are pure: they live in the `ctxlens-core` crate, whose
//! dependencies hold no terminal, file-watching or process crate (the compiler enforces
//! the rest: core cannot reach `ingest`, `store`, `cli` or `tui`), and whose code does
//! no I/O with the standard library either.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/ctxlens-core/src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() >= 5);
    let forbidden = [
        "std::fs",
        "std::io",
        "std::{",
        "std::env",
        "std::net",
        "std::process",
        "File::",
        "crossterm",
        "ratatui",
        "notify",
        "println!",
        "eprintln!",
        "print!(",
        "stdout()",
        "stderr()",
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

#[test]
fn the_core_crate_depends_on_no_terminal_file_or_process_crate() {
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/ctxlens-core/Cargo.toml"),
    )
    .unwrap();
    let dependencies = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .split("\n[")
        .next()
        .unwrap();
    let allowed = [
        "foldhash",
        "hashbrown",
        "memchr",
        "regex",
        "safe_arch",
        "serde",
        "serde_json",
        "shlex",
        "smallvec",
        "thiserror",
        "time",
        "unicode-segmentation",
    ];
    for line in dependencies.lines().filter(|l| l.contains('=')) {
        // `memchr = "2.8"` and `memchr.workspace = true` name memchr.
        let name = line.split('=').next().unwrap().trim();
        let name = name.strip_suffix(".workspace").unwrap_or(name);
        assert!(allowed.contains(&name), "ctxlens-core depends on {name}");
    }
}

/// Layers above the core match on typed event kinds, never on the names a parser
/// gives them: a renamed record type breaks the build, not a view.
#[test]
fn the_app_matches_no_event_kind_by_its_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for name in [
            "\"compact summary\"",
            "\"microcompact_boundary\"",
            "\"compact_boundary\"",
        ] {
            assert!(
                !text.contains(name),
                "{} compares an event kind by its name {name}: match the typed kind",
                file.display()
            );
        }
        assert!(
            !text.contains("type_name() ==") && !text.contains("type_name() !="),
            "{} compares an event kind by its name: match the typed kind",
            file.display()
        );
    }
}

/// The commands and the TUI open, follow and read logs through the session layer
/// (`session::`), which owns "open a session": they never reach into the reading
/// machinery (`ingest::`) beneath it, so every view of a log is opened one way.
#[test]
fn the_commands_and_the_tui_read_logs_only_through_the_session_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src.join("cli"), &mut files);
    sources(&src.join("tui"), &mut files);
    assert!(files.len() >= 20);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            assert!(
                !code.contains("ingest::") && !code.contains("ingest;"),
                "{}:{}: reaches into ingest/; go through session/: {line}",
                file.display(),
                number + 1
            );
        }
    }
}
