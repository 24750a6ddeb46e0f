//! Opaque tokens and the per-session table that interns them.

use super::chunked::Chunked;
use hashbrown::HashTable;
use serde::Serialize;
use std::hash::BuildHasher;
use std::sync::Arc;

/// The shape classes of docs/signals.md, in the order of the table (earlier row wins ties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenClass {
    /// A UUID.
    Uuid,
    /// An AWS ARN.
    Arn,
    /// A URL.
    Url,
    /// A file path.
    Path,
    /// An AWS resource id (`i-0abc…`, `snap-…`) or a Kubernetes pod name.
    ResourceId,
    /// The digits after a word like revision, PR, job or port: `PR #381` gives `381`.
    Numbered,
    /// A hex string (a commit, a digest).
    Hex,
    /// A git branch named in a git context (`checkout -b X`, `origin/X`, `--branch X`).
    Branch,
    /// A vendor id: `prefix_` and 16 or more base32/base62 characters (`pri_01h…`).
    VendorId,
    /// A reverse-DNS id of three or more labels (`group.com.example.app`).
    ReverseDns,
    /// A host: an IPv4 address, or the host of `user@host` in an `ssh`, `scp`, `rsync`
    /// or `sftp` command.
    Host,
    /// A repository slug `owner/repo` named to `gh` (`--repo`, `-R`, `gh repo clone`,
    /// `gh api repos/...`).
    Repository,
    /// A systemd unit named to `systemctl` or `journalctl -u`, or an app a process
    /// manager runs (`pm2 restart api`).
    Service,
    /// A container, compose service or Kubernetes workload a command names
    /// (`docker exec web`, `kubectl logs deploy/api`).
    Container,
    /// A database a client connects to (`psql -d orders`, `createdb app_test`).
    Database,
    /// An environment variable a command sets or reads (`DATABASE_URL`).
    Variable,
    /// A port a server takes or a probe asks (`--port 8765`, `localhost:3001`).
    Port,
    /// A declared binding whose shape matches no class.
    Declared,
}

impl TokenClass {
    /// Every class, in the table's order.
    pub const ALL: [TokenClass; 18] = [
        TokenClass::Uuid,
        TokenClass::Arn,
        TokenClass::Url,
        TokenClass::Path,
        TokenClass::ResourceId,
        TokenClass::Numbered,
        TokenClass::Hex,
        TokenClass::Branch,
        TokenClass::VendorId,
        TokenClass::ReverseDns,
        TokenClass::Host,
        TokenClass::Repository,
        TokenClass::Service,
        TokenClass::Container,
        TokenClass::Database,
        TokenClass::Variable,
        TokenClass::Port,
        TokenClass::Declared,
    ];

    /// The class as the report names it.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenClass::Uuid => "uuid",
            TokenClass::Arn => "arn",
            TokenClass::Url => "url",
            TokenClass::Path => "path",
            TokenClass::ResourceId => "resource_id",
            TokenClass::Numbered => "numbered",
            TokenClass::Hex => "hex",
            TokenClass::Branch => "branch",
            TokenClass::VendorId => "vendor_id",
            TokenClass::ReverseDns => "reverse_dns",
            TokenClass::Host => "host",
            TokenClass::Repository => "repository",
            TokenClass::Service => "service",
            TokenClass::Container => "container",
            TokenClass::Database => "database",
            TokenClass::Variable => "variable",
            TokenClass::Port => "port",
            TokenClass::Declared => "declared",
        }
    }

    /// Whether a command's role gives the class (a host, a service, a container, a
    /// database, a variable, a port: docs/transcripts.md, identifiers by role): any
    /// other value of it stands in the same role.
    pub fn by_role(self) -> bool {
        matches!(
            self,
            TokenClass::Host
                | TokenClass::Service
                | TokenClass::Container
                | TokenClass::Database
                | TokenClass::Variable
                | TokenClass::Port
        )
    }

    /// Paths, URLs, ARNs and hosts continue across `/` and `.`, so their word boundary is
    /// stricter (`1.2.3.4.5` is a version, not an address).
    pub fn is_pathlike(self) -> bool {
        matches!(
            self,
            TokenClass::Path | TokenClass::Url | TokenClass::Arn | TokenClass::Host
        )
    }
}

/// Index of a token in a session's [`TokenTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenId(pub u32);

impl TokenId {
    /// What a full table gives for a text it does not hold: no token. Texts drop it
    /// from their digests (`TextDigest::from_ids`, `EventKind::remap_tokens`).
    pub const UNRECORDED: TokenId = TokenId(u32::MAX);
}

/// Distinct tokens a session's table records at most. Past it, a new text is not
/// recorded (a declared binding's still is): memory stays bounded on a log of unique
/// identifiers, and the compactions from there on are reported too dense to check.
pub const TOKEN_CAP: usize = 1 << 18;

/// A token as its table holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenInfo<'a> {
    /// The token.
    pub text: &'a str,
    /// Its class.
    pub class: TokenClass,
}

/// Where a token's text lies: a chunk of the table's texts, and a span in it.
#[derive(Debug, Clone, Copy)]
struct TextAt {
    chunk: u32,
    start: u32,
    len: u32,
}

impl TextAt {
    fn text<'a>(&self, texts: &'a [Arc<String>]) -> &'a str {
        let start = self.start as usize;
        texts
            .get(self.chunk as usize)
            .and_then(|chunk| chunk.get(start..start + self.len as usize))
            .unwrap_or("")
    }
}

/// Where a token's text lies, and its class.
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: TextAt,
    class: TokenClass,
}

/// An id in the table's index, with where its text lies: a lookup reads the text from
/// here, not through the entries (following the entries' chunks to each text made the
/// joining thread's lookups a large part of `audit`'s time).
#[derive(Debug, Clone, Copy)]
struct Slot {
    id: TokenId,
    at: TextAt,
}

/// Bytes per chunk of token texts: what an append copies at most while a snapshot
/// still holds the chunk.
const TEXT_CHUNK: usize = 64 << 10;

/// The hash of token texts: one seed per process, so that a text a parsing thread
/// hashed for its record is found by that hash in the session's table.
#[derive(Clone, Debug)]
struct TextHasher(foldhash::fast::RandomState);

impl Default for TextHasher {
    fn default() -> Self {
        static SHARED: std::sync::OnceLock<foldhash::fast::RandomState> =
            std::sync::OnceLock::new();
        TextHasher(SHARED.get_or_init(Default::default).clone())
    }
}

impl TextHasher {
    fn hash(&self, text: &str) -> u64 {
        self.0.hash_one(text)
    }
}

/// Interns token texts so events hold small ids instead of strings. A session can
/// hold millions of distinct tokens, and a followed session is cloned into a snapshot
/// after every append: texts are stored once, in chunks shared by the clones; the
/// index holds ids only, most of them in a part the clones share.
#[derive(Clone, Default)]
pub struct TokenTable {
    entries: Chunked<Entry>,
    texts: Vec<Arc<String>>,
    /// Ids by hash: `settled` is shared with the clones; `recent` takes new ids
    /// until it holds an eighth as many, then is merged into a new `settled` (so a
    /// clone copies few ids, and an id is copied a bounded number of times).
    settled: Arc<HashTable<Slot>>,
    recent: HashTable<Slot>,
    hasher: TextHasher,
}

impl std::fmt::Debug for TokenTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.entries.len()).map(|i| self.get(TokenId(i as u32))))
            .finish()
    }
}

/// The text of `id` in `entries` and `texts` ("" for an id the table never made).
fn text_in<'a>(entries: &Chunked<Entry>, texts: &'a [Arc<String>], id: TokenId) -> &'a str {
    entries.get(id.0 as usize).map_or("", |e| e.at.text(texts))
}

impl TokenTable {
    /// The id of `text`; the first class seen for a text is kept.
    pub fn intern(&mut self, text: &str, class: TokenClass) -> TokenId {
        self.intern_hashed(self.hasher.hash(text), text, class)
    }

    /// [`TokenTable::intern`] of a text whose hash is known.
    fn intern_hashed(&mut self, hash: u64, text: &str, class: TokenClass) -> TokenId {
        if let Some(id) = self.find_hashed(hash, text) {
            return id;
        }
        self.insert_new(hash, text, class)
    }

    /// The id of a declared binding's `text`: recorded even in a full table, since
    /// what a compaction must keep is what the checks are for.
    pub fn intern_declared(&mut self, text: &str, class: TokenClass) -> TokenId {
        let hash = self.hasher.hash(text);
        match self.find_hashed(hash, text) {
            Some(id) => id,
            None => self.insert_new_past_cap(hash, text, class),
        }
    }

    /// The table holds [`TOKEN_CAP`] tokens: it records no new undeclared one.
    pub fn is_full(&self) -> bool {
        self.entries.len() >= TOKEN_CAP
    }

    /// Adds `text`, which the table does not hold, whose hash is `hash`; in a full table,
    /// [`TokenId::UNRECORDED`].
    fn insert_new(&mut self, hash: u64, text: &str, class: TokenClass) -> TokenId {
        if self.is_full() {
            return TokenId::UNRECORDED;
        }
        self.insert_new_past_cap(hash, text, class)
    }

    /// [`Self::insert_new`] whether or not the table is full.
    fn insert_new_past_cap(&mut self, hash: u64, text: &str, class: TokenClass) -> TokenId {
        let id = TokenId(self.entries.len() as u32);
        let (chunk, start) = self.store(text);
        let at = TextAt {
            chunk,
            start,
            len: text.len() as u32,
        };
        self.entries.push(Entry { at, class });
        let slot = Slot { id, at };
        let rehash = |slot: &Slot| self.hasher.hash(slot.at.text(&self.texts));
        self.recent.insert_unique(hash, slot, rehash);
        if self.recent.len() > (self.settled.len() / 8).max(4096) {
            self.settle();
        }
        id
    }

    /// Appends `text` to the texts: where it starts. A text never spans two chunks.
    fn store(&mut self, text: &str) -> (u32, u32) {
        let fits = self
            .texts
            .last()
            .is_some_and(|last| last.is_empty() || last.len() + text.len() <= TEXT_CHUNK);
        if !fits {
            self.texts.push(Arc::new(String::with_capacity(TEXT_CHUNK)));
        }
        let chunk = self.texts.len() - 1;
        match self.texts.last_mut() {
            Some(last) => {
                let last = Arc::make_mut(last);
                let start = last.len();
                last.push_str(text);
                (chunk as u32, start as u32)
            }
            None => (0, 0),
        }
    }

    /// Merges the recent ids into a new settled part (the clones keep the old one).
    fn settle(&mut self) {
        let mut settled = Arc::unwrap_or_clone(std::mem::take(&mut self.settled));
        let rehash = |slot: &Slot| self.hasher.hash(slot.at.text(&self.texts));
        settled.reserve(self.recent.len(), rehash);
        for slot in self.recent.drain() {
            settled.insert_unique(rehash(&slot), slot, rehash);
        }
        self.settled = Arc::new(settled);
    }

    fn find_hashed(&self, hash: u64, text: &str) -> Option<TokenId> {
        let same = |slot: &Slot| slot.at.text(&self.texts) == text;
        self.settled
            .find(hash, same)
            .or_else(|| self.recent.find(hash, same))
            .map(|slot| slot.id)
    }

    /// The id of `text`, if it was interned.
    pub fn find(&self, text: &str) -> Option<TokenId> {
        self.find_hashed(self.hasher.hash(text), text)
    }

    /// A token's text and class (an id is only made by this table, which never
    /// shrinks; an id from another table reads as an empty declared token).
    pub fn get(&self, id: TokenId) -> TokenInfo<'_> {
        TokenInfo {
            text: text_in(&self.entries, &self.texts, id),
            class: self
                .entries
                .get(id.0 as usize)
                .map_or(TokenClass::Declared, |e| e.class),
        }
    }

    /// The text of token `id`.
    pub fn text(&self, id: TokenId) -> &str {
        self.get(id).text
    }

    /// The class of token `id`.
    pub fn class(&self, id: TokenId) -> TokenClass {
        self.get(id).class
    }

    /// How many distinct tokens the table holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No token yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// What a parser needs of a token table: one id per distinct text.
pub trait Intern {
    /// The id of `text`; the first class seen for a text is kept.
    fn intern(&mut self, text: &str, class: TokenClass) -> TokenId;
}

impl Intern for TokenTable {
    fn intern(&mut self, text: &str, class: TokenClass) -> TokenId {
        TokenTable::intern(self, text, class)
    }
}

/// The tokens of a batch of records, interned apart from the session's table so that
/// batches can be parsed on several threads. Its ids count from 0 in the order the
/// batch met its texts. Each record lists the distinct tokens it met, in the order it
/// met them; [`BatchTokens::intern_record`] interns a record's list into the session's
/// table in that order, which gives every token the id it gets when the records are
/// parsed straight into the table. A record that is not joined (a seq out of order)
/// interns nothing. One table a batch, not one a record: a record's table was three
/// allocations grown as it was filled, and freed on another thread.
#[derive(Debug, Default)]
pub struct BatchTokens {
    texts: String,
    /// Start and end in `texts`, and hash, by local id: the hash is worked out here,
    /// on the parsing thread, not again where the records are joined.
    entries: Vec<(usize, usize, u64)>,
    index: HashTable<TokenId>,
    hasher: TextHasher,
    /// Each record's distinct tokens in the order it met them, with the class it met
    /// each with first (a text keeps the class it is first interned with, and the
    /// record that met it first in the batch may be one that is not joined), one
    /// record after the other (see [`BatchTokens::start_record`]).
    met: Vec<(TokenId, TokenClass)>,
    /// By local id, the last record that listed it in `met`.
    listed_by: Vec<u32>,
    record: u32,
}

/// Bytes of text a token takes, about (a UUID 36, a commit 40, a path or URL more).
const TEXT_BYTES_EACH: usize = 32;

/// A session id not given yet to a local id (see [`BatchTokens::intern_record`]).
const NOT_INTERNED: TokenId = TokenId(u32::MAX);

/// No record listed the token yet.
const NEVER_LISTED: u32 = u32::MAX;

/// A batch being joined to a session's table ([`BatchTokens::join`]): by local id, the
/// session id given so far, and the id the table held before the batch's first record.
pub struct Joining {
    session_ids: Vec<TokenId>,
    known: Vec<Option<TokenId>>,
}

impl Joining {
    /// The session id of local id `local` (an id of the batch), given when a record
    /// that met it was interned.
    pub fn session_id(&self, local: TokenId) -> Option<TokenId> {
        self.session_ids.get(local.0 as usize).copied()
    }
}

impl BatchTokens {
    /// A table with room for about `tokens` distinct tokens, and as many listed: one
    /// grown from empty rehashed its index and copied its texts once per doubling.
    pub fn with_room(tokens: usize) -> Self {
        BatchTokens {
            texts: String::with_capacity(tokens * TEXT_BYTES_EACH),
            entries: Vec::with_capacity(tokens),
            index: HashTable::with_capacity(tokens),
            met: Vec::with_capacity(tokens),
            listed_by: Vec::with_capacity(tokens),
            ..BatchTokens::default()
        }
    }

    fn text(&self, id: TokenId) -> &str {
        self.entries
            .get(id.0 as usize)
            .and_then(|&(start, end, _)| self.texts.get(start..end))
            .unwrap_or("")
    }

    /// Starts the next record: what it interns from here until the next start is its
    /// list. Where its list starts in `met`.
    pub fn start_record(&mut self) -> usize {
        self.record += 1;
        self.met.len()
    }

    /// Where the list of the record started last ends.
    pub fn records_end(&self) -> usize {
        self.met.len()
    }

    /// Starts joining the batch's records to `table` (see [`Joining`]).
    pub fn join(&self, table: &TokenTable) -> Joining {
        // Every text of the batch is looked up before its records are joined: these
        // lookups do not wait on one another, so the processor overlaps their cache
        // misses, where a lookup made as each record was joined waited for its own
        // (the session's table is larger than the cache).
        let known = self
            .entries
            .iter()
            .map(|&(start, end, hash)| {
                table.find_hashed(hash, self.texts.get(start..end).unwrap_or(""))
            })
            .collect();
        Joining {
            session_ids: vec![NOT_INTERNED; self.entries.len()],
            known,
        }
    }

    /// Interns the tokens of the record whose list is `met` (from
    /// [`BatchTokens::start_record`] to the next one) into `table`, the table
    /// `joining` was started on, in the order the record met them. The records of a
    /// batch are interned in the log's order; a record's event remaps its local ids
    /// through [`Joining::session_id`].
    /// `declared`: the record is a binding, whose token a full table records still.
    pub fn intern_record(
        &self,
        met: std::ops::Range<usize>,
        table: &mut TokenTable,
        joining: &mut Joining,
        declared: bool,
    ) {
        for &(local, class) in self.met.get(met).unwrap_or_default() {
            let Some(slot) = joining.session_ids.get_mut(local.0 as usize) else {
                continue;
            };
            if *slot != NOT_INTERNED {
                continue;
            }
            if let Some(&(_, _, hash)) = self.entries.get(local.0 as usize) {
                let text = self.text(local);
                // A text the table did not hold is new to it when first interned: no
                // two local ids share a text.
                *slot = match joining.known.get(local.0 as usize) {
                    Some(&Some(id)) => id,
                    Some(None) if declared => table.insert_new_past_cap(hash, text, class),
                    Some(None) => table.insert_new(hash, text, class),
                    None if declared => table.intern_declared(text, class),
                    None => table.intern_hashed(hash, text, class),
                };
            }
        }
    }

    /// Lists `id`, met as `class`, for the record being read, once.
    fn list(&mut self, id: TokenId, class: TokenClass) {
        if let Some(by) = self.listed_by.get_mut(id.0 as usize) {
            if *by != self.record {
                *by = self.record;
                self.met.push((id, class));
            }
        }
    }
}

impl Intern for BatchTokens {
    fn intern(&mut self, text: &str, class: TokenClass) -> TokenId {
        let hash = self.hasher.hash(text);
        if let Some(&id) = self.index.find(hash, |&id| self.text(id) == text) {
            self.list(id, class);
            return id;
        }
        let id = TokenId(self.entries.len() as u32);
        let start = self.texts.len();
        self.texts.push_str(text);
        self.entries.push((start, self.texts.len(), hash));
        self.listed_by.push(NEVER_LISTED);
        self.list(id, class);
        let Self { entries, index, .. } = self;
        let hash_of = |id: &TokenId| entries.get(id.0 as usize).map_or(0, |e| e.2);
        index.insert_unique(hash, id, hash_of);
        id
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_class_is_listed_at_its_place() {
        for (at, class) in TokenClass::ALL.iter().enumerate() {
            assert_eq!(*class as usize, at, "{class:?}");
        }
        assert_eq!(TokenClass::ALL.len(), TokenClass::Declared as usize + 1);
    }

    proptest! {
        /// The table interns as a map from text to the first id and class would.
        #[test]
        fn interning_is_a_map_from_text_to_its_first_id(
            texts in prop::collection::vec(("[a-c/é]{0,4}", 0u8..3), 0..60)
        ) {
            let class = |c: u8| [TokenClass::Path, TokenClass::Hex, TokenClass::Url][c as usize];
            let mut table = TokenTable::default();
            let mut oracle: std::collections::HashMap<String, (TokenId, TokenClass)> =
                std::collections::HashMap::new();
            for (text, c) in &texts {
                let id = table.intern(text, class(*c));
                let next = TokenId(oracle.len() as u32);
                let (want, first_class) = *oracle.entry(text.clone()).or_insert((next, class(*c)));
                prop_assert_eq!(id, want);
                prop_assert_eq!(table.get(id), TokenInfo { text, class: first_class });
            }
            prop_assert_eq!(table.len(), oracle.len());
            for (text, (id, _)) in &oracle {
                prop_assert_eq!(table.find(text), Some(*id));
            }
            prop_assert_eq!(table.find("not interned"), None);
        }
    }

    proptest! {
        /// Records interned into a batch's table, then joined (some rejected, as a seq
        /// out of order is), give every token the id and class it gets when the
        /// joined records are interned straight into the session's table; a rejected
        /// record adds nothing.
        #[test]
        fn a_batch_joined_gives_the_ids_a_record_by_record_read_gives(
            records in prop::collection::vec(
                (prop::collection::vec(("[a-d]{0,2}", 0u8..3), 0..6), any::<bool>()),
                0..12,
            ),
            before in prop::collection::vec("[a-d]{0,2}", 0..4),
        ) {
            let class = |c: u8| [TokenClass::Path, TokenClass::Hex, TokenClass::Url][c as usize];
            // The session already holds some tokens when the batch is joined.
            let mut straight = TokenTable::default();
            for text in &before {
                straight.intern(text, TokenClass::Declared);
            }
            let mut joined = straight.clone();
            let mut batch = BatchTokens::default();
            let mut lists = Vec::new();
            let mut local_ids = Vec::new();
            for (texts, _) in &records {
                let start = batch.start_record();
                local_ids.push(texts.iter().map(|(t, c)| batch.intern(t, class(*c))).collect::<Vec<_>>());
                lists.push(start..batch.records_end());
            }
            let mut joining = batch.join(&joined);
            for (((texts, accepted), list), locals) in records.iter().zip(lists).zip(local_ids) {
                if !accepted {
                    continue;
                }
                batch.intern_record(list, &mut joined, &mut joining, false);
                for ((text, c), local) in texts.iter().zip(locals) {
                    let want = straight.intern(text, class(*c));
                    prop_assert_eq!(joining.session_id(local), Some(want));
                }
            }
            prop_assert_eq!(format!("{joined:?}"), format!("{straight:?}"));
        }
    }

    /// Past the point where recent ids are settled and texts take several chunks, a
    /// clone keeps its tokens and finds them while the original interns more, and
    /// the other way round.
    #[test]
    fn clones_intern_on_their_own() {
        let text = |i: usize| format!("/srv/{i}/{}", "x".repeat(i % 40));
        let mut table = TokenTable::default();
        let mut clones = Vec::new();
        for i in 0..30_000 {
            assert_eq!(table.intern(&text(i), TokenClass::Path), TokenId(i as u32));
            if i % 7_000 == 0 {
                clones.push((i, table.clone()));
            }
        }
        assert!(
            table.texts.len() > 10,
            "texts in {} chunks",
            table.texts.len()
        );
        for (upto, clone) in &mut clones {
            let upto = *upto;
            for i in 0..30_000 {
                let found = clone.find(&text(i));
                assert_eq!(found, (i <= upto).then_some(TokenId(i as u32)));
            }
            let next = clone.intern("only in the clone", TokenClass::Declared);
            assert_eq!(next, TokenId(upto as u32 + 1));
            assert_eq!(clone.text(next), "only in the clone");
        }
        assert_eq!(table.find("only in the clone"), None);
        for i in 0..30_000 {
            assert_eq!(table.text(TokenId(i as u32)), text(i));
            assert_eq!(table.find(&text(i)), Some(TokenId(i as u32)));
        }
    }
}
