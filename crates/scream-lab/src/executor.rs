//! Batches of independent jobs: the one way sweeps, eval, the suite and the studies run
//! their simulations.
//!
//! A run is a pure function of its scenario text, overrides and seed, so where it runs
//! cannot change its result: an [`Executor`] only decides where and when. The local
//! one runs the jobs on this machine's threads; an engine that spreads them over
//! several machines implements the same trait. Results always come back in the order of
//! the jobs, so no output depends on which job finished first.

use std::ops::ControlFlow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::iter::{ParallelBridge, ParallelIterator};

/// Runs a batch of independent jobs, numbered `0..count`.
///
/// The trait is object-safe so that an experiment takes `&dyn Executor` and the caller
/// picks the engine; `run_batch`, on `dyn Executor`, is the typed front on top of it.
/// The lab's jobs are pure functions of a scenario text, its overrides and a seed; an
/// engine on other machines needs those descriptions rather than the closure: for
/// sweeps, [`crate::sweep::RunJob`], run by [`crate::sweep::run_job`], with the rows
/// collected through a [`crate::sweep::Session`] instead of this trait.
pub trait Executor: Sync + std::fmt::Debug {
    /// Calls `job(i)` once for every `i` in `0..count`, in any order and on any thread,
    /// and returns once every call that was started has returned.
    ///
    /// After a call returns [`ControlFlow::Break`], jobs not yet started are not
    /// started (those running finish). A panic in `job` is re-raised here once the
    /// other jobs have stopped.
    fn for_each_index(&self, count: usize, job: &(dyn Fn(usize) -> ControlFlow<()> + Sync));
}

impl dyn Executor + '_ {
    /// `job` on every item, the results in the order of `items`.
    ///
    /// The first error stops the hand-out of further items: jobs already running
    /// finish, the rest are not started, and that error is returned.
    pub fn run_batch<T, R, E>(
        &self,
        items: &[T],
        job: impl Fn(&T) -> Result<R, E> + Sync,
    ) -> Result<Vec<R>, E>
    where
        T: Sync,
        R: Send,
        E: Send,
    {
        let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
        let first_error: Mutex<Option<E>> = Mutex::new(None);
        self.for_each_index(items.len(), &|i| match job(&items[i]) {
            Ok(r) => {
                // A poisoned lock means another job panicked; the executor re-raises
                // that panic, so this result may be dropped.
                if let Ok(mut s) = slots.lock() {
                    s[i] = Some(r);
                }
                ControlFlow::Continue(())
            }
            Err(e) => {
                if let Ok(mut slot) = first_error.lock() {
                    slot.get_or_insert(e);
                }
                ControlFlow::Break(())
            }
        });
        if let Some(e) = first_error
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            return Err(e);
        }
        Ok(slots
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .into_iter()
            .flatten()
            .collect())
    }
}

/// Runs the jobs on this machine, on at most `jobs` threads (the `--jobs` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalExecutor {
    jobs: usize,
}

impl LocalExecutor {
    /// At most `jobs` threads at once; 0 counts as 1. A batch never gets more threads
    /// than it has jobs.
    pub fn new(jobs: usize) -> Self {
        Self { jobs: jobs.max(1) }
    }

    /// The most threads a batch gets.
    pub fn jobs(&self) -> usize {
        self.jobs
    }
}

impl Executor for LocalExecutor {
    fn for_each_index(&self, count: usize, job: &(dyn Fn(usize) -> ControlFlow<()> + Sync)) {
        let stop = AtomicBool::new(false);
        let step = |i: usize| {
            if !stop.load(Ordering::Relaxed) && job(i).is_break() {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let threads = self.jobs.min(count.max(1));
        // One pool per batch (not per job): thousands of sub-second runs cost no more
        // thread start-ups than a handful of long ones. `par_bridge` hands out the
        // indices in order from one shared iterator, so with one thread the jobs run
        // in order and a long job never holds back a queue of its own.
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(|| (0..count).par_bridge().for_each(step)),
            // Without threads to be had the batch still runs, one job after another.
            Err(_) => (0..count).for_each(step),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    fn local(jobs: usize) -> LocalExecutor {
        LocalExecutor::new(jobs)
    }

    #[test]
    fn every_item_runs_once_and_results_keep_the_item_order() {
        for jobs in [0, 1, 3, 64] {
            let calls = AtomicUsize::new(0);
            let items: Vec<usize> = (0..100).collect();
            let exec: &dyn Executor = &local(jobs);
            let r: Result<Vec<usize>, ()> = exec.run_batch(&items, |&i| {
                calls.fetch_add(1, Ordering::Relaxed);
                Ok(i * 2)
            });
            assert_eq!(r, Ok(items.iter().map(|i| i * 2).collect()));
            assert_eq!(calls.load(Ordering::Relaxed), 100);
        }
    }

    #[test]
    fn an_error_stops_the_hand_out_and_is_returned() {
        let started = AtomicUsize::new(0);
        let items: Vec<u32> = (0..1000).collect();
        let exec: &dyn Executor = &local(1);
        let r = exec.run_batch(&items, |&item| {
            started.fetch_add(1, Ordering::Relaxed);
            if item == 10 { Err(item) } else { Ok(()) }
        });
        assert_eq!(r, Err(10));
        assert_eq!(started.load(Ordering::Relaxed), 11);
    }

    #[test]
    fn a_batch_never_runs_on_more_threads_than_jobs() {
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<u8> = vec![0; 40];
        let exec: &dyn Executor = &local(2);
        let r: Result<Vec<()>, ()> = exec.run_batch(&items, |_| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(2));
            running.fetch_sub(1, Ordering::SeqCst);
            Ok(())
        });
        assert!(r.is_ok());
        assert!(most.load(Ordering::SeqCst) <= 2, "{most:?}");
    }

    #[test]
    fn no_items_is_no_work() {
        let exec: &dyn Executor = &local(4);
        let r: Result<Vec<()>, ()> = exec.run_batch(&[] as &[u8], |_| panic!("called"));
        assert_eq!(r, Ok(vec![]));
    }
}
