//! An append-mostly list whose clones share storage: the events of a followed log and
//! the texts of its tokens are cloned into a snapshot after every append, and a clone
//! must cost a pointer per chunk, not a copy of the log. Changing an element copies
//! only its chunk, and only while a clone still holds it.

use std::ops::Range;
use std::sync::Arc;

/// Elements per chunk: a power of two, so an index splits with a shift and a mask.
const CHUNK: usize = 1024;

/// A vector in fixed chunks, shared between clones: pushing to a clone copies at most
/// the last chunk, so a snapshot of a growing session costs little.
#[derive(Clone)]
pub struct Chunked<T> {
    chunks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Chunked<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone> Chunked<T> {
    /// Appends `value`.
    pub fn push(&mut self, value: T) {
        if self.len.is_multiple_of(CHUNK) {
            // A chunk grows as a vector does, so a short list stays small.
            self.chunks.push(Arc::new(Vec::new()));
        }
        if let Some(last) = self.chunks.last_mut() {
            Arc::make_mut(last).push(value);
            self.len += 1;
        }
    }

    /// The element at `index`, to change (its chunk is copied if shared).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let chunk = self.chunks.get_mut(index / CHUNK)?;
        Arc::make_mut(chunk).get_mut(index % CHUNK)
    }

    /// Keeps the first `len` elements.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.chunks.truncate(len.div_ceil(CHUNK));
        let keep = len - self.chunks.len().saturating_sub(1) * CHUNK;
        if let Some(last) = self.chunks.last_mut() {
            if keep < last.len() {
                Arc::make_mut(last).truncate(keep);
            }
        }
        self.len = len;
    }
}

impl<T> Chunked<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element at `index`.
    pub fn get(&self, index: usize) -> Option<&T> {
        self.chunks.get(index / CHUNK)?.get(index % CHUNK)
    }

    /// The first element.
    pub fn first(&self) -> Option<&T> {
        self.get(0)
    }

    /// The last element.
    pub fn last(&self) -> Option<&T> {
        self.get(self.len.checked_sub(1)?)
    }

    /// Every element, in order.
    pub fn iter(&self) -> Iter<'_, T> {
        self.range(0..self.len)
    }

    /// The elements in `range`, clamped to the list.
    pub fn range(&self, range: Range<usize>) -> Iter<'_, T> {
        let end = range.end.min(self.len);
        Iter {
            list: self,
            front: range.start.min(end),
            back: end,
        }
    }

    /// The index of the first element for which `pred` is false, the list being
    /// partitioned by it (as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len);
        while low < high {
            let mid = low + (high - low) / 2;
            if self.get(mid).is_some_and(&mut pred) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }
}

impl<T: PartialEq> Chunked<T> {
    /// How many leading elements `self` and `other` have in common. A chunk both
    /// hold is the same (a chunk is copied before it is changed while shared), so
    /// only the first chunk they do not share is compared element by element: what
    /// an analysis kept from a clone of the list stays valid up to here.
    pub fn common_prefix(&self, other: &Chunked<T>) -> usize {
        let mut common = 0;
        for (mine, theirs) in self.chunks.iter().zip(&other.chunks) {
            if Arc::ptr_eq(mine, theirs) {
                common += mine.len();
                continue;
            }
            common += mine
                .iter()
                .zip(theirs.iter())
                .take_while(|(a, b)| a == b)
                .count();
            break;
        }
        common.min(self.len).min(other.len)
    }
}

impl<T: Clone> FromIterator<T> for Chunked<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut list = Chunked::default();
        iter.into_iter().for_each(|v| list.push(v));
        list
    }
}

impl<T: Clone> Extend<T> for Chunked<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        iter.into_iter().for_each(|v| self.push(v));
    }
}

/// Panics out of range, as a vector does (the lints keep it out of non-test code).
impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;

    fn index(&self, index: usize) -> &T {
        match self.get(index) {
            Some(value) => value,
            None => panic!("index {index} out of a list of {}", self.len),
        }
    }
}

impl<T: PartialEq> PartialEq for Chunked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<'a, T> IntoIterator for &'a Chunked<T> {
    type Item = &'a T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

#[derive(Clone)]
pub struct Iter<'a, T> {
    list: &'a Chunked<T>,
    front: usize,
    back: usize,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.list.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back.saturating_sub(self.front);
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<&'a T> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl<T> DoubleEndedIterator for Iter<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.list.get(self.back)
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Push(u32),
        Set(usize, u32),
        Truncate(usize),
        Clone,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => any::<u32>().prop_map(Op::Push),
            2 => (0..20_000usize, any::<u32>()).prop_map(|(i, v)| Op::Set(i, v)),
            1 => (0..20_000usize).prop_map(Op::Truncate),
            1 => Just(Op::Clone),
        ]
    }

    proptest! {
        /// The list behaves as a vector, and a clone keeps what it held while the
        /// original goes on changing.
        #[test]
        fn a_chunked_list_is_a_vector_and_clones_are_independent(
            ops in prop::collection::vec(op(), 0..40),
            bulk in 0..10_000usize,
        ) {
            let mut list: Chunked<u32> = (0..bulk as u32).collect();
            let mut model: Vec<u32> = (0..bulk as u32).collect();
            let mut clones: Vec<(Chunked<u32>, Vec<u32>)> = Vec::new();
            for op in ops {
                match op {
                    Op::Push(v) => { list.push(v); model.push(v); }
                    Op::Set(i, v) => {
                        let i = if model.is_empty() { 0 } else { i % model.len() };
                        prop_assert_eq!(list.get_mut(i).map(|x| { *x = v; }), model.get_mut(i).map(|x| { *x = v; }));
                    }
                    Op::Truncate(n) => { list.truncate(n); model.truncate(n); }
                    Op::Clone => clones.push((list.clone(), model.clone())),
                }
                prop_assert_eq!(list.len(), model.len());
            }
            prop_assert!(list.iter().eq(model.iter()));
            prop_assert!(list.iter().rev().eq(model.iter().rev()));
            prop_assert_eq!(list.last(), model.last());
            let cut = model.len() / 3;
            prop_assert!(list.range(cut..cut + 5000).eq(model.iter().skip(cut).take(5000)));
            let sorted: Chunked<usize> = (0..bulk).collect();
            for at in [0, bulk / 2, bulk, bulk + 1] {
                prop_assert_eq!(sorted.partition_point(|&v| v < at), at.min(bulk));
            }
            for (clone, held) in clones {
                prop_assert!(clone.iter().eq(held.iter()));
                let common = model.iter().zip(&held).take_while(|(a, b)| a == b).count();
                prop_assert_eq!(list.common_prefix(&clone), common);
                prop_assert_eq!(clone.common_prefix(&list), common);
            }
        }
    }
}
