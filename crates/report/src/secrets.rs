//! Secrets out of what is stored and shown (issue 52): a report keeps the command line it was
//! made by, and that line can name a PostgreSQL store or server with its password. Every
//! report takes its command line from [`command_line`], and every report read back (from a
//! store or a file) passes [`scrub_value`], so one stored before this existed is cleaned too.
//!
//! What is taken out, wherever it stands in a string:
//! - the password of a URL's user information (`scheme://user:secret@host`), to the last `@`
//!   before the query, so an unencoded `@` or `/` in the password hides all of it;
//! - `password=` and `sslpassword=` parameters of a URL's query;
//! - `password = value` pairs of a libpq keyword/value string (bare or single-quoted, `\`
//!   escapes, blanks around `=`) and `PGPASSWORD=value`: the whole pair.

use std::borrow::Cow;

/// The process's command line with every secret taken out.
pub fn command_line() -> Vec<String> {
    std::env::args().map(|a| scrub_arg(&a)).collect()
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
    let lower = s.to_ascii_lowercase();
    if !s.contains("://") && !lower.contains("password") {
        return Cow::Borrowed(s);
    }
    let t = scrub_urls(s);
    Cow::Owned(scrub_pairs(&t))
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
/// `&` in a password hides more, never less: the user name ends at the first of `:@/?`, a
/// password after `:` runs to the last `@` before any `password=` parameter, and a `:` with
/// no `@` after it shows only if a port (digits) follows.
pub fn masked_uri(rest: &str) -> String {
    let user_end = rest.find([':', '@', '/', '?']).unwrap_or(rest.len());
    let (user, after) = rest.split_at(user_end);
    let tail = match after.chars().next() {
        Some(':') => {
            let limit = secret_param(after).unwrap_or(after.len());
            match after[..limit].rfind('@') {
                Some(at) => format!("{user}{}", &after[at..]),
                None if is_port(&after[1..]) => rest.to_string(),
                None => return format!("{user}:..."),
            }
        }
        _ => rest.to_string(),
    };
    match tail.split_once('?') {
        Some((base, q)) => {
            let kept: Vec<&str> = q
                .split('&')
                .take_while(|kv| {
                    !kv.split('=')
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase()
                        .contains("password")
                })
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

/// Where the first query parameter whose name holds "password" starts, if any.
fn secret_param(s: &str) -> Option<usize> {
    let lower = s.to_ascii_lowercase();
    ["?", "&"]
        .iter()
        .filter_map(|sep| {
            let mut from = 0;
            while let Some(i) = lower[from..].find(sep) {
                let at = from + i;
                let (key, _) = lower[at + 1..].split_once('=').unwrap_or(("", ""));
                let word = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if word && key.contains("password") {
                    return Some(at);
                }
                from = at + 1;
            }
            None
        })
        .min()
}

/// Whether a host's `:` is followed by a port: digits up to the path, query or next host.
fn is_port(s: &str) -> bool {
    let p = &s[..s.find(['/', '?', ',']).unwrap_or(s.len())];
    !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())
}

/// Removes every `...password = value` pair (the word the key ends in, the blanks, the value).
fn scrub_pairs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let lower = s.to_ascii_lowercase();
    while let Some(off) = lower[i..].find("password") {
        let at = i + off;
        let after = at + "password".len();
        let Some(value_at) = after_equals(s, after) else {
            out.push_str(&s[i..after]);
            i = after;
            continue;
        };
        // The whole key: back over the word's letters (sslpassword, PGPASSWORD).
        let start = s[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |p| p + 1);
        out.push_str(s[i..start].trim_end_matches([' ', '\t']));
        i = value_end(s, value_at);
    }
    out.push_str(&s[i..]);
    out
}

/// Where the value starts when `=` follows (blanks allowed around it), else `None`.
fn after_equals(s: &str, from: usize) -> Option<usize> {
    let t = s[from..].trim_start_matches([' ', '\t']);
    let t = t.strip_prefix('=')?;
    let v = t.trim_start_matches([' ', '\t']);
    Some(s.len() - v.len())
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
