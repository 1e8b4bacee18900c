//! The process environment, read through one door: everything in cf-runner
//! that reads a variable reads it here, so a test can run a command in
//! process with the variables it should see (`with_vars`) without touching
//! the real environment, which other tests share.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;

thread_local! {
    static SET: RefCell<Option<HashMap<String, Option<OsString>>>> = const { RefCell::new(None) };
}

/// A variable, as [`std::env::var_os`] gives it, unless [`with_vars`] set it
/// on this thread.
pub fn var_os(name: &str) -> Option<OsString> {
    let set = SET.with(|s| s.borrow().as_ref().and_then(|m| m.get(name).cloned()));
    match set {
        Some(value) => value,
        None => std::env::var_os(name),
    }
}

/// A variable as text; `None` when it is unset or not UTF-8.
pub fn var(name: &str) -> Option<String> {
    var_os(name).and_then(|v| v.into_string().ok())
}

/// The home folder, where `~/.kube/config` and `~/.cfconfig` are: `$HOME`
/// when set (through [`var_os`]); on Windows, where `HOME` is usually
/// unset, `%USERPROFILE%` next, as kubectl and docker look there; else the
/// system's record of the user.
pub fn home() -> Option<std::path::PathBuf> {
    home_from(var_os, cfg!(windows))
        .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
}

/// The home folder the variables give (`get` reads one), by Windows' rule
/// when `windows`; a separate function so both rules are tested anywhere.
fn home_from(get: impl Fn(&str) -> Option<OsString>, windows: bool) -> Option<std::path::PathBuf> {
    let set = |name: &str| get(name).filter(|v| !v.is_empty()).map(Into::into);
    let profile = || windows.then(|| set("USERPROFILE")).flatten();
    set("HOME").or_else(profile)
}

/// Runs `f` with `vars` (`None`: unset) in place of the real ones, for reads
/// on this thread; the command's own thread is the one that reads them.
pub fn with_vars<T>(vars: &[(&str, Option<&str>)], f: impl FnOnce() -> T) -> T {
    let map = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.map(OsString::from)))
        .collect();
    let outer = SET.with(|s| s.replace(Some(map)));
    let result = f();
    SET.with(|s| s.replace(outer));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_variable_is_seen_on_this_thread_only_and_then_restored() {
        let name = "CF_RUNNER_ENV_SEAM_TEST";
        assert_eq!(var(name), None);
        with_vars(&[(name, Some("inside")), ("HOME", None)], || {
            assert_eq!(var(name).as_deref(), Some("inside"));
            assert_eq!(var_os("HOME"), None);
            with_vars(&[("HOME", Some("/nowhere/me"))], || {
                assert_eq!(home(), Some("/nowhere/me".into()));
            });
            let other = std::thread::spawn(move || var(name)).join().unwrap();
            assert_eq!(other, None);
        });
        assert_eq!(var(name), None);
    }

    /// On Windows, where `HOME` is usually unset, `~/.kube/config` and
    /// `~/.cfconfig` are under `%USERPROFILE%`; `HOME` still wins when set
    /// (kubectl reads it first there too). Elsewhere `USERPROFILE` means
    /// nothing.
    #[test]
    fn windows_finds_the_home_folder_in_userprofile() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let profile_only = vars(&[("USERPROFILE", r"C:\Users\me")]);
        assert_eq!(home_from(profile_only, true), Some(r"C:\Users\me".into()));
        assert_eq!(home_from(profile_only, false), None);
        let both = vars(&[("HOME", r"D:\home"), ("USERPROFILE", r"C:\Users\me")]);
        assert_eq!(home_from(both, true), Some(r"D:\home".into()));
        let empty_home = vars(&[("HOME", ""), ("USERPROFILE", r"C:\Users\me")]);
        assert_eq!(home_from(empty_home, true), Some(r"C:\Users\me".into()));
    }
}
