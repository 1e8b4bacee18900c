//! Unit tests of `app/identity/agent_token.rs`.

use super::*;
use crate::app::identity::agent_token::pending::MAX_NAME;

#[test]
fn the_next_name_counts_up_from_the_current_one_and_fits() {
    assert_eq!(next_name("ctx_ns", 0), "ctx_ns-r2");
    assert_eq!(next_name("ctx_ns-r2", 0), "ctx_ns-r3");
    assert_eq!(next_name("ctx_ns-r9", 1), "ctx_ns-r11");
    assert_eq!(next_name("my-runner", 0), "my-runner-r2");
    assert_eq!(next_name("a-rx", 0), "a-rx-r2");
    let long = "n".repeat(MAX_NAME);
    let next = next_name(&long, 0);
    assert_eq!(next.len(), MAX_NAME);
    assert!(next.ends_with("-r2"));
    let pending = Pending {
        from: "a".into(),
        from_id: "1".into(),
        to: "a-r2".into(),
    };
    let text = serde_json::to_string(&pending).unwrap();
    assert_eq!(serde_json::from_str::<Pending>(&text).unwrap(), pending);
}
