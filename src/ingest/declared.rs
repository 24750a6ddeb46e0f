//! A declared binding is a token whatever its shape, so the extractor alone does not see
//! it in region text. After the first pass (when every declaration is known), the lines
//! of events that lie in some compaction's range are read again and searched for the
//! declared tokens they hold as whole words.

use super::canonical::region_texts;
use super::source::LineSource;
use crate::analysis::tokens::is_whole_word;
use crate::model::{EventKind, RangeSpec, Session, TokenId};
use std::collections::HashSet;
use std::io;

pub fn attach_declared_tokens(
    session: &mut Session,
    source: &(impl LineSource + ?Sized),
) -> io::Result<()> {
    let mut declared: Vec<TokenId> = Vec::new();
    let mut known = HashSet::new();
    for event in &session.events {
        if let EventKind::Binding { token, .. } = event.kind {
            if known.insert(token) {
                declared.push(token);
            }
        }
    }
    if declared.is_empty() {
        return Ok(());
    }
    let ranges = merged_ranges(session);
    let in_a_range = |seq: u64| {
        let at = ranges.partition_point(|&(_, to)| to < seq);
        ranges.get(at).is_some_and(|&(from, _)| from <= seq)
    };
    let wanted: Vec<usize> = session
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind.region_text().is_some() && in_a_range(e.seq))
        .map(|(index, _)| index)
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    // One multi-pattern pass per text finds every declared token in it.
    let texts: Vec<&str> = declared.iter().map(|&id| session.tokens.text(id)).collect();
    let matcher = aho_corasick::AhoCorasick::new(&texts).map_err(io::Error::other)?;
    let classes: Vec<_> = declared
        .iter()
        .map(|&id| session.tokens.class(id))
        .collect();
    for index in wanted {
        let Some(event) = session.events.get(index) else {
            continue;
        };
        let bytes = source.line(event.offset, event.span)?;
        let Ok(value) = super::lines::json_record(&bytes) else {
            continue;
        };
        let region = region_texts(&value);
        let mut found: Vec<TokenId> = Vec::new();
        for text in &region {
            for m in matcher.find_overlapping_iter(text.as_str()) {
                let at = m.pattern().as_usize();
                if let (Some(&class), Some(&id)) = (classes.get(at), declared.get(at)) {
                    if is_whole_word(text, m.start(), m.end(), class) {
                        found.push(id);
                    }
                }
            }
        }
        let Some(digest) = session
            .events
            .get_mut(index)
            .and_then(|e| e.kind.region_text_mut())
        else {
            continue;
        };
        let mut present: HashSet<TokenId> = digest.tokens.iter().copied().collect();
        for id in found {
            if present.insert(id) {
                digest.tokens.push(id);
            }
        }
    }
    Ok(())
}

/// The compactions' ranges, sorted and merged where they overlap or touch.
fn merged_ranges(session: &Session) -> Vec<(u64, u64)> {
    let mut ranges: Vec<(u64, u64)> = session
        .compactions()
        .iter()
        .filter_map(|c| match c.range {
            RangeSpec::Seqs { from, to } if from <= to => Some((from, to)),
            _ => None,
        })
        .collect();
    ranges.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (from, to) in ranges {
        match merged.last_mut() {
            Some(last) if from <= last.1.saturating_add(1) => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}
