//! `instruction_dropped` (docs/remedies.md): a Claude Code summary lists "all user messages";
//! a prompt the person typed in the region that no item of that list covers was lost.

use crate::analysis::finding::{Finding, FindingKind, Severity};
use crate::model::Session;
use std::collections::HashSet;
use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// Ideographs and kana: their words are not separated by spaces.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// The distinct words that count: Unicode words of 4 or more letters, lower case; for
/// CJK text, where UAX #29 gives one character a word, every pair of neighbouring
/// characters (the words of 2 or more characters a dictionary would find contain them).
pub fn words(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut HashSet<String>| {
        for pair in run.windows(2) {
            out.insert(pair.iter().collect());
        }
        run.clear();
    };
    for word in text.unicode_words() {
        let cjk = word.chars().any(is_cjk);
        if cjk {
            run.extend(word.chars().filter(|&c| is_cjk(c)));
            continue;
        }
        flush(&mut run, &mut out);
        if word.chars().filter(|c| c.is_alphabetic()).count() >= 4 {
            out.insert(word.to_lowercase());
        }
    }
    flush(&mut run, &mut out);
    out
}

/// A line numbered `N.` or `N)` (markup allowed before it): its number and the text
/// after the number.
fn numbered(line: &str) -> Option<(u64, &str)> {
    let bare = line.trim_start_matches(['#', '*', '_', ' ']);
    let digits = bare.chars().take_while(char::is_ascii_digit).count();
    let number = bare.get(..digits)?.parse().ok()?;
    let rest = bare.get(digits..)?;
    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
    // `3.14` or `2.0x` is a number in a sentence, not a numbered line.
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    Some((number, rest.trim()))
}

/// Whether the text of a numbered line reads as a section's title ("Pending Tasks:",
/// "**Current Work**"), not as a message: a few words that end with `:` or close
/// emphasis.
fn title_like(text: &str) -> bool {
    let text = text.trim_end_matches(['*', '_']).trim_end();
    text.ends_with(':') && text.split_whitespace().count() <= 6
}

/// Whether `line` starts the section after the user messages, whose heading had the
/// number `heading` (if any): a Markdown heading, or a title-like line numbered one
/// more (or, after an unnumbered heading, any title-like numbered line). A message the
/// summary numbers (`1. can we continue the debug?`) is an item, not a heading.
fn next_section(line: &str, heading: Option<u64>) -> bool {
    if line.starts_with('#') {
        return true;
    }
    if line.starts_with(char::is_whitespace) {
        return false;
    }
    match numbered(line) {
        Some((number, text)) => {
            title_like(text) && heading.is_none_or(|heading| number == heading + 1)
        }
        None => false,
    }
}

/// The items of the summary's "all user messages" section: bullet items, continuation
/// lines joined; `None` when the summary has no such section.
fn user_message_items(summary: &str) -> Option<Vec<String>> {
    let mut lines = summary.lines();
    let heading = lines
        .by_ref()
        .find(|l| l.to_lowercase().contains("all user messages"))?;
    let heading = numbered(heading).map(|(number, _)| number);
    let mut items: Vec<String> = Vec::new();
    for line in lines {
        if next_section(line, heading) {
            break;
        }
        let trimmed = line.trim();
        let bullet = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
            .or_else(|| trimmed.strip_prefix("• "))
            .or_else(|| numbered(trimmed).map(|(_, text)| text));
        match (bullet, items.last_mut()) {
            (Some(text), _) => items.push(text.to_owned()),
            (None, Some(last)) => {
                last.push(' ');
                last.push_str(trimmed);
            }
            (None, None) if !trimmed.is_empty() => items.push(trimmed.to_owned()),
            (None, None) => {}
        }
    }
    Some(items)
}

/// Prompts typed in `region` that no item of the summary's user-message list covers.
/// The region signal: each message the user typed in the region must stand in the
/// summary's list of the user's messages.
pub fn signal(
    region: &super::Region,
    _: &mut crate::analysis::gate::GateFlags,
    findings: &mut Vec<Finding>,
) {
    if let Some(summary) = region.summary {
        check(region.session, region.id, region.events, summary, findings);
    }
}

fn check(
    session: &Session,
    id: &str,
    region: &Range<usize>,
    summary: &str,
    findings: &mut Vec<Finding>,
) {
    let Some(items) = user_message_items(summary) else {
        return;
    };
    let items: Vec<HashSet<String>> = items.iter().map(|i| words(i)).collect();
    for prompt in session.prompts.iter().filter(|p| region.contains(&p.event)) {
        let wanted = words(&prompt.text);
        if wanted.is_empty() {
            continue;
        }
        let needed = wanted.len().div_ceil(2).min(8);
        let covered = items
            .iter()
            .any(|item| wanted.iter().filter(|w| item.contains(*w)).count() >= needed);
        if covered {
            continue;
        }
        let text: String = prompt.text.chars().take(200).collect();
        // Quoted on one line: a message's line breaks read as spaces.
        let start: String = text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(80)
            .collect();
        let seq = session.seq_at(prompt.event);
        findings.push(Finding::new(
            FindingKind::InstructionDropped { text: text.clone() },
            Severity::Warning,
            Some(id),
            format!(
                "{id}'s summary lists the user's messages but not the one at seq {seq}: \"{start}\""
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_long_words_or_cjk_pairs() {
        let w = words("Please add the upload test, then run it");
        assert_eq!(
            w,
            ["please", "upload", "test", "then"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        );
        let cjk = words("第三章を書いて");
        assert!(cjk.contains("第三") && cjk.contains("三章") && cjk.contains("書い"));
    }

    #[test]
    fn the_section_runs_from_its_heading_to_the_next_numbered_one() {
        let summary = "1. Primary Request:\n   x\n6. **All User Messages**:\n   - Add the upload test\n     and run it\n   - 第三章を書いて\n7. Pending Tasks:\n   - nothing";
        let items = user_message_items(summary).unwrap();
        assert_eq!(items, ["Add the upload test and run it", "第三章を書いて"]);
        assert!(user_message_items("no such section").is_none());
        assert!(next_section("## 7. Pending", Some(6)) && !next_section("   1. item", Some(6)));
    }

    #[test]
    fn messages_the_summary_numbers_are_items_not_the_next_section() {
        // The list numbered from 1, at the line's start, as real summaries write it:
        // read as headings, it came out empty and every message was "dropped".
        let summary = "5. Problem Solving:\n   x\n6. All user messages:\n1. can we continue the debug?\n2. it still fails on\n   the second run\n3. Deploy 2.0 now\n7. Pending Tasks:\n   - nothing";
        let items = user_message_items(summary).unwrap();
        assert_eq!(
            items,
            [
                "can we continue the debug?",
                "it still fails on the second run",
                "Deploy 2.0 now"
            ]
        );
        // After an unnumbered heading, a title-like numbered line still ends it.
        let summary = "## All user messages\n1. fix the login\n2. Pending Tasks:\n- x";
        assert_eq!(user_message_items(summary).unwrap(), ["fix the login"]);
        assert_eq!(numbered("3.14 is pi"), None);
    }
}
