//! Unit tests of the install's lock: expiry, how a holder is named and
//! judged, the lease duration.

use super::*;

fn seen(renewed_secs_ago: i64, duration: i32, holder: Option<&str>) -> Seen {
    let now = Timestamp::now();
    let renewed = now - std::time::Duration::from_secs(renewed_secs_ago as u64);
    Seen::of(Lease {
        metadata: ObjectMeta {
            annotations: Some(
                [
                    (ANNOTATION_USER.to_string(), "alice".to_string()),
                    (ANNOTATION_HOST.to_string(), "ci-7".to_string()),
                    (ANNOTATION_PID.to_string(), "4242".to_string()),
                    (ANNOTATION_COMMAND.to_string(), "init".to_string()),
                ]
                .into(),
            ),
            ..Default::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: holder.map(str::to_string),
            acquire_time: Some(MicroTime(renewed)),
            renew_time: Some(MicroTime(renewed)),
            lease_duration_seconds: Some(duration),
            ..Default::default()
        }),
    })
}

#[test]
fn a_lease_expires_when_unrenewed_for_its_duration_or_released() {
    let now = Timestamp::now();
    assert!(!seen(5, 30, Some("alice")).expired_at(now));
    assert!(seen(31, 30, Some("alice")).expired_at(now));
    assert!(seen(1, 30, None).expired_at(now));
}

#[test]
fn the_holder_is_named_with_user_host_pid_command_and_since_when() {
    let text = seen(5, 30, Some("alice")).describe();
    assert!(
        text.starts_with("`cf-runner init` of alice@ci-7 (pid 4242), since 20"),
        "{text}"
    );
    assert!(text.ends_with('Z'), "{text}");
}

#[test]
fn an_ended_holder_is_seen_only_from_its_own_process_space() {
    let me = Holder::me("init");
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    ended.wait().unwrap();
    let gone = Holder {
        pid: ended.id(),
        ..me.clone()
    };
    assert!(me.sees_ended(&gone) || me.process_space.is_empty());
    assert!(!me.sees_ended(&me), "this process is alive");
    let elsewhere = Holder {
        process_space: "another-machine".into(),
        ..gone
    };
    assert!(!me.sees_ended(&elsewhere));
}

/// A Lease renewed `renewed_in` seconds from now (negative: ago).
fn claimed(renewed_in: i64, duration: i32) -> Seen {
    let mut lease = seen(0, duration, Some("mallory")).lease;
    let at = Timestamp::now() + k8s_openapi::jiff::SignedDuration::from_secs(renewed_in);
    let spec = lease.spec.as_mut().unwrap();
    spec.renew_time = Some(MicroTime(at));
    spec.acquire_time = Some(MicroTime(at));
    Seen::of(lease)
}

#[test]
fn impossible_times_are_named_and_judged_by_watching_alone() {
    let own = LEASE_DURATION;
    // A year ahead, for 60 years: both named, the real expiry stated,
    // and watched for this run's own duration, not 60 years.
    let forged = claimed(365 * 86_400, 1_900_000_000);
    let said = forged.impossible().join("; ");
    assert!(said.contains("its renewTime 20"), "{said}");
    assert!(
        said.contains("is 365 days ahead of this machine's clock"),
        "{said}"
    );
    assert!(!said.contains("its acquireTime"), "said once: {said}");
    assert!(
        said.contains("leaseDurationSeconds 1900000000 is more than the 3600"),
        "{said}"
    );
    assert!(!forged.expired(), "not expired by the clock");
    assert_eq!(forged.watch_period(own), own);
    let expiry = forged.expiry_words();
    assert!(
        expiry.starts_with("by its own fields it expires at 20"),
        "{expiry}"
    );
    assert!(expiry.contains(" days) unless renewed"), "{expiry}");
    // Only the duration, or only the time: each alone is named.
    assert_eq!(claimed(0, 86_400).impossible().len(), 1);
    let ahead = claimed(3600, 30);
    assert_eq!(ahead.impossible().len(), 1, "{:?}", ahead.impossible());
    assert_eq!(ahead.watch_period(own), Duration::from_secs(30));
    assert!(ahead
        .renewed_words()
        .unwrap()
        .contains("ahead of this machine's clock"));
    // Within the clock skew, and at most the longest duration: believed.
    for plausible in [claimed(200, 30), claimed(-5, 3600), claimed(-5, 1)] {
        assert!(
            plausible.impossible().is_empty(),
            "{:?}",
            plausible.impossible()
        );
    }
    assert_eq!(claimed(-5, 3600).watch_period(own), MAX_LEASE_DURATION);
    // Past the year 9999: said, not a panic.
    let mut far = claimed(0, i32::MAX).lease;
    far.spec.as_mut().unwrap().renew_time =
        Some(MicroTime("9999-12-30T00:00:00Z".parse().unwrap()));
    assert!(Seen::of(far).expiry_words().contains("never expires"));
    assert!(claimed(-100, 30).expiry_words().contains("expired at"));
}

#[test]
fn a_holder_is_one_short_line_of_data() {
    let mut hostile = seen(5, 30, Some("x"));
    hostile.holder.user = "eve\n\u{1b}[8mhidden\u{202e}".into();
    hostile.holder.host = "h".repeat(5000);
    let text = hostile.describe();
    assert!(!text.contains('\n') && !text.contains('\u{1b}') && !text.contains('\u{202e}'));
    assert!(text.contains("eve\\n\\e[8mhidden\\u{202e}@"), "{text}");
    assert!(text.contains("… (5000 characters)"), "{text}");
    assert!(text.len() < 300, "{text}");
}

#[test]
fn the_lease_duration_can_be_set_for_tests_and_ignores_nonsense() {
    crate::env::with_vars(&[(LEASE_SECONDS_VAR, Some("4"))], || {
        assert_eq!(lease_duration(), Duration::from_secs(4));
    });
    crate::env::with_vars(&[(LEASE_SECONDS_VAR, Some("0"))], || {
        assert_eq!(lease_duration(), LEASE_DURATION);
    });
    crate::env::with_vars(&[(LEASE_SECONDS_VAR, Some("3601"))], || {
        assert_eq!(lease_duration(), LEASE_DURATION);
    });
    crate::env::with_vars(&[(LEASE_SECONDS_VAR, Some("soon"))], || {
        assert_eq!(lease_duration(), LEASE_DURATION);
    });
}
