//! Opaque tokens and the per-session table that interns them.

use serde::Serialize;
use std::collections::HashMap;

/// The shape classes of spec §2, in the order of the table (earlier row wins ties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenClass {
    Uuid,
    Arn,
    Url,
    Path,
    ResourceId,
    Numbered,
    Hex,
    /// A git branch named in a git context (`checkout -b X`, `origin/X`, `--branch X`).
    Branch,
    /// A vendor id: `prefix_` and 16 or more base32/base62 characters (`pri_01h…`).
    VendorId,
    /// A reverse-DNS id of three or more labels (`group.com.example.app`).
    ReverseDns,
    /// A declared binding whose shape matches no class.
    Declared,
}

impl TokenClass {
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
            TokenClass::Declared => "declared",
        }
    }

    /// Paths, URLs and ARNs continue across `/` and `.`, so their word boundary is stricter.
    pub fn is_pathlike(self) -> bool {
        matches!(self, TokenClass::Path | TokenClass::Url | TokenClass::Arn)
    }
}

/// Index of a token in a session's [`TokenTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenId(pub u32);

#[derive(Debug, Clone)]
pub struct TokenInfo {
    pub text: Box<str>,
    pub class: TokenClass,
}

/// Interns token texts so events hold small ids instead of strings.
#[derive(Debug, Default, Clone)]
pub struct TokenTable {
    tokens: Vec<TokenInfo>,
    index: HashMap<Box<str>, TokenId>,
}

impl TokenTable {
    /// The id of `text`; the first class seen for a text is kept.
    pub fn intern(&mut self, text: &str, class: TokenClass) -> TokenId {
        if let Some(id) = self.index.get(text) {
            return *id;
        }
        let id = TokenId(self.tokens.len() as u32);
        self.tokens.push(TokenInfo {
            text: text.into(),
            class,
        });
        self.index.insert(text.into(), id);
        id
    }

    /// The id of `text`, if it was interned.
    pub fn find(&self, text: &str) -> Option<TokenId> {
        self.index.get(text).copied()
    }

    #[expect(
        clippy::indexing_slicing,
        reason = "a TokenId is only made by this table, which never shrinks"
    )]
    pub fn get(&self, id: TokenId) -> &TokenInfo {
        &self.tokens[id.0 as usize]
    }

    pub fn text(&self, id: TokenId) -> &str {
        &self.get(id).text
    }

    pub fn class(&self, id: TokenId) -> TokenClass {
        self.get(id).class
    }
}
