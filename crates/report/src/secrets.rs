//! Secrets out of what is stored and shown (issues 52 and 63): a report keeps the command line
//! it was made by, and that line can name a PostgreSQL store or server with its password, or a
//! server's token. Every report takes its command line from [`command_line`], and every report
//! read back (from a store or a file) passes [`scrub_value`], so one stored before this existed
//! is cleaned too. The process's own argv is overwritten where [`secret_spans`] says.
//!
//! Which keys are secret is decided in one place, [`is_secret_key`]: a key is read as libpq
//! reads a URI's query key (percent-decoded: `pass%77ord` is `password`), case ignored. What is
//! taken out, wherever it stands in a string:
//! - the password of a URL's user information (`scheme://user:secret@host`), to the last `@`
//!   before the query, so an unencoded `@` or `/` in the password hides all of it;
//! - a URL's query from its first secret parameter on (an unencoded `&` in the secret would
//!   make its rest look like the next parameter);
//! - secret `key = value` pairs of a libpq keyword/value string (bare or single-quoted, `\`
//!   escapes, blanks around `=`) and `PGPASSWORD=value`: the whole pair;
//! - in a command line, the value of `--token`.

use std::borrow::Cow;
use std::ops::Range;

/// The options whose value is a secret (serve's and the witness's access token).
const SECRET_OPTIONS: &[&str] = &["--token"];

/// What stands for a secret option's value in a stored command line.
const HIDDEN: &str = "...";

/// Whether a connection-string key names a secret: every spelling libpq reads as `password`
/// or `sslpassword` (a URI's query keys are percent-decoded, in upper or lower hex), or as
/// libpq 18's `oauth_client_secret`, and `PGPASSWORD`. Decoded again while that changes it and
/// case ignored, so it errs towards removing: a key libpq would refuse may be taken out too.
pub fn is_secret_key(key: &str) -> bool {
    let k = decoded(key).to_ascii_lowercase();
    k.contains("password") || k.ends_with("client_secret")
}

/// `%XX` decoded, again and again while that changes the text (each round shortens it, so
/// this ends); a `%` without two hex digits after it stays as written.
fn decoded(s: &str) -> String {
    let mut cur = Cow::Borrowed(s);
    while cur.contains('%') {
        let next = decode_once(&cur);
        if next == *cur {
            break;
        }
        cur = Cow::Owned(next);
    }
    cur.into_owned()
}

fn decode_once(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |h: &[u8]| {
        let ok = h.len() == 2 && h.iter().all(u8::is_ascii_hexdigit);
        ok.then(|| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
            .flatten()
    };
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1..(i + 3).min(b.len())).and_then(hex)) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The process's command line with every secret taken out.
pub fn command_line() -> Vec<String> {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    scrub_command_line(&args)
}

/// A command line with every secret taken out: each argument scrubbed as one unit, and the
/// value of a secret option (`--token T`, `--token=T`) replaced by `...`.
pub fn scrub_command_line(args: &[String]) -> Vec<String> {
    args.iter()
        .enumerate()
        .map(|(i, a)| match option_value(args, i) {
            Some(0) => HIDDEN.to_string(),
            Some(at) => format!("{}{HIDDEN}", &a[..at]),
            None => scrub_arg(a),
        })
        .collect()
}

/// Where the value of a secret option starts in argument `i`: 0 when the whole argument is
/// one (it follows `--token`), past the `=` of `--token=T`.
fn option_value(args: &[String], i: usize) -> Option<usize> {
    let a = &args[i];
    if i > 0 && SECRET_OPTIONS.contains(&args[i - 1].as_str()) {
        return Some(0);
    }
    SECRET_OPTIONS
        .iter()
        .find(|o| a.strip_prefix(**o).is_some_and(|r| r.starts_with('=')))
        .map(|o| o.len() + 1)
}

/// What a command line holds that is secret, argument by argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The argument's index.
    pub arg: usize,
    /// The byte ranges of the argument that are secret.
    pub spans: Vec<Range<usize>>,
    /// A secret option's value (a token) rather than a connection string's password.
    pub token: bool,
}

/// Every secret of a command line, as [`scrub_command_line`] reads it.
pub fn in_command_line(args: &[String]) -> Vec<Found> {
    (0..args.len())
        .filter_map(|i| {
            let (spans, token) = match option_value(args, i) {
                Some(at) => (std::iter::once(at..args[i].len()).collect(), true),
                None => (secret_spans(&args[i]), false),
            };
            let spans: Vec<_> = spans.into_iter().filter(|r| !r.is_empty()).collect();
            (!spans.is_empty()).then_some(Found {
                arg: i,
                spans,
                token,
            })
        })
        .collect()
}

/// Where one argument holds a secret, as byte ranges: a URL's password, a URL's query from
/// its first secret parameter's value on, a secret pair's value (what [`scrub_arg`] takes
/// out, less the keys). Overwriting these bytes keeps the argument's length and shape.
pub fn secret_spans(a: &str) -> Vec<Range<usize>> {
    let Some(i) = a.find("://") else {
        return pair_values(a);
    };
    let mut v = pair_values(&a[..i]);
    let shift = |r: Range<usize>| r.start + i + 3..r.end + i + 3;
    v.extend(uri_spans(&a[i + 3..]).into_iter().map(shift));
    v
}

/// The argument with its secret bytes overwritten by `x`: what the process's argv shows.
pub fn blanked(a: &str) -> String {
    let mut b = a.as_bytes().to_vec();
    for r in secret_spans(a) {
        b[r].fill(b'x');
    }
    // Every span starts and ends at an ASCII byte or the end, and ASCII replaces all of it.
    String::from_utf8(b).unwrap_or_else(|_| "x".repeat(a.len()))
}

/// One argument with its secrets taken out. An argument is one unit: a URL in it runs to its
/// end, blanks included (a shell-quoted password may hold one).
pub fn scrub_arg(a: &str) -> String {
    match a.split_once("://") {
        Some((before, url)) => {
            format!("{}://{}", scrub_pairs(before), masked_uri(url))
        }
        None => scrub(a).into_owned(),
    }
}

/// Every string of a JSON value, scrubbed in place.
pub fn scrub_value(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            if let Cow::Owned(t) = scrub(s) {
                *s = t;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(scrub_value),
        Value::Object(o) => o.values_mut().for_each(scrub_value),
        _ => {}
    }
}

/// `s` with its secrets taken out (borrowed when it holds none).
pub fn scrub(s: &str) -> Cow<'_, str> {
    // A secret is a URL's or a pair's: without `://` or `=` there is none.
    if !s.contains("://") && !s.contains('=') {
        return Cow::Borrowed(s);
    }
    let t = scrub_urls(s);
    let out = scrub_pairs(&t);
    if out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out)
    }
}

/// Characters that end a URL inside a longer text: blanks only (a quote may be part of an
/// unencoded password, and cutting there would show its rest).
fn ends_url(c: char) -> bool {
    c.is_whitespace()
}

fn scrub_urls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let after = &rest[i + 3..];
        let end = url_end(after);
        out.push_str(&rest[..i + 3]);
        out.push_str(&masked_uri(&after[..end]));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Where a URL that starts `after` its `://` ends in a longer text: at the next blank, or,
/// when it has a password (`user:`) whose `@` is not before that blank (a blank in the
/// password), at the blank after the text's last `@`.
fn url_end(after: &str) -> usize {
    let blank = |s: &str| s.find(ends_url).unwrap_or(s.len());
    let end = blank(after);
    let token = &after[..end];
    let has_password =
        token[token.find([':', '@', '/', '?']).unwrap_or(token.len())..].starts_with(':');
    match after.rfind('@') {
        Some(at) if has_password && !token.contains('@') => at + blank(&after[at..]),
        _ => end,
    }
}

/// A URL's part after `://` less its password: the password of the user information, and the
/// query from its first secret parameter on. Read so that an unencoded `@`, `/`, `?`, `:` or
/// `&` in a password hides more, never less (see [`password_span`]).
pub fn masked_uri(rest: &str) -> String {
    let tail = match password_span(rest) {
        Some(r) if r.end == rest.len() => return format!("{}:...", &rest[..r.start - 1]),
        Some(r) => format!("{}{}", &rest[..r.start - 1], &rest[r.end..]),
        None => rest.to_string(),
    };
    match tail.split_once('?') {
        Some((base, q)) => {
            let kept: Vec<&str> = q
                .split('&')
                .take_while(|kv| !is_secret_key(kv.split('=').next().unwrap_or("")))
                .collect();
            if kept.is_empty() {
                base.to_string()
            } else {
                format!("{base}?{}", kept.join("&"))
            }
        }
        None => tail,
    }
}

/// Where the password of a URL's user information lies in `rest` (the part after `://`), if
/// it has one: the user name ends at the first of `:@/?`, a password after `:` runs to the
/// last `@` before any secret parameter, and a `:` with no `@` after it is a port only if
/// digits follow (else all after it is taken as the password: the range ends at the end).
fn password_span(rest: &str) -> Option<Range<usize>> {
    let user_end = rest.find([':', '@', '/', '?']).unwrap_or(rest.len());
    let after = &rest[user_end..];
    if !after.starts_with(':') {
        return None;
    }
    let limit = secret_param(after).unwrap_or(after.len());
    match after[..limit].rfind('@') {
        Some(at) => Some(user_end + 1..user_end + at),
        None if is_port(&after[1..]) => None,
        None => Some(user_end + 1..rest.len()),
    }
}

/// The secret ranges of a URL's part after `://`: its password, and its query from the value
/// of the first secret parameter to the end, as [`masked_uri`] reads them.
fn uri_spans(rest: &str) -> Vec<Range<usize>> {
    let pw = password_span(rest);
    let tail_from = pw.as_ref().map_or(0, |r| r.end);
    let mut spans: Vec<_> = pw.into_iter().collect();
    if let Some(q) = rest[tail_from..].find('?') {
        let mut at = tail_from + q + 1;
        for kv in rest[at..].split('&') {
            let key = kv.split('=').next().unwrap_or("");
            if is_secret_key(key) {
                spans.push((at + key.len() + 1).min(rest.len())..rest.len());
                break;
            }
            at += kv.len() + 1;
        }
    }
    spans
}

/// Where the first secret query parameter starts (its `?` or `&`), if any. Its key must be a
/// run of key characters, so that a `?` inside a password does not count.
fn secret_param(s: &str) -> Option<usize> {
    s.match_indices(['?', '&']).map(|(at, _)| at).find(|&at| {
        let key = s[at + 1..].split_once('=').map_or("", |(k, _)| k);
        !key.is_empty() && key.chars().all(is_key_char) && is_secret_key(key)
    })
}

/// Whether a host's `:` is followed by a port: digits up to the path, query or next host.
fn is_port(s: &str) -> bool {
    let p = &s[..s.find(['/', '?', ',']).unwrap_or(s.len())];
    !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())
}

/// The characters of a key as the scrub reads one: letters, digits, `_`, and `%` (so that a
/// percent-encoded spelling is one key).
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '%'
}

/// Each secret `key = value` pair of `s`: where its key starts, where its value starts, where
/// the value ends (in order, not overlapping).
fn secret_pairs(s: &str) -> Vec<[usize; 3]> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(off) = s[from..].find('=') {
        let eq = from + off;
        let key_end = s[..eq].trim_end_matches([' ', '\t']).len();
        let key_start = s[..key_end]
            .char_indices()
            .rev()
            .find(|&(_, c)| !is_key_char(c))
            .map_or(0, |(p, c)| p + c.len_utf8())
            .max(from.min(key_end));
        if key_start < key_end && is_secret_key(&s[key_start..key_end]) {
            let value_at = s.len() - s[eq + 1..].trim_start_matches([' ', '\t']).len();
            let end = value_end(s, value_at);
            found.push([key_start, value_at, end]);
            from = end;
        } else {
            from = eq + 1;
        }
    }
    found
}

/// Where the first secret of a keyword/value text could begin: its first secret pair's key,
/// or the word `password` where no `=` follows it (a text libpq refuses, shown only before it).
pub fn first_secret(s: &str) -> Option<usize> {
    let pair = secret_pairs(s).first().map(|p| p[0]);
    let word = s.to_ascii_lowercase().find("password");
    pair.into_iter().chain(word).min()
}

/// The values of the secret pairs of `s`.
fn pair_values(s: &str) -> Vec<Range<usize>> {
    secret_pairs(s).into_iter().map(|[_, v, e]| v..e).collect()
}

/// Removes every secret pair (the key, the blanks, the value). Where text follows the value
/// at once (after a closing quote), one blank keeps it apart from what stood before the key.
fn scrub_pairs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    for [key, _, end] in secret_pairs(s) {
        out.push_str(s[i..key].trim_end_matches([' ', '\t']));
        let glued = s[end..].chars().next().is_some_and(|c| !c.is_whitespace());
        if glued && !out.is_empty() {
            out.push(' ');
        }
        i = end;
    }
    out.push_str(&s[i..]);
    out
}

/// The end of a value starting at `from`: past its closing quote, or at the next blank (or
/// the end of the text for a quote never closed: all of it is secret).
fn value_end(s: &str, from: usize) -> usize {
    let mut it = s[from..].char_indices().peekable();
    let quoted = s[from..].starts_with('\'');
    if quoted {
        it.next();
    }
    while let Some((j, c)) = it.next() {
        match c {
            '\\' => {
                it.next();
            }
            '\'' if quoted => return from + j + 1,
            c if !quoted && c.is_whitespace() => return from + j,
            _ => {}
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_password_is_taken_out() {
        for (s, want) in [
            (
                "--store=postgresql://team:s3cret@db:5432/vb",
                "--store=postgresql://team@db:5432/vb",
            ),
            ("postgresql://u:p@s3cret@h/db", "postgresql://u@h/db"),
            (
                "postgresql://u:pa/s3cret@h/db?sslmode=require",
                "postgresql://u@h/db?sslmode=require",
            ),
            (
                "postgresql://u@h/db?password=s3cret&sslmode=disable",
                "postgresql://u@h/db",
            ),
            ("postgresql://u@h/db?PassWord=s3cret", "postgresql://u@h/db"),
            ("host=db password=s3cret dbname=vb", "host=db dbname=vb"),
            (
                "host=db password = 's3 \\' cret' dbname=vb",
                "host=db dbname=vb",
            ),
            ("host=db sslpassword=s3cret", "host=db"),
            ("PGPASSWORD=s3cret volbench run", " volbench run"),
            ("host=db password='s3cret never closed", "host=db"),
            (
                "saved in postgresql://u:s3cret@h/db (volbench show 1)",
                "saved in postgresql://u@h/db (volbench show 1)",
            ),
            (
                "password authentication failed for user team",
                "password authentication failed for user team",
            ),
            ("--rw=randread", "--rw=randread"),
            // Spelled as libpq also reads them (issue 63): percent-encoded, either case of hex.
            (
                "postgresql://u@h/db?pass%77ord=s3cret",
                "postgresql://u@h/db",
            ),
            (
                "postgresql://u@h/db?sslmode=require&%70%61%73%73%57%4F%52%64=s3cret",
                "postgresql://u@h/db?sslmode=require",
            ),
            (
                "postgresql://u@h/db?ssl%70assword=s3cret&x=1",
                "postgresql://u@h/db",
            ),
            (
                "postgresql://u@h/db?oauth_client_%73ecret=s3cret",
                "postgresql://u@h/db",
            ),
            (
                "postgresql://u:s3cret@h/db?pass%77ord=a@b",
                "postgresql://u@h/db",
            ),
            ("host=db pass%77ord=s3cret dbname=vb", "host=db dbname=vb"),
            ("host=db password='s3cret'dbname=vb", "host=db dbname=vb"),
            ("pass%2577ord=s3cret", ""),
            ("100%=full", "100%=full"),
            ("¡password=s3cret ¡=x", "¡ ¡=x"),
        ] {
            let got = scrub(s);
            assert_eq!(got, want, "{s}");
            assert!(!got.contains("s3"), "{s}: {got}");
        }
    }

    #[test]
    fn an_argument_is_one_unit() {
        assert_eq!(
            scrub_arg("--store=postgresql://u@h/db?x=1&password=s3 cret&y=2"),
            "--store=postgresql://u@h/db?x=1"
        );
        assert_eq!(
            scrub_arg("postgresql://u:s3 cret@h/db"),
            "postgresql://u@h/db"
        );
    }

    #[test]
    fn a_token_option_is_hidden_in_a_command_line() {
        let args: Vec<String> = ["volbench", "serve", "--token", "t0k3n", "--token=t0k3n"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            scrub_command_line(&args),
            ["volbench", "serve", "--token", "...", "--token=..."]
        );
        let found = in_command_line(&args);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|f| f.token));
        assert_eq!(found[1].spans, vec![std::ops::Range { start: 8, end: 13 }]);
    }

    #[test]
    fn secret_bytes_are_overwritten_in_place() {
        for (a, want) in [
            (
                "--store=postgresql://team:s3cret@h/vb",
                "--store=postgresql://team:xxxxxx@h/vb",
            ),
            (
                "postgresql://team@h/vb?sslmode=disable&pass%77ord=s3cret&x=1",
                "postgresql://team@h/vb?sslmode=disable&pass%77ord=xxxxxxxxxx",
            ),
            (
                "host=h password = 's3 cret' dbname=vb",
                "host=h password = xxxxxxxxx dbname=vb",
            ),
            ("postgresql://u:s3cret", "postgresql://u:xxxxxx"),
            ("postgresql://h:5432/vb", "postgresql://h:5432/vb"),
            ("--rw=randread", "--rw=randread"),
        ] {
            assert_eq!(blanked(a), want, "{a}");
        }
    }

    #[test]
    fn a_document_is_scrubbed_in_every_string() {
        let mut v = serde_json::json!({
            "command_line": ["volbench", "run", "--store", "postgresql://u:s3cret@h/db"],
            "nested": {"error": "host=h password=s3cret: refused"}
        });
        scrub_value(&mut v);
        assert!(!v.to_string().contains("s3cret"), "{v}");
        assert_eq!(v["command_line"][3], "postgresql://u@h/db");
    }
}
