//! Harm where it really happens (docs/transcripts.md, `regenerated_binding`): a value
//! known by its role, a failure that comes back from a background command, a retry that
//! clears a suspect, and what the harm cost. The fixtures are the SSH sample reshaped
//! as the real sessions of `../shared/labelled` wrote it (Claude Code 2.1's background
//! `Bash` answer and task output file, Codex's exec sessions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // tests fail loudly on purpose

use crate::common::*;
use serde_json::{json, Value};

/// The SSH sample's records, as JSON values.
fn ssh_sample() -> Vec<Value> {
    std::fs::read_to_string(sample("claude-code-ssh-host.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `records` written as a transcript, each the child of the one before (Claude Code
/// reads the region along the `parentUuid` chain).
fn written(records: &[Value]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let mut parent = Value::Null;
    let text: String = records
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["parentUuid"] = parent.clone();
            parent = r["uuid"].clone();
            format!("{r}\n")
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// A record of the sample's session with `content` as its message.
fn record(like: &Value, uuid: &str, kind: &str, content: Value) -> Value {
    let mut r = like.clone();
    r["uuid"] = Value::from(uuid);
    r["type"] = Value::from(kind);
    r["message"] = match kind {
        "assistant" => {
            json!({"id": format!("msg_{uuid}"), "type": "message", "role": "assistant", "model": "claude-opus-4-6", "content": content})
        }
        _ => json!({"role": "user", "content": content}),
    };
    r
}

fn call(like: &Value, id: &str, command: &str) -> Value {
    record(
        like,
        &format!("a_{id}"),
        "assistant",
        json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]),
    )
}

fn answer(like: &Value, id: &str, text: &str, is_error: bool) -> Value {
    record(
        like,
        &format!("u_{id}"),
        "user",
        json!([{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error}]),
    )
}

const OUTPUT: &str = "/tmp/claude-1000/-home-dev-shop/tasks/b404a92.output";

/// The sample with its failed `ssh` to the CDN run in the background, as Claude Code
/// answers it, and `read` (the calls that read its outcome) before the agent reads the
/// workflow again.
fn backgrounded(read: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for record in ssh_sample() {
        let text = record.to_string();
        if text.contains(r#""tool_use_id":"toolu_10""#) {
            out.push(answer(
                &record,
                "toolu_10",
                &format!("Command running in background with ID: b404a92. Output is being written to: {OUTPUT}"),
                false,
            ));
            out.extend(read.iter().cloned());
            continue;
        }
        out.push(record);
    }
    out
}

/// The timeout as the task's output file holds it.
const TIMED_OUT: &str =
    "[stderr] ssh: connect to host cdn.example.com port 22: Connection timed out";

#[test]
fn a_background_failure_read_later_is_the_failure_of_the_call_that_started_it() {
    let like = ssh_sample()[2].clone();
    let read = [
        call(
            &like,
            "toolu_tail",
            &format!("sleep 5 && tail -20 {OUTPUT}"),
        ),
        answer(&like, "toolu_tail", TIMED_OUT, false),
    ];
    let (_dir, path) = written(&backgrounded(&read));
    let (report, code) = audit_json(&path, &[]);
    assert_eq!(code, 1, "{report:#}");
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["token"], "203.0.113.7");
    assert_eq!(finding["regenerated"], "cdn.example.com");
    assert_eq!(finding["step"], "Bash toolu_10 (seq 11)");
    // The tail's answer, where the failure came back.
    assert_eq!(finding["outcome"], "seq 14", "{finding:#}");
    assert_eq!(finding["recovered"], "Bash toolu_15 (seq 18)");
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("ran in the background"), "{message}");

    // Read through BashOutput with the command's id: the same.
    let read = [
        record(
            &like,
            "a_poll",
            "assistant",
            json!([{"type": "tool_use", "id": "toolu_poll", "name": "BashOutput", "input": {"bash_id": "b404a92"}}]),
        ),
        answer(
            &like,
            "toolu_poll",
            &format!("<status>failed</status>\n\n<exit_code>255</exit_code>\n\n<stderr>\n{TIMED_OUT}\n</stderr>"),
            false,
        ),
    ];
    let (_dir, path) = written(&backgrounded(&read));
    let (report, _) = audit_json(&path, &[]);
    assert_eq!(
        first_finding(&report, "regenerated_binding")["outcome"],
        "seq 14"
    );

    // An output that shows no failure is no harm.
    let read = [
        call(&like, "toolu_tail", &format!("tail -20 {OUTPUT}")),
        answer(&like, "toolu_tail", "done", false),
    ];
    let (_dir, path) = written(&backgrounded(&read));
    let (report, _) = audit_json(&path, &[]);
    assert!(!finding_kinds(&report).contains(&"regenerated_binding".to_owned()));
}

/// `ssh HOST` with no `user@`: the host is one by its role.
#[test]
fn a_host_is_one_by_its_role_without_a_user() {
    let records: Vec<Value> = ssh_sample()
        .into_iter()
        .map(|r| {
            serde_json::from_str(
                &r.to_string()
                    .replace("deploy@cdn.example.com", "cdn.example.com"),
            )
            .unwrap()
        })
        .collect();
    let (_dir, path) = written(&records);
    let (report, _) = audit_json(&path, &[]);
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["regenerated"], "cdn.example.com");
}

/// The same substitute working on a retry says the failure had another cause (a
/// quoting slip, a flaky network): no harm.
#[test]
fn a_retry_that_works_on_the_same_value_clears_it() {
    let mut records = Vec::new();
    for record in ssh_sample() {
        let before_recovery = record.to_string().contains(r#""id":"toolu_13""#);
        if before_recovery {
            records.push(call(
                &record,
                "toolu_retry",
                "ssh deploy@cdn.example.com uptime",
            ));
            records.push(answer(&record, "toolu_retry", " 10:00:01 up 3 days", false));
        }
        records.push(record);
    }
    let (_dir, path) = written(&records);
    let (report, _) = audit_json(&path, &[]);
    assert!(
        !finding_kinds(&report).contains(&"regenerated_binding".to_owned()),
        "{report:#}"
    );
}

/// What the harm cost: the calls from the failed step to the recovery, and the model
/// tokens of the requests in between, in the finding, the compaction's line of `audit`,
/// and the export.
#[test]
fn the_harm_says_what_it_cost() {
    let records: Vec<Value> = ssh_sample()
        .into_iter()
        .map(|mut r| {
            if r["type"] == "assistant" {
                r["message"]["usage"] = json!({"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 0});
            }
            r
        })
        .collect();
    let (_dir, path) = written(&records);
    let (report, _) = audit_json(&path, &[]);
    let finding = first_finding(&report, "regenerated_binding");
    // toolu_10 and toolu_13, each a request of 1,120 tokens, and the text between.
    assert_eq!(
        finding["cost"],
        json!({"steps": 2, "tokens": 3360}),
        "{finding:#}"
    );
    assert_eq!(report["compactions"][0]["harm_cost"], finding["cost"]);
    // The address itself was found again by reading the workflow: one call, one request.
    let address = report["compactions"][0]["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["token"] == "203.0.113.7")
        .unwrap()
        .clone();
    assert_eq!(address["reused"], "re-derived");
    assert_eq!(
        address["rederived_cost"],
        json!({"steps": 1, "tokens": 1120}),
        "{address:#}"
    );
    let message = finding["message"].as_str().unwrap();
    assert!(message.ends_with(": 2 steps, 3360 tokens"), "{message}");
    let out = ctxlens().arg("audit").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("harm cost 2 steps, 3360 tokens"), "{text}");
    let out = ctxlens()
        .args(["export", "--format", "markdown"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("harm cost 2 steps, 3360 tokens"), "{text}");
}

/// A container named by two `docker` calls before the compaction and dropped by the
/// summary; after it, the agent guesses another name ("No such container") and finds
/// the right one only by listing the containers.
fn container_session(uses_before: usize) -> Vec<Value> {
    let sample = ssh_sample();
    let like = sample[2].clone();
    let mut out = vec![sample[0].clone()];
    for n in 0..uses_before {
        let id = format!("toolu_d{n}");
        out.push(call(
            &like,
            &id,
            "docker exec adelie-backend-api python manage.py check",
        ));
        out.push(answer(
            &like,
            &id,
            "System check identified no issues",
            false,
        ));
    }
    let (boundary, summary) = (sample[8].clone(), {
        let mut s = sample[9].clone();
        s["message"]["content"] = Value::from(
            "This session is being continued from a previous conversation. Summary: the backend's checks pass; next, run the migrations in the backend container.",
        );
        s
    });
    out.push(boundary);
    out.push(summary);
    out.push(call(
        &like,
        "toolu_g",
        "docker exec adelie-backend python manage.py migrate",
    ));
    out.push(answer(
        &like,
        "toolu_g",
        "Exit code 1\nError response from daemon: No such container: adelie-backend",
        true,
    ));
    out.push(call(&like, "toolu_ps", "docker ps --format '{{.Names}}'"));
    out.push(answer(
        &like,
        "toolu_ps",
        "adelie-backend-api\nadelie-db",
        false,
    ));
    out.push(call(
        &like,
        "toolu_m",
        "docker exec adelie-backend-api python manage.py migrate",
    ));
    out.push(answer(
        &like,
        "toolu_m",
        "Applying 0042_feedback... OK",
        false,
    ));
    out
}

#[test]
fn a_container_known_by_its_role_and_guessed_after_the_summary_dropped_it() {
    let (_dir, path) = written(&container_session(2));
    let (report, _) = audit_json(&path, &["--tokens"]);
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["token"], "adelie-backend-api");
    assert_eq!(finding["regenerated"], "adelie-backend");
    let dropped = &report["compactions"][0]["dropped_tokens"];
    assert!(
        dropped
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["token"] == "adelie-backend-api" && t["class"] == "container"),
        "{dropped:#}"
    );
    // Named once before the compaction, a short name is no identifier yet.
    let (_dir, path) = written(&container_session(1));
    let (report, _) = audit_json(&path, &[]);
    assert!(!finding_kinds(&report).contains(&"regenerated_binding".to_owned()));
}

/// A Codex rollout line.
fn codex(kind: &str, payload: Value) -> Value {
    json!({"timestamp": "2026-11-21T09:00:00.000Z", "type": kind, "payload": payload})
}

fn exec(id: &str, cmd: &str) -> Value {
    codex(
        "response_item",
        json!({"type": "function_call", "name": "exec_command", "arguments": json!({"cmd": cmd}).to_string(), "call_id": id}),
    )
}

fn poll(id: &str, session: u64) -> Value {
    codex(
        "response_item",
        json!({"type": "function_call", "name": "write_stdin", "arguments": json!({"session_id": session, "chars": ""}).to_string(), "call_id": id}),
    )
}

fn output(id: &str, text: &str) -> Value {
    codex(
        "response_item",
        json!({"type": "function_call_output", "call_id": id, "output": text}),
    )
}

/// Codex's long-running exec sessions: the call answers "Process running with session
/// ID N", and the agent polls it with `write_stdin`; what the poll shows is the
/// call's outcome.
#[test]
fn a_codex_exec_session_polled_later_carries_its_calls_failure() {
    let records = vec![
        codex("session_meta", json!({"id": "0199aa00-1111-7222-8333-444455556666", "cwd": "/home/dev/shop", "originator": "codex_cli_rs", "cli_version": "0.146.0"})),
        codex("response_item", json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Deploy the build to the server."}]})),
        exec("call_1", "ssh deploy@203.0.113.7 uptime"),
        output("call_1", "Process exited with code 0\nOutput:\n up 3 days"),
        exec("call_2", "scp dist.tar.gz deploy@203.0.113.7:/srv/releases/"),
        output("call_2", "Process exited with code 0\nOutput:\n"),
        codex("compacted", json!({"message": "The user wants the build deployed; it was uploaded to the server over SSH. Next: unpack it and restart the service.", "replacement_history": []})),
        exec("call_3", "ssh cdn.example.com 'tar -xzf /srv/releases/dist.tar.gz -C /srv/app'"),
        output("call_3", "Process running with session ID 4964\nOriginal token count: 0\nOutput:\n"),
        poll("call_4", 4964),
        output("call_4", "Process exited with code 255\nOutput:\nssh: connect to host cdn.example.com port 22: Connection timed out"),
        exec("call_5", "grep -n HOST .github/workflows/deploy.yml"),
        output("call_5", "Process exited with code 0\nOutput:\n12: DEPLOY_HOST: 203.0.113.7"),
        exec("call_6", "ssh deploy@203.0.113.7 'tar -xzf /srv/releases/dist.tar.gz -C /srv/app'"),
        output("call_6", "Process exited with code 0\nOutput:\n"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2026-11-21T09-00-00-0199aa00-1111-7222-8333-444455556666.jsonl");
    std::fs::write(
        &path,
        records.iter().map(|r| format!("{r}\n")).collect::<String>(),
    )
    .unwrap();
    let (report, _) = audit_json(&path, &[]);
    assert_eq!(report["format"], "codex");
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["token"], "203.0.113.7");
    assert_eq!(finding["regenerated"], "cdn.example.com");
    assert!(
        finding["step"].as_str().unwrap().contains("call_3"),
        "{finding:#}"
    );
    assert!(finding["outcome"].is_string(), "{finding:#}");
    assert!(
        finding["recovered"].as_str().unwrap().contains("call_6"),
        "{finding:#}"
    );
}

/// The same file looked for in another folder after the summary dropped its path, and
/// found again only at the dropped path.
#[test]
fn the_same_file_looked_for_in_another_folder() {
    let sample = ssh_sample();
    let like = sample[2].clone();
    let mut records = vec![sample[0].clone()];
    records.push(call(&like, "toolu_c1", "cat deploy/nginx/site.conf"));
    records.push(answer(&like, "toolu_c1", "server { listen 8080; }", false));
    records.push(sample[8].clone());
    let mut summary = sample[9].clone();
    summary["message"]["content"] = Value::from(
        "This session is being continued from a previous conversation. Summary: the nginx site listens on 8080; next, switch it to 8081.",
    );
    records.push(summary);
    records.push(call(
        &like,
        "toolu_g",
        "sed -i s/8080/8081/ nginx/site.conf",
    ));
    records.push(answer(
        &like,
        "toolu_g",
        "Exit code 2\nsed: can't read nginx/site.conf: No such file or directory",
        true,
    ));
    records.push(call(&like, "toolu_f", "find . -name site.conf"));
    records.push(answer(&like, "toolu_f", "./deploy/nginx/site.conf", false));
    records.push(call(
        &like,
        "toolu_s",
        "sed -i s/8080/8081/ deploy/nginx/site.conf",
    ));
    records.push(answer(&like, "toolu_s", "", false));
    let (_dir, path) = written(&records);
    let (report, _) = audit_json(&path, &[]);
    let finding = first_finding(&report, "regenerated_binding");
    assert_eq!(finding["token"], "deploy/nginx/site.conf");
    assert_eq!(finding["regenerated"], "nginx/site.conf");
    assert!(finding["recovered"].as_str().unwrap().contains("toolu_s"));
}
