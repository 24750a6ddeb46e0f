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
pub(crate) fn words(text: &str) -> HashSet<String> {
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
pub(crate) fn signal(
    region: &super::Region,
    _: &mut crate::analysis::gate::GateFlags,
    findings: &mut Vec<Finding>,
) {
    if let Some(summary) = region.summary {
        check(region.session, region.id, region.events, summary, findings);
    }
}

/// How many of a message's words its match is made on: the opening of a message is
/// what a summary that shortens it keeps (`"Implement the following plan: [plan …]"`),
/// and a pasted document after it says nothing of whether it was listed.
const DISTINCTIVE_WORDS: usize = 10;

/// The words a message is matched on: its first [`DISTINCTIVE_WORDS`] distinct words,
/// in order (the opening), from [`words`].
fn distinctive(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // The opening, a few hundred characters: `words` of the whole would be a set.
    let opening: String = text.chars().take(600).collect();
    for word in opening.unicode_words() {
        for w in words(word) {
            if seen.insert(w.clone()) {
                out.push(w);
            }
        }
        if out.len() >= DISTINCTIVE_WORDS {
            break;
        }
    }
    out
}

/// Whether `wanted` stands in one item, or in two items side by side (a message the
/// summary split in two): at least half of its words, up to four.
fn listed(wanted: &[String], items: &[HashSet<String>]) -> bool {
    let needed = wanted.len().div_ceil(2).min(4);
    let found = |item: &dyn Fn(&str) -> bool| wanted.iter().filter(|w| item(w)).count() >= needed;
    items.iter().any(|item| found(&|w| item.contains(w)))
        || items
            .windows(2)
            .any(|pair| found(&|w| pair.iter().any(|item| item.contains(w))))
}

/// The script most of `text`'s letters are in: 0 alphabets (Latin, Cyrillic, …), 1
/// ideographs and kana, 2 Hangul; `None` without letters.
fn script(text: &str) -> Option<usize> {
    let mut counts = [0usize; 3];
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        let kind = match c as u32 {
            0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => 2,
            _ if is_cjk(c) => 1,
            _ => 0,
        };
        if let Some(n) = counts.get_mut(kind) {
            *n += 1;
        }
    }
    let most = counts.iter().enumerate().max_by_key(|&(_, n)| *n)?;
    (*most.1 > 0).then_some(most.0)
}

/// Whether `text` is written in another script than `other`: a summary in another
/// language than the message, whose words cannot be matched.
fn other_language(text: &str, other: &str) -> bool {
    matches!((script(text), script(other)), (Some(a), Some(b)) if a != b)
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
    let listed_text = items.join("\n");
    let items: Vec<HashSet<String>> = items.iter().map(|i| words(i)).collect();
    let typed: Vec<_> = session
        .prompts
        .iter()
        .filter(|p| region.contains(&p.event))
        .collect();
    for (n, prompt) in typed.iter().enumerate() {
        // Listed when its opening's distinctive words stand in an item (or two), or
        // half of all its words do in one.
        let wanted = distinctive(&prompt.text);
        let all: Vec<String> = words(&prompt.text).into_iter().collect();
        let half_of_all = all.len().div_ceil(2).min(8);
        let whole = items
            .iter()
            .any(|item| all.iter().filter(|w| item.contains(*w)).count() >= half_of_all);
        if wanted.is_empty() || whole || listed(&wanted, &items) {
            continue;
        }
        // An alert claims the compaction lost work still to do. A message the person
        // followed with another before the compaction was answered and acted on, and
        // one in another language than the summary cannot be matched word for word:
        // notes, worth reading, not alerts.
        let acted_on = n + 1 < typed.len();
        let untranslatable = other_language(&prompt.text, &listed_text);
        let (severity, why) = match (acted_on, untranslatable) {
            (true, _) => (
                Severity::Note,
                " (a later message followed it before the compaction: it was acted on)",
            ),
            (false, true) => (
                Severity::Note,
                " (in another language than the summary, which cannot be matched word for word)",
            ),
            (false, false) => (Severity::Warning, ""),
        };
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
            severity,
            Some(id),
            format!(
                "{id}'s summary lists the user's messages but not the one at seq {seq}: \"{start}\"{why}"
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_shortened_or_split_by_the_summary_is_listed() {
        let items = |list: &[&str]| list.iter().map(|i| words(i)).collect::<Vec<_>>();
        // Shortened, a placeholder for the rest.
        let plan = distinctive("Implement the following plan:\n\n# DB viewer and feedback tab fix\n\n## Context\nThe viewer crashes when the table is empty, and the deployment is out of sync with main. Steps: one, two, three.");
        assert!(listed(
            &plan,
            &items(&["Implement the following plan: [plan for DB viewer/feedback tab fix]"])
        ));
        // Split in two.
        let split = distinctive("I checked a bit more seems to work fine now. One other issue. How can we fix this timestamp discrepancy?");
        assert!(listed(
            &split,
            &items(&[
                "I checked a bit more seems to work fine now.",
                "One other issue. How can we fix this?: [timestamp discrepancy]"
            ])
        ));
        // Not there at all.
        assert!(!listed(
            &distinctive("Rotate the signing keys tonight"),
            &items(&["Fix the typo in the README"])
        ));
        assert!(other_language(
            "배포 상태를 확인해 주세요",
            "Check the deployment state"
        ));
        assert!(!other_language("Deploy now", "Deploy it"));
    }

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
