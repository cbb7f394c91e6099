//! Fuzzing the witness's side of the protocol (issue 21): its line reader over any byte
//! stream, its message parser and field rules over any line, and its journal over any
//! sequence of requests from two peers, checked against a model of what the protocol
//! document allows (one writer per file, its records only from the connections holding its
//! writer key, records kept until verified, a block's seq only going up, an ack only for its
//! intent). `PROPTEST_CASES` sets the count (docs/fuzzing.md).

use durability::journal::{self, Journal, Op};
use durability::protocol::{self, Reply, Request};
use durability::writers::Who;
use proptest::prelude::*;
use std::collections::HashMap;
use std::io::BufReader;

/// The document's rule for a file name, written again independently of `check_file`.
fn name_ok(name: &str) -> bool {
    let Some((host, path)) = name.split_once(':') else {
        return false;
    };
    name.len() <= protocol::MAX_NAME
        && !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && path.len() > 1
        && path.starts_with('/')
        && !path.chars().any(char::is_control)
        && path[1..]
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

fn file_name() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => proptest::sample::select(&["h:/a", "h:/b"][..]).prop_map(String::from),
        1 => proptest::sample::select(&[
            "", "/etc/passwd", "h:../../x", "h:/a/../b", "h:/a//b", "h:/a\0b", ":/a", "h:/",
            "h h:/a", "h:/a/./b", "h:relative",
        ][..]).prop_map(String::from),
        1 => "\\PC{0,20}",
    ]
}

fn request() -> impl Strategy<Value = Request> {
    // Mostly a valid geometry, so that runs get far enough for their records to matter.
    let size = prop_oneof![
        12 => Just(65536u64),
        1 => Just(8192),
        1 => Just(65537),
        1 => Just(0),
        1 => Just(u64::MAX),
        1 => Just(4096),
        1 => any::<u64>(),
    ];
    let block = prop_oneof![
        12 => Just(4096u32),
        1 => Just(512),
        1 => Just(3000),
        1 => Just(0),
        1 => Just(1 << 21),
        1 => any::<u32>(),
    ];
    // Few blocks and seqs, so that records meet: a repeated seq, an ack of an old intent.
    let seq = prop_oneof![8 => 0u64..5, 1 => Just(u64::MAX), 1 => Just(i64::MAX as u64 + 1)];
    let blocks = prop_oneof![6 => 0u64..4, 1 => 0u64..20];
    prop_oneof![
        2 => (file_name(), size, block, any::<bool>())
            .prop_map(|(file, size, block, discard)| Request::Create { file, size, block, discard }),
        3 => (file_name(), blocks.clone(), seq.clone(), any::<u32>())
            .prop_map(|(file, block, seq, sum)| Request::Intent { file, block, seq, sum }),
        3 => (file_name(), blocks, seq).prop_map(|(file, block, seq)| Request::Ack { file, block, seq }),
        1 => (file_name(), "[0-9a-f]{0,32}").prop_map(|(file, writer)| Request::Join { file, writer }),
        1 => file_name().prop_map(|file| Request::Status { file }),
        1 => file_name().prop_map(|file| Request::Stop { file }),
    ]
}

#[derive(Debug, Clone)]
enum Step {
    Req(Request),
    Verified(String),
    Released(String),
    /// A join with the key the other peer holds (a writer's second connection).
    Share(String),
}

fn step() -> impl Strategy<Value = (Step, usize)> {
    let s = prop_oneof![
        8 => request().prop_map(Step::Req),
        1 => file_name().prop_map(Step::Verified),
        1 => file_name().prop_map(Step::Released),
        2 => file_name().prop_map(Step::Share),
    ];
    (s, 0usize..2)
}

/// What the document allows, following the journal's own accepted history.
#[derive(Default)]
struct FileModel {
    blocks: u64,
    last_seq: HashMap<u64, u64>,
    pending: HashMap<u64, u64>,
    /// The writer's key.
    writer: Option<String>,
    unread: bool,
    /// A `stop` ended its writing: no intent until the next create.
    stopped: bool,
    acks: u64,
}

fn is_ok(r: &Reply) -> bool {
    matches!(r, Reply::Ok | Reply::Created { .. })
}

/// Refuses a record or join from a connection that does not hold the file's writer key.
fn from_writer(f: &FileModel, file: &str, key: Option<&str>) -> Result<(), String> {
    match (&f.writer, key) {
        (Some(w), Some(k)) if w == k => Ok(()),
        _ => Err(format!(
            "{file}: accepted from a connection without its writer key"
        )),
    }
}

/// Checks an accepted request (sent holding `key`, answered `reply`) against the model, then
/// follows it.
fn accepted(
    files: &mut HashMap<String, FileModel>,
    req: &Request,
    key: Option<&str>,
    reply: &Reply,
) -> Result<(), String> {
    match req {
        Request::Create {
            file,
            size,
            block,
            discard,
        } => {
            if !name_ok(file) || protocol::check_geometry(*size, *block).is_err() {
                return Err(format!("create of {file:?} {size}/{block} accepted"));
            }
            let Reply::Created { writer } = reply else {
                return Err(format!("create of {file} answered {reply:?}"));
            };
            if let Some(f) = files.get(file) {
                if f.writer.is_some() {
                    return Err(format!("second writer accepted for {file}"));
                }
                if f.unread && !discard {
                    return Err(format!("unread records of {file} replaced"));
                }
            }
            files.insert(
                file.clone(),
                FileModel {
                    blocks: size / *block as u64,
                    writer: Some(writer.clone()),
                    ..Default::default()
                },
            );
        }
        Request::Intent {
            file, block, seq, ..
        } => {
            let f = files
                .get_mut(file)
                .ok_or(format!("intent for unknown {file:?} accepted"))?;
            from_writer(f, file, key)?;
            if f.stopped {
                return Err(format!("intent for the stopped run of {file} accepted"));
            }
            let last = f.last_seq.get(block).copied().unwrap_or(0);
            if *block == 0 || *block >= f.blocks || *seq <= last || *seq > i64::MAX as u64 {
                return Err(format!(
                    "intent {seq} in block {block} (last {last}) accepted"
                ));
            }
            f.last_seq.insert(*block, *seq);
            f.pending.insert(*block, *seq);
            f.unread = true;
        }
        Request::Ack { file, block, seq } => {
            let f = files
                .get_mut(file)
                .ok_or(format!("ack for unknown {file:?} accepted"))?;
            from_writer(f, file, key)?;
            if f.pending.get(block) != Some(seq) {
                return Err(format!(
                    "ack {seq} in block {block} without its intent accepted"
                ));
            }
            f.pending.remove(block);
            f.unread = true;
            f.acks += 1;
        }
        Request::Join { file, writer } => {
            let f = files
                .get(file)
                .ok_or(format!("join of unknown {file:?} accepted"))?;
            from_writer(f, file, Some(writer))?;
        }
        Request::Stop { file } => {
            let f = files
                .get_mut(file)
                .ok_or(format!("stop of unknown {file:?} accepted"))?;
            f.stopped = true;
            f.writer = None;
        }
        _ => return Err("hello or verify reached the journal".into()),
    }
    Ok(())
}

fn journal() -> (tempfile::TempDir, Journal) {
    let d = tempfile::tempdir().unwrap();
    let c = journal::open(&d.path().join("witness.db")).unwrap();
    // The fuzz checks what is accepted, not durability: no sync per case.
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    (d, Journal::new(c))
}

proptest! {
    #[test]
    fn the_journal_accepts_only_what_the_protocol_allows(steps in proptest::collection::vec(step(), 1..40)) {
        let (_d, mut j) = journal();
        let mut who = ["10.0.0.1:1000", "10.0.0.2:2000"].map(|p| Who { peer: p.into(), key: None });
        let mut files: HashMap<String, FileModel> = HashMap::new();
        for (s, peer) in steps {
            let s = match s {
                Step::Share(file) => Step::Req(Request::Join {
                    file,
                    writer: who[1 - peer].key.clone().unwrap_or_default(),
                }),
                s => s,
            };
            let op = match &s {
                Step::Req(r) => Op::Req(r.clone()),
                Step::Verified(f) => Op::Verified(f.clone(), std::time::Instant::now()),
                Step::Released(f) => Op::Released(f.clone()),
                Step::Share(_) => unreachable!("made a join above"),
            };
            let reply = j.commit(&[(&op, &who[peer])]);
            prop_assert!(reply.is_ok(), "{s:?}: {reply:?}");
            let reply = reply.unwrap().remove(0);
            if let (Step::Req(Request::Status { file }), Reply::Status { acks, writing, .. }) = (&s, &reply) {
                let m = files.get(file);
                prop_assert!(m.is_some(), "status of unknown {file:?} answered");
                let m = m.unwrap();
                prop_assert_eq!(*acks, m.acks, "acks of {}", file);
                prop_assert!(!(m.stopped && *writing), "a stopped run of {file} is writing");
                continue;
            }
            match s {
                Step::Req(r) if is_ok(&reply) => {
                    if let Err(e) = accepted(&mut files, &r, who[peer].key.as_deref(), &reply) {
                        prop_assert!(false, "{e}");
                    }
                    match (&r, &reply) {
                        (_, Reply::Created { writer }) => who[peer].key = Some(writer.clone()),
                        (Request::Join { writer, .. }, _) => who[peer].key = Some(writer.clone()),
                        _ => {}
                    }
                }
                Step::Req(_) => {
                    let Reply::Error { error } = &reply else {
                        return Err(TestCaseError::fail(format!("{reply:?}")));
                    };
                    prop_assert!(!error.contains('\n') && !error.is_empty());
                }
                Step::Verified(f) => {
                    if let Some(m) = files.get_mut(&f) {
                        m.writer = None;
                        m.unread = false;
                    }
                }
                Step::Released(f) => {
                    if let Some(m) = files.get_mut(&f).filter(|m| m.writer.is_some() && m.writer == who[peer].key) {
                        m.writer = None;
                    }
                }
                Step::Share(_) => unreachable!("made a join above"),
            }
        }
    }

    #[test]
    fn any_line_parses_or_is_refused_and_accepted_names_follow_the_rule(line in prop_oneof![
        "\\PC{0,200}",
        (file_name(), any::<u64>(), any::<u32>()).prop_map(|(f, s, b)| format!(
            r#"{{"op":"create","file":{},"size":{s},"block":{b}}}"#, serde_json::to_string(&f).unwrap())),
        request().prop_map(|r| String::from_utf8(protocol::line(&r)).unwrap()),
    ]) {
        if let Ok(Request::Create { file, .. } | Request::Intent { file, .. } | Request::Ack { file, .. } | Request::Join { file, .. } | Request::Verify { file }) =
            serde_json::from_str::<Request>(line.trim_end())
        {
            prop_assert_eq!(protocol::check_file(&file).is_ok(), name_ok(&file), "{:?}", file);
        }
    }

    #[test]
    fn messages_round_trip_through_a_line(r in request()) {
        let l = protocol::line(&r);
        prop_assert!(l.len() <= protocol::MAX_LINE);
        let mut buf = Vec::new();
        let mut rd = BufReader::new(&l[..]);
        prop_assert!(protocol::read_line(&mut rd, &mut buf).unwrap());
        prop_assert_eq!(serde_json::from_slice::<Request>(&buf).unwrap(), r);
    }

    #[test]
    fn the_line_reader_never_holds_more_than_a_line(bytes in proptest::collection::vec(
        prop_oneof![8 => any::<u8>(), 1 => Just(b'\n')], 0..20_000)) {
        let mut rd = BufReader::with_capacity(64, &bytes[..]);
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        loop {
            match protocol::read_line(&mut rd, &mut buf) {
                Ok(false) => break,
                Ok(true) => {
                    prop_assert!(buf.len() < protocol::MAX_LINE);
                    seen.extend_from_slice(&buf);
                }
                Err(_) => {
                    prop_assert!(buf.len() <= protocol::MAX_LINE);
                    return Ok(());
                }
            }
        }
        let all: Vec<u8> = bytes.iter().copied().filter(|b| *b != b'\n').collect();
        prop_assert_eq!(seen, all);
    }
}
