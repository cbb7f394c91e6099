//! One hostile client on the network (issue 63): a thousand idle connections from one
//! address, reopened as the server closes them, while another address asks for pages.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Lets this process hold as many descriptors as the hard limit allows (the flood needs more
/// than the usual soft 1,024).
pub fn raise_fd_limit() {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct given, nothing else.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut r), 0);
        r.rlim_cur = r.rlim_max;
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &r), 0);
    }
}

/// A TCP connection to `to` from the loopback address `from` (any of 127/8 is this host's),
/// so the server sees a client other than the flood's.
pub fn connect_from(from: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let sin = |ip: Ipv4Addr, port: u16| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(ip).to_be(),
        },
        sin_zero: [0; 8],
    };
    let SocketAddr::V4(to) = to else {
        panic!("an IPv4 server address");
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a new socket, owned by the TcpStream made of it; bind and connect read only the
    // addresses given, of the length given.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let s = TcpStream::from_raw_fd(fd);
        let local = sin(from, 0);
        let remote = sin(*to.ip(), to.port());
        if libc::bind(fd, (&local as *const libc::sockaddr_in).cast(), len) != 0
            || libc::connect(fd, (&remote as *const libc::sockaddr_in).cast(), len) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(s)
    }
}

/// `n` idle connections to `to` from 127.0.0.1, kept at `n` by reopening as they are closed,
/// until dropped.
pub struct Flood {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<usize>>,
}

impl Flood {
    /// Opens all `n` before returning, then keeps them up in the background.
    pub fn start(to: SocketAddr, n: usize) -> Flood {
        raise_fd_limit();
        let stop = Arc::new(AtomicBool::new(false));
        let mut held: Vec<TcpStream> = (0..n).filter_map(|_| TcpStream::connect(to).ok()).collect();
        assert!(held.len() == n, "the flood opened {} of {n}", held.len());
        let quit = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut reopened = 0;
            while !quit.load(Ordering::SeqCst) {
                // One closed by the server (a read sees its end) is opened again at once.
                for c in held.iter_mut() {
                    c.set_nonblocking(true).ok();
                    let mut b = [0u8; 1];
                    let closed = match std::io::Read::read(c, &mut b) {
                        Ok(n) => n == 0,
                        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
                    };
                    if closed {
                        if let Ok(new) = TcpStream::connect(to) {
                            *c = new;
                            reopened += 1;
                        }
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            reopened
        });
        Flood {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops it; how many connections it had to reopen.
    pub fn stop(mut self) -> usize {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().map_or(0, |t| t.join().unwrap_or(0))
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One GET from 127.0.0.2, answered within `wait` or failed: (status, body).
pub fn get_from_another(to: SocketAddr, path: &str, wait: std::time::Duration) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = connect_from(Ipv4Addr::new(127, 0, 0, 2), to).expect("connect from 127.0.0.2");
    s.set_read_timeout(Some(wait)).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {to}\r\n\r\n").unwrap();
    let mut out = Vec::new();
    if let Err(e) = s.read_to_end(&mut out) {
        panic!("GET {path} from another address: not answered within {wait:?}: {e}");
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, text)
}
