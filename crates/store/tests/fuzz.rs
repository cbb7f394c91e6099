//! Fuzzing the store's strings (issue 52): `--store` values built from libpq's pieces (both
//! schemes and mistyped ones, user information with unencoded `@`, `/` and `:`, query
//! parameters, keyword/value pairs with quotes, escapes and blanks around `=`), history's
//! date bounds, and any text a report may hold. Whatever comes in: no panic; a refusal is one
//! line that never holds the password; what is shown or stored of it never holds the password.
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
