//! Independent jobs on a fixed set of threads: the executor of `scream eval` and of
//! sweeps.
//!
//! A run is a pure function of its scenario and seed, so which thread runs it cannot
//! change its result; the threads only pull the next index from a shared counter. The
//! threads are spawned once per call (not once per job), so thousands of sub-second
//! runs cost no more thread start-ups than a handful of long ones.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Calls `work(i, &items[i])` for every item on `jobs` threads (at least one, at most
/// one per item), in no particular order, and returns once all have returned.
///
/// The first error stops the hand-out of further items: jobs already running finish,
/// the rest are not started, and that error is returned. A panic in `work` is
/// re-raised here once the other threads have stopped.
pub(crate) fn for_each<T, E>(
    items: &[T],
    jobs: usize,
    work: impl Fn(usize, &T) -> Result<(), E> + Sync,
) -> Result<(), E>
where
    T: Sync,
    E: Send,
{
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let first_error: Mutex<Option<E>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if let Err(e) = work(i, item) {
                        stop.store(true, Ordering::Relaxed);
                        // A poisoned lock means another worker panicked; the scope
                        // re-raises that panic, which outranks this error.
                        if let Ok(mut slot) = first_error.lock() {
                            slot.get_or_insert(e);
                        }
                        break;
                    }
                }
            });
        }
    });
    match first_error.into_inner() {
        Ok(Some(e)) => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_visited_once_whatever_the_thread_count() {
        for jobs in [0, 1, 3, 64] {
            let seen = Mutex::new(vec![0u32; 100]);
            let items: Vec<usize> = (0..100).collect();
            let r: Result<(), ()> = for_each(&items, jobs, |i, &item| {
                assert_eq!(i, item);
                seen.lock().expect("not poisoned")[i] += 1;
                Ok(())
            });
            assert_eq!(r, Ok(()));
            assert!(
                seen.into_inner()
                    .expect("not poisoned")
                    .iter()
                    .all(|&n| n == 1)
            );
        }
    }

    #[test]
    fn an_error_stops_the_hand_out_and_is_returned() {
        let started = AtomicUsize::new(0);
        let items: Vec<u32> = (0..1000).collect();
        let r = for_each(&items, 1, |_, &item| {
            started.fetch_add(1, Ordering::Relaxed);
            if item == 10 { Err(item) } else { Ok(()) }
        });
        assert_eq!(r, Err(10));
        assert_eq!(started.load(Ordering::Relaxed), 11);
    }

    #[test]
    fn no_items_is_no_work() {
        let r: Result<(), ()> = for_each(&[] as &[u8], 4, |_, _| panic!("called"));
        assert_eq!(r, Ok(()));
    }
}
