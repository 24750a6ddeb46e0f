#!/usr/bin/env bash
# The live loop against the REAL Claude Code, Codex CLI and Qwen Code clients (pinned, from
# the npm registry), talking to a scripted model API on loopback (fake_model.py) inside a
# network namespace that has only loopback. ctxlens's hooks are installed as a user
# would install them, and each check is a point of the hold-and-decide loop:
#
#   a held compaction's decision is the decision of the compaction that lands;
#   a decision that differs from the gate is recorded as an override;
#   a decision after the hold ended is refused (exit 2) and nothing is written;
#   the held hook sleeps (CPU ticks counted while it waits);
#   a refuse blocks Claude Code with one line of reason;
#   Codex puts the spill handle and a preserved contract back into the model's context;
#   Qwen Code's held compression waits, a preserve reaches its summariser, and a refuse
#   (which it cannot carry out) is not recorded;
#   Copilot CLI's compaction is recorded by the observing hook as it starts;
#   OpenCode's compaction is held by ctxlens's plugin, and a preserve reaches its summariser;
#   Gemini CLI's compression, which leaves no marker, is read as one compaction.
#
#   bash tests/real-clients/run.sh      # after cargo build; CTXLENS=path to use another binary
#
# It skips (exit 0, with a notice; exit 1 under CI) where npm, python3, jq or a network namespace is
# missing, or the registry cannot be reached. Exit 1 when any check fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CTXLENS=${CTXLENS:-$ROOT/target/debug/ctxlens}
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
QWEN_CODE_VERSION=0.24.4
COPILOT_VERSION=1.0.102
OPENCODE_VERSION=1.18.33
GEMINI_VERSION=0.61.0
NPM=${CTXLENS_REAL_CLIENTS_NPM:-$ROOT/target/real-clients/npm}
STATE=${CTXLENS_REAL_CLIENTS_STATE:-$ROOT/target/real-clients/state}

# Under CI, which installs everything this needs, a skip is a failure.
skip() {
  if [ -n "${CI:-}" ]; then echo "real clients: $* (CI must have it)"; exit 1; fi
  echo "real clients: skipped: $*"; exit 0
}

if [ -z "${CTXLENS_REAL_CLIENTS_NETNS:-}" ]; then
  for tool in npm node python3 jq unshare ip pgrep curl; do
    command -v "$tool" >/dev/null || skip "no $tool on this machine"
  done
  unshare -n true 2>/dev/null || skip "cannot make a network namespace here (unshare -n)"
  [ -x "$CTXLENS" ] || { echo "real clients: no ctxlens at $CTXLENS (cargo build first)"; exit 1; }
  if [ ! -x "$NPM/node_modules/.bin/claude" ] || [ ! -x "$NPM/node_modules/.bin/codex" ] \
     || [ ! -x "$NPM/node_modules/.bin/qwen" ] || [ ! -x "$NPM/node_modules/.bin/copilot" ] \
     || [ ! -x "$NPM/node_modules/opencode-linux-x64/bin/opencode" ] \
     || [ ! -x "$NPM/node_modules/.bin/gemini" ]; then
    mkdir -p "$NPM"
    npm install --silent --no-audit --no-fund --prefix "$NPM" \
      "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" \
      "@qwen-code/qwen-code@$QWEN_CODE_VERSION" "@github/copilot@$COPILOT_VERSION" \
      "opencode-ai@$OPENCODE_VERSION" "@google/gemini-cli@$GEMINI_VERSION" >/dev/null 2>&1 \
      || skip "npm could not install the pinned clients"
  fi
  exec unshare -n env CTXLENS_REAL_CLIENTS_NETNS=1 CTXLENS="$CTXLENS" NPM="$NPM" STATE="$STATE" bash "$0" "$@"
fi

# ------------------------------------------------------------ inside the namespace
ip link set lo up
rm -rf "$STATE"
mkdir -p "$STATE"/{home,codexhome,work,cwork,qwork,logs}
L=$STATE/logs
export PATH=$NPM/node_modules/.bin:$PATH HOME=$STATE/home CODEX_HOME=$STATE/codexhome
export ANTHROPIC_API_KEY=sk-test FAKE_KEY=sk-test NO_PROXY=127.0.0.1,localhost
export DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1
unset CLAUDE_CONFIG_DIR CLAUDECODE CLAUDE_CODE_ENTRYPOINT OPENAI_API_KEY OPENAI_BASE_URL CTXLENS_NATS_URL USER
REV=4f9a2c81d0e7
PASSED=0; FAILED=0
SERVER=
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null' EXIT

check() { # check NAME CMD...: one point; CMD succeeds when it holds
  local name=$1; shift
  if ( "$@" ) >/dev/null 2>&1; then PASSED=$((PASSED+1)); echo "ok    $name"
  else FAILED=$((FAILED+1)); echo "FAIL  $name"; fi
}
wait_for() { # wait_for SECONDS CMD...
  local end=$(( $(date +%s) + $1 )); shift
  until ( "$@" ) >/dev/null 2>&1; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.1; done
}
serve() { # serve NAME: a fresh model server; sets SLOG and the clients' endpoints
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
  SLOG=$L/$1.server.log; rm -f "$L/$1.port"
  FAKE_WORK=$2 python3 "$HERE/fake_model.py" "$SLOG" "$L/$1.port" & SERVER=$!
  wait_for 10 test -f "$L/$1.port" || { echo "FAIL  the model server did not start"; exit 1; }
  PORT=$(cat "$L/$1.port")
  export ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT HTTPS_PROXY=http://127.0.0.1:$PORT HTTP_PROXY=http://127.0.0.1:$PORT
}
held_count() { jq -s '[.[]|select(.event=="pre-compact")]|length' "$1.ctxlens-ledger.jsonl" 2>/dev/null || echo 0; }
wait_held() { wait_for 60 bash -c "[ \$(jq -s '[.[]|select(.event==\"pre-compact\")]|length' '$1.ctxlens-ledger.jsonl' 2>/dev/null || echo 0) -ge $2 ]"; }
hook_pid() { pgrep -n -f "ctxlens hook $1 pre-compact --hold"; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
audit() { "$CTXLENS" audit --json "$1" > "$2"; echo $? > "$2.rc"; }
unresolved_errors() { jq '[.findings[]|select(.severity=="error" and .resolved_by==null)]|length' "$1"; }
next_request_has() { jq -s --arg s "$2" '[.[]|select(.kind=="text")]|last|(.body|tostring|contains($s))' "$1" | grep -q true; }
export -f ticks

# ============================================================ Claude Code
cat > "$HOME/.claude.json" <<JSON
{"hasCompletedOnboarding": true, "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
 "projects": {"$STATE/work": {"hasTrustDialogAccepted": true}}}
JSON
CLAUDE=(claude --allowedTools Bash --output-format stream-json --verbose)
projects() { echo "$HOME/.claude/projects/$(echo "$STATE/work" | sed 's#[^A-Za-z0-9]#-#g')"; }
cc_task() { # cc_task NAME: a new session that records the revision; sets SID and T
  ( cd "$STATE/work" && timeout 120 "${CLAUDE[@]}" -p "Please record the deploy revision now." \
      < /dev/null > "$L/$1.task.jsonl" 2> "$L/$1.task.err" )
  SID=$(head -1 "$L/$1.task.jsonl" | jq -r .session_id)
  T=$(projects)/$SID.jsonl
}
cc_turn() { # cc_turn NAME PROMPT
  ( cd "$STATE/work" && timeout 300 "${CLAUDE[@]}" --resume "$SID" -p "$2" < /dev/null > "$L/$1.jsonl" 2> "$L/$1.err" )
}
boundaries() { jq -c 'select(.subtype=="compact_boundary")' "$1" 2>/dev/null | wc -l; }

"$CTXLENS" hook claude-code install --hold --timeout 60 > "$L/cc-install.out" 2>&1
check "claude-code: install --hold names the binary the hooks run" grep -q "the hooks run $CTXLENS" "$L/cc-install.out"

# A held compaction, spilled by an operator; the compaction lands.
serve cc-spill "$STATE/work"
cc_task cc-spill
cc_turn cc-spill.compact /compact & TURN=$!
if wait_held "$T" 1; then
  PID=$(hook_pid claude-code); sleep 0.5; T0=$(ticks "$PID"); sleep 3; T1=$(ticks "$PID")
  check "claude-code: the held hook sleeps (CPU ticks in 3 s: $((T1 - T0)), at most 3)" test $((T1 - T0)) -le 3
  "$CTXLENS" decide "$T" pre-compact-1 spill --by ops > /dev/null
  wait $TURN
  cc_turn cc-spill.next "Continue with the smoke tests."
  audit "$T" "$L/cc-spill.audit.json"
  check "claude-code: the landed compaction carries the spill (held_as pre-compact-1)" \
    jq -e '.compactions[0].held_as=="pre-compact-1" and .compactions[0].decision.verdict=="spill"' "$L/cc-spill.audit.json"
  check "claude-code: a handled compaction passes audit (exit 0, no unresolved error)" \
    bash -c "[ \$(cat '$L/cc-spill.audit.json.rc') = 0 ] && [ \$(jq '[.findings[]|select(.severity==\"error\" and .resolved_by==null)]|length' '$L/cc-spill.audit.json') = 0 ]"
  H=$(jq -r 'select(.verdict=="spill")|.handle' "$T.decisions.jsonl")
  check "claude-code: the model's next request carries the spill handle" next_request_has "$SLOG" "${H#sha256:}"
else
  wait $TURN; check "claude-code: the pre-compact hook holds" false
fi

# An approve where the gate says spill: an override.
serve cc-override "$STATE/work"
cc_task cc-override
cc_turn cc-override.compact /compact & TURN=$!
if wait_held "$T" 1; then
  "$CTXLENS" decide "$T" pre-compact-1 approve --by ops > /dev/null
  wait $TURN
  check "claude-code: an approve against the gate's spill is recorded as an override" \
    jq -se 'any(.[]; .verdict=="approve" and .override==true)' "$T.decisions.jsonl"
  audit "$T" "$L/cc-override.audit.json"
  check "claude-code: audit shows the approve on the landed compaction" \
    jq -e '.compactions[0].decision.verdict=="approve"' "$L/cc-override.audit.json"
else
  wait $TURN; check "claude-code: the pre-compact hook holds (override)" false
fi

# A refuse: Claude Code blocks the compaction and shows one line of reason.
serve cc-refuse "$STATE/work"
cc_task cc-refuse
cc_turn cc-refuse.compact /compact & TURN=$!
if wait_held "$T" 1; then
  "$CTXLENS" decide "$T" pre-compact-1 refuse --by ops > /dev/null
  wait $TURN
  REASON=$(jq -r 'select(.compact_error!=null)|.compact_error' "$L/cc-refuse.compact.jsonl" | tail -1)
  check "claude-code: refuse blocks the compaction" bash -c "[ $(boundaries "$T") = 0 ]"
  check "claude-code: the block's reason is one line ($(echo "$REASON" | wc -l) lines)" \
    bash -c "[ \$(printf '%s' \"\$0\" | grep -c 'ctxlens hook:') = 0 ] && printf '%s' \"\$0\" | grep -q 'refused by ops'" "$REASON"
else
  wait $TURN; check "claude-code: the pre-compact hook holds (refuse)" false
fi

# No decision before the timeout: the compaction lands, and a late decision is refused.
"$CTXLENS" hook claude-code install --hold --timeout 2 > /dev/null 2>&1
serve cc-late "$STATE/work"
cc_task cc-late
cc_turn cc-late.compact /compact
cp "$T.decisions.jsonl" "$L/cc-late.before" 2>/dev/null || : > "$L/cc-late.before"
"$CTXLENS" decide "$T" pre-compact-1 refuse --by late > /dev/null 2> "$L/cc-late.err"; RC=$?
check "claude-code: a decision after the hold timed out exits 2 and says so" \
  bash -c "[ $RC = 2 ] && grep -q 'timed out' '$L/cc-late.err' && [ \$(wc -l < '$L/cc-late.err') = 1 ]"
check "claude-code: nothing is written for the late decision" \
  bash -c "[ ! -s '$T.decisions.jsonl' ] || cmp -s '$T.decisions.jsonl' '$L/cc-late.before'"
"$CTXLENS" hook claude-code uninstall > /dev/null 2>&1
check "claude-code: uninstall leaves no ctxlens hook" \
  bash -c "! grep -q 'ctxlens hook' '$HOME/.claude/settings.json' 2>/dev/null"

# ============================================================ Codex CLI
serve cx "$STATE/cwork"
cat > "$CODEX_HOME/config.toml" <<TOML
model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "FAKE_KEY"
request_max_retries = 0
stream_max_retries = 0
TOML
"$CTXLENS" hook codex install --hold --timeout 60 > "$L/cx-install.out" 2>&1
check "codex: install says how to trust the hooks, and never writes the trust" \
  bash -c "grep -q 'Hooks need review' '$L/cx-install.out' && ! grep -q trusted_hash '$CODEX_HOME/config.toml'"
"$CTXLENS" hook codex status > "$L/cx-status.out"; RC=$?
check "codex: status says installed and current, not trusted (exit 1)" \
  bash -c "[ $RC = 1 ] && grep -q 'installed: yes' '$L/cx-status.out' && grep -q 'trusted: no' '$L/cx-status.out'"
# The operator's trust stands in for the TUI review here: --dangerously-bypass-hook-trust.
CODEX=(codex exec --skip-git-repo-check --dangerously-bypass-hook-trust --json)
cx_task() { # cx_task NAME: sets SID and T
  serve "$1" "$STATE/cwork"
  ( cd "$STATE/cwork" && timeout 120 "${CODEX[@]}" -c "model_providers.fake.base_url=\"http://127.0.0.1:$PORT/v1\"" \
      "Please record the deploy revision now." < /dev/null > "$L/$1.task.jsonl" 2> "$L/$1.task.err" )
  SID=$(head -1 "$L/$1.task.jsonl" | jq -r .thread_id)
  T=$(find "$CODEX_HOME/sessions" -name "rollout-*$SID.jsonl" | head -1)
}
cx_auto() { # cx_auto NAME: resumes with a tiny auto-compact limit, so Codex compacts first
  ( cd "$STATE/cwork" && timeout 300 "${CODEX[@]}" -c "model_providers.fake.base_url=\"http://127.0.0.1:$PORT/v1\"" \
      -c model_auto_compact_token_limit=1000 resume "$SID" "Continue with the smoke tests." \
      < /dev/null > "$L/$1.jsonl" 2> "$L/$1.err" )
}
compacted() { jq -c 'select(.type=="compacted")' "$1" | wc -l; }

cx_task cx-spill
cx_auto cx-spill.auto & TURN=$!
if wait_held "$T" 1; then
  PID=$(hook_pid codex); sleep 0.5; T0=$(ticks "$PID"); sleep 3; T1=$(ticks "$PID")
  check "codex: the held hook sleeps (CPU ticks in 3 s: $((T1 - T0)), at most 3)" test $((T1 - T0)) -le 3
  "$CTXLENS" decide "$T" pre-compact-1 spill --by ops > /dev/null
  wait $TURN
  audit "$T" "$L/cx-spill.audit.json"
  check "codex: the landed compaction carries the spill (held_as pre-compact-1)" \
    jq -e '.compactions[0].held_as=="pre-compact-1" and .compactions[0].decision.verdict=="spill"' "$L/cx-spill.audit.json"
  check "codex: a handled compaction passes audit (exit 0)" bash -c "[ \$(cat '$L/cx-spill.audit.json.rc') = 0 ]"
  H=$(jq -r 'select(.verdict=="spill")|.handle' "$T.decisions.jsonl")
  check "codex: SessionStart puts the spill handle into the model's next request" next_request_has "$SLOG" "${H#sha256:}"
else
  wait $TURN; check "codex: the pre-compact hook holds" false
fi

cx_task cx-preserve
cx_auto cx-preserve.auto & TURN=$!
if wait_held "$T" 1; then
  "$CTXLENS" decide "$T" pre-compact-1 preserve --by ops > /dev/null
  wait $TURN
  check "codex: preserve of an auto-compaction lets it land, and the turn goes on" \
    bash -c "[ $(compacted "$T") = 1 ] && ! grep -q turn_aborted '$T'"
  check "codex: the contract reaches the model's next request" next_request_has "$SLOG" "Keep these identifiers verbatim"
else
  wait $TURN; check "codex: the pre-compact hook holds (preserve)" false
fi
"$CTXLENS" hook codex uninstall > /dev/null 2>&1
check "codex: uninstall removes the hooks.json install made" test ! -e "$CODEX_HOME/hooks.json"

# ============================================================ Qwen Code
mkdir -p "$HOME/.qwen"
# A comment, which Qwen Code accepts in its settings: install keeps it, and the real
# client goes on reading the file (every Qwen Code check below runs with it).
cat > "$HOME/.qwen/settings.json" <<JSON
// the operator's own note
{"security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
 "general": {"disableAutoUpdate": true}, "privacy": {"usageStatisticsEnabled": false},
 "telemetry": {"enabled": false}}
JSON
export OPENAI_API_KEY=sk-test OPENAI_MODEL=qwen-fake QWEN_CODE_SUPPRESS_YOLO_WARNING=1
qw() { # qw NAME ARGS...: one non-interactive turn in a fresh project folder per scenario
  ( cd "$QWORK" && OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 timeout 300 qwen --yolo "${@:2}" \
      < /dev/null > "$L/$1.out" 2> "$L/$1.err" )
}
qw_task() { # qw_task NAME: a new session that records the revision; sets T
  QWORK=$STATE/qwork/$1; mkdir -p "$QWORK"
  serve "$1" "$QWORK"
  qw "$1.task" "Please record the deploy revision now."
  T=$(ls -t "$HOME"/.qwen/projects/*/chats/*.jsonl 2>/dev/null | grep -v ctxlens | head -1)
}
compact_request_has() { jq -s --arg s "$2" '[.[]|select(.kind=="compact")]|last|(.body|tostring|contains($s))' "$1" | grep -q true; }

"$CTXLENS" hook qwen-code install > "$L/qw-install.out" 2>&1
check "qwen-code: install writes PreCompact and PostCompact into settings.json, keeping the rest" \
  sh -c "grep -q '^// the operator' '$HOME/.qwen/settings.json' && grep -v '^//' '$HOME/.qwen/settings.json' | jq -e '(.hooks.PreCompact|length)==1 and (.hooks.PostCompact|length)==1 and .security.auth.selectedType==\"openai\"'"
"$CTXLENS" hook qwen-code status > /dev/null 2>&1
check "qwen-code: status says installed and current (exit 0)" test $? = 0

# Not held: the hook tells the summariser what to keep, and records what it dropped.
qw_task qw-observe
qw qw-observe.compact --continue /compress
qw qw-observe.next --continue "Roll back if the smoke tests failed."
check "qwen-code: the summariser is asked to keep $REV verbatim (PreCompact additionalContext)" \
  compact_request_has "$SLOG" "Copy each into the summary verbatim:\\n- $REV"
check "qwen-code: PostCompact records $REV as dropped by the summary" \
  jq -se --arg r "$REV" 'any(.[]; .event=="post-compact" and any(.dropped[]; .token==$r))' "$T.ctxlens-ledger.jsonl"
check "qwen-code: --continue goes on in the same session beside ctxlens's files" \
  bash -c "[ \$(grep -c 'Roll back if the smoke tests failed' '$T') -ge 1 ]"
"$CTXLENS" audit --json --tokens "$T" > "$L/qw-observe.audit.json"
check "qwen-code: audit reads qwen-code, one manual compaction, $REV dropped" \
  jq -e --arg r "$REV" '.format=="qwen-code" and (.compactions|length)==1 and .compactions[0].trigger=="manual"
    and any(.compactions[0].dropped_tokens[]; .token==$r)' "$L/qw-observe.audit.json"

# Held: the compression waits, a refuse is not recorded, a preserve reaches the summariser.
"$CTXLENS" hook qwen-code install --hold --timeout 60 > /dev/null 2>&1
qw_task qw-preserve
qw qw-preserve.compact --continue /compress & TURN=$!
if wait_held "$T" 1; then
  PID=$(hook_pid qwen-code); sleep 0.5; T0=$(ticks "$PID"); sleep 3; T1=$(ticks "$PID")
  check "qwen-code: the held hook sleeps (CPU ticks in 3 s: $((T1 - T0)), at most 3)" test $((T1 - T0)) -le 3
  check "qwen-code: the compression waits while held (no summary asked for)" \
    bash -c "! jq -e 'select(.kind==\"compact\")' '$SLOG' > /dev/null"
  "$CTXLENS" decide "$T" pre-compact-1 refuse --by ops > /dev/null 2> "$L/qw-refuse.err"; RC=$?
  check "qwen-code: a refuse is not recorded (Qwen Code cannot block), and says so" \
    bash -c "[ $RC != 0 ] && grep -q 'cannot block' '$L/qw-refuse.err' && [ ! -s '$T.decisions.jsonl' ]"
  "$CTXLENS" decide "$T" pre-compact-1 preserve --by ops > /dev/null
  wait $TURN
  check "qwen-code: the preserved contract reaches the summariser" \
    compact_request_has "$SLOG" "Keep these identifiers verbatim"
  audit "$T" "$L/qw-preserve.audit.json"
  check "qwen-code: the landed compaction carries the preserve (held_as pre-compact-1)" \
    jq -e '.compactions[0].held_as=="pre-compact-1" and .compactions[0].decision.verdict=="preserve"' "$L/qw-preserve.audit.json"
else
  wait $TURN; check "qwen-code: the pre-compact hook holds" false
fi
"$CTXLENS" hook qwen-code uninstall > /dev/null 2>&1
check "qwen-code: uninstall leaves no ctxlens hook" bash -c "! grep -q 'ctxlens hook' '$HOME/.qwen/settings.json'"

# ============================================================ GitHub Copilot CLI
# Offline, bring-your-own-key: no GitHub login; the SEA binary unpacks itself once into
# COPILOT_CACHE_HOME, kept beside the npm install.
export COPILOT_OFFLINE=true COPILOT_PROVIDER_TYPE=anthropic COPILOT_PROVIDER_API_KEY=sk-test \
       COPILOT_MODEL=claude-sonnet-4.5 COPILOT_AUTO_UPDATE=false COPILOT_CACHE_HOME=$NPM/../copilot-cache
cp_run() { # cp_run NAME ARGS...
  ( cd "$QWORK" && COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:$PORT timeout 300 copilot "${@:2}" \
      --allow-all-tools < /dev/null > "$L/$1.out" 2> "$L/$1.err" )
}
"$CTXLENS" hook copilot-cli install > "$L/cp-install.out" 2>&1
check "copilot-cli: install writes ~/.copilot/hooks/ctxlens.json with the preCompact hook" \
  jq -e '.version==1 and (.hooks.preCompact[0].bash|test("hook copilot-cli pre-compact$"))' "$HOME/.copilot/hooks/ctxlens.json"
"$CTXLENS" hook copilot-cli install --hold > "$L/cp-hold.out" 2>&1; RC=$?
check "copilot-cli: install --hold is refused: its preCompact cannot block" \
  bash -c "[ $RC != 0 ] && grep -q 'cannot block' '$L/cp-hold.out'"
QWORK=$STATE/qwork/cp; mkdir -p "$QWORK"
serve cp "$QWORK"
cp_run cp.task -p "Please record the deploy revision now."
SID=$(ls "$HOME/.copilot/session-state" | head -1)
T=$HOME/.copilot/session-state/$SID/events.jsonl
cp_run cp.compact --resume="$SID" -p /compact
check "copilot-cli: the hook records the compaction as it starts (ledger: manual, $REV at risk, region spilled)" \
  jq -se --arg r "$REV" 'any(.[]; .event=="pre-compact" and .trigger=="manual" and .handle!=null and (.hold_until==null)
    and any(.tokens[]; .token==$r))' "$T.ctxlens-ledger.jsonl"
"$CTXLENS" audit --json --tokens "$T" > "$L/cp.audit.json"
check "copilot-cli: audit reads copilot-cli, one compaction, $REV dropped and named by an alert" \
  jq -e --arg r "$REV" '.format=="copilot-cli" and (.compactions|length)==1
    and any(.compactions[0].dropped_tokens[]; .token==$r)
    and any(.findings[]; (.message|contains($r)))' "$L/cp.audit.json"
"$CTXLENS" hook copilot-cli uninstall > /dev/null 2>&1
check "copilot-cli: uninstall removes the file install wrote" test ! -e "$HOME/.copilot/hooks/ctxlens.json"

# ============================================================ OpenCode
# Its bundled Anthropic provider pointed at the model server; no fetch at run time.
OPENCODE=$NPM/node_modules/opencode-linux-x64/bin/opencode
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
       OPENCODE_DISABLE_SHARE=1
QWORK=$STATE/qwork/oc; mkdir -p "$QWORK" "$HOME/.config/opencode"
serve oc "$QWORK"
cat > "$HOME/.config/opencode/opencode.json" <<JSON
{"autoupdate": false, "share": "disabled", "model": "fake/claude-fake", "small_model": "fake/claude-fake",
 "provider": {"fake": {"npm": "@ai-sdk/anthropic", "name": "Fake",
   "options": {"baseURL": "http://127.0.0.1:$PORT/v1", "apiKey": "sk-test"},
   "models": {"claude-fake": {"name": "Fake", "tool_call": true, "limit": {"context": 200000, "output": 8000}}}}},
 "permission": {"bash": "allow", "edit": "allow"}}
JSON
"$CTXLENS" hook opencode install --hold --timeout 60 > "$L/oc-install.out" 2>&1
check "opencode: install --hold writes the plugin, which runs the held hook" \
  grep -q '"hook", "opencode", "pre-compact", "--hold", "--timeout", "60"' "$HOME/.config/opencode/plugins/ctxlens.js"
( cd "$QWORK" && timeout 180 "$OPENCODE" run --format json "Please record the deploy revision now." \
    < /dev/null > "$L/oc.task.jsonl" 2> "$L/oc.task.err" )
SID=$(head -1 "$L/oc.task.jsonl" | jq -r .sessionID)
# A manual compaction, as OpenCode's /compact asks its server for one.
SPORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
( cd "$QWORK" && exec "$OPENCODE" serve --port "$SPORT" --hostname 127.0.0.1 > "$L/oc.serve.out" 2>&1 ) & OCS=$!
wait_for 30 curl -sf --max-time 2 "http://127.0.0.1:$SPORT/global/health"
curl -s --max-time 90 -o /dev/null "http://127.0.0.1:$SPORT/session?directory=$QWORK"
curl -s -o "$L/oc.summarize.json" -w '%{http_code}' -X POST -H 'content-type: application/json' --max-time 120 \
  "http://127.0.0.1:$SPORT/session/$SID/summarize?directory=$QWORK" \
  -d '{"providerID":"fake","modelID":"claude-fake"}' > "$L/oc.summarize.http" & TURN=$!
copy() { ls "$HOME"/.local/state/ctxlens/mirror/*/"$SID.jsonl" 2>/dev/null | head -1; }
if wait_for 90 bash -c "ls $HOME/.local/state/ctxlens/mirror/*/$SID.jsonl.ctxlens-ledger.jsonl" && T=$(copy) && wait_held "$T" 1; then
  PID=$(hook_pid opencode); sleep 0.5; T0=$(ticks "$PID"); sleep 3; T1=$(ticks "$PID")
  check "opencode: the held hook sleeps (CPU ticks in 3 s: $((T1 - T0)), at most 3)" test $((T1 - T0)) -le 3
  check "opencode: the compaction waits while held (no summary asked for)" \
    bash -c "! jq -e 'select(.kind==\"compact\")' '$SLOG' > /dev/null"
  "$CTXLENS" decide "$T" pre-compact-1 refuse --by ops > /dev/null 2> "$L/oc-refuse.err"; RC=$?
  check "opencode: a refuse is not recorded (a plugin can only defer it), and says so" \
    bash -c "[ $RC != 0 ] && grep -q 'cannot block' '$L/oc-refuse.err' && [ ! -s '$T.decisions.jsonl' ]"
  "$CTXLENS" decide "$T" pre-compact-1 preserve --by ops > /dev/null
  wait $TURN
  check "opencode: the compaction goes ahead once decided (summarize answers 200)" \
    grep -q 200 "$L/oc.summarize.http"
  check "opencode: the preserved contract and $REV reach the summariser's prompt" \
    bash -c "jq -s '[.[]|select(.kind==\"compact\")]|last|.body|tostring' '$SLOG' | grep -q 'Keep these identifiers verbatim:.*$REV'"
  "$CTXLENS" audit --json "$HOME/.local/share/opencode/opencode.db" > "$L/oc.audit.json"
  check "opencode: audit of the database shows the landed compaction with the preserve (held_as pre-compact-1)" \
    jq -e '.format=="opencode" and .compactions[0].held_as=="pre-compact-1" and .compactions[0].decision.verdict=="preserve"' "$L/oc.audit.json"
  # OpenCode's own export of the session, as its users share one, reads as the database does.
  ( cd "$QWORK" && timeout 60 "$OPENCODE" export "$SID" < /dev/null > "$L/oc.export.json" 2> "$L/oc.export.err" )
  "$CTXLENS" audit --json --tokens "$L/oc.export.json" > "$L/oc.export.audit.json" 2> "$L/oc.export.audit.err"
  check "opencode: its own export (opencode export) reads as the database: the compaction and $REV dropped" \
    jq -e --arg rev "$REV" '.format=="opencode" and (.compactions|length)==1 and ([.compactions[0].dropped_tokens[].token]|index($rev))' "$L/oc.export.audit.json"
else
  wait $TURN; check "opencode: the plugin holds the compaction" false
fi
kill "$OCS" 2>/dev/null; wait "$OCS" 2>/dev/null
"$CTXLENS" hook opencode uninstall > /dev/null 2>&1
check "opencode: uninstall removes the plugin" test ! -e "$HOME/.config/opencode/plugins/ctxlens.js"

# ============================================================ Gemini CLI
# Its PreCompress hook cannot block and runs before every turn: nothing to install; the
# recording is read. A low compression threshold compresses on the third turn.
QWORK=$STATE/qwork/gm; mkdir -p "$QWORK" "$HOME/.gemini"
serve gm "$QWORK"
cat > "$HOME/.gemini/settings.json" <<JSON
{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "general": {"disableAutoUpdate": true}, "model": {"compressionThreshold": 0.002},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}
JSON
gm() { # gm NAME ARGS...
  ( cd "$QWORK" && GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$PORT GEMINI_API_KEY=sk-test GEMINI_CLI_NO_RELAUNCH=true \
      timeout 120 gemini -m gemini-2.5-flash --yolo "${@:2}" < /dev/null > "$L/$1.out" 2> "$L/$1.err" )
}
gm gm.task -p "Please record the deploy revision now."
gm gm.next --resume latest -p "Continue with the smoke tests."
gm gm.next2 --resume latest -p "Roll back if the smoke tests failed."
T=$(ls "$HOME"/.gemini/tmp/*/chats/session-*.jsonl 2>/dev/null | head -1)
"$CTXLENS" audit --json --tokens "$T" > "$L/gm.audit.json"
check "gemini-cli: audit reads gemini-cli, one compression (a resume's message list is none), $REV dropped" \
  jq -e --arg r "$REV" '.format=="gemini-cli" and (.compactions|length)==1
    and any(.compactions[0].dropped_tokens[]; .token==$r and (.carried|not))' "$L/gm.audit.json"

echo "real clients: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
