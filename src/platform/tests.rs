//! Unit tests of the platform client's pure parts: path segments, token
//! scrubbing, agent decoding, not-found, scopes, the active account.

use super::*;

#[test]
fn path_segments_are_encoded() {
    assert_eq!(segment("ctx/ns"), "ctx%2Fns");
    assert_eq!(segment("a b@c"), "a%20b%40c");
    assert_eq!(segment("Runner/CF_Runner_Demo"), "Runner%2FCF_Runner_Demo");
}

#[test]
fn an_echoed_token_is_scrubbed() {
    let body = br#"{"message":"bad key abcdef123456"}"#;
    assert_eq!(message_of(body, "abcdef123456"), "bad key <redacted>");
}

#[test]
fn an_agent_with_both_id_and_underscore_id_decodes_to_id() {
    let both: Agent =
        serde_json::from_str(r#"{"id":"a1","_id":"m1","name":"n","extra":{"x":1}}"#).unwrap();
    assert_eq!(both.id, "a1");
    let mongo: Agent = serde_json::from_str(r#"{"_id":"m1","name":"n"}"#).unwrap();
    assert_eq!(mongo.id, "m1");
    assert!(serde_json::from_str::<Agent>(r#"{"name":"n"}"#).is_err());
}

#[test]
fn not_found_is_a_404_or_a_message_saying_so() {
    let status = |status, message: &str| PlatformError::Status {
        call: "GET /api/projects/name/Runner".into(),
        status,
        message: message.into(),
    };
    assert!(is_not_found(&status(404, "")));
    assert!(is_not_found(&status(400, "Project Runner Not Found")));
    assert!(!is_not_found(&status(400, "bad request")));
}

#[test]
fn scopes_are_listed_in_words() {
    assert_eq!(
        Need::describe(&[Need::Agents, Need::RuntimeEnvironments, Need::Clusters]),
        "Agent, Agents, Runner-Installation and Cluster"
    );
    assert_eq!(Need::describe(&[Need::Clusters]), "Cluster");
}

#[test]
fn the_active_account_is_picked() {
    let user: User = serde_json::from_str(
            r#"{"userName":"u","activeAccountName":"b","account":[{"_id":"1","name":"a"},{"_id":"2","name":"b"}]}"#,
        )
        .unwrap();
    assert_eq!(user.account_id().as_deref(), Some("2"));
}
