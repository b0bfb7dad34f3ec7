//! [`FieldMap`]: name -> value, for the schema's field definitions, per-query
//! field weights, JSON objects, snippets and in-memory storage.
//!
//! A `Vec` sorted by name rather than a `BTreeMap<String, V>`: these maps
//! hold a handful of entries, and each `BTreeMap` value type instantiates its
//! own B-tree code in the wasm (~2 KB gzipped for the two). Iteration order,
//! equality, `Debug` and serialization are those of the `BTreeMap` it
//! replaces.

use std::fmt;

/// Entries sorted by name, names unique.
#[derive(Clone, PartialEq)]
pub struct FieldMap<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for FieldMap<V> {
    fn default() -> Self {
        FieldMap {
            entries: Vec::new(),
        }
    }
}

impl<V> FieldMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    /// From entries already sorted by name with unique names (the JSON
    /// parser's objects).
    pub fn from_sorted(entries: Vec<(String, V)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        FieldMap { entries }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    pub fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        self.find(name).ok().map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets `name` to `value`, returning the value it replaces.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (name, value));
                None
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<V> {
        self.find(name).ok().map(|i| self.entries.remove(i).1)
    }

    /// Entries in name order.
    pub fn iter(&self) -> Iter<'_, V> {
        Iter(self.entries.iter())
    }

    /// Entries in name order, from the first name `>= name`.
    pub fn iter_from(&self, name: &str) -> Iter<'_, V> {
        let start = self.find(name).unwrap_or_else(|i| i);
        Iter(self.entries[start..].iter())
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }
}

/// Iterator over `(&name, &value)` in name order.
pub struct Iter<'a, V>(std::slice::Iter<'a, (String, V)>);

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (&'a String, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<V> ExactSizeIterator for Iter<'_, V> {}

impl<'a, V> IntoIterator for &'a FieldMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = Iter<'a, V>;
    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

impl<V> IntoIterator for FieldMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// Later entries replace earlier ones with the same name, as in a `BTreeMap`.
impl<V> FromIterator<(String, V)> for FieldMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut map = FieldMap::new();
        map.extend(iter);
        map
    }
}

impl<V, const N: usize> From<[(String, V); N]> for FieldMap<V> {
    fn from(entries: [(String, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<V> Extend<(String, V)> for FieldMap<V> {
    fn extend<I: IntoIterator<Item = (String, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

/// `map["name"]`, as on a `BTreeMap`: panics when the name is absent (use
/// [`FieldMap::get`] otherwise).
impl<V> std::ops::Index<&str> for FieldMap<V> {
    type Output = V;
    fn index(&self, name: &str) -> &V {
        match self.get(name) {
            Some(v) => v,
            None => panic!("no entry named {name}"),
        }
    }
}

impl<V: fmt::Debug> fmt::Debug for FieldMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn behaves_like_a_btreemap() {
        // xorshift: names in a scrambled order, with repeats and prefixes.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut map = FieldMap::new();
        let mut want = BTreeMap::new();
        for i in 0..400u32 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let name = ["", "a", "ab", "b", "é", "title", "text", "Z"][state as usize % 8]
                .repeat(1 + (state >> 8) as usize % 3);
            match (state >> 16) % 4 {
                0 => assert_eq!(map.remove(&name), want.remove(&name)),
                _ => assert_eq!(map.insert(name.clone(), i), want.insert(name, i)),
            }
            assert!(map.iter().eq(want.iter()));
            assert_eq!(map.len(), want.len());
            assert_eq!(format!("{map:?}"), format!("{want:?}"));
            assert_eq!(
                crate::to_string(&map),
                serde_json::to_string(&want).unwrap()
            );
        }
        for name in ["", "a", "aa", "x", "title"] {
            assert_eq!(map.get(name), want.get(name));
            assert_eq!(map.contains_key(name), want.contains_key(name));
        }
        let collected: FieldMap<u32> = want.clone().into_iter().rev().collect();
        assert!(collected == map);
        assert!(map.into_iter().eq(want));
    }
}
