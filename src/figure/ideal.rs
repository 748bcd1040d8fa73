//! The ideal motion of a figure, kept for every bake of it.
//!
//! A figure's ideal motion (its IK solves, [`super::fk`], and the corners
//! of its curves) depends on the bones, the `ik` entries and the clips
//! alone: not on the drawn pose (a reuse plan's `drawn_rad`), the
//! route, the keyer or the budget. One [`Ideal`] therefore serves every
//! bake of one figure: the tries of a reuse plan ([`super::bake_figure_keyed`])
//! and the refits of a tolerance bake ([`crate::bake_rig`]), so each time is
//! solved once per figure instead of once per try. Values are kept by clip
//! index (into the figure's `clips`) and normalised time's bits, so a kept
//! value is bit for bit what solving again would give. (The measure
//! stage's ideal poses are not kept: a try's sample times are mostly its
//! own, and keeping them cost more time than solving them again.)
//!
//! Tries run in parallel: a try reads the values kept when it began
//! (`TimeMemo::reader`) and adds its own when it is done
//! (`TimeReader::keep`), so no lock is taken per value; two tries racing
//! on one time both solve it, with the same result. What a try keeps is
//! added as a map of its own beside the others (a lookup asks each in
//! turn), so keeping copies nothing, whoever still reads the others.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Values by normalised time's bits, as the tries that solved them kept
/// them: one map per try.
type ByTime<V> = Vec<Arc<crate::geom::TimeMap<V>>>;

/// Values of one kind kept per key (a clip index, or a clip index and
/// more) and time (see the module docs).
pub(crate) struct TimeMemo<V, K = usize> {
    kept: Mutex<BTreeMap<K, ByTime<V>>>,
}

impl<V, K> Default for TimeMemo<V, K> {
    fn default() -> Self {
        TimeMemo {
            kept: Mutex::default(),
        }
    }
}

impl<V, K: Ord + Clone> TimeMemo<V, K> {
    /// A reader of the values kept under `ci`: those kept now, plus its own.
    pub(crate) fn reader(&self, ci: K) -> TimeReader<'_, V, K> {
        let kept = self
            .kept
            .lock()
            .expect("no panic while held")
            .entry(ci.clone())
            .or_default()
            .clone();
        TimeReader {
            memo: self,
            ci,
            kept,
            new: RefCell::default(),
        }
    }
}

/// One try's view of a [`TimeMemo`] for one clip: what was kept when the
/// try began, and what it computed since.
pub(crate) struct TimeReader<'a, V, K = usize> {
    memo: &'a TimeMemo<V, K>,
    ci: K,
    kept: ByTime<V>,
    new: RefCell<crate::geom::TimeMap<V>>,
}

impl<V, K: Ord> TimeReader<'_, V, K> {
    /// `read` of the value at normalised time `t`: the kept one, or
    /// `make(t)` (then kept by this reader).
    pub(crate) fn with<R>(
        &self,
        t: f64,
        make: impl FnOnce(f64) -> V,
        read: impl FnOnce(&V) -> R,
    ) -> R {
        let key = t.to_bits();
        if let Some(v) = self.kept.iter().find_map(|m| m.get(&key)) {
            return read(v);
        }
        read(self.new.borrow_mut().entry(key).or_insert_with(|| make(t)))
    }

    /// Adds this reader's values to those its memo keeps, as one more map.
    pub(crate) fn keep(self) {
        let new = self.new.into_inner();
        if new.is_empty() {
            return;
        }
        let mut m = self.memo.kept.lock().expect("no panic while held");
        m.entry(self.ci).or_default().push(Arc::new(new));
    }
}

/// What every bake of one figure shares (see the module docs).
#[derive(Default)]
pub struct Ideal {
    /// Each clip's corners (`bake::clip_corners`), by clip index.
    corners: Mutex<BTreeMap<usize, Vec<f64>>>,
    /// IK solves: every bone's local angle ([`fk::local_angles`]).
    pub(crate) solves: TimeMemo<Vec<f64>>,
    /// IK solves of one entry on its own, by clip index and entry: its
    /// two bones' local angles ([`fk::entry_angles`]).
    pub(crate) entry_solves: TimeMemo<(f64, f64), (usize, usize)>,
}

impl Ideal {
    /// Clip `ci`'s corners: kept, else `make()` (computed without the lock
    /// held, then kept).
    pub(crate) fn corners(&self, ci: usize, make: impl FnOnce() -> Vec<f64>) -> Vec<f64> {
        super::bake::memo(&self.corners, ci, make)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader returns what `make` gives, computes each time once, and
    /// its values reach later readers only once kept.
    #[test]
    fn readers_compute_each_time_once_and_share_what_they_keep() {
        let memo: TimeMemo<f64> = TimeMemo::default();
        let calls = std::cell::Cell::new(0);
        let f = |t: f64| {
            calls.set(calls.get() + 1);
            t * 2.0
        };
        let at = |r: &TimeReader<f64>, t: f64| r.with(t, f, |v| *v);
        let a = memo.reader(0);
        assert_eq!(at(&a, 0.25), 0.5);
        assert_eq!(at(&a, 0.25), 0.5);
        assert_eq!(calls.get(), 1);
        // a reader begun before `a` keeps its values sees none of them
        let b = memo.reader(0);
        a.keep();
        assert_eq!(at(&b, 0.25), 0.5);
        assert_eq!(calls.get(), 2);
        // one begun after sees them; another clip's reader does not
        let c = memo.reader(0);
        assert_eq!(at(&c, 0.25), 0.5);
        assert_eq!(calls.get(), 2);
        let d = memo.reader(1);
        assert_eq!(at(&d, 0.25), 0.5);
        assert_eq!(calls.get(), 3);
        // keeping merges: both times are there for the next reader
        assert_eq!(at(&b, 0.5), 1.0);
        b.keep();
        let e = memo.reader(0);
        assert_eq!((at(&e, 0.25), at(&e, 0.5)), (0.5, 1.0));
        assert_eq!(calls.get(), 4);
    }
}
