//! Reducing texts to digests: word counts and interned opaque tokens.

use crate::analysis::tokens;
use crate::model::{TextDigest, TokenTable};
use serde_json::Value;

/// Digest of several texts that count as one, with their precomputed word count.
pub fn digest(texts: &[&str], words: u64, table: &mut TokenTable) -> TextDigest {
    let mut out = TextDigest {
        words,
        tokens: Vec::new(),
    };
    for text in texts {
        for found in tokens::extract(text) {
            out.add_token(table.intern(found.text(text), found.class));
        }
    }
    out
}

/// Every string in a JSON value (object keys excluded), depth first.
pub fn json_text_leaves<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| json_text_leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| json_text_leaves(v, out)),
        _ => {}
    }
}
