//! Where a `--store` value points: a SQLite file, or a PostgreSQL database named as libpq
//! names one (a `postgresql://` URL or a `key=value` connection string).

use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    /// The connection string as given (it may hold a password: show it with [`masked`]).
    Postgres(String),
}

/// The keys a libpq connection string starts with; a file path never holds `key=value`
/// pairs separated by blanks with one of these first.
const PG_KEYS: &[&str] = &[
    "host", "hostaddr", "port", "dbname", "user", "password", "sslmode", "service",
];

impl Location {
    pub fn of(p: &Path) -> Location {
        let s = p.to_string_lossy();
        let url = s.starts_with("postgresql://") || s.starts_with("postgres://");
        let keyvalue = s.contains('=')
            && s.split_whitespace().all(|kv| kv.contains('='))
            && s.split_whitespace()
                .any(|kv| PG_KEYS.iter().any(|k| kv.starts_with(&format!("{k}="))));
        if url || keyvalue {
            Location::Postgres(s.into_owned())
        } else {
            Location::File(p.to_path_buf())
        }
    }

    /// The location as messages and the pending marks show it: a password never appears.
    pub fn shown(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::Postgres(s) => masked(s),
        }
    }
}

/// A connection string with its password removed (`postgresql://u:secret@h/db` becomes
/// `postgresql://u@h/db`; `password=secret` is dropped).
pub fn masked(s: &str) -> String {
    if let Some(rest) = s
        .strip_prefix("postgresql://")
        .or_else(|| s.strip_prefix("postgres://"))
    {
        let scheme = &s[..s.len() - rest.len()];
        let (auth, tail) = match rest.find('@') {
            // Only an '@' before the path belongs to the authority.
            Some(at) if !rest[..at].contains('/') => (&rest[..at], &rest[at..]),
            _ => return s.to_string(),
        };
        let user = auth.split(':').next().unwrap_or("");
        return format!("{scheme}{user}{tail}");
    }
    s.split_whitespace()
        .filter(|kv| !kv.starts_with("password="))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_keyvalue_strings_are_postgres_and_paths_are_files() {
        let pg = |s: &str| matches!(Location::of(Path::new(s)), Location::Postgres(_));
        assert!(pg("postgresql://u:p@db.example:5432/vb?sslmode=require"));
        assert!(pg("postgres://localhost/vb"));
        assert!(pg("host=/tmp port=5432 dbname=vb"));
        assert!(pg("dbname=vb"));
        assert!(!pg("results.db"));
        assert!(!pg("/var/lib/x=y/results.db"));
        assert!(!pg("./a b=c.db"));
    }

    #[test]
    fn a_password_never_shows() {
        assert_eq!(
            masked("postgresql://team:s3cret@10.0.0.1:5432/vb?sslmode=require"),
            "postgresql://team@10.0.0.1:5432/vb?sslmode=require"
        );
        assert_eq!(
            masked("host=db user=team password=s3cret dbname=vb"),
            "host=db user=team dbname=vb"
        );
        assert_eq!(masked("postgresql://h/vb"), "postgresql://h/vb");
    }
}
