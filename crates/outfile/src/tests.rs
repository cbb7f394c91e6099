//! The opener's rules on real files, links and devices, and the state directory's trust.

use super::*;
use std::os::unix::fs::PermissionsExt;

fn world_writable() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    d
}

fn private() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    d
}

#[test]
fn a_planted_link_in_a_world_writable_directory_is_refused_and_its_target_kept() {
    let d = world_writable();
    let victim = private();
    let target = victim.path().join("precious");
    std::fs::write(&target, b"keep me").unwrap();
    let link = d.path().join("bw.log");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for o in [
        Opener::log("write_bw_log"),
        Opener::append("--interval-log"),
    ] {
        let e = o.open(&link).unwrap_err().to_string();
        assert!(e.contains("symbolic link") && e.contains("bw.log"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let mut opts = OpenOptions::new();
    opts.write(true).create(true);
    assert!(Opener::target("filename", opts).open(&link).is_err());
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
}

#[test]
fn a_link_in_the_users_own_directory_is_followed() {
    let d = private();
    let real = d.path().join("real.log");
    let link = d.path().join("link.log");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    use std::io::Write;
    Opener::log("write_iolog")
        .open(&link)
        .unwrap()
        .write_all(b"x")
        .unwrap();
    assert_eq!(std::fs::read(&real).unwrap(), b"x");
}

#[test]
fn a_log_is_never_a_device_and_a_test_file_may_be() {
    let null = Path::new("/dev/null");
    let e = Opener::log("write_iolog")
        .open(null)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("character device") && e.contains("--allow-destructive"),
        "{e}"
    );
    let mut opts = OpenOptions::new();
    opts.write(true);
    assert!(Opener::target("filename", opts).open(null).is_ok());
    let d = private();
    let e = Opener::log("write_lat_log").open(d.path()).unwrap_err();
    assert!(e.to_string().contains("a directory"), "{e}");
    // The directory engines' targets are directories: the runner judges those, not the rule.
    assert!(Opener::target("filename", OpenOptions::new())
        .check(d.path())
        .is_ok());
}

#[test]
fn a_private_file_is_0600_and_a_log_is_truncated() {
    let d = private();
    let p = d.path().join("results.db");
    drop(Opener::private("store").open(&p).unwrap());
    assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o600);
    std::fs::write(&p, b"old old old").unwrap();
    drop(Opener::log("log").open(&p).unwrap());
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 0);
}

#[test]
fn state_directories_must_be_the_users_own_and_closed_to_others() {
    let d = private();
    assert!(trusted_dir(d.path()).is_ok());
    let open = world_writable();
    let e = trusted_dir(open.path()).unwrap_err().to_string();
    assert!(e.contains("writable by others"), "{e}");
    let link = d.path().join("running");
    std::os::unix::fs::symlink(d.path(), &link).unwrap();
    assert!(trusted_dir(&link).unwrap_err().0.contains("symbolic link"));
    let made = private_dir(&d.path().join("state")).unwrap();
    assert_eq!(std::fs::metadata(made).unwrap().mode() & 0o777, 0o700);
}

#[test]
fn a_directory_owned_by_another_user_is_not_trusted() {
    if !as_root() {
        return;
    }
    let d = private();
    std::os::unix::fs::chown(d.path(), Some(65534), None).unwrap();
    let e = trusted_dir(d.path()).unwrap_err().to_string();
    assert!(e.contains("uid 65534"), "{e}");
    let f = d.path().join("rec");
    std::fs::write(&f, b"{}").unwrap();
    assert!(open_own(&f).is_some());
    std::os::unix::fs::chown(&f, Some(65534), None).unwrap();
    assert!(
        open_own(&f).is_none(),
        "a record of another user's is not ours"
    );
}

/// Root, or (outside CI) a skip: chown needs it.
fn as_root() -> bool {
    if euid() == 0 {
        return true;
    }
    assert!(
        std::env::var("CI").map_or(true, |v| v.is_empty() || v == "false"),
        "cannot run under CI: this test chowns a directory and needs root"
    );
    eprintln!("skipping: this test chowns a directory and needs root");
    false
}

#[test]
fn a_link_where_another_user_could_have_put_it_is_not_followed() {
    if !as_root() {
        return;
    }
    let victim = private();
    let target = victim.path().join("precious");
    std::fs::write(&target, b"keep me").unwrap();
    // Their own 0755 directory; a directory of root's inside it (they can swap it); a link
    // of theirs to a directory of root's (they choose where it points).
    let theirs = private();
    std::fs::set_permissions(theirs.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let inside = theirs.path().join("sub");
    std::fs::create_dir(&inside).unwrap();
    std::os::unix::fs::chown(theirs.path(), Some(65534), None).unwrap();
    let ours = private();
    let via = victim.path().join("via");
    std::os::unix::fs::symlink(ours.path(), &via).unwrap();
    std::os::unix::fs::lchown(&via, Some(65534), None).unwrap();
    for (dir, said) in [
        (theirs.path().to_path_buf(), "belongs to uid 65534"),
        (inside.clone(), "belongs to uid 65534"),
        (via.clone(), "a link of uid 65534"),
    ] {
        let link = dir.join("x.log");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = Opener::log("write_iolog")
            .open(&link)
            .unwrap_err()
            .to_string();
        assert!(e.contains("symbolic link") && e.contains(said), "{e}");
        assert!(planted_by_others(&dir).is_some(), "{}", dir.display());
    }
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    // Root's own directories, all the way: trusted; /tmp itself is not (anyone adds names).
    assert_eq!(planted_by_others(ours.path()), None);
    assert!(planted_by_others(Path::new("/tmp")).is_some());
}

#[test]
fn a_second_hard_link_where_others_can_write_is_refused_and_not_cut() {
    let d = world_writable();
    // The victim's directory inside the shared one: one file system, so the link can be made.
    let victim = d.path().join("private");
    std::fs::create_dir(&victim).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o700)).unwrap();
    let target = victim.join("precious");
    std::fs::write(&target, b"keep me").unwrap();
    let second = d.path().join("x.log");
    std::fs::hard_link(&target, &second).unwrap();
    let e = Opener::log("write_bw_log")
        .open(&second)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 hard links"), "{e}");
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    // In the user's own directory a second name is the user's business.
    let own = victim.join("again");
    std::fs::hard_link(&target, &own).unwrap();
    drop(Opener::log("log").open(&own).unwrap());
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 0);
}

#[test]
fn a_planted_link_on_the_way_to_the_file_is_not_followed() {
    if !as_root() {
        return;
    }
    let victim = private();
    let target = victim.path().join("precious");
    std::fs::write(&target, b"keep me").unwrap();
    // Their directory, and in it their link to the victim's directory: the file name at the
    // end is a plain one, the link is on the way (the trial's finding).
    let theirs = private();
    std::fs::set_permissions(theirs.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(theirs.path(), Some(65534), None).unwrap();
    let sub = theirs.path().join("sub");
    std::os::unix::fs::symlink(victim.path(), &sub).unwrap();
    std::os::unix::fs::lchown(&sub, Some(65534), None).unwrap();
    for o in [Opener::log("write_iolog"), Opener::append("--interval-log")] {
        let e = o.open(&sub.join("precious")).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(o.open(&sub.join("new.log")).is_err());
    }
    let mut rw = OpenOptions::new();
    rw.write(true);
    assert!(open_held(&rw, &sub.join("precious"), 0).is_err());
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    assert!(!victim.path().join("new.log").exists());
    // A real directory of theirs on the way is opened held, and what is written lands in it.
    let real = theirs.path().join("real");
    std::fs::create_dir(&real).unwrap();
    use std::io::Write;
    let mut f = Opener::log("log").open(&real.join("x.log")).unwrap();
    f.write_all(b"x").unwrap();
    assert_eq!(std::fs::read(real.join("x.log")).unwrap(), b"x");
}

#[test]
fn a_file_another_user_made_where_others_can_write_is_not_written_into() {
    if !as_root() {
        return;
    }
    let d = world_writable();
    let theirs = d.path().join("x.log");
    std::fs::write(&theirs, b"theirs").unwrap();
    std::os::unix::fs::chown(&theirs, Some(65534), None).unwrap();
    let e = Opener::append("--interval-log")
        .open(&theirs)
        .unwrap_err()
        .to_string();
    assert!(e.contains("belongs to uid 65534"), "{e}");
    assert_eq!(std::fs::read(&theirs).unwrap(), b"theirs");
    // A link on the way is said by the look itself, before anything is opened.
    let victim = private();
    let via = d.path().join("via");
    std::os::unix::fs::symlink(victim.path(), &via).unwrap();
    std::os::unix::fs::lchown(&via, Some(65534), None).unwrap();
    let e = Opener::log("write_iolog")
        .check(&via.join("io.log"))
        .unwrap_err();
    assert!(e.0.contains("goes through a symbolic link"), "{e}");
}
