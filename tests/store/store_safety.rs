//! Writes that matter are atomic, durable, owner-only and never follow a link (issue 10,
//! defects 4, 5, 7 and 8): each test plants what an attacker or a full disk would, and
//! fails if the defect comes back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::Value;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().mode() & 0o777
}

fn sh(script: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("ctxlens");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("CTXLENS", bin)
        .output()
        .unwrap()
}

#[test]
fn a_linked_sidecar_or_spill_folder_is_refused_and_its_target_untouched() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let bashrc = dir.path().join("bashrc");
    std::fs::write(&bashrc, "alias ls='ls --color'\n").unwrap();
    let sidecar = dir.path().join("pending-compaction.jsonl.decisions.jsonl");
    std::os::unix::fs::symlink(&bashrc, &sidecar).unwrap();
    let out = decide(&log, "k1", "approve", "$(touch x)");
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    let out = ctxlens()
        .args(["await", "--timeout", "0", "--auto"])
        .arg(&log)
        .arg("k1")
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "alias ls='ls --color'\n"
    );
    std::fs::remove_file(&sidecar).unwrap();
    // A spill folder that is a link: refused, nothing lands in its target.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(
        &elsewhere,
        dir.path().join("pending-compaction.jsonl.spill"),
    )
    .unwrap();
    assert_exit(&decide(&log, "k1", "spill", "ops"), 2);
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!sidecar.exists(), "no decision without its spill");
}

#[test]
fn files_are_owner_only_whatever_the_umask() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let out = sh(&format!(
        "umask 000; exec \"$CTXLENS\" decide '{}' k1 spill --by ops",
        log.display()
    ));
    assert_exit(&out, 0);
    let spill = dir.path().join("pending-compaction.jsonl.spill");
    assert_eq!(
        mode(&dir.path().join("pending-compaction.jsonl.decisions.jsonl")),
        0o600
    );
    assert_eq!(mode(&spill), 0o700);
    for entry in std::fs::read_dir(&spill).unwrap() {
        assert_eq!(mode(&entry.unwrap().path()), 0o400);
    }
    // A sidecar someone left world-writable is narrowed on the next write.
    let (dir, log) = sample_copy("choices-and-entities.jsonl");
    let sidecar = dir
        .path()
        .join("choices-and-entities.jsonl.decisions.jsonl");
    std::fs::write(&sidecar, "").unwrap();
    std::fs::set_permissions(&sidecar, std::fs::Permissions::from_mode(0o666)).unwrap();
    assert_exit(&decide(&log, "k1", "refetch", "ops"), 0);
    assert_eq!(mode(&sidecar), 0o600);
}

#[test]
fn a_sidecar_another_user_owns_is_refused() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let sidecar = dir.path().join("pending-compaction.jsonl.decisions.jsonl");
    std::fs::write(&sidecar, "").unwrap();
    let chown = Command::new("chown").arg("65534").arg(&sidecar).output();
    if !chown.is_ok_and(|o| o.status.success()) {
        skip(
            "a decision file of another owner",
            "this user cannot give a file away (run as root)",
        );
        return;
    }
    let out = decide(&log, "k1", "approve", "ops");
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("belongs to user 65534"));
    assert_eq!(std::fs::read(&sidecar).unwrap(), b"");
}

#[test]
fn a_hard_linked_sidecar_is_refused_and_the_other_name_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let victim = dir.path().join("someone-elses.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
    let sidecar = dir.path().join("pending-compaction.jsonl.decisions.jsonl");
    std::fs::hard_link(&victim, &sidecar).unwrap();
    let out = decide(&log, "k1", "approve", "ops");
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("hard links"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    assert_eq!(mode(&victim), 0o644);
}

#[test]
fn a_decision_that_does_not_fit_on_the_disk_is_not_recorded() {
    // A file-size limit stands in for a full disk: the write fails part-way. (Ignoring
    // SIGXFSZ makes the write return EFBIG instead of killing the process.)
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let sidecar = dir.path().join("pending-compaction.jsonl.decisions.jsonl");
    // 1000 bytes of decisions for other compactions, then a limit of 1024 bytes.
    let filler = format!(
        "{{\"compaction\":\"other\",\"verdict\":\"approve\",\"reason\":\"{}\"}}\n",
        "x".repeat(1000 - 55)
    );
    assert_eq!(filler.len(), 1000);
    std::fs::write(&sidecar, &filler).unwrap();
    let out = sh(&format!(
        "trap '' XFSZ; ulimit -f 2; exec \"$CTXLENS\" decide '{}' k1 approve --by ops --reason {}",
        log.display(),
        // Past the limit whether the shell counts 512- or 1024-byte blocks.
        "r".repeat(1200)
    ));
    assert_exit(&out, 2);
    assert_eq!(
        std::fs::read_to_string(&sidecar).unwrap(),
        filler,
        "failure means nothing was recorded"
    );
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(report["compactions"][0]["decision"], Value::Null);
}

#[test]
fn a_planted_fifo_or_device_link_is_not_read_as_a_spill() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let spill = dir.path().join("pending-compaction.jsonl.spill");
    std::fs::create_dir(&spill).unwrap();
    std::fs::set_permissions(&spill, std::fs::Permissions::from_mode(0o700)).unwrap();
    let fifo_hash = "a".repeat(64);
    let status = Command::new("mkfifo")
        .arg(spill.join(&fifo_hash))
        .status()
        .unwrap();
    assert!(status.success());
    let zero_hash = "b".repeat(64);
    std::os::unix::fs::symlink("/dev/zero", spill.join(&zero_hash)).unwrap();
    for hash in [fifo_hash, zero_hash] {
        let started = Instant::now();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
            .args(["spill", "get"])
            .arg(&log)
            .arg(format!("sha256:{hash}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let code = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            if started.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("spill get hangs on a planted {hash}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(code, Some(2));
    }
}

#[test]
fn a_spill_left_half_written_by_a_killed_writer_is_cleaned_up() {
    let (dir, log) = sample_copy("pending-compaction.jsonl");
    let spill = dir.path().join("pending-compaction.jsonl.spill");
    std::fs::create_dir(&spill).unwrap();
    // No process has this id (above the kernel's pid limit).
    let orphan = spill.join(".incoming.ctxlens-4194305-1");
    std::fs::write(&orphan, "half a region").unwrap();
    // A live writer's file (this test's own process) is left alone.
    let live = spill.join(format!(".incoming.ctxlens-{}-1", std::process::id()));
    std::fs::write(&live, "a region being written").unwrap();
    assert_exit(&decide(&log, "k1", "spill", "ops"), 0);
    assert!(!orphan.exists());
    assert!(live.exists());
}

#[test]
fn a_hook_writes_only_beside_a_transcript_of_its_own_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("passwd");
    std::fs::write(&outside, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let payload = format!(
        r#"{{"transcript_path":"{}","cwd":"/nonexistent","trigger":"auto"}}"#,
        outside.display()
    );
    for agent in ["claude-code", "codex"] {
        let out = ctxlens()
            .args(["hook", agent, "pre-compact"])
            .env("HOME", dir.path().join("home"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .write_stdin(payload.clone())
            .output()
            .unwrap();
        assert_exit(&out, 0);
        assert!(String::from_utf8_lossy(&out.stderr).contains("not under"));
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["passwd"]);
}

#[test]
fn install_keeps_the_settings_file_as_it_was() {
    let home = tempfile::tempdir().unwrap();
    let real = home.path().join("dotfiles/claude-settings.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    let original = "{\n  \"zeta\": 1,\n  \"env\": {\"TOKEN\": \"secret\"},\n  \"big\": 123456789012345678901234567890,\n  \"alpha\": [1.50, 2]\n}\n";
    std::fs::write(&real, original).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &settings).unwrap();
    // A binary under a path with a space.
    let bin_dir = home.path().join("my tools");
    std::fs::create_dir(&bin_dir).unwrap();
    let bin = bin_dir.join("ctxlens");
    std::fs::copy(assert_cmd::cargo::cargo_bin("ctxlens"), &bin).unwrap();
    let install = |extra: &[&str]| {
        Command::new(&bin)
            .args(["hook", "claude-code", "install"])
            .args(extra)
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap()
    };
    let out = install(&[]);
    assert_exit(&out, 0);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("+    \"PreCompact\""), "a diff: {printed}");
    // Through the link, mode and every other value as they were, in their order.
    assert!(std::fs::symlink_metadata(&settings)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(mode(&real), 0o600);
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.contains("123456789012345678901234567890"), "{text}");
    assert!(text.contains("1.50"), "{text}");
    let zeta = text.find("\"zeta\"").unwrap();
    assert!(zeta < text.find("\"env\"").unwrap() && zeta < text.find("\"alpha\"").unwrap());
    // The quoted command runs: the hook, given nothing, exits 0 (not 127).
    let merged: Value = serde_json::from_str(&text).unwrap();
    let command = merged["hooks"]["PostCompact"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(command.starts_with("'"), "{command}");
    let run = Command::new("sh")
        .arg("-c")
        .arg(format!("echo '{{}}' | {command}"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{command}");
    // Read-only and duplicate keys: not touched.
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o400)).unwrap();
    let out = install(&["--hold"]);
    assert_exit(&out, 2);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(&real, "{\"hooks\": {}, \"hooks\": {\"x\": []}}").unwrap();
    let out = install(&[]);
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("duplicate key"));
    // A project folder that does not exist is not created.
    let missing = home.path().join("no-such-project");
    let out = ctxlens()
        .args(["hook", "claude-code", "install", "--project"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert!(!missing.exists());
}

/// A small tmpfs mounted on a fresh folder, unmounted when dropped; `None` (with a skip
/// notice) where this user cannot mount one.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str, test: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        if !mounted {
            skip(
                test,
                "cannot mount a tmpfs here (run as root, with mount rights)",
            );
            return None;
        }
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount_read_only(&self) -> bool {
        Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
fn a_full_disk_records_no_decision_and_no_spill() {
    let Some(disk) = Tmpfs::mount("64k", "a_full_disk_records_no_decision_and_no_spill") else {
        return;
    };
    let log = disk.path().join("session.jsonl");
    std::fs::copy(sample("pending-compaction.jsonl"), &log).unwrap();
    // Fill the disk to the last byte.
    let mut filler = std::fs::File::create(disk.path().join("filler")).unwrap();
    let block = vec![b'x'; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    while std::io::Write::write_all(&mut filler, b"x").is_ok() {}
    drop(filler);
    for verdict in ["spill", "approve"] {
        let out = decide(&log, "k1", verdict, "ops");
        assert_exit(&out, 2);
    }
    let sidecar = disk.path().join("session.jsonl.decisions.jsonl");
    let recorded = std::fs::read_to_string(&sidecar).unwrap_or_default();
    assert_eq!(recorded, "", "a failure recorded nothing");
    let (report, _) = audit_json(&log, &[]);
    assert_eq!(report["compactions"][0]["decision"], Value::Null);
}

#[test]
fn a_read_only_folder_is_reported_and_nothing_recorded() {
    let Some(disk) = Tmpfs::mount("1m", "a_read_only_folder_is_reported_and_nothing_recorded")
    else {
        return;
    };
    let log = disk.path().join("session.jsonl");
    std::fs::copy(sample("pending-compaction.jsonl"), &log).unwrap();
    assert!(disk.remount_read_only());
    let out = decide(&log, "k1", "spill", "ops");
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Read-only file system"));
    // Reading still works.
    let (report, code) = audit_json(&log, &[]);
    assert_eq!(
        (code, &report["compactions"][0]["decision"]),
        (1, &Value::Null)
    );
}

#[test]
fn a_decide_killed_at_any_moment_leaves_no_torn_line_and_no_decision_without_its_spill() {
    // A region of a few megabytes, so that a spill takes long enough to be interrupted.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("big.jsonl");
    let mut text = String::from("{\"type\":\"session\",\"seq\":1,\"cwd\":\"/p\"}\n");
    let filler = "lorem ipsum ".repeat(40);
    for seq in 2..6000 {
        text.push_str(&format!(
            "{{\"type\":\"tool_result\",\"seq\":{seq},\"text\":\"{filler} {seq:012x}\"}}\n"
        ));
    }
    text.push_str("{\"type\":\"compaction\",\"seq\":6000,\"id\":\"k1\",\"range\":{\"from\":2,\"to\":5999},\"summary\":\"work\"}\n");
    std::fs::write(&log, text).unwrap();
    let sidecar = dir.path().join("big.jsonl.decisions.jsonl");
    let spill = dir.path().join("big.jsonl.spill");
    for delay_ms in [0u64, 2, 5, 10, 20, 40, 80] {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
            .args(["decide"])
            .arg(&log)
            .args(["k1", "spill", "--by", "ops"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let recorded = std::fs::read_to_string(&sidecar).unwrap_or_default();
        for line in recorded.lines() {
            let decision: Value = serde_json::from_str(line).expect("no torn line");
            let handle = decision["handle"].as_str().unwrap();
            let hash = handle.strip_prefix("sha256:").unwrap();
            assert!(spill.join(hash).is_file(), "a decision without its spill");
        }
        if !recorded.is_empty() {
            break;
        }
    }
}

/// Run as root (`sudo -E ctxlens hook … install`), a user's settings file keeps its
/// owner and mode, through a link too, and so does uninstall: the agent can still read
/// its own settings. (As any other user, a file someone else owns cannot be made here;
/// `store::atomic::write` refuses such a file, which the unit tests cover.)
#[test]
fn install_as_root_keeps_the_owner_and_the_mode_of_a_users_settings() {
    if ctxlens::store::private::euid() != 0 {
        skip(
            "install_as_root_keeps_the_owner_and_the_mode_of_a_users_settings",
            "not root: keeping another user's owner needs root",
        );
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let real = home.path().join("dotfiles/settings.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "{\n  \"model\": \"opus\"\n}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &settings).unwrap();
    for dir in [home.path().join(".claude"), home.path().join("dotfiles")] {
        std::os::unix::fs::chown(&dir, Some(1000), Some(1000)).unwrap();
    }
    std::os::unix::fs::chown(&real, Some(1000), Some(1000)).unwrap();
    let run = |verb: &str| {
        ctxlens()
            .args(["hook", "claude-code", verb])
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap()
    };
    let owner = |p: &Path| {
        let meta = std::fs::metadata(p).unwrap();
        (
            std::os::unix::fs::MetadataExt::uid(&meta),
            std::os::unix::fs::MetadataExt::gid(&meta),
            mode(p),
        )
    };
    assert_exit(&run("install"), 0);
    assert_eq!(owner(&real), (1000, 1000, 0o644));
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("PreCompact"));
    // The backup install keeps beside it is the user's too.
    assert_eq!(
        owner(&home.path().join(".claude/settings.json.before-ctxlens")).0,
        1000
    );
    assert_exit(&run("uninstall"), 0);
    assert_eq!(owner(&real), (1000, 1000, 0o644));
}

/// A FIFO where the settings file should be is refused at once by install and
/// status, never waited on.
#[test]
fn a_fifo_at_the_settings_path_is_refused_at_once() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &settings,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    for verb in ["install", "status"] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctxlens"))
            .args(["hook", "claude-code", verb])
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{verb} waited on the FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("not a regular file"),
            "{verb}: {status:?} {said}"
        );
    }
}

/// Install changes only the `"hooks"` value: every other byte stays, number and
/// string spellings, comments (which Qwen Code's settings may hold, as the real client
/// accepts them) and all; a huge file prints a bounded diff.
#[test]
fn install_keeps_every_other_byte_and_prints_a_bounded_diff() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".qwen/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  // the model I use\n  \"n\": 1e3,\n  \"s\": \"\\u00e9\",\n  /* ui */ \"ui\": {\"theme\": \"dark\"}\n}\n";
    std::fs::write(&settings, original).unwrap();
    let run = |verb: &str| {
        ctxlens()
            .args(["hook", "qwen-code", verb])
            .env("QWEN_HOME", settings.parent().unwrap())
            .output()
            .unwrap()
    };
    assert_exit(&run("install"), 0);
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.starts_with("{\n  // the model I use\n  \"n\": 1e3,\n  \"s\": \"\\u00e9\",\n  /* ui */ \"ui\": {\"theme\": \"dark\"},\n  \"hooks\": {"),
        "{text}"
    );
    assert_exit(&run("uninstall"), 0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    // Twenty megabytes on one line: the diff printed stays small.
    let big = format!("{{\"blob\": \"{}\"}}", "x".repeat(20 << 20));
    std::fs::write(&settings, &big).unwrap();
    let out = run("install");
    assert_exit(&out, 0);
    assert!(
        out.stdout.len() < 64 << 10,
        "{} bytes printed",
        out.stdout.len()
    );
}
