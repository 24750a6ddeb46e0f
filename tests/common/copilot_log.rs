//! A Copilot CLI log of many compactions, each after a message naming a revision:
//! the shape whose cost once grew with the square of the compactions. Shared by the
//! guard test (`tests/scale`) and the benchmark (`benches/scale`).

/// The log's text with `n` compactions.
pub fn copilot_log(n: usize) -> String {
    let mut out = String::from(
        r#"{"type":"session.start","data":{"sessionId":"157d0ca2-5895-403c-9d82-5f4d2a10f923","selectedModel":"m","context":{"cwd":"/w"}},"id":"s","timestamp":"2026-12-04T09:08:10.131Z","parentId":null}"#,
    );
    out.push('\n');
    for i in 0..n {
        let record = |kind: &str, data: String| {
            format!(
                r#"{{"type":"{kind}","data":{data},"id":"{kind}-{i}","timestamp":"2026-12-04T09:08:11.511Z","parentId":null}}"#
            )
        };
        out += &record(
            "user.message",
            format!(r#"{{"content":"record revision {i:012x}abcd now","messageId":"m{i}"}}"#),
        );
        out.push('\n');
        out += &record(
            "session.compaction_start",
            format!(r#"{{"compactionAttemptId":"c{i}","trigger":"auto"}}"#),
        );
        out.push('\n');
        out += &record(
            "session.compaction_complete",
            format!(
                r###"{{"success":true,"outcome":"applied","compactionAttemptId":"c{i}","summaryContent":"## Objective\n- keep going"}}"###
            ),
        );
        out.push('\n');
    }
    out
}
