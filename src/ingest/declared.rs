//! A declared binding is a token whatever its shape, so the extractor alone does not see
//! it in region text. After the first pass (when every declaration is known), the lines
//! of events that lie in some compaction's range are read again and searched for the
//! declared tokens they hold as whole words.

use super::canonical::region_texts;
use super::lines::LineReader;
use crate::analysis::tokens::contains_whole_word;
use crate::model::{EventKind, RangeSpec, Session, TokenId};
use std::collections::HashMap;
use std::io::{self, BufRead};

pub fn attach_declared_tokens<R: BufRead>(session: &mut Session, reader: R) -> io::Result<()> {
    let mut declared: Vec<TokenId> = Vec::new();
    for event in &session.events {
        if let EventKind::Binding { token, .. } = event.kind {
            if !declared.contains(&token) {
                declared.push(token);
            }
        }
    }
    if declared.is_empty() {
        return Ok(());
    }
    let ranges: Vec<(u64, u64)> = session
        .compactions()
        .iter()
        .filter_map(|c| match c.range {
            RangeSpec::Seqs { from, to } => Some((from, to)),
            _ => None,
        })
        .collect();
    let wanted: HashMap<u64, usize> = session
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind.region_text().is_some())
        .filter(|(_, e)| {
            ranges
                .iter()
                .any(|&(from, to)| (from..=to).contains(&e.seq))
        })
        .map(|(index, e)| (e.line, index))
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let texts: Vec<(TokenId, String)> = declared
        .iter()
        .map(|&id| (id, session.tokens.text(id).to_owned()))
        .collect();
    let mut lines = LineReader::new(reader);
    while let Some(line) = lines.next_line()? {
        let Some(&index) = wanted.get(&line.number) else {
            continue;
        };
        let Ok(value) = serde_json::from_slice(line.bytes) else {
            continue;
        };
        let region = region_texts(&value);
        let Some(digest) = session.events[index].kind.region_text_mut() else {
            continue;
        };
        for (id, token) in &texts {
            if digest.tokens.contains(id) {
                continue;
            }
            let class = session.tokens.class(*id);
            if region.iter().any(|t| contains_whole_word(t, token, class)) {
                digest.tokens.push(*id);
            }
        }
    }
    Ok(())
}
