//! A loop without an end runs until its `Stop` is requested, and a signal caught on
//! another thread wakes it from its wait at once.

use std::net::Ipv4Addr;
use std::sync::mpsc;

use scream::Duration;
use scream::receiver::ReceiverConfig;
use scream::wire::ccfb::CountConvention;
use scream_net::{Clock, MediaReceiver, MediaReceiverConfig, RunEnd, Stop};
use signal_hook::consts::SIGUSR1;

#[test]
fn a_signal_on_another_thread_ends_a_loop_asleep_without_an_end() {
    let cfg = MediaReceiverConfig {
        listen: (Ipv4Addr::LOCALHOST, 0).into(),
        feedback_to: None,
        rtcp_ssrc: 1,
        receiver: ReceiverConfig::default(),
        count: CountConvention::Rfc,
        feedback_key: None,
    };
    let mut rx = MediaReceiver::new(cfg, Clock::start()).expect("the receiver binds");
    rx.stop_on(Stop::on_signals(&[SIGUSR1]).expect("SIGUSR1 can be caught"))
        .expect("the stop registers");
    let (ended, end) = mpsc::channel();
    let runner = std::thread::spawn(move || {
        let mut reports = 0;
        // A minute between reports and no peer: nothing but the stop can wake it soon.
        let why = rx.run(None, Duration::from_secs(60), |_, _| reports += 1);
        let _ = ended.send(());
        (why.expect("the loop runs"), reports)
    });
    // Let the loop reach its wait; an earlier signal must end it too, only sooner.
    std::thread::sleep(std::time::Duration::from_millis(200));
    // `raise` signals this thread, not the loop's, which only the wake-up socket reaches.
    signal_hook::low_level::raise(SIGUSR1).expect("raise");
    end.recv_timeout(std::time::Duration::from_secs(20))
        .expect("the loop ended soon after the signal");
    let (why, reports) = runner.join().expect("the loop thread");
    match why {
        RunEnd::Stopped(sig) => assert_eq!(sig.name(), "SIGUSR1"),
        other => panic!("ended by {other:?}"),
    }
    assert_eq!(reports, 1, "one last report when stopped");
}
