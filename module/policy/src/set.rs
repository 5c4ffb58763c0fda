//! Fixed-capacity bit set of TSG ids.

/// A set of TSG ids `0 .. 64 * W`, stored as `W` 64-bit words.
///
/// All operations are total: ids outside the capacity are reported as absent by
/// [`TsgSet::contains`] and rejected (returning `false`) by [`TsgSet::insert`] and
/// [`TsgSet::remove`]. The all-zero bit pattern is the empty set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TsgSet<const W: usize> {
    words: [u64; W],
}

impl<const W: usize> Default for TsgSet<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> TsgSet<W> {
    /// The empty set.
    pub const EMPTY: Self = Self { words: [0; W] };

    /// Number of ids the set can hold (`64 * W`).
    pub const CAPACITY: usize = 64 * W;

    /// Builds a set from raw words.
    pub(super) const fn from_words(words: [u64; W]) -> Self {
        Self { words }
    }

    /// Splits an id into (word index, bit mask), or `None` if it is out of range.
    fn locate(id: u32) -> Option<(usize, u64)> {
        let id = usize::try_from(id).ok()?;
        let word = id / 64;
        if word >= W {
            return None;
        }
        Some((word, 1u64 << (id % 64)))
    }

    /// Whether `id` is in the set (`false` for out-of-range ids).
    pub fn contains(&self, id: u32) -> bool {
        match Self::locate(id) {
            Some((w, m)) => self.words.get(w).is_some_and(|x| x & m != 0),
            None => false,
        }
    }

    /// Adds `id`; returns `false` (and does nothing) if `id` is out of range.
    pub fn insert(&mut self, id: u32) -> bool {
        match Self::locate(id).and_then(|(w, m)| Some((self.words.get_mut(w)?, m))) {
            Some((x, m)) => {
                *x |= m;
                true
            }
            None => false,
        }
    }

    /// Removes `id`; returns `false` (and does nothing) if `id` is out of range.
    pub fn remove(&mut self, id: u32) -> bool {
        match Self::locate(id).and_then(|(w, m)| Some((self.words.get_mut(w)?, m))) {
            Some((x, m)) => {
                *x &= !m;
                true
            }
            None => false,
        }
    }

    /// Empties the set in place.
    pub fn clear(&mut self) {
        for w in self.words.iter_mut() {
            *w = 0;
        }
    }

    /// Number of ids in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// In-place union: `self := self ∪ other`.
    pub fn union_with(&mut self, other: &Self) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a |= *b;
        }
    }

    /// In-place intersection: `self := self ∩ other`.
    pub fn intersect_with(&mut self, other: &Self) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= *b;
        }
    }

    /// Whether every id of `self` is also in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        self.words
            .iter()
            .zip(other.words.iter())
            .all(|(a, b)| *a & !*b == 0)
    }

    /// The raw words (bit `i % 64` of word `i / 64` is id `i`).
    pub fn words(&self) -> &[u64; W] {
        &self.words
    }

    /// Iterates over the ids in increasing order.
    pub fn iter(&self) -> TsgSetIter<'_, W> {
        TsgSetIter {
            set: self,
            word: 0,
            rest: self.words.first().copied().unwrap_or(0),
        }
    }
}

impl<'a, const W: usize> IntoIterator for &'a TsgSet<W> {
    type Item = u32;
    type IntoIter = TsgSetIter<'a, W>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over the ids of a [`TsgSet`], in increasing order.
#[derive(Clone, Debug)]
pub struct TsgSetIter<'a, const W: usize> {
    set: &'a TsgSet<W>,
    /// Index of the word `rest` was taken from.
    word: usize,
    /// Bits of word `word` not yet returned.
    rest: u64,
}

impl<const W: usize> Iterator for TsgSetIter<'_, W> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            if self.rest != 0 {
                let bit = self.rest.trailing_zeros();
                // Clear the lowest set bit.
                self.rest &= self.rest.wrapping_sub(1);
                // word < W and 64 * W ids were addressable by u32 when inserted
                // (`locate` rejects anything larger), so this cannot fail.
                let base = u32::try_from(self.word).ok()?.checked_mul(64)?;
                return base.checked_add(bit);
            }
            self.word = self.word.checked_add(1)?;
            self.rest = *self.set.words.get(self.word)?;
        }
    }
}
