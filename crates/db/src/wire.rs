//! A measured client's PostgreSQL connection: the wire protocol's simple-query mode on a plain
//! socket, driven by a `poll(2)` loop ([`crate::pgloop`]) as libpq's sockets are under pgbench.
//!
//! Why not tokio-postgres here (it still loads the tables and reads the counters): its
//! runtime watched each socket for reads and writes at once, so every statement sent woke the
//! waiting thread a second time when the server drained it, and every response cost a second
//! `epoll_wait`. On a cluster bound by its WAL flush, where the thread sleeps between
//! responses, that doubled the client's CPU per transaction and left it at 0.70x pgbench's tps
//! at 4 clients (issue 20). Message framing, MD5 and SCRAM come from postgres-protocol (the
//! same crate under tokio-postgres); only the connection's steps are here.

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::{md5_hash, sasl};
use postgres_protocol::message::{backend::Message, frontend};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;
use tokio_postgres::config::{Config, Host, SslMode};

/// A connected socket of either kind.
enum Sock {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl Sock {
    fn stream(&mut self) -> &mut dyn ReadWrite {
        match self {
            Sock::Tcp(s) => s,
            Sock::Unix(s) => s,
        }
    }
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// One open connection, idle in the simple-query protocol after [`Conn::open`].
pub struct Conn {
    sock: Sock,
    inbuf: BytesMut,
    out: BytesMut,
    /// What one read takes in, before it is appended to `inbuf`: kept, so a read does not
    /// zero 8 KiB first.
    scratch: Box<[u8; 8192]>,
}

/// An error's text, for the one-line messages start-up failures become.
fn err(what: impl std::fmt::Display) -> String {
    what.to_string()
}

/// The server's error text: severity and message, as libpq prints it ("ERROR:  ...").
pub fn error_text(
    fields: &mut postgres_protocol::message::backend::ErrorFields,
) -> (String, String) {
    let (mut severity, mut message, mut code) = (String::new(), String::new(), String::new());
    while let Ok(Some(f)) = fields.next() {
        let v = String::from_utf8_lossy(f.value_bytes()).into_owned();
        match f.type_() {
            b'V' => severity = v,
            b'S' if severity.is_empty() => severity = v,
            b'M' => message = v,
            b'C' => code = v,
            _ => {}
        }
    }
    (format!("db error: {severity}: {message}"), code)
}

/// Connects to host `i` of the URL: a directory is a Unix socket's, anything else TCP with
/// Nagle off (as libpq sets it); `hostaddr`, when given, is dialled in place of the name.
fn dial(config: &Config, i: usize) -> io::Result<Sock> {
    let ports = config.get_ports();
    let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
    let tcp = |addr: String| -> io::Result<Sock> {
        let s = match config.get_connect_timeout() {
            Some(t) => {
                let a = std::net::ToSocketAddrs::to_socket_addrs(&(addr.as_str(), port))?
                    .next()
                    .ok_or_else(|| io::Error::other(format!("{addr}: no address")))?;
                std::net::TcpStream::connect_timeout(&a, *t)?
            }
            None => std::net::TcpStream::connect((addr.as_str(), port))?,
        };
        s.set_nodelay(true)?;
        Ok(Sock::Tcp(s))
    };
    if let Some(a) = config.get_hostaddrs().get(i) {
        return tcp(a.to_string());
    }
    match config.get_hosts().get(i) {
        Some(Host::Unix(dir)) => Ok(Sock::Unix(std::os::unix::net::UnixStream::connect(
            dir.join(format!(".s.PGSQL.{port}")),
        )?)),
        Some(Host::Tcp(name)) => tcp(name.clone()),
        None => Err(io::Error::other("the URL names no host")),
    }
}

/// The URL's settings, the password from `PGPASSWORD` when the URL has none (as libpq
/// takes it): a password kept off the command line, where every user can read it.
pub fn config(url: &str) -> Result<Config, String> {
    let mut c: Config = url.parse().map_err(err)?;
    if c.get_password().is_none() {
        if let Some(p) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
            c.password(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()));
        }
    }
    Ok(c)
}

impl Conn {
    /// Opens a connection as the URL says, trying its hosts in turn; blocking, before the
    /// clock starts. TLS is not spoken (as the rest of `db`: `sslmode=require` is refused).
    pub fn open(url: &str) -> Result<Conn, String> {
        let config = config(url)?;
        if config.get_ssl_mode() == SslMode::Require {
            return Err("sslmode=require: volbench db speaks no TLS; use a Unix socket or a trusted network".into());
        }
        let hosts = config
            .get_hosts()
            .len()
            .max(config.get_hostaddrs().len())
            .max(1);
        let mut last = String::from("the URL names no host");
        for i in 0..hosts {
            match dial(&config, i)
                .map_err(err)
                .and_then(|s| Conn::start(s, &config))
            {
                Ok(c) => return Ok(c),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn start(sock: Sock, config: &Config) -> Result<Conn, String> {
        let mut c = Conn {
            sock,
            inbuf: BytesMut::with_capacity(4096),
            out: BytesMut::with_capacity(256),
            scratch: Box::new([0; 8192]),
        };
        let user = config.get_user().ok_or("the URL names no user")?;
        let mut params = vec![("user", user), ("client_encoding", "UTF8")];
        params.push(("database", config.get_dbname().unwrap_or(user)));
        if let Some(a) = config.get_application_name() {
            params.push(("application_name", a));
        }
        if let Some(o) = config.get_options() {
            params.push(("options", o));
        }
        frontend::startup_message(params, &mut c.out).map_err(err)?;
        c.flush_blocking().map_err(err)?;
        c.authenticate(user, config.get_password())?;
        c.until_ready()?;
        match &c.sock {
            Sock::Tcp(s) => s.set_nonblocking(true),
            Sock::Unix(s) => s.set_nonblocking(true),
        }
        .map_err(err)?;
        Ok(c)
    }

    /// The descriptor to poll for responses.
    pub fn fd(&self) -> RawFd {
        match &self.sock {
            Sock::Tcp(s) => s.as_raw_fd(),
            Sock::Unix(s) => s.as_raw_fd(),
        }
    }

    fn flush_blocking(&mut self) -> io::Result<()> {
        let out = self.out.split();
        self.sock.stream().write_all(&out)
    }

    /// The next whole message, reading as needed (blocking; start-up only).
    fn recv_blocking(&mut self) -> Result<Message, String> {
        loop {
            if let Some(m) = Message::parse(&mut self.inbuf).map_err(err)? {
                return Ok(m);
            }
            if !self.receive().map_err(err)? {
                return Err("the server closed the connection during start-up".into());
            }
        }
    }

    /// The authentication exchange: trust, password, MD5 or SCRAM-SHA-256, as the server asks.
    fn authenticate(&mut self, user: &str, password: Option<&[u8]>) -> Result<(), String> {
        let pw = || password.ok_or("the server asks for a password and the URL has none");
        loop {
            match self.recv_blocking()? {
                Message::AuthenticationOk => return Ok(()),
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(pw()?, &mut self.out).map_err(err)?
                }
                Message::AuthenticationMd5Password(b) => {
                    let h = md5_hash(user.as_bytes(), pw()?, b.salt());
                    frontend::password_message(h.as_bytes(), &mut self.out).map_err(err)?
                }
                Message::AuthenticationSasl(b) => {
                    let mut names = b.mechanisms();
                    let mut scram = false;
                    while let Ok(Some(m)) = names.next() {
                        scram |= m == sasl::SCRAM_SHA_256;
                    }
                    if !scram {
                        return Err("the server offers no SASL method volbench speaks (SCRAM-SHA-256)".into());
                    }
                    return self.scram(pw()?);
                }
                Message::ErrorResponse(b) => return Err(error_text(&mut b.fields()).0),
                _ => return Err("the server asks for an authentication method volbench does not speak (trust, password, md5 and scram-sha-256 are spoken)".into()),
            }
            self.flush_blocking().map_err(err)?;
        }
    }

    fn scram(&mut self, password: &[u8]) -> Result<(), String> {
        let mut s = sasl::ScramSha256::new(password, sasl::ChannelBinding::unsupported());
        frontend::sasl_initial_response(sasl::SCRAM_SHA_256, s.message(), &mut self.out)
            .map_err(err)?;
        self.flush_blocking().map_err(err)?;
        match self.recv_blocking()? {
            Message::AuthenticationSaslContinue(b) => s.update(b.data()).map_err(err)?,
            Message::ErrorResponse(b) => return Err(error_text(&mut b.fields()).0),
            _ => return Err("unexpected message in the SCRAM exchange".into()),
        }
        frontend::sasl_response(s.message(), &mut self.out).map_err(err)?;
        self.flush_blocking().map_err(err)?;
        match self.recv_blocking()? {
            Message::AuthenticationSaslFinal(b) => s.finish(b.data()).map_err(err)?,
            Message::ErrorResponse(b) => return Err(error_text(&mut b.fields()).0),
            _ => return Err("unexpected message in the SCRAM exchange".into()),
        }
        match self.recv_blocking()? {
            Message::AuthenticationOk => Ok(()),
            Message::ErrorResponse(b) => Err(error_text(&mut b.fields()).0),
            _ => Err("unexpected message after the SCRAM exchange".into()),
        }
    }

    /// Skips the start-up's parameter reports to the first ReadyForQuery.
    fn until_ready(&mut self) -> Result<(), String> {
        loop {
            match self.recv_blocking()? {
                Message::ReadyForQuery(_) => return Ok(()),
                Message::ErrorResponse(b) => return Err(error_text(&mut b.fields()).0),
                _ => {}
            }
        }
    }

    /// Reads what has arrived: Ok(false) at end of stream; once open (non-blocking),
    /// WouldBlock when nothing was there. Responses are a few dozen bytes, copied on.
    pub fn receive(&mut self) -> io::Result<bool> {
        let n = self.sock.stream().read(&mut self.scratch[..])?;
        self.inbuf.extend_from_slice(&self.scratch[..n]);
        Ok(n > 0)
    }

    /// The next whole message received so far.
    pub fn message(&mut self) -> io::Result<Option<Message>> {
        Message::parse(&mut self.inbuf)
    }

    /// Sends one statement. Its few dozen bytes always fit an empty send buffer; should one
    /// not, the rest waits for the socket to drain.
    pub fn send_query(&mut self, q: &str) -> io::Result<()> {
        frontend::query(q, &mut self.out)?;
        let mut done = 0;
        while done < self.out.len() {
            match self.sock.stream().write(&self.out[done..]) {
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => wait_writable(self.fd())?,
                Err(e) => return Err(e),
            }
        }
        self.out.clear();
        Ok(())
    }
}

fn wait_writable(fd: RawFd) -> io::Result<()> {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the call's duration.
    let r = unsafe { libc::poll(&mut p, 1, Duration::from_secs(1).as_millis() as i32) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// A URL or connection string without its password: report's one scrub, which reads every
/// spelling libpq reads as a password (`?pass%77ord=`, a `?password=` after other parameters).
pub fn redact(url: &str) -> String {
    report::secrets::scrub_arg(url)
}
