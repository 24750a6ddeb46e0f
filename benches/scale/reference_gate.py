"""The seed's reference gate, for the benchmark's baseline: the region's identifiers
in a Python set, each tested with `tok in summary`. Prints tokens and dropped."""
import json
import re
import sys

PATTERN = re.compile(
    r'[0-9a-f]{40}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
    r'|arn:[a-z0-9-]+:[a-z0-9-]+:[^ "]*|https?://[^ "]+|(/[A-Za-z0-9._-]+)+\.[a-z]+'
    r'|\b[a-z]+-[0-9a-f]{5,}'
)

path, compaction = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    events = [json.loads(line) for line in f if line.strip()]
comp = next(e for e in events if e.get("type") == "compaction" and e.get("id") == compaction)
lo, hi = comp["range"]["from"], comp["range"]["to"]
tokens = set()
for e in events:
    if lo <= e.get("seq", 0) <= hi:
        for field in ("text", "input"):
            value = e.get(field)
            if value is not None:
                text = value if isinstance(value, str) else json.dumps(value)
                tokens.update(m.group(0) for m in PATTERN.finditer(text))
summary = comp["summary"]
dropped = [t for t in tokens if t not in summary]
print(len(tokens), len(dropped))
