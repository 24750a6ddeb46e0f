//! What the declared-token pass found in events' texts, kept beside the events rather
//! than written into them: the events of a followed log are shared with its snapshots,
//! and a write to a shared chunk copies it (on a first read, a copy of every region
//! event, kept while a snapshot shows the log as it was).

use super::token::TokenId;
use std::sync::Arc;

/// For each event the pass found declared tokens in, those its digest lacks, in the
/// order found; sorted by event index. Clones share it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeclaredFound(Arc<Vec<(usize, Box<[TokenId]>)>>);

impl DeclaredFound {
    /// `found` is sorted by event index, each index once.
    pub fn new(found: Vec<(usize, Box<[TokenId]>)>) -> DeclaredFound {
        debug_assert!(found.windows(2).all(|w| matches!(w, [a, b] if a.0 < b.0)));
        DeclaredFound(Arc::new(found))
    }

    /// The declared tokens found in event `index` beyond its digest's.
    pub fn of(&self, index: usize) -> &[TokenId] {
        self.0
            .binary_search_by_key(&index, |(at, _)| *at)
            .ok()
            .and_then(|at| self.0.get(at))
            .map_or(&[], |(_, ids)| ids)
    }

    /// The lowest event index at which `self` and `other` differ, if they do.
    pub fn first_difference(&self, other: &DeclaredFound) -> Option<usize> {
        if Arc::ptr_eq(&self.0, &other.0) {
            return None;
        }
        let mut mine = self.0.iter();
        let mut theirs = other.0.iter();
        loop {
            match (mine.next(), theirs.next()) {
                (None, None) => return None,
                (Some((at, _)), None) | (None, Some((at, _))) => return Some(*at),
                (Some((a, x)), Some((b, y))) if a != b || x != y => return Some(*a.min(b)),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn found(entries: &[(usize, &[u32])]) -> DeclaredFound {
        DeclaredFound::new(
            entries
                .iter()
                .map(|&(at, ids)| (at, ids.iter().map(|&i| TokenId(i)).collect()))
                .collect(),
        )
    }

    #[test]
    fn an_event_without_an_entry_has_no_declared_tokens() {
        let f = found(&[(3, &[1, 2]), (9, &[4])]);
        assert_eq!(f.of(3), &[TokenId(1), TokenId(2)]);
        assert_eq!(f.of(9), &[TokenId(4)]);
        assert!(f.of(4).is_empty());
    }

    #[test]
    fn the_first_difference_is_the_lowest_index_that_differs() {
        let a = found(&[(3, &[1]), (9, &[4])]);
        assert_eq!(a.first_difference(&a.clone()), None);
        assert_eq!(a.first_difference(&found(&[(3, &[1]), (9, &[4])])), None);
        assert_eq!(a.first_difference(&found(&[(3, &[1]), (9, &[5])])), Some(9));
        assert_eq!(a.first_difference(&found(&[(3, &[1]), (7, &[4])])), Some(7));
        assert_eq!(a.first_difference(&found(&[(3, &[1])])), Some(9));
        assert_eq!(found(&[]).first_difference(&a), Some(3));
    }
}
