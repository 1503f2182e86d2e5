//! The wake-up instants a node or link has pending in the event queue.
//!
//! A node that asks for an earlier wake-up leaves its later one in the queue; keeping the
//! pending instants lets the world neither lose nor duplicate one: an instant already
//! pending is not scheduled again, and one later than the earliest pending instant need
//! not be scheduled yet (the earlier wake-up asks again).

/// Pending wake-up instants, earliest first (a handful at most).
#[derive(Debug, Clone, Default)]
pub(crate) struct Wakes {
    pending: Vec<scream::Instant>,
}

impl Wakes {
    /// Whether a wake-up at `at` must be put into the event queue; records it if so.
    pub(crate) fn arm(&mut self, at: scream::Instant) -> bool {
        match self.pending.first() {
            Some(first) if at >= *first => false,
            _ => {
                self.pending.insert(0, at);
                true
            }
        }
    }

    /// A wake-up at `at` came out of the event queue.
    pub(crate) fn fired(&mut self, at: scream::Instant) {
        if let Some(i) = self.pending.iter().position(|p| *p == at) {
            self.pending.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scream::Instant;

    #[test]
    fn each_instant_is_scheduled_once_and_later_ones_wait_for_the_earliest() {
        let t = Instant::from_millis;
        let mut w = Wakes::default();
        assert!(w.arm(t(20)));
        assert!(!w.arm(t(20)));
        assert!(w.arm(t(5)));
        assert!(!w.arm(t(30)), "the 5 ms wake-up will ask again");
        w.fired(t(5));
        assert!(!w.arm(t(20)), "still pending");
        assert!(w.arm(t(10)));
        w.fired(t(10));
        w.fired(t(20));
        assert!(w.arm(t(30)));
    }
}
