//! Fuzzing the store's strings (issue 52): `--store` values built from libpq's pieces (both
//! schemes and mistyped ones, user information with unencoded `@`, `/` and `:`, query
//! parameters, keyword/value pairs with quotes, escapes and blanks around `=`), history's
//! date bounds, and any text a report may hold. Whatever comes in: no panic; a refusal is one
//! line that never holds the password; what is shown or stored of it never holds the password.
//! A secret key in every spelling libpq decodes (percent-encoded letters, either case of hex,
//! issue 63) is generated too, in URLs and keyword/value strings.
//! `PROPTEST_CASES` sets the count (docs/fuzzing.md).

use proptest::prelude::*;
use std::path::Path;
use store::conninfo::{masked, ConnInfo};
use store::Location;

/// The password every generated string carries: long and distinctive, so that a leak of any
/// part of it is found (the checks look for its two halves).
const HALVES: [&str; 2] = ["Zq7wXk", "Vp3mLr"];

fn secret_chars() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("@".to_string()),
            Just("/".to_string()),
            Just(":".to_string()),
            Just("'".to_string()),
            Just(" ".to_string()),
            Just("\\".to_string()),
            Just("%40".to_string()),
            Just("&".to_string()),
            Just("?".to_string()),
            Just("=".to_string()),
        ],
        0..3,
    )
    .prop_map(|v| v.concat())
}

fn password() -> impl Strategy<Value = String> {
    secret_chars().prop_map(|mid| format!("{}{mid}{}", HALVES[0], HALVES[1]))
}

fn scheme() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("postgresql://"),
        Just("postgres://"),
        Just("postgre://"),
        Just("Postgresql://"),
        Just("psql://"),
    ]
}

fn url() -> impl Strategy<Value = String> {
    (
        scheme(),
        "[a-z]{0,6}",
        password(),
        "[a-z0-9.]{0,12}",
        0u8..3,
        "[a-z_]{0,8}",
    )
        .prop_map(|(s, user, pw, host, form, db)| match form {
            0 => format!("{s}{user}:{pw}@{host}/{db}"),
            1 => format!("{s}{user}@{host}/{db}?sslmode=disable&password={pw}"),
            _ => format!("{s}{user}:{pw}@{host}:5432/{db}?password={pw}&x=1"),
        })
}

fn keyvalue() -> impl Strategy<Value = String> {
    (password(), " {0,2}", " {0,2}", any::<bool>(), "[a-z]{1,8}").prop_map(
        |(pw, l, r, quoted, host)| {
            let v = if quoted {
                format!("'{}'", pw.replace('\\', "\\\\").replace('\'', "\\'"))
            } else {
                pw.replace(' ', "")
            };
            format!("host={host} password{l}={r}{v} dbname=vb")
        },
    )
}

/// One character of a secret key as libpq would still read it (issue 63): as written, in the
/// other case, percent-encoded in lower or upper hex, or encoded twice (`%25` then the hex).
fn spelled(c: char) -> impl Strategy<Value = String> {
    let b = c as u8;
    prop_oneof![
        Just(c.to_string()),
        Just(c.to_ascii_uppercase().to_string()),
        Just(format!("%{b:02x}")),
        Just(format!("%{b:02X}")),
        Just(format!("%25{b:02x}")),
    ]
}

/// A secret keyword in any spelling: each character spelled at random.
fn secret_key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("password"),
        Just("sslpassword"),
        Just("oauth_client_secret")
    ]
    .prop_flat_map(|k| k.chars().map(spelled).collect::<Vec<_>>())
    .prop_map(|v| v.concat())
}

/// A store string whose secret is under a spelled key: a URL's query parameter (among
/// others, first or last) or a keyword/value pair.
fn spelled_store() -> impl Strategy<Value = String> {
    (scheme(), secret_key(), password(), 0u8..4, "[a-z]{1,6}").prop_map(
        |(s, key, pw, form, user)| match form {
            0 => format!("{s}{user}@127.0.0.1:5432/vb?{key}={pw}"),
            1 => format!("{s}{user}@h/vb?sslmode=disable&{key}={pw}&application_name=x"),
            2 => format!("{s}{user}:{pw}@h/vb?{key}={pw}"),
            _ => {
                let v = format!("'{}'", pw.replace('\\', "\\\\").replace('\'', "\\'"));
                format!("host=h user={user} {key} = {v} dbname=vb")
            }
        },
    )
}

fn leaks(s: &str) -> bool {
    HALVES.iter().any(|h| s.contains(h))
}

proptest! {
    /// A store string is read without panic; whatever is said or shown of it holds no password.
    #[test]
    fn a_store_string_never_shows_its_password(s in prop_oneof![url(), keyvalue()]) {
        let shown = masked(&s);
        prop_assert!(!leaks(&shown), "masked {s:?} to {shown:?}");
        let scrubbed = report::secrets::scrub_arg(&format!("--store={s}"));
        prop_assert!(!leaks(&scrubbed), "scrubbed {s:?} to {scrubbed:?}");
        match Location::of(Path::new(&s)) {
            Ok(l) => prop_assert!(!leaks(&l.shown())),
            Err(e) => {
                let m = e.to_string();
                prop_assert!(!leaks(&m), "{s:?}: {m}");
                prop_assert_eq!(m.lines().count(), 1);
            }
        }
        if let Err(m) = ConnInfo::parse(&s) {
            prop_assert!(!leaks(&m), "{s:?}: {m}");
        }
    }

    /// A secret under any spelling of its key (percent-encoded, either case) shows in none of
    /// the forms a store string is shown or kept in: masked, scrubbed as text, as an argument
    /// and as a command line, and in the argv form whose secret bytes are overwritten.
    #[test]
    fn a_spelled_secret_key_never_shows_its_secret(s in spelled_store()) {
        let shown = masked(&s);
        prop_assert!(!leaks(&shown), "masked {s:?} to {shown:?}");
        // In a longer text a URL ends at a blank: only a secret without one is whole there.
        if !s.contains(char::is_whitespace) {
            let text = report::secrets::scrub(&format!("saved in {s} (volbench show 1)")).into_owned();
            prop_assert!(!leaks(&text), "scrubbed {s:?} to {text:?}");
        }
        for arg in [s.clone(), format!("--store={s}")] {
            let scrubbed = report::secrets::scrub_arg(&arg);
            prop_assert!(!leaks(&scrubbed), "scrubbed {arg:?} to {scrubbed:?}");
            let blanked = report::secrets::blanked(&arg);
            prop_assert!(!leaks(&blanked), "argv {arg:?} shows {blanked:?}");
            prop_assert_eq!(blanked.len(), arg.len());
        }
        let line = ["volbench", "run", "--store", &s].map(String::from);
        let kept = report::secrets::scrub_command_line(&line).concat();
        prop_assert!(!leaks(&kept), "command line {s:?} kept as {kept:?}");
        if let Ok(l) = Location::of(Path::new(&s)) {
            prop_assert!(!leaks(&l.shown()), "{s:?} shown as {}", l.shown());
        }
    }

    /// Any text at all: parsing, masking and scrubbing end without panic, and a scrubbed text
    /// scrubs to itself.
    #[test]
    fn any_text_is_read_without_panic(s in "\\PC{0,80}") {
        let _ = ConnInfo::parse(&s);
        let _ = Location::of(Path::new(&s));
        let _ = masked(&s);
        let once = report::secrets::scrub(&s).into_owned();
        prop_assert_eq!(report::secrets::scrub(&once).into_owned(), once);
    }

    /// A date bound either reads as a UTC time in the stored form or is refused in one line.
    #[test]
    fn a_date_bound_is_utc_or_one_line(s in "[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?(Z|[+-][0-9]{2}:[0-9]{2})?)?|\\PC{0,30}") {
        let f = store::Filter { since: Some(s.clone()), ..Default::default() };
        match f.checked() {
            Ok(c) => {
                let t = c.since.unwrap();
                prop_assert!(t.len() == 20 && t.ends_with('Z') && t.as_bytes()[10] == b'T', "{s} -> {t}");
            }
            Err(e) => prop_assert_eq!(e.to_string().lines().count(), 1),
        }
    }
}
