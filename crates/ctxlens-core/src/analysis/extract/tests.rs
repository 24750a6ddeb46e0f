//! The extractor against readable reference versions of its rules, and examples.
use super::*;

/// [`runs_into`] a new vector.
fn runs(bytes: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    runs_into(bytes, &mut out);
    out
}

fn tokens(text: &str) -> Vec<(&str, TokenClass)> {
    extract(text)
        .iter()
        .map(|f| (f.text(text), f.class))
        .collect()
}

#[test]
fn every_class_of_the_spec_table() {
    use TokenClass::*;
    let cases: &[(&str, &str, TokenClass)] = &[
        (
            "id 123e4567-e89b-12d3-a456-426614174000 ok",
            "123e4567-e89b-12d3-a456-426614174000",
            Uuid,
        ),
        (
            "snap arn:aws:rds:eu-west-1:123456789012:snapshot:pre-migration-7.",
            "arn:aws:rds:eu-west-1:123456789012:snapshot:pre-migration-7",
            Arn,
        ),
        (
            "see https://ci.example.com/jobs/9912, then",
            "https://ci.example.com/jobs/9912",
            Url,
        ),
        (
            "db at /var/lib/app/state.db now",
            "/var/lib/app/state.db",
            Path,
        ),
        ("edit src/main.rs please", "src/main.rs", Path),
        (
            "run ./migrations/0042_add_index.sql",
            "./migrations/0042_add_index.sql",
            Path,
        ),
        (
            "instance i-0abc123def4567890 up",
            "i-0abc123def4567890",
            ResourceId,
        ),
        ("group sg-12ab34cd open", "sg-12ab34cd", ResourceId),
        (
            "pod web-7d4b9c5f6-x2kqz crashed",
            "web-7d4b9c5f6-x2kqz",
            ResourceId,
        ),
        ("at revision 42 now", "42", Numbered),
        ("merged PR #381.", "381", Numbered),
        ("jobs 9900 failed", "9900", Numbered),
        ("head is 4f9a2c81 now", "4f9a2c81", Hex),
        (
            "digest e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            Hex,
        ),
    ];
    for (text, token, class) in cases {
        assert_eq!(tokens(text), vec![(*token, *class)], "in {text:?}");
    }
}

#[test]
fn no_tokens_in_plain_prose() {
    for text in [
        "The migration was applied to staging and/or production.",
        "deadbeef is a word, and so is facade; 2026-11-29 is a date",
        "roll-back-before-later is hyphenated prose",
        "revision 7 has one digit",
        "w/o and km/h are not paths",
    ] {
        assert_eq!(tokens(text), vec![], "in {text:?}");
    }
}

#[test]
fn placeholders_in_instructions_are_no_tokens() {
    for text in [
        "edit /path/to/foo.ts, or ./path/to/x.py, or Path/To/file.rs",
        "the app opens app://{connector_id} and cybervpn://connect?server={id}",
        "serve on http://localhost:${port}/api-docs",
        "a bare https:// or file:// names nothing",
    ] {
        assert_eq!(tokens(text), vec![], "in {text:?}");
    }
    // A real path or URL beside them still is one.
    assert_eq!(
        tokens("not /path/to/x.ts but /srv/app/path/to/x.ts and https://ci.example.com/j/9"),
        vec![
            ("/srv/app/path/to/x.ts", TokenClass::Path),
            ("https://ci.example.com/j/9", TokenClass::Url)
        ]
    );
}

#[test]
fn a_token_inside_a_longer_token_belongs_to_it() {
    let text = "see https://git.example.com/app/commit/4f9a2c81d0e7 for it";
    assert_eq!(
        tokens(text),
        vec![(
            "https://git.example.com/app/commit/4f9a2c81d0e7",
            TokenClass::Url
        )]
    );
    // A URL's path part is not also a path.
    assert_eq!(tokens("(https://x.io/a/b.rs)")[0].1, TokenClass::Url);
}

#[test]
fn whole_words_only() {
    assert!(tokens("x4f9a2c81d0e7").is_empty());
    assert!(tokens("4f9a2c81d0e7_tmp").is_empty());
    assert!(tokens("pre-4f9a2c81d0e7").is_empty());
    assert_eq!(
        tokens("\"4f9a2c81d0e7\""),
        vec![("4f9a2c81d0e7", TokenClass::Hex)]
    );
    assert_eq!(
        tokens("(src/lib.rs)."),
        vec![("src/lib.rs", TokenClass::Path)]
    );
}

#[test]
fn declared_tokens_take_their_shape_class() {
    assert_eq!(classify("4f9a2c81d0e7"), TokenClass::Hex);
    assert_eq!(classify("tok_partial_77"), TokenClass::Declared);
    assert_eq!(classify("staging"), TokenClass::Declared);
}

#[test]
fn whole_word_search_respects_path_boundaries() {
    let class = TokenClass::Path;
    assert!(contains_whole_word(
        "wrote src/main.rs.",
        "src/main.rs",
        class
    ));
    assert!(!contains_whole_word(
        "wrote src/main.rs.bak",
        "src/main.rs",
        class
    ));
    assert!(!contains_whole_word(
        "wrote x/src/main.rs",
        "src/main.rs",
        class
    ));
    assert!(contains_whole_word(
        "tok_partial_77 ok",
        "tok_partial_77",
        TokenClass::Declared
    ));
    assert!(!contains_whole_word(
        "tok_partial_778",
        "tok_partial_77",
        TokenClass::Declared
    ));
}

#[test]
fn words_are_unicode_words() {
    assert_eq!(word_count("  a bb\tc\n\nd  "), 4);
    assert_eq!(word_count(""), 0);
    assert_eq!(word_count("-- ... !!"), 0, "no letter or digit, no word");
    assert_eq!(word_count("é ü\tx"), 3);
    assert!(
        word_count("日本語の文章です") > 1,
        "CJK without spaces is several words"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// The fast count of ASCII text is the count of Unicode word segmentation.
    #[test]
    fn ascii_text_counts_the_words_unicode_segmentation_finds(
        text in "[a-cA0-9_:.',; !-]{0,600}"
    ) {
        use unicode_segmentation::UnicodeSegmentation;
        proptest::prop_assert_eq!(word_count(&text), text.unicode_words().count() as u64);
    }
}

/// The densest words a block can hold, a word every other byte, counted over
/// many blocks and from every offset.
#[test]
fn the_densest_text_is_counted_whole() {
    let text = "a ".repeat(1000);
    for skip in 0..4 {
        let part = text.get(skip..).unwrap();
        assert_eq!(word_count(part), 1000 - (skip as u64).div_ceil(2));
    }
    assert_eq!(
        word_count(&"7,".repeat(700)),
        1,
        "digits joined by commas are one word"
    );
}

/// The last place at or before `pos` where a character of `text` starts.
fn boundary_at_or_before(text: &str, pos: usize) -> usize {
    (0..=pos.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// Text made of names, slashes, dots and the prefixes of paths, and what stands
/// around a path: what the path and directory searches must agree on.
fn path_like_text() -> impl proptest::strategy::Strategy<Value = String> {
    let part = proptest::prop_oneof![
        "[a-z0-9]{1,4}",
        "[/./~@+_\\[\\]-]{1,3}",
        "(\\.\\./|\\./|~/|/|//)",
        "[ :()\"'`=,]",
    ];
    let parts = proptest::collection::vec(part, 0..12);
    proptest::strategy::Strategy::prop_map(parts, |parts: Vec<String>| parts.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// The hex ids and UUIDs of a text's segments are what scanning the whole text
    /// with the spec's two patterns keeps as whole words.
    #[test]
    fn hex_ids_and_uuids_are_what_their_patterns_keep(
        parts in proptest::collection::vec(proptest::prop_oneof![
            "[0-9a-fA-F]{0,70}",
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            // A UUID's shape with a byte or two that is no hex digit.
            "[0-9a-fg_]{8}-[0-9a-f]{4}-[0-9a-fg]{4}-[0-9a-f]{4}-[0-9a-f_]{12}",
            "[-_g: é日。]{1,2}",
            "[ \n]",
        ], 0..8),
    ) {
        let text = parts.concat();
        let p = Patterns::new();
        let (mut by_patterns, mut by_segments) = (Vec::new(), Vec::new());
        if text.bytes().any(|b| b.is_ascii_digit()) {
            for (re, class) in [(&p.uuid, TokenClass::Uuid), (&p.hex, TokenClass::Hex)] {
                scan(Pattern::Regex(re), &text, 0..text.len(), class, &mut by_patterns);
            }
            let runs = runs(text.as_bytes());
            let mut covers = vec![Cover::default(); runs.len()];
            hex_ids_and_uuids(&text, &runs, &mut covers, &mut by_segments);
        }
        by_patterns.sort_by_key(|f| f.start);
        proptest::prop_assert_eq!(by_segments, by_patterns, "{:?}", text);
    }

    /// A run in which the extractor keeps a resource id (a whole word the pattern
    /// matches) holds what [`may_hold_resource_id`] asks for: the prefilter never
    /// passes over one.
    #[test]
    fn a_run_with_a_resource_id_is_never_passed_over(
        parts in proptest::collection::vec(proptest::prop_oneof![
            "(i|vol|snap|sg|subnet|vpc|ami|eni|vpce|fsap|r|x|deploy|web)",
            "-",
            "[0-9a-f]{1,18}",
            "[0-9a-f]{8}|[0-9a-f]{17}",
            "[bcdfghjklmnpqrstvwxz2-9]{1,11}",
            "[bcdfghjklmnpqrstvwxz2-9]{6,10}-[bcdfghjklmnpqrstvwxz2-9]{5}",
            "[a-z0-9]{1,3}",
            "[:/._é。]",
        ], 0..8),
    ) {
        let run = parts.concat();
        let p = Patterns::new();
        let mut kept = Vec::new();
        scan(Pattern::Regex(&p.resource_id), &run, 0..run.len(), TokenClass::ResourceId, &mut kept);
        if !kept.is_empty() {
            proptest::prop_assert!(may_hold_resource_id(run.as_bytes()), "{:?} {:?}", run, kept);
        }
    }

    /// The hand-written ARN and URL searches find what their patterns find, from
    /// anywhere.
    #[test]
    fn arn_and_url_searches_find_what_their_patterns_find(
        parts in proptest::collection::vec(proptest::prop_oneof![
            "arn:",
            "arn(:[a-z0-9-]{0,3}){3}:[0-9a-z]{0,3}:",
            "[a-z0-9-]{0,4}:",
            "[0-9]{0,4}",
            "[A-Za-z0-9_./+=,@*-]{0,5}",
            "(https?|git\\+ssh|s3|x-1)://",
            "://",
            "[:/]{1,2}",
            r#"[ \t\n<>'`"\\\x{a0}\x{3000}é日]"#,
        ], 0..10),
        pos in 0usize..60,
    ) {
        let text = parts.concat();
        let p = Patterns::new();
        let pos = boundary_at_or_before(&text, pos);
        let by_regex = |re: &Regex| re.find_at(&text, pos).map(|m| m.start()..m.end());
        proptest::prop_assert_eq!(
            find_arn(text.as_bytes(), pos),
            by_regex(p.arn.get()),
            "{:?}",
            text
        );
        proptest::prop_assert_eq!(find_url(&text, pos), by_regex(p.url.get()), "{:?}", text);
    }

    /// The hand-written directory search finds what the directory pattern finds,
    /// one match after the other.
    #[test]
    fn directory_search_finds_what_its_pattern_finds(text in path_like_text()) {
        let by_regex: Vec<Span> = Patterns::new().directory.get()
            .find_iter(&text)
            .map(|m| m.start()..m.end())
            .collect();
        proptest::prop_assert_eq!(find_directories(&text), by_regex, "{:?}", text);
    }

    /// The hand-written path search finds what the path pattern finds, from anywhere.
    #[test]
    fn path_search_finds_what_its_pattern_finds(text in path_like_text(), pos in 0usize..40) {
        let pos = pos.min(text.len());
        let by_regex = Patterns::new().path.get().find_at(&text, pos).map(|m| m.start()..m.end());
        proptest::prop_assert_eq!(find_ascii_path(text.as_bytes(), pos), by_regex, "{:?}", text);
    }

    /// The search from the digits back finds what the numbered pattern finds, from
    /// anywhere: keywords with any case, plurals, separators, the two non-ASCII
    /// letters `(?i)` folds to ASCII, keywords inside words and ones that are
    /// prefixes of others.
    #[test]
    fn numbered_search_finds_what_its_pattern_finds(
        parts in proptest::collection::vec(proptest::prop_oneof![
            "(revision|rev|REV|Revisions|offset|checkpoint|pr|PRs|job|txn|transaction|build|issue|run|pid|port|ticket|incident|tic\u{212A}et|run\u{17F}|re|po)",
            "[ \t#:]{1,3}",
            "[0-9]{1,4}",
            "[a-zé→\n]{1,2}",
        ], 0..10),
        pos in 0usize..60,
    ) {
        let text = parts.concat();
        let p = Patterns::new();
        let pos = boundary_at_or_before(&text, pos);
        let by_regex = p.numbered.get().captures_at(&text, pos).map(|c| {
            let (all, digits) = (c.get(0).unwrap(), c.get(1).unwrap());
            (all.start()..all.end(), digits.start()..digits.end())
        });
        let runs = runs(text.as_bytes());
        let covers = vec![Cover::default(); runs.len()];
        proptest::prop_assert_eq!(
            find_numbered(&text, (&runs, &covers), pos),
            by_regex,
            "{:?}",
            text
        );
    }
}

/// The runs the resource-id prefilter must pass (ids the extractor keeps: AWS ids
/// of 8 and 17 digits, a pod name) and the ones it is there to pass over (an ARN's
/// `snap-` with 16, a UUID, a hyphenated name, 9 digits).
#[test]
fn the_resource_id_prefilter_passes_kept_ids_and_no_others() {
    let p = Patterns::new();
    let kept = |run: &str| {
        let mut out = Vec::new();
        scan(
            Pattern::Regex(&p.resource_id),
            run,
            0..run.len(),
            TokenClass::ResourceId,
            &mut out,
        );
        !out.is_empty()
    };
    for run in [
        "snap-0123abcd",
        "i-0123456789abcdef0",
        "(vol-89abcdef)",
        "web-7d4b9c8f6d-x2kq9",
        "arn:aws:ec2:us-east-1:123456789012:volume/vol-0a1b2c3d",
    ] {
        assert!(kept(run), "{run}");
        assert!(may_hold_resource_id(run.as_bytes()), "{run}");
    }
    for run in [
        "arn:aws:rds:us-east-1:123456789012:snapshot:snap-6b85261d4ad14cd9",
        "2a0bd3a1-4c55-4e4b-9d56-8f2b1c3e7a90",
        "deploy-611ab7aa",
        "snap-0123abcde",
        "well-known-3",
    ] {
        assert!(!kept(run), "{run}");
        assert!(!may_hold_resource_id(run.as_bytes()), "{run}");
    }
}

/// The extractor as the spec reads: every class's pattern over the whole text.
fn extract_whole_text(text: &str) -> Vec<Found> {
    let p = Patterns::new();
    let mut candidates = Vec::new();
    let all = 0..text.len();
    let bytes = text.as_bytes();
    let has_digit = bytes.iter().any(u8::is_ascii_digit);
    if has_digit {
        scan(
            Pattern::Regex(&p.uuid),
            text,
            all.clone(),
            TokenClass::Uuid,
            &mut candidates,
        );
    }
    if memchr::memmem::find(bytes, b"arn:").is_some() {
        scan(
            Pattern::Regex(&p.arn),
            text,
            all.clone(),
            TokenClass::Arn,
            &mut candidates,
        );
    }
    if memchr::memmem::find(bytes, b"://").is_some() {
        scan(
            Pattern::Regex(&p.url),
            text,
            all.clone(),
            TokenClass::Url,
            &mut candidates,
        );
    }
    if memchr::memchr(b'/', bytes).is_some() {
        scan(
            Pattern::Regex(&p.path),
            text,
            all.clone(),
            TokenClass::Path,
            &mut candidates,
        );
    }
    if has_digit {
        scan(
            Pattern::Regex(&p.resource_id),
            text,
            all.clone(),
            TokenClass::ResourceId,
            &mut candidates,
        );
        scan(
            Pattern::Keyword(&p.numbered),
            text,
            all.clone(),
            TokenClass::Numbered,
            &mut candidates,
        );
        scan(
            Pattern::Regex(&p.hex),
            text,
            all.clone(),
            TokenClass::Hex,
            &mut candidates,
        );
        if memchr::memchr(b'_', bytes).is_some() {
            scan(
                Pattern::Regex(&p.vendor_id),
                text,
                all.clone(),
                TokenClass::VendorId,
                &mut candidates,
            );
        }
    }
    if memchr::memmem::find(bytes, b"branch").is_some()
        || memchr::memmem::find(bytes, b"origin/").is_some()
        || memchr::memmem::find(bytes, b"checkout").is_some()
        || memchr::memmem::find(bytes, b"switch").is_some()
        || memchr::memmem::find(bytes, b"git").is_some()
    {
        scan(
            Pattern::Keyword(&p.branch),
            text,
            all.clone(),
            TokenClass::Branch,
            &mut candidates,
        );
    }
    if memchr::memchr(b'.', bytes).is_some() {
        scan(
            Pattern::Regex(&p.reverse_dns),
            text,
            all.clone(),
            TokenClass::ReverseDns,
            &mut candidates,
        );
    }
    hosts_in_whole_text(&p, text, &mut candidates);
    resolve_overlaps(&mut candidates)
}

/// The host class's two patterns over the whole text.
fn hosts_in_whole_text(p: &Patterns, text: &str, candidates: &mut Vec<Found>) {
    for pattern in [
        Pattern::Regex(&p.ipv4),
        Pattern::Keyword(&p.remote_host),
        Pattern::Regex(&p.ipv6),
        Pattern::Keyword(&p.host_port),
    ] {
        scan(pattern, text, 0..text.len(), TokenClass::Host, candidates);
    }
    let all = 0..text.len();
    scan(
        Pattern::Keyword(&p.repository),
        text,
        all.clone(),
        TokenClass::Repository,
        candidates,
    );
    scan(
        Pattern::Keyword(&p.service),
        text,
        all,
        TokenClass::Service,
        candidates,
    );
}

/// [`runs_into`] as a loop over every byte.
fn runs_byte_by_byte(bytes: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut held = 0u8;
    for (i, &b) in bytes.iter().enumerate() {
        let class = byte_in(&BYTE_HOLDS, b);
        if class == holds::BLANK {
            if held != 0 {
                out.push(Run {
                    start,
                    end: i,
                    holds: held,
                });
            }
            start = i + 1;
            held = 0;
        } else {
            held |= class;
        }
    }
    if held != 0 {
        out.push(Run {
            start,
            end: bytes.len(),
            holds: held,
        });
    }
    out
}

#[test]
fn a_byte_is_held_where_the_table_gives_it_a_class() {
    for b in 0..=255u8 {
        let class = byte_in(&BYTE_HOLDS, b);
        assert_eq!(is_held(b), class != 0 && class != holds::BLANK, "{b:#x}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// Runs found by searching for held bytes are the runs a byte-by-byte loop finds.
    #[test]
    fn runs_are_found_as_a_byte_by_byte_loop_finds_them(
        text in proptest::collection::vec(proptest::prop_oneof![
            proptest::sample::select(b" \t\n\r\x0b\x0c-_./:09aZ\xc3\xa9".to_vec()),
            proptest::num::u8::ANY,
        ], 0..200),
        long_prose in 0usize..3,
    ) {
        // Blocks of prose longer than the search's block, with runs across their edges.
        let mut bytes = b"abcdefghij klmnopqrstu vwxyz ".repeat(long_prose * 3);
        bytes.extend(&text);
        proptest::prop_assert_eq!(runs(&bytes), runs_byte_by_byte(&bytes));
    }
}

#[test]
fn a_word_byte_is_an_ascii_word_character() {
    for b in 0..=255u8 {
        assert_eq!(
            is_ascii_word_byte(b),
            b.is_ascii() && is_word_char(char::from(b)),
            "{b:#x}"
        );
    }
}

#[test]
fn a_cover_passes_over_the_classes_above_its_lowest_and_those_that_cannot_tie() {
    let run = Run {
        start: 4,
        end: 12,
        holds: holds::DIGIT,
    };
    let found = |start, end, class| Found { start, end, class };
    let mut cover = Cover::default();
    // A candidate inside the run, not spanning it, covers nothing.
    cover.note(&run, &found(4, 11, TokenClass::Path));
    assert!(!cover.passes_over(TokenClass::ReverseDns));
    cover.note(&run, &found(4, 12, TokenClass::Hex));
    cover.note(&run, &found(4, 12, TokenClass::Path));
    // The lowest class that spans it: a class below could still win the tie.
    for class in [TokenClass::Arn, TokenClass::Url, TokenClass::Path] {
        assert!(!cover.passes_over(class), "{class:?}");
    }
    // Above it, and the classes that span no run another class spans.
    for class in [
        TokenClass::Uuid,
        TokenClass::ResourceId,
        TokenClass::Numbered,
        TokenClass::Hex,
        TokenClass::VendorId,
        TokenClass::ReverseDns,
    ] {
        assert!(cover.passes_over(class), "{class:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Scanning only the runs between blanks that could hold a class finds what
    /// scanning the whole text finds.
    #[test]
    fn runs_find_what_the_whole_text_holds(
        parts in proptest::collection::vec(proptest::prop_oneof![
            "[0-9a-f]{6,40}",
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "(\\.\\./|~/|/|a/)?[a-zé日0-9_.+-]{1,6}(/[a-z0-9_.]{1,6}){0,3}(\\.(rs|ts|md))?",
            "https?://[a-z.]{1,8}/[a-z0-9/?=&.]{0,12}",
            "arn:aws:[a-z0-9]{1,4}:[a-z0-9-]{0,9}:[0-9]{0,12}:[a-z/:0-9_-]{1,12}",
            "(snap|i|vol)-[0-9a-f]{8,17}",
            "[a-z]{2,6}(-[a-z0-9]{1,4})?-[bcdfghjklmnpqrstvwxz2-9]{5,11}-[bcdfghjklmnpqrstvwxz2-9]{4,6}",
            "(revision|PR|port|Run) ?[#:]? ?[0-9]{1,5}",
            "(checkout -[bB]|switch\t-[cC]|--branch=?|origin/|branch|git merge|git push -u origin) ?[a-z0-9/_-]{2,12}",
            "(ssh|scp x|rsync -az a/) ?[a-z]{1,4}@[a-z0-9.-]{1,12}",
            "[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}",
            "[a-z]{2,5}(_[a-z]{2,4})?_[A-Za-z0-9]{14,20}",
            "(com|io|dev)\\.[a-z-]{1,6}\\.[a-z]{1,6}",
            "[a-zA-Z→。é]{1,8}",
            "[ \t\n.,:;()'\"`…\u{a0}\u{3000}-]{1,3}",
            "[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}",
            "[a-z0-9]{1,4}(\\.[a-z]{1,3})?\\.(internal|com|rs):[0-9]{1,6}",
            "(gh pr view 1 -R |gh api repos/|gh repo clone |systemctl restart |journalctl -u )[a-z0-9@._/-]{2,12}",
            "[a-z]{1,4}/\\[{1,2}(\\.\\.\\.)?[a-z]{1,3}\\]{0,2}(/[a-z]{1,3})?(\\.ts)?",
            "[\\[\\]]",
        ], 0..24)
    ) {
        let text: String = parts.concat();
        proptest::prop_assert_eq!(extract(&text), extract_whole_text(&text), "{:?}", text);
    }
}

#[test]
fn hosts_are_ipv4_addresses_and_the_host_of_a_remote_command() {
    use TokenClass::Host;
    let cases: &[(&str, &[&str])] = &[
        ("the server is 203.0.113.7, port 22", &["203.0.113.7"]),
        (
            "ssh deploy@203.0.113.7 'systemctl restart app'",
            &["203.0.113.7"],
        ),
        (
            "ssh -i ~/.ssh/id_ed25519 deploy@cdn.example.com uptime",
            &["cdn.example.com"],
        ),
        (
            "scp dist.tar.gz root@web-1.internal:/srv/app/",
            &["web-1.internal"],
        ),
        ("rsync -az build/ ops@10.0.4.12:/var/www/", &["10.0.4.12"]),
        ("curl http://10.0.4.12:8080/health", &[]),
    ];
    for (text, want) in cases {
        let hosts: Vec<&str> = tokens(text)
            .into_iter()
            .filter(|(_, class)| *class == Host)
            .map(|(t, _)| t)
            .collect();
        assert_eq!(&hosts, want, "{text}");
    }
    // Not hosts: loopback, the unspecified address, netmasks, versions of five parts,
    // an address inside a URL (the URL is the token), an e-mail outside a remote
    // command, a forge's `git@` host.
    for text in [
        "listening on 127.0.0.1:3000 and 0.0.0.0",
        "netmask 255.255.255.0",
        "bumped to 1.2.3.4.5",
        "mail noreply@anthropic.com about it",
        "ssh -T git@github.com",
        "version 300.1.2.3",
    ] {
        assert!(
            tokens(text).iter().all(|(_, class)| *class != Host),
            "{text}: {:?}",
            tokens(text)
        );
    }
}

#[test]
fn python_modules_are_no_reverse_dns_ids() {
    for text in [
        "from app.agents.config import Settings",
        "import app.agents.config",
        "python -m app.cli.main --help",
        // Telemetry keys: `ai` is no top-level domain a bundle id starts with.
        "set ai.operation.name and ai.internal.sdkVersion",
    ] {
        assert!(
            tokens(text)
                .iter()
                .all(|(_, class)| *class != TokenClass::ReverseDns),
            "{text}: {:?}",
            tokens(text)
        );
    }
    assert_eq!(
        tokens("bundle id com.example.shopapp"),
        vec![("com.example.shopapp", TokenClass::ReverseDns)]
    );
}

#[test]
fn branches_named_in_git_commands() {
    for (text, branch) in [
        ("git merge feat/upload-42", "feat/upload-42"),
        ("git push -u origin fix-login", "fix-login"),
        ("git rebase --onto release-2.1", "release-2.1"),
        ("git checkout hotfix_17", "hotfix_17"),
    ] {
        assert_eq!(tokens(text), vec![(branch, TokenClass::Branch)], "{text}");
    }
    // A file restored by `git checkout` is a path; `main` names no identifier; prose
    // that merges nothing names no branch.
    assert_eq!(
        tokens("git checkout src/a.ts"),
        vec![("src/a.ts", TokenClass::Path)]
    );
    assert!(tokens("git merge main").is_empty());
    assert!(tokens("we merge well-known fixes").is_empty());
}

#[test]
fn hosts_also_ipv6_addresses_and_hosts_before_a_port() {
    use TokenClass::Host;
    let hosts = |text: &str| -> Vec<String> {
        tokens(text)
            .into_iter()
            .filter(|(_, class)| *class == Host)
            .map(|(t, _)| t.to_owned())
            .collect()
    };
    for (text, want) in [
        (
            "ssh admin@2001:db8:85a3::8a2e:370:7334 uptime",
            "2001:db8:85a3::8a2e:370:7334",
        ),
        (
            "ping6 fe80::1ff:fe23:4567:890a%eth0",
            "fe80::1ff:fe23:4567:890a",
        ),
        (
            "psql -h x -p 1 # db.internal:5432 is the primary",
            "db.internal",
        ),
        (
            "curl -s api.staging.example.com:8443 -k",
            "api.staging.example.com",
        ),
    ] {
        assert_eq!(hosts(text), vec![want.to_owned()], "{text}");
    }
    // Not hosts: a file and its line, loopback, a slice, a clock, a MAC address, Rust's
    // paths, a network's prefix.
    for text in [
        "see main.rs:12 and app.py:140 and notes.md:3",
        "listening on [::1]:8080 and localhost:3000; connect ECONNREFUSED ::1:5432",
        "xs[1::2] and a[::10]",
        "at 12:30:45 on 10:00",
        "ether 00:1a:2b:3c:4d:5e",
        "std::fmt::Display and Vec::<u8>::new",
        "route 2001:db8::/32",
    ] {
        assert_eq!(hosts(text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn repositories_named_to_gh_and_services_to_systemctl() {
    for (text, want) in [
        (
            "gh pr view 12 --repo acme/agentv",
            ("acme/agentv", TokenClass::Repository),
        ),
        (
            "gh issue list -R acme/agent-v2 --state open",
            ("acme/agent-v2", TokenClass::Repository),
        ),
        (
            "gh repo clone octo-org/website",
            ("octo-org/website", TokenClass::Repository),
        ),
        (
            "gh api repos/acme/agentv/pulls/3/comments",
            ("acme/agentv", TokenClass::Repository),
        ),
        (
            "sudo systemctl restart ctx-worker.service",
            ("ctx-worker.service", TokenClass::Service),
        ),
        (
            "systemctl --user status api@2",
            ("api@2", TokenClass::Service),
        ),
        (
            "journalctl -u app_worker -n 50",
            ("app_worker", TokenClass::Service),
        ),
    ] {
        assert_eq!(tokens(text), vec![want], "{text}");
    }
    // `cp -R` copies folders; nginx is every machine's unit; `gh pr view 12` names no
    // repository.
    for text in [
        "cp -R src/app dist/app",
        "systemctl restart nginx",
        "gh pr view 12",
        "the high road",
    ] {
        assert!(
            tokens(text)
                .iter()
                .all(|(_, c)| !matches!(c, TokenClass::Repository | TokenClass::Service)),
            "{text}: {:?}",
            tokens(text)
        );
    }
}

#[test]
fn route_segments_belong_to_their_path() {
    for (text, path) in [
        (
            "edit app/users/[id]/page.tsx now",
            "app/users/[id]/page.tsx",
        ),
        (
            "see src/app/[locale]/layout.tsx",
            "src/app/[locale]/layout.tsx",
        ),
        ("pages/docs/[...slug].tsx", "pages/docs/[...slug].tsx"),
        (
            "app/shop/[[...slug]]/page.tsx",
            "app/shop/[[...slug]]/page.tsx",
        ),
        ("the file [src/a.rs] changed", "src/a.rs"),
        ("[docs/b.md](docs/b.md)", "docs/b.md"),
    ] {
        assert_eq!(
            tokens(text).first(),
            Some(&(path, TokenClass::Path)),
            "{text}: {:?}",
            tokens(text)
        );
    }
    assert!(tokens(
        "arr[i]/2 and x[0]/y.z and grep '/docs/segments/[a-z]*/x', s.replace(/[_-]/g), [bold]x[/bold]"
    )
        .iter()
        .all(|(t, _)| !t.contains('[')));
}

#[test]
fn programs_in_a_bin_folder_are_paths() {
    assert_eq!(
        tokens("source venv/bin/activate && node_modules/.bin/tsc"),
        vec![
            ("venv/bin/activate", TokenClass::Path),
            ("node_modules/.bin/tsc", TokenClass::Path)
        ]
    );
    assert!(tokens("bin/dev and src/lib").is_empty());
}
