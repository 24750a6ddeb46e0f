#!/usr/bin/env bash
# Seeds each fuzz target's corpus from the samples and, when it is beside the project,
# ../shared/real-sessions (copied into fuzz/corpus/, which git ignores: the real
# transcripts are never committed). Long files are cut into pieces of 64 lines.
set -euo pipefail
cd "$(dirname "$0")"
sources=(../sample-sessions/*.jsonl)
if [ -d ../../shared/real-sessions ]; then
  sources+=(../../shared/real-sessions/*.jsonl)
fi
for target in log extractor sidecar display; do
  mkdir -p "corpus/$target"
done
for file in "${sources[@]}"; do
  name=$(basename "$file" .jsonl)
  split -l 64 -d -a 4 "$file" "corpus/log/$name-"
done
# One line a seed for the line-level targets.
for piece in corpus/log/*; do
  head -c 4096 "$piece" > "corpus/extractor/$(basename "$piece")"
  head -n 1 "$piece" > "corpus/display/$(basename "$piece")"
done
printf '{"compaction":"k1","verdict":"spill","handle":"sha256:%064d"}\n{"compaction":"k1","verdict":"approve"}\ntorn{"comp\n' 0 > corpus/sidecar/seed
echo "seeded: $(ls corpus/log | wc -l) log pieces"
