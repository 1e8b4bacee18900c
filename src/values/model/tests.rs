//! Unit tests of the model's shape checks: quantities, names, and a
//! secret's redacted debug form.

use super::*;

#[test]
fn quantities() {
    for ok in [
        "500m",
        "1",
        "0.5",
        "2Gi",
        "1e3",
        "128974848",
        "129M",
        "123Mi",
        ".5",
    ] {
        assert!(is_quantity(ok), "{ok}");
    }
    for bad in [
        "", "1GB", "abc", "1.2.3", "Gi", "-1", "1 Gi", "5mb", "1e400",
    ] {
        assert!(!is_quantity(bad), "{bad}");
    }
    assert_eq!(quantity_value("1Gi"), Some(1073741824.0));
    assert_eq!(quantity_value("500m"), Some(0.5));
}

#[test]
fn names() {
    assert!(is_dns_label("codefresh-1"));
    assert!(!is_dns_label("Codefresh"));
    assert!(!is_dns_label("-a"));
    assert!(!is_dns_label(&"a".repeat(64)));
    assert!(check_qualified_name("kubernetes.io/arch").is_ok());
    assert!(check_qualified_name("node-type").is_ok());
    assert!(check_qualified_name("bad key").is_err());
    assert!(check_qualified_name("/x").is_err());
    assert!(check_label_value("").is_ok());
    assert!(check_label_value("us-east-1a").is_ok());
    assert!(check_label_value("a/b").is_err());
}

#[test]
fn secret_debug_is_redacted() {
    assert_eq!(format!("{:?}", Secret::new("hunter2")), "<redacted>");
}
