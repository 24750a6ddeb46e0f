#!/usr/bin/env python3
"""A scripted model API on loopback for the real Claude Code and Codex clients.

It speaks Anthropic's Messages API (POST /v1/messages), OpenAI's Responses API
(POST /v1/responses, /v1/responses/compact), OpenAI's Chat Completions API (POST
/v1/chat/completions, for Qwen Code) and Gemini's generateContent (POST
…:generateContent, …:streamGenerateContent, …:countTokens, for Gemini CLI), streamed or
not. Replies depend on the
request alone:

  task      the newest user text asks to "record the deploy revision": a shell call
            that prints the revision (the datum a summary must not lose);
  after     the newest input is that call's result: a short text without the revision;
  compact   a summarization request: a summary that leaves the revision out;
  text      anything else: a short text.

Every request is appended to LOG as a JSON line with its kind. A proxy CONNECT (the
client trying another host) is logged and refused.

usage: fake_model.py LOG PORTFILE
"""
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REVISION = "4f9a2c81d0e7"
WORK = os.environ.get("FAKE_WORK", ".")
COMMAND = f"echo deploy-rev {REVISION} > {WORK}/rev.txt && cat {WORK}/rev.txt"
SUMMARY = ("<summary>\n1. Primary Request and Intent: record the deploy revision in rev.txt "
           "before a migration, for a rollback.\n2. Pending Tasks: roll back to the previous "
           "revision if the smoke tests fail.\n</summary>")
LOCK = threading.Lock()
LOG = None


def record(entry):
    entry["t"] = time.time()
    with LOCK, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def texts(content):
    """The text of a message's content, tool results included."""
    if isinstance(content, str):
        return content
    out = []
    for block in content or []:
        if isinstance(block, dict):
            if isinstance(block.get("text"), str):
                out.append(block["text"])
            if block.get("type") == "tool_result":
                out.append(texts(block.get("content")))
    return "\n".join(out)


def asks_for_summary(text):
    low = text.lower()
    return any(p in low for p in ("summary of the conversation", "summarize the conversation",
                                  "create a detailed summary of the conversation",
                                  "create a new anchored summary", "<prior-summary>",
                                  "create a detailed summary", "create a summary")) \
        or ("checkpoint" in low and "compaction" in low) or ("summary" in low and "handoff" in low)


def anthropic_kind(body):
    messages = [m for m in body.get("messages") or [] if m.get("role") != "system"]
    last = messages[-1] if messages else {}
    text = texts(last.get("content")) if last.get("role") == "user" else ""
    if asks_for_summary(text):
        return "compact"
    tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    # Claude Code's shell tool is Bash, Copilot CLI's bash.
    if "Bash" not in tools and "bash" not in tools:
        return "side"
    content = last.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                         for b in content):
        return "after"
    # Only the user's own prompt runs the command, not Copilot's post-compaction wrapper
    # that quotes the earlier user messages.
    low = text.lower()
    if "record the deploy revision" in low and "has been summarized" not in low \
            and "<user_message>" not in low:
        return "task"
    return "text"


def openai_kind(body, path):
    if path.endswith("/responses/compact"):
        return "compact"
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    last = items[-1] if items else {}
    if last.get("type", "").endswith("call_output"):
        return "after"
    if last.get("role") == "user":
        text = texts(last.get("content"))
        if asks_for_summary(text):
            return "compact"
        if "record the deploy revision" in text.lower():
            return "task"
    instructions = (body.get("instructions") or "").lower()
    if "compaction" in instructions and "summary" in instructions and not body.get("tools"):
        return "compact"
    return "text"


def chat_kind(body):
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        return "after"
    text = texts(last.get("content")) if last.get("role") == "user" else ""
    # Qwen Code's compression asks for its <state_snapshot> in the last user message.
    if "<state_snapshot>" in text or asks_for_summary(text):
        return "compact"
    if not body.get("tools"):
        return "side"
    return "task" if "record the deploy revision" in text.lower() else "text"


def chat_reply(kind, body):
    """(text, tool call or None) of a Chat Completions reply."""
    if kind == "compact":
        return ("<analysis>The user recorded a revision.</analysis>\n<state_snapshot>\n"
                "<overall_goal>Record the deploy revision in rev.txt before a migration, for a "
                "rollback.</overall_goal>\n<task_state>Pending: roll back to the previous revision "
                "if the smoke tests fail.</task_state>\n</state_snapshot>"), None
    if kind == "task":
        names = [(t.get("function") or {}).get("name") for t in body.get("tools") or []]
        name = next((n for n in names if n and "shell" in n), "run_shell_command")
        return "Recording the revision.", {"id": "call_" + uuid.uuid4().hex[:20], "type": "function",
                                           "function": {"name": name, "arguments": json.dumps(
                                               {"command": COMMAND, "description": "Record the deploy revision"})}}
    if kind == "after":
        return "Done: the revision is recorded in rev.txt.", None
    if kind == "side":
        return json.dumps({"title": "Deploy"}), None
    return "OK, noted.", None


def gemini_reply(body):
    """(kind, parts, prompt tokens) of a Gemini answer. The shell call's output is long,
    so that a low compression threshold compresses the history on the next turn."""
    contents = body.get("contents") or []
    last = contents[-1] if contents else {}
    parts = last.get("parts") or []
    system = json.dumps(body.get("systemInstruction", body.get("system_instruction", "")))
    if "state_snapshot" in system or "state_snapshot" in json.dumps(contents[-1:]):
        return "compact", [{"text": SNAPSHOT}], 1200
    if "next_speaker" in json.dumps(body):
        return "side", [{"text": json.dumps({"reasoning": "done", "next_speaker": "user"})}], 100
    if any("functionResponse" in p for p in parts):
        return "after", [{"text": "Done: the revision is recorded in rev.txt."}], 3000
    text = " ".join(p.get("text", "") for p in parts).lower()
    if "record the deploy revision" in text:
        return "task", [{"functionCall": {"name": "run_shell_command", "args": {
            "command": COMMAND + " && seq 100000 104000", "description": "Record the deploy revision"}}}], 2500
    return "text", [{"text": "OK, noted."}], 3000


SNAPSHOT = ("<state_snapshot>\n<overall_goal>Record the deploy revision in rev.txt before a migration, "
            "for a rollback.</overall_goal>\n<task_state>Pending: roll back to the previous revision if "
            "the smoke tests fail.</task_state>\n</state_snapshot>")


def anthropic_reply(kind, body):
    if kind == "compact":
        return [{"type": "text", "text": SUMMARY}], "end_turn"
    if kind == "task":
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        return [{"type": "text", "text": "Recording the revision."},
                {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:24],
                 "name": "bash" if "bash" in tools else "Bash",
                 "input": {"command": COMMAND, "description": "Record the deploy revision"}}], "tool_use"
    if kind == "after":
        return [{"type": "text", "text": "Done: the revision is recorded in rev.txt."}], "end_turn"
    if kind == "side":
        return [{"type": "text", "text": json.dumps({"title": "Deploy", "isNewTopic": False})}], "end_turn"
    return [{"type": "text", "text": "OK, noted."}], "end_turn"


def shell_tool(body):
    names = [t.get("name") or (t.get("function") or {}).get("name") for t in body.get("tools") or []]
    for wanted in ("shell_command", "shell", "exec_command", "local_shell"):
        if wanted in names:
            return wanted
    return "shell_command"


def message(text):
    return {"type": "message", "role": "assistant", "id": "msg_" + uuid.uuid4().hex[:20],
            "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}


def openai_output(kind, body):
    if kind == "compact":
        return [message(SUMMARY)]
    if kind == "task":
        name = shell_tool(body)
        if name == "shell":
            args = {"command": ["bash", "-lc", COMMAND], "workdir": WORK}
        elif name == "exec_command":
            args = {"cmd": COMMAND, "workdir": WORK}
        else:
            args = {"command": COMMAND, "workdir": WORK}
        return [message("Recording the revision."),
                {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20], "status": "completed",
                 "call_id": "call_" + uuid.uuid4().hex[:20], "name": name, "arguments": json.dumps(args)}]
    return [message("Done: the revision is recorded in rev.txt." if kind == "after" else "OK, noted.")]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def json_reply(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream_start(self):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()

    def event(self, name, data):
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def do_CONNECT(self):
        record({"method": "CONNECT", "path": self.path})
        self.send_response(403)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        record({"method": "GET", "path": self.path})
        if self.path.split("?")[0].endswith("/models"):
            self.json_reply(200, {"object": "list", "data": [{"id": "gpt-fake", "object": "model"}], "models": []})
        else:
            self.json_reply(404, {"error": {"message": "not here"}})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.headers.get("content-encoding") == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        path = self.path.split("?")[0]
        entry = {"method": "POST", "path": self.path, "body": body}
        if body is None or self.path.startswith("http"):
            record(entry)
            self.json_reply(403, {"error": {"message": "refused"}})
        elif path.endswith("/v1/messages/count_tokens"):
            record(entry)
            self.json_reply(200, {"input_tokens": 1000})
        elif path.endswith("/v1/messages"):
            entry["kind"] = anthropic_kind(body)
            record(entry)
            self.anthropic(body, entry["kind"])
        elif ":countTokens" in path:
            record(entry)
            self.json_reply(200, {"totalTokens": 100})
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            entry["kind"], parts, prompt = gemini_reply(body)
            record(entry)
            answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                      "index": 0}],
                      "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": 40,
                                        "totalTokenCount": prompt + 40},
                      "modelVersion": "gemini-2.5-flash"}
            if ":streamGenerateContent" in path:
                data = ("data: " + json.dumps(answer) + "\r\n\r\n").encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            else:
                self.json_reply(200, answer)
        elif path.endswith("/chat/completions"):
            entry["kind"] = chat_kind(body)
            record(entry)
            self.chat(body, entry["kind"])
        elif path.endswith("/responses") or path.endswith("/responses/compact"):
            entry["kind"] = openai_kind(body, path)
            record(entry)
            self.openai(body, entry["kind"], path)
        else:
            record(entry)
            self.json_reply(404, {"error": {"message": "not here"}})

    def anthropic(self, body, kind):
        content, stop = anthropic_reply(kind, body)
        usage = {"input_tokens": 1200, "output_tokens": 40,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        message_id = "msg_" + uuid.uuid4().hex[:24]
        model = body.get("model", "claude-fake")
        if not body.get("stream"):
            self.json_reply(200, {"id": message_id, "type": "message", "role": "assistant", "model": model,
                                  "content": content, "stop_reason": stop, "stop_sequence": None,
                                  "usage": usage})
            return
        self.stream_start()
        self.event("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}})
        for i, block in enumerate(content):
            if block["type"] == "text":
                self.event("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}})
                self.event("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": block["text"]}})
            else:
                self.event("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": dict(block, input={})})
                self.event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
            self.event("content_block_stop", {"type": "content_block_stop", "index": i})
        self.event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 40}})
        self.event("message_stop", {"type": "message_stop"})
        self.close_connection = True

    def chat(self, body, kind):
        text, call = chat_reply(kind, body)
        usage = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240}
        base = {"id": "chatcmpl-" + uuid.uuid4().hex[:20], "created": int(time.time()),
                "model": body.get("model", "qwen-fake")}
        message = {"role": "assistant", "content": text}
        if call:
            message["tool_calls"] = [call]
        finish = "tool_calls" if call else "stop"
        if not body.get("stream"):
            self.json_reply(200, dict(base, object="chat.completion", usage=usage, choices=[
                {"index": 0, "message": message, "finish_reason": finish}]))
            return
        self.stream_start()

        def chunk(delta, finish_reason=None, **extra):
            data = dict(base, object="chat.completion.chunk",
                        choices=[{"index": 0, "delta": delta, "finish_reason": finish_reason}], **extra)
            self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        chunk({"role": "assistant", "content": text})
        if call:
            chunk({"tool_calls": [dict(call, index=0)]})
        chunk({}, finish)
        chunk({}, None, usage=usage)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def openai(self, body, kind, path):
        output = openai_output(kind, body)
        if path.endswith("/responses/compact"):
            self.json_reply(200, {"output": output})
            return
        usage = {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 40,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1240}
        response = {"id": "resp_" + uuid.uuid4().hex[:20], "object": "response",
                    "created_at": int(time.time()), "status": "in_progress",
                    "model": body.get("model", "gpt-fake"), "output": [], "usage": None}
        if not body.get("stream"):
            self.json_reply(200, dict(response, status="completed", output=output, usage=usage))
            return
        self.stream_start()
        number = iter(range(1 << 30))

        def event(data):
            data["sequence_number"] = next(number)
            self.event(data["type"], data)

        event({"type": "response.created", "response": response})
        for i, item in enumerate(output):
            if item["type"] == "message":
                part = item["content"][0]
                event({"type": "response.output_item.added", "output_index": i,
                       "item": dict(item, content=[], status="in_progress")})
                event({"type": "response.content_part.added", "output_index": i, "item_id": item["id"],
                       "content_index": 0, "part": dict(part, text="")})
                event({"type": "response.output_text.delta", "output_index": i, "item_id": item["id"],
                       "content_index": 0, "delta": part["text"]})
                event({"type": "response.output_text.done", "output_index": i, "item_id": item["id"],
                       "content_index": 0, "text": part["text"]})
                event({"type": "response.content_part.done", "output_index": i, "item_id": item["id"],
                       "content_index": 0, "part": part})
            else:
                event({"type": "response.output_item.added", "output_index": i,
                       "item": dict(item, arguments="", status="in_progress")})
                event({"type": "response.function_call_arguments.done", "output_index": i,
                       "item_id": item["id"], "arguments": item["arguments"]})
            event({"type": "response.output_item.done", "output_index": i, "item": item})
        event({"type": "response.completed",
               "response": dict(response, status="completed", output=output, usage=usage)})
        self.close_connection = True


def main():
    global LOG
    LOG, portfile = sys.argv[1], sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
