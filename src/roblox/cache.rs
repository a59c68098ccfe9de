//! A bounded in-memory cache with per-read freshness, and coalescing of identical lookups in flight.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

/// At most `capacity` entries; the oldest inserted goes first. Each value keeps when it was fetched.
pub struct Bounded<K, V> {
    inner: Mutex<BoundedInner<K, V>>,
    capacity: usize,
}

struct BoundedInner<K, V> {
    map: HashMap<K, (V, i64)>,
    order: VecDeque<K>,
}

impl<K: Eq + Hash + Clone, V: Clone> Bounded<K, V> {
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(BoundedInner { map: HashMap::new(), order: VecDeque::new() }),
            capacity: capacity.max(1),
        }
    }

    /// The value if it was fetched at or after `fresh_since_ms`.
    pub fn get(&self, key: &K, fresh_since_ms: i64) -> Option<V> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.get(key).filter(|(_, at)| *at >= fresh_since_ms).map(|(v, _)| v.clone())
    }

    pub fn insert(&self, key: K, value: V, fetched_ms: i64) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if inner.map.insert(key.clone(), (value, fetched_ms)).is_none() {
            inner.order.push_back(key);
            while inner.map.len() > self.capacity {
                let Some(old) = inner.order.pop_front() else { break };
                inner.map.remove(&old);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn clear(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.clear();
        inner.order.clear();
    }
}

/// Runs one lookup per key at a time: callers asking for a key already in flight wait for that
/// answer instead of calling Roblox again. If the running caller is cancelled (its visitor
/// left), one of the waiters takes over.
pub struct Coalescer<K, V> {
    in_flight: Mutex<HashMap<K, Arc<OnceCell<V>>>>,
}

impl<K: Eq + Hash + Clone, V: Clone> Default for Coalescer<K, V> {
    fn default() -> Self {
        Self { in_flight: Mutex::new(HashMap::new()) }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Coalescer<K, V> {
    /// True while a lookup of `key` runs (a caller asking now waits for it, costing nothing more).
    pub fn in_flight(&self, key: &K) -> bool {
        self.in_flight.lock().unwrap_or_else(|p| p.into_inner()).contains_key(key)
    }

    pub async fn run<F, Fut>(&self, key: K, make: F) -> V
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = V>,
    {
        let cell = {
            let mut map = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(key.clone()).or_insert_with(|| Arc::new(OnceCell::new())).clone()
        };
        let value = cell.get_or_init(make).await.clone();
        let mut map = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        if map.get(&key).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            map.remove(&key);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[test]
    fn the_cache_is_bounded_and_reads_respect_freshness() {
        let c = Bounded::new(2);
        c.insert("a", 1, 100);
        c.insert("b", 2, 200);
        c.insert("c", 3, 300);
        assert_eq!((c.len(), c.get(&"a", 0), c.get(&"c", 0)), (2, None, Some(3)));
        assert_eq!(c.get(&"b", 201), None, "stale");
        assert_eq!(c.get(&"b", 200), Some(2));
    }

    #[tokio::test]
    async fn identical_lookups_in_flight_run_once() {
        let co: Arc<Coalescer<&str, u32>> = Arc::default();
        let calls = Arc::new(AtomicU32::new(0));
        let mut tasks = Vec::new();
        for _ in 0..20 {
            let (co, calls) = (co.clone(), calls.clone());
            tasks.push(tokio::spawn(async move {
                co.run("x", || async {
                    calls.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    7
                })
                .await
            }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap(), 7);
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(co.run("x", || async { 8 }).await, 8, "finished lookups are not kept");
    }
}
