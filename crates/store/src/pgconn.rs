//! Connecting to PostgreSQL as libpq users expect: a URL or a key=value string, the `PG*`
//! environment variables for what it leaves out, the password from `PGPASSWORD` or the
//! password file (`~/.pgpass`, `PGPASSFILE`), and libpq's `sslmode` values, TLS included.
//!
//! The `postgres` crate parses the string but knows only `disable`, `prefer` and `require`, and
//! reads neither the environment nor the password file; the rest is here.

use crate::conninfo::ConnInfo;
use crate::StoreError;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use postgres::config::{Host, SslMode};
use postgres::{Client, Config};
use std::path::PathBuf;
use std::time::Duration;

/// How sure of the server the client must be (libpq's `sslmode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verify {
    /// Encrypt if the server offers it (or must: `require`), check no certificate.
    None,
    /// The certificate chains to the root certificate.
    Ca,
    /// And it names the host.
    Full,
}

/// The keywords volbench acts on itself rather than handing to the client crate.
const OWN: &[&str] = &[
    "sslmode",
    "sslrootcert",
    "passfile",
    "fallback_application_name",
];

/// Parses the string (as libpq does: [`ConnInfo`]) and fills what it leaves out as libpq would.
fn config(url: &str, shown: &str) -> Result<(Config, Verify, Option<PathBuf>), StoreError> {
    let setup = |m: String| StoreError::Setup(shown.to_string(), m);
    let mut info = ConnInfo::parse(url).map_err(setup)?;
    default_ports(&mut info);
    let mode = info.get("sslmode").map(String::from);
    let root = info.get("sslrootcert").map(String::from);
    let passfile = info.get("passfile").map(PathBuf::from);
    let mut c: Config = info.to_keyvalue(|k| !OWN.contains(&k)).parse().map_err(|e| {
        setup(format!(
            "not a connection string PostgreSQL reads ({e}): write postgresql://USER@HOST:PORT/DB or host=... dbname=..."
        ))
    })?;
    let mode = mode.or_else(|| std::env::var("PGSSLMODE").ok());
    let verify = verify_of(&mut c, mode.as_deref()).map_err(setup)?;
    defaults(&mut c);
    if c.get_password().is_none() {
        if let Some(p) = password(&c, passfile) {
            c.password(p);
        }
    }
    let root = root
        .or_else(|| std::env::var("PGSSLROOTCERT").ok())
        .map(PathBuf::from)
        .or_else(|| {
            let p = dirs::home_dir()?.join(".postgresql/root.crt");
            p.is_file().then_some(p)
        });
    // libpq: `require` with a root certificate at hand checks the chain as verify-ca does.
    let verify = if verify == Verify::None && root.is_some() && mode.as_deref() == Some("require") {
        Verify::Ca
    } else {
        verify
    };
    Ok((c, verify, root))
}

/// A URL's host list may leave a port out (`h1:5433,h2`): libpq's default fills it.
fn default_ports(info: &mut ConnInfo) {
    let default = std::env::var("PGPORT").unwrap_or_else(|_| "5432".into());
    for (_, v) in info.params.iter_mut().filter(|(k, _)| k == "port") {
        let ports: Vec<&str> = v
            .split(',')
            .map(|p| if p.is_empty() { default.as_str() } else { p })
            .collect();
        *v = ports.join(",");
    }
}

/// The client's TLS mode for libpq's `sslmode` value, and how sure of the server it must be.
fn verify_of(c: &mut Config, mode: Option<&str>) -> Result<Verify, String> {
    let (ssl, verify) = match mode.unwrap_or("prefer") {
        "disable" => (SslMode::Disable, Verify::None),
        "allow" | "prefer" => (SslMode::Prefer, Verify::None),
        "require" => (SslMode::Require, Verify::None),
        "verify-ca" => (SslMode::Require, Verify::Ca),
        "verify-full" => (SslMode::Require, Verify::Full),
        m => {
            return Err(format!(
                "sslmode={m}: use disable, allow, prefer, require, verify-ca or verify-full"
            ))
        }
    };
    c.ssl_mode(ssl);
    Ok(verify)
}

/// Host, port, user and database from `PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE` where the
/// string names none, then libpq's own defaults (Debian's socket directory, the login name).
fn defaults(c: &mut Config) {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if c.get_hosts().is_empty() {
        let h = env("PGHOST").unwrap_or_else(|| "/var/run/postgresql".into());
        c.host(&h);
    }
    if c.get_ports().is_empty() {
        if let Some(p) = env("PGPORT").and_then(|p| p.parse().ok()) {
            c.port(p);
        }
    }
    if c.get_user().is_none() {
        let u = env("PGUSER")
            .or_else(|| env("USER"))
            .unwrap_or_else(|| "postgres".into());
        c.user(&u);
    }
    if c.get_dbname().is_none() {
        if let Some(d) = env("PGDATABASE") {
            c.dbname(&d);
        }
    }
    if c.get_connect_timeout().is_none() {
        c.connect_timeout(Duration::from_secs(10));
    }
    c.application_name("volbench");
}

/// libpq's default socket directory (Debian's build): a connection through it is matched
/// against "localhost" in the password file; any other socket directory by its path.
const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// The host as the password file's first field is matched against (libpq's rules).
fn pgpass_host(c: &Config) -> String {
    match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(dir)) => {
            let d = dir.to_string_lossy();
            let d = d.trim_end_matches('/');
            if d == DEFAULT_SOCKET_DIR || d == "/run/postgresql" {
                "localhost".into()
            } else {
                d.to_string()
            }
        }
        None => "localhost".into(),
    }
}

/// `PGPASSWORD`, else the first matching line of the password file (`passfile=`,
/// `PGPASSFILE`, or `~/.pgpass`).
fn password(c: &Config, passfile: Option<PathBuf>) -> Option<String> {
    if let Ok(p) = std::env::var("PGPASSWORD") {
        return Some(p);
    }
    let file = passfile
        .or_else(|| std::env::var_os("PGPASSFILE").map(PathBuf::from))
        .or_else(|| Some(dirs::home_dir()?.join(".pgpass")))?;
    let host = pgpass_host(c);
    let port = c.get_ports().first().copied().unwrap_or(5432).to_string();
    let user = c.get_user().unwrap_or_default().to_string();
    let db = c.get_dbname().unwrap_or(&user).to_string();
    // libpq ignores a password file others can read, and says so.
    use std::os::unix::fs::PermissionsExt;
    if std::fs::metadata(&file).ok()?.permissions().mode() & 0o077 != 0 {
        eprintln!(
            "warning: password file {} has group or world access and is ignored, as libpq does: chmod 0600 it",
            file.display()
        );
        return None;
    }
    pgpass_lookup(&std::fs::read(&file).ok()?, [&host, &port, &db, &user])
}

/// The password of the first line of a password file whose host, port, database and user
/// fields match (`*` matches anything; `\:` and `\\` are escapes). Bounded: a password file
/// is a few lines, and only its first 64 KiB is read.
pub(crate) fn pgpass_lookup(text: &[u8], want: [&str; 4]) -> Option<String> {
    let text = String::from_utf8_lossy(&text[..text.len().min(64 << 10)]);
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        let mut cur = String::new();
        let mut chars = line.chars();
        while let Some(ch) = chars.next() {
            match ch {
                '\\' => cur.extend(chars.next()),
                ':' if fields.len() < 4 => fields.push(std::mem::take(&mut cur)),
                _ => cur.push(ch),
            }
        }
        fields.push(cur);
        if fields.len() == 5
            && fields[..4]
                .iter()
                .zip(want)
                .all(|(f, w)| f == "*" || f == w)
        {
            return Some(fields.pop().unwrap_or_default());
        }
    }
    None
}

fn tls(
    verify: Verify,
    root: Option<&PathBuf>,
    shown: &str,
) -> Result<postgres_openssl::MakeTlsConnector, StoreError> {
    let setup = |m: String| StoreError::Setup(shown.to_string(), m);
    let mut b = SslConnector::builder(SslMethod::tls()).map_err(|e| setup(format!("TLS: {e}")))?;
    match verify {
        Verify::None => b.set_verify(SslVerifyMode::NONE),
        _ => {
            if let Some(r) = root {
                b.set_ca_file(r).map_err(|e| {
                    setup(format!(
                        "root certificate {}: {e}: give a PEM file in sslrootcert",
                        r.display()
                    ))
                })?;
            }
        }
    }
    let mut m = postgres_openssl::MakeTlsConnector::new(b.build());
    if verify != Verify::Full {
        // verify-ca checks the chain only; the name is verify-full's check.
        m.set_callback(|c, _| {
            c.set_verify_hostname(false);
            Ok(())
        });
    }
    Ok(m)
}

/// Connects, telling a store set up wrongly (exit code 2: the message says how to fix it)
/// from a connection that failed (worth a retry).
pub fn connect(url: &str, shown: &str) -> Result<(Client, String), StoreError> {
    let (c, verify, root) = config(url, shown)?;
    let user = c.get_user().unwrap_or_default().to_string();
    // A socket on this host takes no TLS (libpq ignores sslmode there), and TLS's set-up
    // reads the system's certificates: most of a history page's time on a local server.
    let unix = c
        .get_hosts()
        .iter()
        .all(|h| matches!(h, postgres::config::Host::Unix(_)));
    let client = if unix || c.get_ssl_mode() == postgres::config::SslMode::Disable {
        c.connect(postgres::NoTls)
    } else {
        c.connect(tls(verify, root.as_ref(), shown)?)
    };
    Ok((client.map_err(|e| classify(&e, &user, shown))?, user))
}

/// One line for each way a connection is refused, naming the fix.
pub fn classify(e: &postgres::Error, user: &str, shown: &str) -> StoreError {
    use postgres::error::SqlState;
    let setup = |m: String| StoreError::Setup(shown.to_string(), m);
    let Some(db) = e.as_db_error() else {
        if e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>()) {
            return StoreError::Connection(shown.to_string(), one_line(e));
        }
        let m = one_line(e);
        if m.contains("password missing") {
            return setup(format!("the server asks user {user} for a password and none was given: put it in the URL, PGPASSWORD or ~/.pgpass"));
        }
        if m.contains("TLS") || m.contains("SSL") || m.contains("certificate") {
            return setup(format!("{m}: check sslmode and sslrootcert (verify-full needs a certificate that names the host connected to)"));
        }
        if m.contains("timed out") || m.contains("refused") || m.contains("error connecting") {
            return StoreError::Connection(shown.to_string(), m);
        }
        return StoreError::Postgres(shown.to_string(), m);
    };
    let code = db.code();
    if *code == SqlState::INVALID_PASSWORD {
        setup(format!("password authentication failed for user {user}: put the password in the URL, PGPASSWORD or ~/.pgpass"))
    } else if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
        setup(format!("the server refuses user {user} ({}): add the host to pg_hba.conf or connect as another user", db.message()))
    } else if *code == SqlState::INVALID_CATALOG_NAME {
        setup(format!(
            "{}: create it (createdb) or name an existing database",
            db.message()
        ))
    } else if *code == SqlState::INSUFFICIENT_PRIVILEGE {
        setup(format!("user {user} may not create volbench's tables ({}): GRANT CREATE ON SCHEMA public TO {user}, or have the database owner run volbench once", db.message()))
    } else {
        StoreError::Postgres(shown.to_string(), db.message().to_string())
    }
}

/// An error and its causes on one line (the crate's own text is "error connecting to
/// server" with the reason in its source).
pub fn one_line(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s = format!("{s}: {t}");
        }
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_file_matches_as_libpq_does() {
        let f =
            b"# team\nother:5432:*:*:no\n10.0.0.1:5432:vb:team:s3c\\:ret\n*:*:*:team:fallback\n";
        assert_eq!(
            pgpass_lookup(f, ["10.0.0.1", "5432", "vb", "team"]).as_deref(),
            Some("s3c:ret")
        );
        assert_eq!(
            pgpass_lookup(f, ["db2", "5433", "x", "team"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup(f, ["db2", "5433", "x", "ann"]), None);
    }
}
