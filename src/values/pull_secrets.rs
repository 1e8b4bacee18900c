//! `ImagePullSecrets`: the Secrets (type `kubernetes.io/dockerconfigjson`,
//! made by the user) that let pods pull from a registry mirror that needs
//! credentials. cf-runner only names them: it never writes, reads or
//! deletes them, so the registry's password stays out of its values, its
//! record and its output. Every component's pods list them, and so does
//! the engine's ServiceAccount, which Kubernetes copies onto each build's
//! engine and dind pod.

use serde_json::Value;

use super::model::reader::Reader;
use super::model::{is_dns_subdomain, OWN_SECRETS};
use super::Problem;

/// The values key.
pub const KEY: &str = "ImagePullSecrets";

/// The names, in the order given, each once. A name that cannot be a
/// Secret's, or that is one of cf-runner's own Secrets, is a problem.
pub(super) fn resolve(r: &mut Reader) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    // Neither a list nor one string: the shape check (`schema`) says so.
    let raw = r.raw_value(KEY).cloned();
    let items: Vec<Value> = match raw {
        Some(Value::Array(items)) => items,
        Some(Value::String(_)) => r.text_list(KEY).into_iter().map(Value::String).collect(),
        _ => Vec::new(),
    };
    for item in items {
        // The chart's form, `[{name: x}]`, is accepted beside plain names.
        let name = match &item {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Object(m) if m.len() == 1 => {
                m.get("name").and_then(Value::as_str).map(str::to_string)
            }
            _ => None,
        };
        match name {
            Some(n) if !is_dns_subdomain(&n) || n.is_empty() => r.problems.push(Problem::new(
                KEY,
                Some(&item),
                "is not a usable Secret name",
                "use lowercase letters, digits, `-` and `.` (the name of a Secret in the runner's namespace)",
            )),
            Some(n) if OWN_SECRETS.contains(&n.as_str()) => r.problems.push(Problem::new(
                KEY,
                Some(&item),
                "names a Secret cf-runner writes itself, not a registry credential",
                "create a docker-registry Secret of your own (kubectl create secret docker-registry NAME ...) and name it here",
            )),
            Some(n) => {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            None => r.problems.push(Problem::new(
                KEY,
                Some(&item),
                "is not a Secret name",
                "give each entry as a name, e.g. `- mirror-pull` (or `- name: mirror-pull`)",
            )),
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolved(values: Value) -> (Vec<String>, Vec<Problem>) {
        let mut r = Reader::new(&values);
        let names = resolve(&mut r);
        (names, r.problems)
    }

    #[test]
    fn names_and_the_charts_form_are_both_taken_once_each() {
        let (names, problems) = resolved(json!({KEY: ["mirror", {"name": "backup"}, "mirror"]}));
        assert_eq!(names, ["mirror", "backup"]);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn a_bad_name_and_an_own_secret_are_refused_naming_the_key() {
        let (names, problems) = resolved(json!({KEY: ["Mirror_Pull", "runner"]}));
        assert!(names.is_empty());
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems.iter().all(|p| p.key == KEY));
        assert!(problems[1].why.contains("cf-runner writes itself"));
    }
}
