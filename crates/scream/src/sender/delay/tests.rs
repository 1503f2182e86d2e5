use super::*;

fn params(qdelay_avg_g: f64, interval: Duration) -> DelayParams {
    DelayParams {
        qdelay_target: TARGET,
        qdelay_avg_g,
        interval,
    }
}

const TARGET: Duration = Duration::from_millis(60);
/// A packet age that makes every sample of these tests plausible.
const AGE: Duration = Duration::from_secs(1);

#[test]
fn queue_delay_is_excess_over_minimum_owd() {
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    let t = Instant::from_millis(1);
    d.on_owd_sample(t, 25_000_000, AGE, TARGET);
    assert_eq!(d.queue_delay(), Duration::ZERO);
    d.on_owd_sample(t, 40_000_000, AGE, TARGET);
    assert_eq!(d.queue_delay(), Duration::from_millis(15));
    // Negative offsets (receiver clock behind) work the same.
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    d.on_owd_sample(t, -5_000_000, AGE, TARGET);
    d.on_owd_sample(t, -1_000_000, AGE, TARGET);
    assert_eq!(d.queue_delay(), Duration::from_millis(4));
}

/// Feeds `owds` (ms) as the samples of consecutive feedbacks, each from a packet
/// sent 60 ms before; returns the queue delay after each.
fn feed(d: &mut DelayEstimator, start_ms: u64, owds: &[i64]) -> Vec<Duration> {
    let age = Duration::from_millis(60);
    owds.iter()
        .enumerate()
        .map(|(i, owd)| {
            let now = Instant::from_millis(start_ms + 20 * i as u64);
            d.on_owd_sample(now, owd * 1_000_000, age, TARGET);
            d.on_feedback_end(now, &params(1.0 / 16.0, Duration::from_millis(50)));
            d.queue_delay()
        })
        .collect()
}

#[test]
fn one_implausible_sample_is_dropped_either_way() {
    let ms = |v| Duration::from_millis(v);
    for outlier in [2_030, 30 - 8_000] {
        let mut d = DelayEstimator::new(Duration::from_secs(600));
        let q = feed(&mut d, 1000, &[30, 35, outlier, 40, 32]);
        assert_eq!(q, [ms(0), ms(5), ms(5), ms(10), ms(2)], "{outlier}");
    }
}

#[test]
fn a_clock_step_restarts_the_base_delay_after_a_few_feedbacks() {
    let ms = |v| Duration::from_millis(v);
    for step in [2_000, -3_600_000] {
        let mut d = DelayEstimator::new(Duration::from_secs(600));
        let owds: Vec<i64> = [30, 35, 31, 33, 36, 30, 34]
            .iter()
            .enumerate()
            .map(|(i, v)| if i >= 2 { v + step } else { *v })
            .collect();
        let q = feed(&mut d, 1000, &owds);
        // Dropped while unconfirmed; then measured from the lowest sample of the
        // step, and against it from then on.
        assert_eq!(
            q,
            [ms(0), ms(5), ms(5), ms(5), ms(5), ms(0), ms(4)],
            "{step}"
        );
    }
}

#[test]
fn two_bad_reports_apart_are_no_clock_step() {
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    feed(&mut d, 1000, &[30, 34]);
    // A forged sample, two feedbacks without samples, another forged one: only two
    // feedbacks carried implausible samples, so the base stays.
    let now = Instant::from_millis(1100);
    d.on_owd_sample(now, 5_000_000_000, Duration::from_millis(60), TARGET);
    for _ in 0..3 {
        d.on_feedback_end(now, &params(1.0 / 16.0, Duration::from_millis(50)));
    }
    let q = feed(&mut d, 1200, &[5_000, 36]);
    assert_eq!(q, [Duration::from_millis(4), Duration::from_millis(6)]);
}

#[test]
fn a_forward_jump_of_our_clock_does_not_become_the_base_delay() {
    // Our `now` jumps 5 s ahead once: a packet sent "at" the jumped instant reads a
    // one-way delay 5 s too short. It must not become the base delay, or every
    // later sample reads 5 s of queue.
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    feed(&mut d, 1000, &[30, 32, 30 - 5_000, 31]);
    let q = feed(&mut d, 1100, &[33, 30, 34, 35, 31]);
    assert!(q.iter().all(|q| *q <= Duration::from_millis(5)), "{q:?}");
}

#[test]
fn base_delay_forgets_minima_older_than_the_window() {
    let mut d = DelayEstimator::new(Duration::from_secs(10));
    d.on_owd_sample(Instant::from_millis(0), 10_000_000, AGE, TARGET);
    // Path got longer: 30 ms. For the whole window the old minimum holds.
    for s in 1..=10 {
        d.on_owd_sample(Instant::from_secs_for_test(s), 30_000_000, AGE, TARGET);
    }
    assert_eq!(d.queue_delay(), Duration::ZERO, "old minimum aged out");
}

/// `x + (to - x) / 8`, the RFC 6298 update in milliseconds.
fn ewma(x: f64, to: f64) -> f64 {
    x + (to - x) / 8.0
}

fn assert_ms(d: Duration, want: f64) {
    assert!(
        (d.as_secs_f64() * 1e3 - want).abs() < 1e-6,
        "{d:?}, want {want} ms"
    );
}

#[test]
fn fast_srtt_is_an_ewma_of_samples_from_the_initial_value() {
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    assert_eq!(d.srtt_fast(), INITIAL_SRTT);
    d.on_rtt_sample(
        Instant::from_millis(100),
        Duration::from_millis(80),
        false,
        false,
    );
    let first = ewma(50.0, 80.0);
    assert_ms(d.srtt_fast(), first);
    d.on_rtt_sample(
        Instant::from_millis(110),
        Duration::from_millis(160),
        false,
        false,
    );
    assert_ms(d.srtt_fast(), ewma(first, 160.0));
}

#[test]
fn srtt_follows_the_fast_one_once_per_rtt() {
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    d.on_rtt_sample(
        Instant::from_millis(100),
        Duration::from_millis(80),
        false,
        false,
    );
    let fast = ewma(50.0, 80.0);
    let slow = ewma(50.0, fast);
    assert_ms(d.srtt(), slow);
    // Within one RTT of the last update the slow sRTT stays put.
    d.on_rtt_sample(
        Instant::from_millis(110),
        Duration::from_millis(160),
        false,
        false,
    );
    assert_ms(d.srtt(), slow);
    // A fast sRTT later, it moves an eighth of the way to the fast one.
    d.on_rtt_sample(
        Instant::from_millis(200),
        Duration::from_millis(90),
        false,
        false,
    );
    let fast = d.srtt_fast().as_secs_f64() * 1e3;
    assert_ms(d.srtt(), ewma(slow, fast));
}

#[test]
fn srtt_decays_slowly_while_application_limited() {
    let run = |app_limited: bool| {
        let mut d = DelayEstimator::new(Duration::from_secs(600));
        for i in 0..100 {
            let rtt = Duration::from_millis(80);
            d.on_rtt_sample(Instant::from_millis(100 * i), rtt, false, false);
        }
        assert!(d.srtt() > Duration::from_millis(79), "{:?}", d.srtt());
        for i in 100..=120 {
            let rtt = Duration::from_millis(30);
            d.on_rtt_sample(Instant::from_millis(100 * i), rtt, app_limited, false);
        }
        d.srtt()
    };
    let limited = run(true);
    let free = run(false);
    assert!(limited > Duration::from_millis(75), "{limited:?}");
    assert!(free < Duration::from_millis(45), "{free:?}");
}

#[test]
fn fresh_srtt_drops_a_stale_srtt_once_the_rtt_has_halved() {
    let run = |fresh: bool| {
        let mut d = DelayEstimator::new(Duration::from_secs(600));
        for i in 0..100 {
            let rtt = Duration::from_millis(300);
            d.on_rtt_sample(Instant::from_millis(400 * i), rtt, false, fresh);
        }
        // The queue drained; the flow is application-limited meanwhile.
        let mut t = 40_000;
        for _ in 0..30 {
            t += 25;
            let rtt = Duration::from_millis(20);
            d.on_rtt_sample(Instant::from_millis(t), rtt, true, fresh);
        }
        d.srtt()
    };
    let faithful = run(false);
    let fresh = run(true);
    assert!(faithful > Duration::from_millis(250), "{faithful:?}");
    // Within 30 samples the per-sample sRTT falls below 150 ms and the
    // controller's follows it there, then keeps following it.
    assert!(fresh < Duration::from_millis(150), "{fresh:?}");
    assert!(fresh < faithful / 2);
}

#[test]
fn forgetting_the_variation_makes_the_queue_delay_steady_again() {
    let mut d = DelayEstimator::new(Duration::from_secs(600));
    let interval = Duration::from_millis(25);
    // The queue delay swings between 0 and 40 ms for a few seconds.
    for i in 0..200u64 {
        let now = Instant::from_millis(1000 + 25 * i);
        let owd = if i % 2 == 0 { 10_000_000 } else { 50_000_000 };
        d.on_owd_sample(now, owd, AGE, TARGET);
        d.on_feedback_end(now, &params(0.25, interval));
    }
    assert!(d.steadiness() < 0.1, "{}", d.steadiness());
    d.forget_variation();
    assert_eq!(d.steadiness(), 1.0);
}

trait FromSecs {
    fn from_secs_for_test(s: u64) -> Self;
}
impl FromSecs for Instant {
    fn from_secs_for_test(s: u64) -> Self {
        Instant::from_millis(s * 1000)
    }
}
