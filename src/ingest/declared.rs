//! A declared binding is a token whatever its shape, so the extractor alone does not see
//! it in region text. After the first pass (when every declaration is known), the lines
//! of events that lie in some compaction's range are read again and searched for the
//! declared tokens they hold as whole words.

use super::source::LineSource;
use ctxlens_core::analysis::is_whole_word;
use ctxlens_core::model::{
    Chunked, DeclaredFound, Event, EventKind, FastSet, RangeSpec, Session, TokenClass, TokenId,
};
use ctxlens_core::parse::region_texts_of_line;
use ctxlens_core::search::{rare_pieces, SampledWindows, SAMPLE_BYTES};
use std::borrow::Cow;
use std::collections::HashSet;
use std::io;

pub(crate) fn attach_declared_tokens(
    session: &mut Session,
    source: &(impl LineSource + ?Sized),
) -> io::Result<()> {
    DeclaredPass::default().attach(session, source)
}

/// The declared-token pass, kept between looks at a followed log: what it was asked
/// (the declared tokens, the events in some compaction's range) and what it found. A
/// log that only grows, with no new binding or compaction, asks the same again, and
/// the lines are not read again (they were every region line of the log, on every
/// appended event). Whoever reads the log again from the start starts a new pass.
#[derive(Debug, Default)]
pub struct DeclaredPass {
    asked: (Vec<TokenId>, Vec<usize>),
    /// Declared tokens found in each event's region text.
    found: Found,
    /// The events as the last attach left them (a clone sharing their chunks), and
    /// the compactions' ranges then.
    seen: Chunked<Event>,
    ranges: Vec<(u64, u64)>,
    /// What the last attach attached.
    attached: DeclaredFound,
}

impl DeclaredPass {
    pub fn attach(
        &mut self,
        session: &mut Session,
        source: &(impl LineSource + ?Sized),
    ) -> io::Result<()> {
        // Events appended since, none a binding or a compaction: the same question,
        // and what was found is attached already (a pass per append was a pass over
        // every event of the log).
        let common = self.seen.common_prefix(&session.events);
        let asks_nothing_new = |e: &Event| match e.kind {
            EventKind::Binding { .. } | EventKind::Compaction { .. } => false,
            // A range can reach past the log (a coverage gap): such an event is asked.
            ref kind => kind.region_text().is_none() || !in_ranges(&self.ranges, e.seq),
        };
        let only_appended = common == self.seen.len()
            && session
                .events
                .range(common..session.events.len())
                .all(asks_nothing_new);
        if only_appended {
            self.seen = session.events.clone();
            session.declared = self.attached.clone();
            return Ok(());
        }
        self.ranges = merged_ranges(session);
        let asked = what_to_search(session, &self.ranges);
        if asked != self.asked {
            self.found = search(session, source, &asked.0, &asked.1)?;
            self.asked = asked;
        }
        // Kept beside the events: a write to them would copy every chunk a snapshot
        // shares.
        let beyond_digests = self
            .found
            .iter()
            .filter_map(|(index, found)| {
                let digest = session.events.get(*index)?.kind.region_text()?;
                let beyond = beyond_digest(&digest.tokens, found);
                (!beyond.is_empty()).then_some((*index, beyond))
            })
            .collect();
        self.attached = DeclaredFound::new(beyond_digests);
        session.declared = self.attached.clone();
        self.seen = session.events.clone();
        Ok(())
    }
}

/// The tokens of `found` that `digest` lacks, each once, in the order of `found`.
fn beyond_digest(digest: &[TokenId], found: &[TokenId]) -> Box<[TokenId]> {
    // Most lines hold a declared token or two among a few dozen: a set for each was
    // most of the time the pass took after its search, on one thread.
    if found.len().saturating_mul(digest.len() + found.len()) <= FEW_TO_COMPARE {
        let mut beyond: Vec<TokenId> = Vec::with_capacity(found.len());
        for &id in found {
            if !digest.contains(&id) && !beyond.contains(&id) {
                beyond.push(id);
            }
        }
        return beyond.into_boxed_slice();
    }
    let mut present =
        FastSet::with_capacity_and_hasher(digest.len() + found.len(), Default::default());
    present.extend(digest.iter().copied());
    found
        .iter()
        .copied()
        .filter(|&id| present.insert(id))
        .collect()
}

/// Comparisons up to which [`beyond_digest`] compares ids one with another.
const FEW_TO_COMPARE: usize = 1024;

/// The declared tokens, in order of declaration, and the events whose region text is
/// in some compaction's range.
fn what_to_search(session: &Session, ranges: &[(u64, u64)]) -> (Vec<TokenId>, Vec<usize>) {
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
        return (declared, Vec::new());
    }
    let wanted: Vec<usize> = session
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind.region_text().is_some() && in_ranges(ranges, e.seq))
        .map(|(index, _)| index)
        .collect();
    (declared, wanted)
}

/// The bytes of the log from the first of the `wanted` events' lines on (up to
/// [`SAMPLE_BYTES`]): what the rare pieces of the declared tokens are counted in.
fn sample_of(
    session: &Session,
    source: &(impl LineSource + ?Sized),
    wanted: &[usize],
) -> io::Result<Vec<u8>> {
    match wanted.first().and_then(|&index| session.events.get(index)) {
        Some(first) => source.line(first.offset, SAMPLE_BYTES as u64),
        None => Ok(Vec::new()),
    }
}

/// Declared tokens' total length up to which they are matched by a DFA.
const MAX_DFA_PATTERN_BYTES: usize = 64 << 10;

/// Reads the lines of the `wanted` events and finds the `declared` tokens in their
/// region texts as whole words: one multi-pattern pass per text.
fn search(
    session: &Session,
    source: &(impl LineSource + ?Sized),
    declared: &[TokenId],
    wanted: &[usize],
) -> io::Result<Found> {
    if declared.is_empty() || wanted.is_empty() {
        return Ok(Vec::new());
    }
    let texts: Vec<&str> = declared.iter().map(|&id| session.tokens.text(id)).collect();
    let matcher = Matcher::new(&texts, || sample_of(session, source, wanted))?;
    let classes: Vec<_> = declared
        .iter()
        .map(|&id| session.tokens.class(id))
        .collect();
    let search_in =
        |part: &[usize]| search_part(session, source, (&matcher, &classes, declared), part);
    search_on(ctxlens_core::threads::cores(), wanted, search_in)
}

/// Runs `search_in` over `wanted` on up to `threads` threads, in contiguous parts.
fn search_on(
    threads: usize,
    wanted: &[usize],
    search_in: impl Fn(&[usize]) -> io::Result<Found> + Sync,
) -> io::Result<Found> {
    if threads < 2 || wanted.len() < PARALLEL_FROM {
        return search_in(wanted);
    }
    // Long regions (a whole log's first read) are searched in contiguous parts on
    // every core; the parts' results, in order, are the whole's.
    let mut out = Vec::new();
    for part in ctxlens_core::threads::in_parts(wanted, threads, 1, search_in) {
        out.extend(part?);
    }
    Ok(out)
}

/// The declared tokens, searched for two ways: where they may stand in a text (fast,
/// and most texts hold none), and every occurrence around those places.
struct Matcher {
    first: FirstFound,
    every: aho_corasick::AhoCorasick,
    /// Whether no token holds a character JSON writes escaped but for `\u` and `\/`
    /// (a `"`, a `\` or a control character): see [`Matcher::holds_verbatim`].
    plain_tokens: bool,
}

/// What finds the places where declared tokens stand.
enum FirstFound {
    /// Every occurrence, looking at one place in every few bytes: more than
    /// [`FEW_TOKENS`] tokens, each of four bytes or more (with many tokens, faster than
    /// the automaton below).
    Sampled(SampledWindows),
    /// The leftmost-first matches of an automaton: for a few tokens, for one under
    /// four bytes (its windows would say too little to pass over text), and past the
    /// bytes the windows' memory allows. An occurrence ends within `reach` bytes after
    /// the match it starts in (the longest token's length, less one).
    Automaton {
        automaton: aho_corasick::AhoCorasick,
        reach: usize,
        /// A rare piece of each token ([`rare_pieces`]), which a text that holds the
        /// token holds too: most texts hold none of them, and are told at once.
        pieces: aho_corasick::AhoCorasick,
    },
}

/// Up to this many tokens the automaton searches with vector instructions (the
/// packed searcher of `aho-corasick` takes 64 patterns at most), faster than sampled
/// windows for so few.
const FEW_TOKENS: usize = 64;

impl Matcher {
    /// A matcher for `texts`, in a log that `sample` reads a part of (if the matcher
    /// needs one).
    fn new(texts: &[&str], sample: impl FnOnce() -> io::Result<Vec<u8>>) -> io::Result<Matcher> {
        Self::sampled_past(texts, FEW_TOKENS, sample)
    }

    /// A matcher that looks at sampled windows for more than `few` tokens.
    fn sampled_past(
        texts: &[&str],
        few: usize,
        sample: impl FnOnce() -> io::Result<Vec<u8>>,
    ) -> io::Result<Matcher> {
        let sampled = (texts.len() > few)
            .then(|| SampledWindows::new(texts))
            .flatten();
        let first = match sampled {
            Some(sampled) => FirstFound::Sampled(sampled),
            None => FirstFound::Automaton {
                automaton: Self::leftmost_first(texts)?,
                reach: texts
                    .iter()
                    .map(|t| t.len())
                    .max()
                    .unwrap_or(0)
                    .saturating_sub(1),
                pieces: Self::pieces(texts, &sample()?)?,
            },
        };
        // The texts that hold a token are searched for every occurrence (overlapping,
        // which only the standard kind finds), only near the places found first: by an
        // automaton quick to build (the DFA the builder picks is built on one core
        // before the pass can start).
        let every = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(texts)
            .map_err(io::Error::other)?;
        let plain_tokens = texts
            .iter()
            .all(|t| !t.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20));
        Ok(Matcher {
            first,
            every,
            plain_tokens,
        })
    }

    /// Whether every occurrence of a token in the texts of the record `line` stands in
    /// its bytes as it is, so that [`Self::may_hold_any`] may be asked of them: a line
    /// without escapes, or one whose only escapes are of characters no token holds (no
    /// `\u`, which may write any character, nor `\/`). A `\\u` (an escaped backslash,
    /// then `u`) counts as one: the line is then parsed, as before.
    fn holds_verbatim(&self, line: &[u8]) -> bool {
        memchr::memchr(b'\\', line).is_none()
            || (self.plain_tokens
                && memchr::memmem::find(line, b"\\u").is_none()
                && memchr::memmem::find(line, b"\\/").is_none())
    }

    /// An automaton of the rarest piece of each of `texts` in `sample`; leftmost-first,
    /// as only such a search uses the packed searcher (the standard kind read each
    /// byte, at twice the cost of the whole tokens' search).
    fn pieces(texts: &[&str], sample: &[u8]) -> io::Result<aho_corasick::AhoCorasick> {
        let texts: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(rare_pieces(&texts, sample))
            .map_err(io::Error::other)
    }

    /// A DFA scans several times faster than the NFA the builder picks past a hundred
    /// tokens, and takes a few MiB for the tokens a session declares (past that the
    /// NFA keeps memory small); leftmost-first, it scans faster again, and whether a
    /// text holds a token does not depend on
    /// the kind. Up to [`FEW_TOKENS`] the automaton skips to its matches with vector
    /// instructions whatever its kind, and only the texts that hold a rare piece are
    /// searched: a contiguous NFA, quicker to build (a DFA is built on one core before
    /// the search can start).
    fn leftmost_first(texts: &[&str]) -> io::Result<aho_corasick::AhoCorasick> {
        use aho_corasick::AhoCorasickKind::{ContiguousNFA, DFA};
        let pattern_bytes: usize = texts.iter().map(|t| t.len()).sum();
        let kind = match texts.len() <= FEW_TOKENS {
            true => Some(ContiguousNFA),
            false => (pattern_bytes <= MAX_DFA_PATTERN_BYTES).then_some(DFA),
        };
        aho_corasick::AhoCorasick::builder()
            .kind(kind)
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(texts)
            .map_err(io::Error::other)
    }

    /// Whether any declared token may occur in `bytes`: false only where none does.
    #[cfg(test)]
    fn may_hold_any(&self, bytes: &[u8]) -> bool {
        self.where_any_may_start(bytes).is_some()
    }

    /// `None` where no declared token occurs in `bytes`; else a place before which
    /// none starts (0 when the first look does not tell).
    fn where_any_may_start(&self, bytes: &[u8]) -> Option<usize> {
        match &self.first {
            FirstFound::Sampled(sampled) => sampled.first_start(bytes),
            FirstFound::Automaton { pieces, .. } => pieces.is_match(bytes).then_some(0),
        }
    }

    /// Every occurrence of a declared token in `text`, overlapping, in the order a
    /// search of the whole text gives them. Only the stretches around the places
    /// found first are searched for every occurrence (the whole text was most of the
    /// pass's cost on long tool results): each occurrence lies in one of them.
    /// - sampled windows find every occurrence: its own place is its stretch;
    /// - from where it stands, the leftmost-first search finds the leftmost place
    ///   where any token starts, so every occurrence starts inside one of its
    ///   matches, and ends within the longest token of it.
    ///
    /// No occurrence starts before `from` (a place [`Self::where_any_may_start`]
    /// gave): sampled windows look from there.
    fn every_in<'t>(
        &'t self,
        text: &'t str,
        from: usize,
    ) -> impl Iterator<Item = aho_corasick::Match> + 't {
        let stretches: Vec<std::ops::Range<usize>> = match &self.first {
            FirstFound::Sampled(sampled) => sampled.occurrences_from(text.as_bytes(), from),
            FirstFound::Automaton {
                automaton, reach, ..
            } => automaton
                .find_iter(text)
                .map(|m| m.start()..m.end().saturating_add(*reach).min(text.len()))
                .collect(),
        };
        let mut stretches = stretches.into_iter().peekable();
        let merged = std::iter::from_fn(move || {
            let mut stretch = stretches.next()?;
            while let Some(next) = stretches.next_if(|next| next.start <= stretch.end) {
                stretch.end = stretch.end.max(next.end);
            }
            Some(stretch)
        });
        merged.flat_map(move |stretch| {
            self.every
                .find_overlapping_iter(aho_corasick::Input::new(text).span(stretch))
        })
    }
}

/// What a search found: each event's index and the declared tokens in its texts.
type Found = Vec<(usize, Vec<TokenId>)>;

/// Region events from which a search is split between cores.
const PARALLEL_FROM: usize = 4096;

/// [`search`] over the events `wanted`.
fn search_part(
    session: &Session,
    source: &(impl LineSource + ?Sized),
    (matcher, classes, declared): (&Matcher, &[TokenClass], &[TokenId]),
    wanted: &[usize],
) -> io::Result<Found> {
    let mut out = Vec::new();
    let mut rest = wanted;
    while !rest.is_empty() {
        let (block, lines) = read_block(session, source, rest)?;
        let (in_block, after) = rest.split_at(lines.min(rest.len()));
        rest = after;
        for &index in in_block {
            let Some(event) = session.events.get(index) else {
                continue;
            };
            let line = block.line(event.offset, u64::from(event.span));
            if let Some(found) = declared_in_line(line, (matcher, classes, declared)) {
                out.push((index, found));
            }
        }
    }
    Ok(out)
}

/// Bytes of the log read at once by the declared pass: a block of region lines, not a
/// read per line (the reads were most of the pass's cost on a long region).
const BLOCK_BYTES: u64 = 1 << 20;

/// The lines read at once: where they start in the log, and their bytes.
struct Block {
    start: u64,
    bytes: Vec<u8>,
}

impl Block {
    /// The bytes `offset..offset + span`, newline trimmed: what
    /// [`LineSource::line`] reads. A line past the end of the file (cut since it was
    /// indexed) is what is left of it.
    fn line(&self, offset: u64, span: u64) -> &[u8] {
        let from = offset.saturating_sub(self.start);
        let to = from.saturating_add(span);
        let at = |i: u64| usize::try_from(i).map_or(self.bytes.len(), |i| i.min(self.bytes.len()));
        let bytes = self.bytes.get(at(from)..at(to)).unwrap_or_default();
        super::source::without_newline(bytes)
    }
}

/// Reads the lines of the first events of `wanted` that lie, in order, within
/// [`BLOCK_BYTES`] of the first one's start (the first one whatever its length), and
/// how many events that is.
fn read_block(
    session: &Session,
    source: &(impl LineSource + ?Sized),
    wanted: &[usize],
) -> io::Result<(Block, usize)> {
    let at = |index: usize| session.events.get(index).map(|e| (e.offset, e.end()));
    let Some((start, mut end)) = wanted.first().and_then(|&index| at(index)) else {
        // An index past the events: nothing to read for it.
        let bytes = Vec::new();
        return Ok((Block { start: 0, bytes }, 1));
    };
    let mut lines = 1;
    for &index in wanted.get(1..).unwrap_or_default() {
        match at(index) {
            Some((offset, line_end)) if offset >= end && line_end - start <= BLOCK_BYTES => {
                end = line_end;
                lines += 1;
            }
            _ => break,
        }
    }
    let bytes = source.line(start, end - start)?;
    Ok((Block { start, bytes }, lines))
}

/// The declared tokens in the region texts of a line (none if it holds none, or it is
/// no record).
fn declared_in_line(
    bytes: &[u8],
    (matcher, classes, declared): (&Matcher, &[TokenClass], &[TokenId]),
) -> Option<Vec<TokenId>> {
    // A line that holds its tokens verbatim: if no declared token occurs in its bytes,
    // none occurs in its texts, and it is not parsed (a tool output's newlines made
    // every line of a realistic log parse, three times the pass's time). If one does,
    // none starts before the place the look gives, in the bytes or in a text that
    // stands in them as it is.
    let from = match matcher.holds_verbatim(bytes) {
        true => matcher.where_any_may_start(bytes)?,
        false => 0,
    };
    declared_in_record(bytes, from, (matcher, classes, declared))
}

/// [`declared_in_line`] of a line read whole, no declared token starting before `from`
/// in its bytes.
fn declared_in_record(
    bytes: &[u8],
    from: usize,
    (matcher, classes, declared): (&Matcher, &[TokenClass], &[TokenId]),
) -> Option<Vec<TokenId>> {
    let mut found: Vec<TokenId> = Vec::new();
    for text in &region_texts_of_line(bytes)? {
        // A text borrowed from the line is its bytes as they are, where it stands.
        let from = match text {
            Cow::Borrowed(text) => place_in(bytes, text).map_or(0, |at| from.saturating_sub(at)),
            Cow::Owned(_) => 0,
        };
        for m in matcher.every_in(text, from) {
            let at = m.pattern().as_usize();
            if let (Some(&class), Some(&id)) = (classes.get(at), declared.get(at)) {
                if is_whole_word(text, m.start(), m.end(), class) {
                    found.push(id);
                }
            }
        }
    }
    (!found.is_empty()).then_some(found)
}

/// Where `part`, a slice of `whole`, starts in it.
fn place_in(whole: &[u8], part: &str) -> Option<usize> {
    let at = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (at.checked_add(part.len())? <= whole.len()).then_some(at)
}

/// Whether `seq` lies in one of `ranges` (sorted and merged).
fn in_ranges(ranges: &[(u64, u64)], seq: u64) -> bool {
    let at = ranges.partition_point(|&(_, to)| to < seq);
    ranges.get(at).is_some_and(|&(from, _)| from <= seq)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Lines from memory, counting the reads.
    struct Counting<'a> {
        bytes: &'a [u8],
        reads: AtomicUsize,
    }

    impl<'a> Counting<'a> {
        fn new(bytes: &'a [u8]) -> Self {
            Counting {
                bytes,
                reads: AtomicUsize::new(0),
            }
        }
    }

    /// `log` and one more event after its compaction, naming the declared token.
    fn grown(log: &str) -> String {
        format!(
            "{log}{}\n",
            r#"{"type":"message","seq":5,"text":"tok_77 again"}"#
        )
    }

    impl LineSource for Counting<'_> {
        fn line(&self, offset: u64, span: u64) -> io::Result<Vec<u8>> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            self.bytes.line(offset, span)
        }
    }

    /// A long region searched in parts on several threads finds what one thread finds,
    /// in the same order.
    #[test]
    fn a_long_region_searched_on_several_threads_finds_what_one_finds() {
        let mut log = String::from(concat!(
            r#"{"type":"session","seq":1}"#,
            "\n",
            r#"{"type":"binding","seq":2,"token":"tok_77","regenerable":false}"#,
            "\n",
            r#"{"type":"binding","seq":3,"token":"ref-9","regenerable":true}"#,
            "\n"
        ));
        let events = PARALLEL_FROM + 700;
        for i in 0..events {
            let text = match i % 7 {
                0 => "wrote tok_77 here",
                3 => "ref-9 and tok_77",
                5 => "tok_771 is not it",
                _ => "nothing to see",
            };
            log.push_str(&format!(
                "{{\"type\":\"tool_result\",\"seq\":{},\"text\":\"{text}\"}}\n",
                i + 4
            ));
        }
        log.push_str(&format!(
            "{{\"type\":\"compaction\",\"seq\":{},\"id\":\"k1\",\"phase\":\"applied\",\"range\":{{\"from\":2,\"to\":{}}},\"summary\":\"done\"}}\n",
            events + 4,
            events + 3
        ));
        let session = crate::ingest::parse(log.as_bytes()).unwrap();
        let (declared, wanted) = what_to_search(&session, &merged_ranges(&session));
        assert!(wanted.len() > PARALLEL_FROM);
        let texts: Vec<&str> = declared.iter().map(|&id| session.tokens.text(id)).collect();
        let matcher = Matcher::new(&texts, || Ok(Vec::new())).unwrap();
        let classes: Vec<_> = declared
            .iter()
            .map(|&id| session.tokens.class(id))
            .collect();
        let bytes = log.as_bytes();
        let search_in =
            |part: &[usize]| search_part(&session, bytes, (&matcher, &classes, &declared), part);
        let one = search_on(1, &wanted, search_in).unwrap();
        assert_eq!(one.len(), events / 7 * 2 + 1);
        for threads in [2, 3, 4] {
            assert_eq!(search_on(threads, &wanted, search_in).unwrap(), one);
        }
    }

    proptest::proptest! {
        /// The ids beyond a digest, compared one by one or through a set: each found id
        /// the digest lacks, once, in the order found.
        #[test]
        fn ids_beyond_a_digest_are_those_it_lacks(
            digest in proptest::collection::vec(0u32..60, 0..80),
            found in proptest::collection::vec(0u32..60, 0..40),
        ) {
            let digest: Vec<TokenId> = digest.into_iter().map(TokenId).collect();
            let found: Vec<TokenId> = found.into_iter().map(TokenId).collect();
            let mut expected: Vec<TokenId> = Vec::new();
            for id in &found {
                if !digest.contains(id) && !expected.contains(id) {
                    expected.push(*id);
                }
            }
            proptest::prop_assert_eq!(beyond_digest(&digest, &found).to_vec(), expected);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
        /// A line whose bytes are not looked at first finds what one read whole finds,
        /// whatever escapes it holds (JSON's own, `\/`, `\u`) and whatever the tokens
        /// hold; and with sampled windows (tokens of four bytes or more), which say
        /// where in the line the first occurrence may start, a text that stands in the
        /// line as it is searched from there finds them all.
        #[test]
        fn a_line_passed_over_holds_no_declared_token(
            tokens in proptest::collection::vec(
                proptest::prop_oneof!["[ab1/._-]{2,9}", "[ab1/\"\\\n._-]{2,9}"],
                1..4,
            ),
            pieces in proptest::collection::vec("[ab1 /\"\\\n\té._-]{0,12}", 0..6),
            picks in proptest::collection::vec(0usize..4, 0..6),
            escapes in (proptest::bool::ANY, proptest::bool::ANY),
            sampled in proptest::bool::ANY,
        ) {
            let few = if sampled { 0 } else { FEW_TOKENS };
            line_passed_over_holds_no_declared_token(&tokens, (&pieces, &picks), escapes, few)?;
        }
    }

    /// A tool result of `pieces` with `tokens` between them as `picks` says, its line
    /// rewritten with `\/` and `\u` escapes as `(slash, letter)` say: what
    /// [`declared_in_line`] finds in it is what reading it whole finds. Sampled windows
    /// past `few` tokens.
    fn line_passed_over_holds_no_declared_token(
        tokens: &[String],
        (pieces, picks): (&[String], &[usize]),
        (slash, letter): (bool, bool),
        few: usize,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut text = String::new();
        for (i, piece) in pieces.iter().enumerate() {
            text.push_str(piece);
            if let Some(token) = picks.get(i).and_then(|&k| tokens.get(k)) {
                text.push(' ');
                text.push_str(token);
                text.push(' ');
            }
        }
        let record = serde_json::json!({"type": "tool_result", "seq": 1, "text": text});
        let mut line = record.to_string();
        if slash {
            line = line.replace('/', "\\/");
        }
        if letter {
            line = line.replace('a', "\\u0061");
        }
        let texts: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let matcher = Matcher::sampled_past(&texts, few, || Ok(Vec::new())).unwrap();
        let classes: Vec<TokenClass> = texts
            .iter()
            .map(|t| ctxlens_core::analysis::classify(t))
            .collect();
        let ids: Vec<TokenId> = (0..texts.len() as u32).map(TokenId).collect();
        let asked = (&matcher, classes.as_slice(), ids.as_slice());
        proptest::prop_assert_eq!(
            declared_in_line(line.as_bytes(), asked),
            declared_in_record(line.as_bytes(), 0, asked)
        );
        Ok(())
    }

    const LOG: &str = r#"{"type":"session","seq":1}
{"type":"binding","seq":2,"token":"tok_77","regenerable":false}
{"type":"tool_result","seq":3,"text":"wrote tok_77 and more"}
{"type":"compaction","seq":4,"id":"k1","phase":"applied","range":{"from":2,"to":3},"summary":"done"}
"#;

    fn tokens_of(session: &Session, index: usize) -> Vec<String> {
        session
            .events
            .get(index)
            .and_then(|e| e.kind.region_text())
            .map(|d| {
                session
                    .tokens_of(index, d)
                    .map(|t| session.tokens.text(t).to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_log_that_only_grows_is_not_read_again() {
        let grown = grown(LOG);
        let source = Counting::new(grown.as_bytes());
        let mut pass = DeclaredPass::default();
        let mut first = crate::ingest::parse(LOG.as_bytes()).unwrap();
        pass.attach(&mut first, &source).unwrap();
        assert_eq!(tokens_of(&first, 2), ["tok_77"]);
        let reads = source.reads.load(Ordering::Relaxed);
        assert_eq!(reads, 2, "the sample, then the one region line");
        // One more event, after the compaction: nothing new to search.
        let mut second = crate::ingest::parse(grown.as_bytes()).unwrap();
        pass.attach(&mut second, &source).unwrap();
        assert_eq!(
            source.reads.load(Ordering::Relaxed),
            reads,
            "not read again"
        );
        let mut fresh = crate::ingest::parse(grown.as_bytes()).unwrap();
        attach_declared_tokens(&mut fresh, grown.as_bytes()).unwrap();
        assert_eq!(tokens_of(&second, 2), tokens_of(&fresh, 2));
        // A new compaction takes the new event into a range: searched again.
        let again = format!(
            "{grown}{}\n",
            r#"{"type":"compaction","seq":6,"id":"k2","phase":"applied","range":{"from":5,"to":5},"summary":"x"}"#
        );
        let mut third = crate::ingest::parse(again.as_bytes()).unwrap();
        let source = Counting::new(again.as_bytes());
        pass.attach(&mut third, &source).unwrap();
        assert_eq!(
            source.reads.load(Ordering::Relaxed),
            2,
            "the sample, then both region lines in one read"
        );
        assert_eq!(tokens_of(&third, 4), ["tok_77"]);
    }

    /// Lines read a block at a time are searched as each line read alone: across the
    /// blocks' edges, with `\r\n` endings and escapes, and with the last line cut short
    /// (the file shrank after it was indexed).
    #[test]
    fn lines_read_in_blocks_are_searched_as_each_read_alone() {
        let mut log = String::from(concat!(
            r#"{"type":"session","seq":1}"#,
            "\n",
            r#"{"type":"binding","seq":2,"token":"tok_77","regenerable":false}"#,
            "\n"
        ));
        let filler = "word ".repeat(300);
        let mut seq = 3;
        while log.len() < 3 * BLOCK_BYTES as usize {
            let text = match seq % 5 {
                0 => "tok_77 starts it",
                1 => r#"an escaped \"tok_77\""#,
                2 => "tok_770 is not it",
                _ => "nothing",
            };
            let end = if seq % 3 == 0 { "\r\n" } else { "\n" };
            log.push_str(&format!(
                r#"{{"type":"message","seq":{seq},"text":"{filler}{text}"}}{end}"#
            ));
            seq += 1;
        }
        log.push_str(&format!(
            r#"{{"type":"compaction","seq":{seq},"id":"k","phase":"applied","range":{{"from":3,"to":{}}},"summary":"x"}}"#,
            seq - 1
        ));
        let session = crate::ingest::parse(log.as_bytes()).unwrap();
        let (declared, wanted) = what_to_search(&session, &merged_ranges(&session));
        let last = &session.events[*wanted.last().unwrap()];
        let cut = &log.as_bytes()[..last.offset as usize + 40];
        let texts: Vec<&str> = declared.iter().map(|&id| session.tokens.text(id)).collect();
        let matcher = Matcher::new(&texts, || Ok(Vec::new())).unwrap();
        let classes: Vec<_> = declared
            .iter()
            .map(|&id| session.tokens.class(id))
            .collect();
        let asked = (&matcher, classes.as_slice(), declared.as_slice());
        // Each line of a block is what a read of that line alone gives.
        let mut rest = wanted.as_slice();
        let mut blocks = 0;
        while !rest.is_empty() {
            let (block, lines) = read_block(&session, cut, rest).unwrap();
            for &index in &rest[..lines] {
                let e = &session.events[index];
                assert_eq!(
                    block.line(e.offset, u64::from(e.span)),
                    cut.line(e.offset, u64::from(e.span)).unwrap()
                );
            }
            rest = &rest[lines..];
            blocks += 1;
        }
        assert!((3..=5).contains(&blocks), "{blocks} blocks");
        // And what is found in them is what is found line by line.
        let in_blocks = search_part(&session, cut, asked, &wanted).unwrap();
        let one_by_one: Found = wanted
            .iter()
            .filter_map(|&index| {
                let e = &session.events[index];
                let line = cut.line(e.offset, u64::from(e.span)).unwrap();
                declared_in_line(&line, asked).map(|found| (index, found))
            })
            .collect();
        assert_eq!(in_blocks, one_by_one);
        assert!(in_blocks.len() > 200, "{}", in_blocks.len());
    }

    /// The followed session itself grows (the TUI's worker attaches to it): an
    /// appended event that no range takes in costs no pass, and one that a range
    /// reaching past the log takes in is searched, as a fresh pass would.
    #[test]
    fn an_appended_event_is_searched_only_where_a_range_takes_it_in() {
        for (to, searched) in [(3, false), (9, true)] {
            let log = LOG.replace(r#""to":3"#, &format!(r#""to":{to}"#));
            let grown = grown(&log);
            let source = Counting::new(grown.as_bytes());
            let mut pass = DeclaredPass::default();
            let mut session = crate::ingest::parse(log.as_bytes()).unwrap();
            pass.attach(&mut session, &source).unwrap();
            let reads = source.reads.load(Ordering::Relaxed);
            let appended = crate::ingest::parse(grown.as_bytes()).unwrap();
            session.events.push(appended.events[4].clone());
            pass.attach(&mut session, &source).unwrap();
            let mut fresh = crate::ingest::parse(grown.as_bytes()).unwrap();
            attach_declared_tokens(&mut fresh, grown.as_bytes()).unwrap();
            for index in 0..5 {
                assert_eq!(
                    tokens_of(&session, index),
                    tokens_of(&fresh, index),
                    "to {to}"
                );
            }
            assert_eq!(tokens_of(&session, 4).is_empty(), !searched, "to {to}");
            assert_eq!(
                source.reads.load(Ordering::Relaxed) > reads,
                searched,
                "to {to}"
            );
        }
    }

    proptest::proptest! {
        /// Searching for every occurrence only around what the first-found search
        /// finds gives what a search of the whole text gives, in the same order.
        #[test]
        fn occurrences_near_first_found_ones_are_all_the_occurrences(
            tokens in proptest::collection::btree_set("[ab-]{1,5}|é[ab]?", 1..6),
            text in "[ab é-]{0,60}",
        ) {
            let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
            every_in_finds_what_the_whole_text_holds(&tokens, &text, FEW_TOKENS)?;
        }

        /// The same where every token is long enough for sampled windows.
        #[test]
        fn occurrences_around_sampled_windows_are_all_the_occurrences(
            tokens in proptest::collection::btree_set("[ab-]{4,22}|é[ab]{2,9}", 1..6),
            pieces in proptest::collection::vec((0usize..8, 0usize..24, "[ab é-]{0,5}"), 0..10),
        ) {
            let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
            let text = text_of(&tokens, &pieces);
            every_in_finds_what_the_whole_text_holds(&tokens, &text, 0)?;
        }
    }

    /// A text made of junk and tokens, whole or cut short, so that occurrences and
    /// near misses stand at every offset.
    fn text_of(tokens: &[&str], pieces: &[(usize, usize, String)]) -> String {
        let mut text = String::new();
        for (index, cut, junk) in pieces {
            text.push_str(junk);
            let token = tokens[index % tokens.len()];
            text.push_str(token.get(..*cut).unwrap_or(token));
        }
        text
    }

    /// Every occurrence `every_in` finds, and in the order, of a search of the whole
    /// text; and whether the matcher says the text holds any.
    fn every_in_finds_what_the_whole_text_holds(
        tokens: &[&str],
        text: &str,
        few: usize,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let Ok(matcher) = Matcher::sampled_past(tokens, few, || Ok(text.as_bytes().to_vec()))
        else {
            panic!("the tokens make a matcher");
        };
        let sampled = matches!(matcher.first, FirstFound::Sampled(_));
        let long = tokens.iter().all(|t| t.len() >= 4);
        proptest::prop_assert_eq!(sampled, tokens.len() > few && long);

        let as_triple = |m: aho_corasick::Match| (m.pattern().as_usize(), m.start(), m.end());
        let near: Vec<_> = matcher.every_in(text, 0).map(as_triple).collect();
        // From where the first look says the first occurrence may start: the same.
        let from = matcher.where_any_may_start(text.as_bytes()).unwrap_or(0);
        let from_first: Vec<_> = matcher.every_in(text, from).map(as_triple).collect();
        proptest::prop_assert_eq!(&from_first, &near);
        let whole: Vec<_> = matcher
            .every
            .find_overlapping_iter(text)
            .map(as_triple)
            .collect();
        // The first look may say a text holds a token where none stands, never the
        // other way.
        let may_hold = matcher.may_hold_any(text.as_bytes());
        proptest::prop_assert!(may_hold || whole.is_empty());
        if sampled {
            proptest::prop_assert_eq!(may_hold, !whole.is_empty());
        }
        proptest::prop_assert_eq!(near, whole);
        Ok(())
    }
}
