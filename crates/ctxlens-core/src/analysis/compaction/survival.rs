//! Whether a summary kept a region's token verbatim: the summary indexed by its word
//! runs, and each token compared where its rarest run stands.

use super::*;

/// Where each run of word characters of a summary stands (see [`word_runs`]).
pub(super) struct SummaryRuns<'s> {
    /// Most runs of a large summary stand once (its identifiers): one place is
    /// kept in the map, not in a vector of its own.
    pub(super) places: FastMap<&'s str, SmallVec<[usize; 1]>>,
    pub(super) tails: RunTails,
}

/// The last [`TAIL`] bytes of each of a text's word runs that long, so that a token
/// whose last run cannot be one of them is told apart without reading that run back
/// to its start (the read a character at a time was most of the survival check: the
/// last runs of hashes, UUIDs and resource ids are their whole text).
pub(super) struct RunTails(pub(super) FastSet<u64>);

/// Bytes of a run's tail: a `u64`.
pub(super) const TAIL: usize = 8;

impl RunTails {
    pub(super) fn of<'r>(runs: impl Iterator<Item = &'r str>) -> Self {
        RunTails(runs.filter_map(word_tail).collect())
    }

    /// False only where `text`'s last word run is none of the runs: its last
    /// [`TAIL`] bytes are all word bytes (so the last run holds them, and is as long
    /// at least) and no run that long ends with them.
    pub(super) fn may_end(&self, text: &str) -> bool {
        word_tail(text).is_none_or(|tail| self.0.contains(&tail))
    }
}

/// The last [`TAIL`] bytes of `text`, if they are all ASCII word bytes
/// ([`super::extract::is_word_char`]).
pub(super) fn word_tail(text: &str) -> Option<u64> {
    let tail = text.as_bytes().last_chunk::<TAIL>()?;
    tail.iter()
        .all(|&b| is_ascii_word_byte(b))
        .then(|| u64::from_le_bytes(*tail))
}

impl<'s> SummaryRuns<'s> {
    pub(super) fn of(text: &'s str) -> Self {
        let mut places: FastMap<&str, SmallVec<[usize; 1]>> = FastMap::default();
        for (at, run) in word_runs_at(text) {
            places.entry(run).or_default().push(at);
        }
        let tails = RunTails::of(places.keys().copied());
        SummaryRuns { places, tails }
    }
}

/// The tokens of `ids` that survive by the rules of docs/signals.md: a whole word of the summary, or
/// a path naming the same file as one of the summary's. The summary's word runs are
/// indexed once; each token is compared where its rarest run stands, so the cost is
/// the summary plus the tokens and the places of their rarest runs, not their product.
pub(super) fn exact_survivors(
    session: &Session,
    (summary, summary_declared, runs): (&Summary, &[TokenId], &SummaryRuns),
    ids: impl Iterator<Item = TokenId>,
    cwd: Option<&str>,
    threads: usize,
) -> TokenBits {
    // A whole word has no word character on either side, so each run of word
    // characters of a token that occurs is a whole run of the summary's, at the same
    // distance from the token's start. The summary's runs are indexed by text; a token
    // is looked for only where its rarest run stands (a token with a run the summary
    // lacks cannot occur: most of a large region's tokens, whose folders are common and
    // whose file names are not). Each place costs one comparison of the token's bytes.
    let text = summary.text.as_str();
    let places = &runs.places;
    let tails = &runs.tails;
    let ids: Vec<TokenId> = ids.collect();
    let occurs = |id: TokenId| {
        let info = session.tokens.get(id);
        let token = info.text;
        if !tails.may_end(token) {
            return false;
        }
        // The last of the rarest runs (any run finds every place the token stands); a
        // run the summary lacks is as rare as any can be, and most dropped tokens have
        // one, most often their last.
        let mut rarest: Option<(usize, &[usize])> = None;
        for (offset, run) in word_runs_from_last(token) {
            let at = places.get(run).map_or(&[][..], SmallVec::as_slice);
            if rarest.is_none_or(|(_, fewest)| at.len() < fewest.len()) {
                rarest = Some((offset, at));
            }
            if at.is_empty() {
                break;
            }
        }
        match rarest {
            Some((offset, at)) => at.iter().any(|&run_at| {
                run_at.checked_sub(offset).is_some_and(|start| {
                    text.get(start..start + token.len()) == Some(token)
                        && is_whole_word(text, start, start + token.len(), info.class)
                })
            }),
            // No letter, digit, `_` nor `-`: no run to look it up by.
            None => contains_whole_word(text, token, info.class),
        }
    };
    // A path also survives as another form of a file the summary names.
    let summary_paths: HashSet<String> = summary
        .digest
        .tokens
        .iter()
        .chain(summary_declared)
        .filter(|&&t| session.tokens.class(t) == TokenClass::Path)
        .map(|&t| path_key(session.tokens.text(t), cwd).into_owned())
        .collect();
    let names_a_summary_file = |id: TokenId| {
        let info = session.tokens.get(id);
        info.class == TokenClass::Path && summary_paths.contains(&*path_key(info.text, cwd))
    };
    // A large region's tokens are looked up on several threads: the index is only read.
    let kept_in = |part: &[TokenId]| -> Vec<TokenId> {
        let kept = |id: &TokenId| occurs(*id) || names_a_summary_file(*id);
        part.iter().copied().filter(kept).collect()
    };
    let mut kept = TokenBits::new(session.tokens.len());
    for id in crate::threads::in_parts(&ids, threads, PARALLEL_FROM_TOKENS, kept_in)
        .into_iter()
        .flatten()
    {
        kept.insert(id);
    }
    kept
}

/// Region tokens from which a compaction's token checks are split between its threads
/// (a part costs a thread's start, some tens of microseconds).
pub(super) const PARALLEL_FROM_TOKENS: usize = 4096;

/// A set of a session's token ids, a bit each (its ids count up from 0): asked once
/// for each of a region's tokens, where a hash set's lookups were a tenth of the check.
pub(super) struct TokenBits(pub(super) Vec<u64>);

impl TokenBits {
    pub(super) fn new(ids: usize) -> Self {
        TokenBits(vec![0; ids.div_ceil(64)])
    }

    /// Adds `id` (an id beyond the session's table is never held).
    pub(super) fn insert(&mut self, id: TokenId) {
        let i = id.0 as usize;
        if let Some(word) = self.0.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }

    pub(super) fn contains(&self, id: TokenId) -> bool {
        let i = id.0 as usize;
        self.0
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }
}

/// Where each key of a region's tokens stands in its list ([`Ctx::region_tokens`]): a
/// token's key is its own text, but for a path that names its file in another form
/// (`./a`, a path under the cwd). Most keys are found by their token's id, with no text
/// hashed (a map of every key was a third of the walk); only the other keys by text.
pub(super) struct RegionKeys<'s> {
    /// By token id, where its key stands, once the token was met ([`NOT_MET`] before).
    pub(super) by_id: Vec<u32>,
    /// The keys that are not their token's own text, and where each stands.
    pub(super) other: FastMap<Cow<'s, str>, usize>,
}

/// A token [`RegionKeys`] has not met.
pub(super) const NOT_MET: u32 = u32::MAX;

impl<'s> RegionKeys<'s> {
    pub(super) fn new(tokens: usize) -> Self {
        RegionKeys {
            by_id: vec![NOT_MET; tokens],
            other: FastMap::default(),
        }
    }

    /// Whether `token` was met (an id beyond the table's counts as never met).
    pub(super) fn met(&self, token: TokenId) -> bool {
        self.by_id
            .get(token.0 as usize)
            .is_some_and(|&at| at != NOT_MET)
    }

    /// Where `key`, the key of `token`, stands, if a token met so far has it: one whose
    /// other key it is, or the token whose own text it is (whose key that is).
    pub(super) fn entry(&self, ctx: &Ctx<'s>, key: &str, token: TokenId) -> Option<usize> {
        if let Some(&at) = self.other.get(key) {
            return Some(at);
        }
        let session = ctx.session;
        let own = match session.tokens.text(token) == key {
            true => Some(token),
            false => session.tokens.find(key),
        };
        own.filter(|&own| own == token || *ctx.key(own) == *key)
            .and_then(|own| self.by_id.get(own.0 as usize))
            .filter(|&&at| at != NOT_MET)
            .map(|&at| at as usize)
    }

    /// Records that `token`, whose key is `key`, was met, and that its key stands at
    /// `at`.
    pub(super) fn meet(&mut self, token: TokenId, key: Cow<'s, str>, at: usize, session: &Session) {
        // An id the table never made (it reads as empty) is kept by its key.
        let own_text = match self.by_id.get_mut(token.0 as usize) {
            Some(slot) => {
                *slot = u32::try_from(at).unwrap_or(NOT_MET);
                *key == *session.tokens.text(token)
            }
            None => false,
        };
        if !own_text {
            self.other.entry(key).or_insert(at);
        }
    }
}

/// The runs of word characters of `text`. A token that occurs in a text as a whole
/// word has no word character on either side, so each of its runs is a whole run of
/// the text: a token with a run the text lacks cannot occur in it.
pub(super) fn word_runs(text: &str) -> impl Iterator<Item = &str> {
    word_runs_at(text).map(|(_, run)| run)
}

/// Whether `written` names declared token `token` (a path in any form of the same file).
pub(in crate::analysis) fn same_token(
    session: &Session,
    written: &str,
    token: TokenId,
    cwd: Option<&str>,
) -> bool {
    let info = session.tokens.get(token);
    written == info.text
        || (info.class == TokenClass::Path && path_key(written, cwd) == path_key(info.text, cwd))
}
