//! `ctxlens export`: one session as a page to read or paste: its metadata, the
//! conversation with its times, and for each compaction the summary, the region's
//! tokens with what became of them, the findings and the decision. HTML
//! (self-contained), Markdown, or JSON; built from a loaded session and the log's
//! lines, read again by offset.

mod html;
mod markdown;
mod rendered;

use crate::legend::{EventRole, TokenState};
use crate::session::display::HEAD_LIMIT;
use crate::session::readable::readable_record;
use crate::session::{LineSource, Loaded};
use ctxlens_core::analysis::Options;
use ctxlens_core::analysis::{report, Report};
use ctxlens_core::model::EventKind;
use serde::Serialize;

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    /// One self-contained page: inline CSS, no script, no network.
    Html,
    /// For pasting into a pull request or an issue.
    Markdown,
    /// The audit report with the conversation and each compaction's tokens.
    Json,
}

/// A session as export shows it.
#[derive(Debug, Serialize)]
pub(crate) struct Export {
    /// The audit report (`audit --json --tokens`).
    pub report: Report,
    /// What was said and done, in log order; bookkeeping records left out.
    pub conversation: Vec<Turn>,
    /// Records left out of the conversation: bookkeeping (progress, snapshots…) and
    /// messages with no words.
    pub hidden: usize,
    /// Each compaction's summary and region tokens, in the report's order.
    pub compactions: Vec<CompactionTokens>,
}

/// One event of the conversation.
#[derive(Debug, Serialize)]
pub(crate) struct Turn {
    pub seq: u64,
    /// When it was written (RFC 3339, to the second), when the log says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// `user`, `assistant`, `thinking`, `tool call`, `tool result`, `tool error`,
    /// `system`, `compaction`, or `record` (a session, binding, obligation, plan, action,
    /// choice or decision record of the canonical log, its type in `tool`).
    pub role: &'static str,
    /// The tool a call or a result is of; a record's type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Its text, cut at 8 KiB with a note; colour codes and Claude Code's command
    /// tags taken out.
    pub text: String,
    /// The runtime wrote it in the person's place (a slash command's prompt, a hook's
    /// output): shown folded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub meta: bool,
    /// The event's index in the session: where the page's links point.
    #[serde(skip)]
    pub index: usize,
    /// The compaction this event is, by its place in the report's list.
    #[serde(skip)]
    pub compaction: Option<usize>,
}

/// A compaction's summary and every token of its region.
#[derive(Debug, Serialize)]
pub(crate) struct CompactionTokens {
    pub id: String,
    pub summary: Option<String>,
    pub tokens: Vec<TokenOut>,
}

/// A token of a region and what became of it.
#[derive(Debug, Serialize)]
pub(crate) struct TokenOut {
    pub token: String,
    pub class: &'static str,
    /// The legend's label: `kept`, `dropped`, `dropped, recalled`, `carried over`, …
    pub state: &'static str,
    /// The first event of the region that holds it.
    pub first_seq: u64,
    #[serde(skip)]
    pub mark: TokenState,
    /// That event's index in the session.
    #[serde(skip)]
    pub first_event: usize,
}

/// The export of `loaded`, read from `name`'s lines in `log`.
pub(crate) fn build(name: &str, loaded: &Loaded, log: &dyn LineSource) -> Export {
    let session = &loaded.session;
    let options = Options {
        strict: false,
        list_tokens: true,
    };
    let report = report(name, session, &loaded.analysis, options);
    let mut conversation = Vec::new();
    let mut hidden = 0;
    let mut tool_of_call = std::collections::HashMap::new();
    let compaction_at: std::collections::HashMap<usize, usize> = loaded
        .analysis
        .compactions
        .iter()
        .enumerate()
        .map(|(place, c)| (c.info.at, place))
        .collect();
    for (index, event) in session.events.iter().enumerate() {
        let role = EventRole::of(&event.kind);
        let tool = match &event.kind {
            EventKind::ToolCall { head, .. } => {
                if let Some(id) = &head.call_id {
                    tool_of_call.insert(id.clone(), head.name.to_string());
                }
                Some(head.name.to_string())
            }
            EventKind::ToolResult { call_id, .. } => call_id
                .as_ref()
                .and_then(|id| tool_of_call.get(id))
                .cloned(),
            kind if role == EventRole::Record => Some(kind.type_name().to_owned()),
            _ => None,
        };
        if role == EventRole::Bookkeeping {
            hidden += 1;
            continue;
        }
        // A message with no words is no turn: its line is not read.
        if event.kind.is_wordless_message() {
            hidden += 1;
            continue;
        }
        let (text, meta) = match log.line(event.offset, u64::from(event.span)) {
            Ok(bytes) => {
                let readable = readable_record(&bytes, session.format, event.part, HEAD_LIMIT);
                (readable.text, readable.meta)
            }
            Err(error) => (format!("(cannot read this line: {error})"), false),
        };
        let compaction = compaction_at.get(&index).copied();
        // Nor is one that cleaning left empty (a command's caveat alone).
        let spoken = matches!(
            role,
            EventRole::User | EventRole::Assistant | EventRole::Thinking
        );
        if spoken && text.trim().is_empty() {
            hidden += 1;
            continue;
        }
        conversation.push(Turn {
            seq: event.seq,
            ts: event.ts.map(crate::clock::rfc3339),
            role: role.label(),
            tool,
            text,
            meta,
            index,
            compaction,
        });
    }
    let compactions = compaction_tokens(loaded);
    Export {
        report,
        conversation,
        hidden,
        compactions,
    }
}

/// Each compaction's summary and region tokens, with where each token was first seen.
fn compaction_tokens(loaded: &Loaded) -> Vec<CompactionTokens> {
    let session = &loaded.session;
    loaded
        .analysis
        .compactions
        .iter()
        .map(|analysis| CompactionTokens {
            id: analysis.info.id.clone(),
            summary: session
                .summary_at(analysis.info.def)
                .map(|s| crate::sanitize::block(&s.text).into_owned()),
            tokens: analysis
                .tokens
                .iter()
                .map(|token| {
                    let info = session.tokens.get(token.id);
                    let mark = TokenState::of(token);
                    let first_event = token.first_event as usize;
                    TokenOut {
                        token: crate::sanitize::line(info.text).into_owned(),
                        class: info.class.as_str(),
                        state: mark.label(),
                        first_seq: session.seq_at(first_event),
                        mark,
                        first_event,
                    }
                })
                .collect(),
        })
        .collect()
}

/// `export` in `format`; `full` puts the whole conversation in the Markdown (which
/// otherwise holds the compactions alone, to fit a pull request's comment).
pub(crate) fn render(export: &Export, format: ExportFormat, full: bool) -> String {
    match format {
        ExportFormat::Html => html::page(export),
        ExportFormat::Markdown => markdown::page(export, full),
        ExportFormat::Json => serde_json::to_string_pretty(export).unwrap_or_default() + "\n",
    }
}
