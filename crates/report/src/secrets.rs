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
    std::env::args().map(|a| scrub(&a).into_owned()).collect()
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

/// Characters that end a URL inside a longer text.
fn ends_url(c: char) -> bool {
    c.is_whitespace() || c == '"' || c == '\'' || c == '<' || c == '>'
}

fn scrub_urls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let after = &rest[i + 3..];
        let end = after.find(ends_url).unwrap_or(after.len());
        out.push_str(&rest[..i + 3]);
        out.push_str(&masked_uri(&after[..end]));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// A URL's part after `://` less its password: user information (to the last '@' before the
/// query) and secret query parameters.
pub fn masked_uri(rest: &str) -> String {
    let (before, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let before = match before.rfind('@') {
        Some(at) => {
            let user = before[..at].split([':', '/']).next().unwrap_or("");
            format!("{user}{}", &before[at..])
        }
        None => before.to_string(),
    };
    let Some(q) = query else { return before };
    let kept: Vec<&str> = q
        .split('&')
        .filter(|kv| {
            let k = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
            !k.contains("password")
        })
        .collect();
    if kept.is_empty() {
        before
    } else {
        format!("{before}?{}", kept.join("&"))
    }
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
            c if !quoted && (c.is_whitespace() || c == '&' || c == '"') => return from + j,
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
                "postgresql://u@h/db?sslmode=disable",
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
