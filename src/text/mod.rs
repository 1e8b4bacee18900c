//! Text hygiene: what cf-runner may show of a text it did not write. A
//! leaf: it uses nothing of the crate, and `values`, `output`, `cluster`,
//! `platform` and the rest use it.
//!
//! - [`visible`] and [`one_line`]: terminal controls (C0, DEL, C1, escape
//!   sequences colours included, Unicode bidi controls) shown escaped, so a
//!   key, a file name or a server's message can neither drive the terminal,
//!   hide or reorder text, nor start a fake line of its own; `output` sends
//!   every line through them before it adds cf-runner's own colours;
//! - masking ([`masked`], [`masked_value`], [`masked_printout`] …): URL
//!   credentials and credential-named fields replaced by [`REDACTED`], the
//!   one marker for a hidden value;
//! - error chains ([`causes`], [`chain_text`], [`root_cause`]): what a chain
//!   of errors says, each thing once;
//! - times ([`Civil`], [`parse_rfc3339`]): a Unix time's UTC date, and an
//!   RFC 3339 text's Unix time.
//!
//! Which keys of the values are secret is `values::secrets`'s business; how
//! a secret is hidden in a text is this module's. Pure: no I/O.

mod errors;
mod line;
mod mask;
mod time;

pub use errors::{causes, chain_text, new_root_cause, root_cause};
pub use line::{is_bidi_control, is_terminal_control, json_escaped, one_line, shell_word, visible};
pub use mask::{
    has_url_credentials, is_credential_name, mask_credential_fields, mask_text, mask_value, masked,
    masked_printout, masked_value, REDACTED,
};
pub use time::{parse_rfc3339, Civil};

#[cfg(test)]
pub(crate) use errors::tests::chain;
