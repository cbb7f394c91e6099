//! A PostgreSQL connection string read as libpq reads it, so that what volbench connects to
//! is what `psql` would connect to, and so that a password can be taken out of it in every
//! form libpq accepts before the string is shown or stored.
//!
//! Two forms (libpq's "Connection Strings"):
//! - a URI, `postgresql://` or `postgres://` (the scheme as written: libpq is case-sensitive),
//!   `[user[:password]@][host[:port][,...]][/dbname][?key=value&...]`, every part
//!   percent-decoded, hosts in brackets for IPv6 or percent-encoded socket directories;
//! - keyword/value pairs, `key = value` with blanks allowed around `=`, values single-quoted
//!   (`\'` and `\\` escape) or bare (a backslash escapes the next character).
//!
//! Anything else is refused in one line that never repeats the password: an unknown keyword, a
//! mistyped scheme, an `@` or `/` in a password that was not percent-encoded.

/// libpq 16's keywords that volbench's client takes (the `postgres` crate, or volbench as
/// libpq does: sslmode, sslrootcert, passfile). With [`UNSUPPORTED`], every keyword libpq knows.
const SUPPORTED: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "channel_binding",
    "connect_timeout",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "tcp_user_timeout",
    "sslmode",
    "sslrootcert",
    "target_session_attrs",
    "load_balance_hosts",
];

/// Whether a keyword's value is a secret, never shown nor stored: report's one rule, which
/// also knows the keyword in every spelling libpq decodes to it.
fn secret(k: &str) -> bool {
    report::secrets::is_secret_key(k)
}

/// libpq's keywords that volbench's client would ignore: refused by name rather than silently
/// dropped.
const UNSUPPORTED: &[&str] = &[
    "client_encoding",
    "keepalives_count",
    "replication",
    "gssencmode",
    "requiressl",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "krbsrvname",
    "gsslib",
    "gssdelegation",
    "service",
    "require_auth",
    "sslnegotiation",
    "sslcertmode",
];

/// A parsed connection string: its keyword/value pairs, values decoded, in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnInfo {
    pub params: Vec<(String, String)>,
}

/// Whether libpq knows the keyword.
fn known(k: &str) -> bool {
    SUPPORTED.contains(&k) || UNSUPPORTED.contains(&k)
}

/// The schemes libpq reads as a URI.
pub const SCHEMES: [&str; 2] = ["postgresql://", "postgres://"];

/// Whether `s` starts the way a URI does (`word://`), whatever the word.
pub fn scheme_of(s: &str) -> Option<&str> {
    let (scheme, _) = s.split_once("://")?;
    let ok = scheme.chars().next()?.is_ascii_alphabetic()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    ok.then_some(scheme)
}

/// Whether `s` reads as keyword/value pairs: it starts with a libpq keyword and `=`.
pub fn is_keyvalue(s: &str) -> bool {
    let s = s.trim_start();
    let word: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    known(&word) && s[word.len()..].trim_start().starts_with('=')
}

impl ConnInfo {
    /// Reads either form. The error names the fault and the fix, never the password.
    pub fn parse(s: &str) -> Result<ConnInfo, String> {
        let c = match SCHEMES.iter().find_map(|p| s.strip_prefix(p)) {
            Some(rest) => uri(rest)?,
            None if scheme_of(s).is_some() => return Err(bad_scheme(s)),
            None => keyvalue(s)?,
        };
        for (i, (k, _)) in c.params.iter().enumerate() {
            if !known(k) {
                // A word right after a secret may be the rest of it (a blank not quoted).
                let after_secret = i > 0 && secret(&c.params[i - 1].0);
                let what = if after_secret {
                    "a word after the password".to_string()
                } else {
                    format!("'{}'", k.chars().take(40).collect::<String>())
                };
                return Err(format!(
                    "{what} is not a PostgreSQL connection keyword: quote a value that holds blanks ('...'), and see libpq's list of keywords (host, port, dbname, user, sslmode, ...)"
                ));
            }
        }
        Ok(c)
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.params
            .iter()
            .rev()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }

    /// Keywords libpq knows that volbench's client would ignore: refused by name.
    pub fn unsupported(&self) -> Option<&str> {
        self.params
            .iter()
            .map(|(k, _)| k.as_str())
            .find(|k| UNSUPPORTED.contains(k))
    }

    /// The pairs as one keyword/value string, quoted where a value needs it: what the client
    /// parses, and (less the secrets) what messages show.
    pub fn to_keyvalue(&self, keep: impl Fn(&str) -> bool) -> String {
        let quote = |v: &str| {
            let plain = !v.is_empty()
                && !v
                    .chars()
                    .any(|c| c.is_whitespace() || c == '\'' || c == '\\');
            if plain {
                v.to_string()
            } else {
                format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
            }
        };
        self.params
            .iter()
            .filter(|(k, _)| keep(k))
            .map(|(k, v)| format!("{k}={}", quote(v)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The string as messages show it: keyword/value pairs less the secrets.
    pub fn shown(&self) -> String {
        self.to_keyvalue(|k| !secret(k))
    }

    /// Whether a secret is among the pairs.
    pub fn has_secret(&self) -> bool {
        self.params.iter().any(|(k, _)| secret(k))
    }
}

fn bad_scheme(s: &str) -> String {
    let scheme = scheme_of(s).unwrap_or_default();
    let lower = scheme.to_ascii_lowercase();
    let hint = if lower.starts_with("postg") || lower.starts_with("psql") || lower == "pg" {
        " (did you mean postgresql://?)"
    } else {
        ""
    };
    format!(
        "'{scheme}://' is not a store volbench reads{hint}: write postgresql://USER@HOST:PORT/DB for PostgreSQL, or a file path for SQLite"
    )
}

/// libpq's percent-decoding: `%XX` only (two hex digits, either case), anything else after
/// `%` is an error, and so is `%00` (libpq refuses a NUL).
fn decode(s: &str, what: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok());
            let v = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| {
                format!("the {what} holds a '%' that is not followed by two hex digits: write '%' as %25")
            })?;
            if v == 0 {
                return Err(format!(
                    "the {what} holds %00: libpq refuses a NUL in a connection string"
                ));
            }
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("the {what} decodes to bytes that are not UTF-8"))
}

/// The part of a URI after its scheme.
fn uri(rest: &str) -> Result<ConnInfo, String> {
    if rest.contains(char::is_whitespace) {
        return Err("the URL holds a blank: percent-encode it as %20".into());
    }
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut c = ConnInfo::default();
    let mut push = |k: &str, v: String| c.params.push((k.to_string(), v));
    // libpq: user information ends at the first '@' before any '/'.
    let auth_end = before_query.find('/').unwrap_or(before_query.len());
    let (auth, path) = before_query.split_at(auth_end);
    let hosts = match auth.split_once('@') {
        Some((userinfo, hosts)) => {
            if hosts.contains('@') {
                return Err("the URL has more than one '@' before its host: percent-encode an '@' in the user or password as %40".into());
            }
            let (user, pass) = match userinfo.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (userinfo, None),
            };
            if !user.is_empty() {
                push("user", decode(user, "user name")?);
            }
            if let Some(p) = pass {
                push("password", decode(p, "password")?);
            }
            hosts
        }
        None => auth,
    };
    if path.contains('@') {
        return Err("the URL has an '@' after a '/': percent-encode a '/' in the password as %2F and an '@' as %40".into());
    }
    for (k, v) in host_list(hosts)? {
        push(k, v);
    }
    let db = path.strip_prefix('/').unwrap_or(path);
    if !db.is_empty() {
        push("dbname", decode(db, "database name")?);
    }
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        // Not echoed: it may be the rest of a password holding an unencoded '&'.
        let (k, v) = kv.split_once('=').ok_or(
            "a parameter of the URL's query has no '=': write key=value, and percent-encode '&' in a password as %26",
        )?;
        let k = decode(k, "parameter name")?;
        let v = decode(v, &format!("value of {k}"))?;
        // libpq's own alias: ssl=true is sslmode=require.
        match (k.as_str(), v.as_str()) {
            ("ssl", "true") => push("sslmode", "require".into()),
            _ => push(&k, v),
        }
    }
    Ok(c)
}

/// `host[:port],...` of a URI as host and port pairs (comma lists, as libpq takes several).
fn host_list(s: &str) -> Result<Vec<(&'static str, String)>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let (mut hosts, mut ports) = (Vec::new(), Vec::new());
    for one in s.split(',') {
        let (h, p) = match one.strip_prefix('[') {
            Some(v6) => {
                let (h, after) = v6
                    .split_once(']')
                    .ok_or("an IPv6 host in the URL lacks its closing ']'")?;
                (h, after.strip_prefix(':'))
            }
            None => match one.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (one, None),
            },
        };
        hosts.push(decode(h, "host")?);
        let port = p.unwrap_or("");
        if !port.chars().all(|c| c.is_ascii_digit()) {
            // Not echoed: without an '@' it may be a password (user:password/...).
            return Err(
                "the URL's port is not a number: write USER:PASSWORD@HOST:PORT, percent-encoding '/' in a password as %2F".into(),
            );
        }
        ports.push(port.to_string());
    }
    let mut out = vec![("host", hosts.join(","))];
    if ports.iter().any(|p| !p.is_empty()) {
        out.push(("port", ports.join(",")));
    }
    Ok(out)
}

/// Keyword/value pairs as libpq reads them.
fn keyvalue(s: &str) -> Result<ConnInfo, String> {
    let mut c = ConnInfo::default();
    let mut it = s.chars().peekable();
    let skip = |it: &mut std::iter::Peekable<std::str::Chars>| {
        while it.peek().is_some_and(|c| c.is_whitespace()) {
            it.next();
        }
    };
    loop {
        skip(&mut it);
        if it.peek().is_none() {
            return Ok(c);
        }
        let mut key = String::new();
        while let Some(&ch) = it.peek() {
            if ch == '=' || ch.is_whitespace() {
                break;
            }
            key.push(ch);
            it.next();
        }
        skip(&mut it);
        if it.next() != Some('=') {
            // The word is not echoed: after a password it may be the password's rest.
            let after = c
                .params
                .last()
                .map_or("the start".to_string(), |(k, _)| format!("{k}=..."));
            return Err(format!(
                "a word after {after} has no '=': write key=value pairs (host=... dbname=...), quoting a value with blanks ('...')"
            ));
        }
        skip(&mut it);
        let value = value(&mut it).map_err(|m| format!("the value of {key} {m}"))?;
        c.params.push((key, value));
    }
}

/// One value: quoted (to the closing quote) or bare (to the next blank); `\` escapes.
fn value(it: &mut std::iter::Peekable<std::str::Chars>) -> Result<String, String> {
    let mut v = String::new();
    if it.peek() == Some(&'\'') {
        it.next();
        loop {
            match it.next() {
                Some('\\') => v.extend(it.next()),
                Some('\'') => return Ok(v),
                Some(ch) => v.push(ch),
                None => return Err("has no closing quote: end it with '".into()),
            }
        }
    }
    while let Some(&ch) = it.peek() {
        if ch.is_whitespace() {
            break;
        }
        it.next();
        if ch == '\\' {
            v.extend(it.next());
        } else {
            v.push(ch);
        }
    }
    Ok(v)
}

/// The string with its secrets taken out, for messages, marks and stored reports. A
/// keyword/value string that parses is shown as its pairs less the secrets; anything else
/// (a URL, a string that does not parse) passes the one textual scrub every report passes.
pub fn masked(s: &str) -> String {
    if let Some((scheme, rest)) = s.split_once("://").filter(|_| scheme_of(s).is_some()) {
        return format!("{scheme}://{}", report::secrets::masked_uri(rest));
    }
    match ConnInfo::parse(s) {
        Ok(c) => c.shown(),
        // One that does not parse may hold a password libpq would read differently (a blank
        // in it, unquoted): shown only up to where a secret could begin.
        _ => match report::secrets::first_secret(s) {
            Some(i) => format!("{}...", s[..i].trim_end()),
            None => s.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(s: &str) -> Vec<(String, String)> {
        ConnInfo::parse(s).unwrap().params
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn uris_decode_as_libpq_decodes_them() {
        assert_eq!(
            kv("postgresql://te%40m:p%40ss%2Fw@db.example:5433/v%20b?sslmode=require&ssl=true"),
            pairs(&[
                ("user", "te@m"),
                ("password", "p@ss/w"),
                ("host", "db.example"),
                ("port", "5433"),
                ("dbname", "v b"),
                ("sslmode", "require"),
                ("sslmode", "require"),
            ])
        );
        assert_eq!(
            kv("postgres://[::1]:5432,h2/vb"),
            pairs(&[("host", "::1,h2"), ("port", "5432,"), ("dbname", "vb")])
        );
        assert_eq!(
            kv("postgresql://%2Fvar%2Frun%2Fpostgresql/vb"),
            pairs(&[("host", "/var/run/postgresql"), ("dbname", "vb")])
        );
        assert_eq!(kv("postgresql:///vb"), pairs(&[("dbname", "vb")]));
    }

    #[test]
    fn keyvalue_strings_take_quotes_escapes_and_blanks_around_equals() {
        assert_eq!(
            kv("host = db  password='it\\'s x' dbname=v\\ b"),
            pairs(&[("host", "db"), ("password", "it's x"), ("dbname", "v b")])
        );
    }

    #[test]
    fn what_libpq_refuses_is_refused_without_the_password() {
        for bad in [
            "postgresql://u:p@ss@h/db",
            "postgresql://u:pa/ss@h/db",
            "postgresql://u:pa:ss@h:x/db",
            "host=h password='open",
            "host=h passwrd=s3cret",
            "postgre://u:s3cret@h/db",
            "Postgresql://u:s3cret@h/db",
            "psql://u:s3cret@h/db",
        ] {
            let e = ConnInfo::parse(bad).unwrap_err();
            for secret in ["ss@h", "pa/ss", "s3cret", "open", "pa:ss"] {
                assert!(!e.contains(secret), "{bad}: {e}");
            }
        }
        assert!(ConnInfo::parse("psql://h/db")
            .unwrap_err()
            .contains("postgresql://"));
    }

    #[test]
    fn masking_removes_every_form_of_password() {
        for (s, want) in [
            (
                "postgresql://team:s3cret@10.0.0.1:5432/vb?sslmode=require",
                "postgresql://team@10.0.0.1:5432/vb?sslmode=require",
            ),
            ("postgresql://u@h/db?password=s3cret", "postgresql://u@h/db"),
            (
                "postgresql://u@h/db?sslmode=disable&password=s3cret&x=1",
                "postgresql://u@h/db?sslmode=disable",
            ),
            ("postgresql://u:p@s3cret@h/db", "postgresql://u@h/db"),
            ("postgresql://u:pa/s3cret@h/db", "postgresql://u@h/db"),
            (
                "host=db user=team password=s3cret dbname=vb",
                "host=db user=team dbname=vb",
            ),
            (
                "host=db password = 's3 cret' dbname=vb",
                "host=db dbname=vb",
            ),
            ("host=db password='s3cret", "host=db..."),
            ("host=db password=s3 cret", "host=db..."),
            ("psql://u:s3cret@h/db", "psql://u@h/db"),
            // Every spelling libpq decodes to a secret keyword (issue 63).
            (
                "postgresql://team@h/vb?pass%77ord=s3cret",
                "postgresql://team@h/vb",
            ),
            (
                "postgresql://team@h/vb?%73sl%50ASSWORD=s3cret",
                "postgresql://team@h/vb",
            ),
            ("host=db pass%77ord=s3 cret", "host=db..."),
            ("postgresql://h/vb", "postgresql://h/vb"),
        ] {
            assert_eq!(masked(s), want, "{s}");
        }
    }
}
