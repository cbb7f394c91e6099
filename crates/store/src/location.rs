//! Where a `--store` value points: a SQLite file, or a PostgreSQL database named as libpq
//! names one (a `postgresql://` URL or a `key=value` connection string, read by
//! [`crate::conninfo`]). A string that looks like a URL of another scheme, or a connection
//! string libpq would refuse, is refused here in one line: it never becomes a file path.

use crate::conninfo::{self, ConnInfo};
use crate::StoreError;
use std::path::{Path, PathBuf};

pub use conninfo::masked;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    /// The connection string as given (it may hold a password: show it with [`masked`]).
    Postgres(String),
}

impl Location {
    /// Reads a `--store` value. A URL of any other scheme (`postgre://`, `Postgresql://`,
    /// `psql://`) and a connection string that does not parse are errors, not file names.
    pub fn of(p: &Path) -> Result<Location, StoreError> {
        let s = p.to_string_lossy();
        let pg = conninfo::SCHEMES.iter().any(|x| s.starts_with(x))
            || conninfo::scheme_of(&s).is_some()
            || conninfo::is_keyvalue(&s);
        if !pg {
            return Ok(Location::File(p.to_path_buf()));
        }
        let c = ConnInfo::parse(&s).map_err(|m| StoreError::Setup(masked(&s), m))?;
        if let Some(k) = c.unsupported() {
            return Err(StoreError::Setup(
                masked(&s),
                format!("libpq's '{k}' is not supported by volbench's client: remove it, or set what it names in the string itself"),
            ));
        }
        Ok(Location::Postgres(s.into_owned()))
    }

    /// The location as messages and the pending marks show it: a password never appears.
    pub fn shown(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::Postgres(s) => masked(s),
        }
    }

    /// The store a pending mark names (a URL without its password). When `$VOLBENCH_STORE`
    /// names the same store with its password, that is the one to connect with: the mark
    /// was made from it, and never holds the secret itself.
    pub fn of_pending(mark: &str) -> Location {
        let env = std::env::var("VOLBENCH_STORE").unwrap_or_default();
        if !env.is_empty() && masked(&env) == mark {
            return Location::Postgres(env);
        }
        Location::Postgres(mark.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(s: &str) -> bool {
        matches!(Location::of(Path::new(s)), Ok(Location::Postgres(_)))
    }

    #[test]
    fn urls_and_keyvalue_strings_are_postgres_and_paths_are_files() {
        assert!(pg("postgresql://u:p@db.example:5432/vb?sslmode=require"));
        assert!(pg("postgres://localhost/vb"));
        assert!(pg("host=/tmp port=5432 dbname=vb"));
        assert!(pg("dbname=vb"));
        assert!(pg("host = /tmp  password = 'a b'"));
        assert!(!pg("results.db"));
        assert!(!pg("/var/lib/x=y/results.db"));
        assert!(!pg("./a b=c.db"));
        assert!(!pg("./host=x.db"));
    }

    #[test]
    fn mistyped_schemes_and_broken_strings_are_errors_not_paths() {
        for s in [
            "postgre://u@h/db",
            "psql://h/db",
            "Postgresql://h/db",
            "host=h password='open",
            "host=h service=team",
        ] {
            let e = Location::of(Path::new(s)).unwrap_err();
            assert!(e.is_setup(), "{s}: {e}");
        }
    }
}
