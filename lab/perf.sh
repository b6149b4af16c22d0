#!/usr/bin/env bash
# Prints natslab's performance as ratios to its targets:
#   View() at 160x50 under 1 ms; the pane writer's throughput;
#   idle CPU well under 1% of a core;
#   a 200,000-message replay (sub --all -T) in the pane no slower than the
#   real nats CLI writing the same replay to /dev/null, peak memory under
#   150 MB, and the UI answering during and after.
# Takes a few minutes (it fills a stream and builds the real CLI once).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== View() at 160x50 and the pane writer"
go test ./lab -run '^$' -bench 'BenchmarkView|BenchmarkPaneWriter' -benchtime 2000x -count 1 |
	awk '
	/^BenchmarkView/ { name=$1; sub(/-[0-9]+$/, "", name); printf "  %-28s %8.3f ms   = %.3f of the 1 ms target\n", name, $3/1e6, $3/1e6 }
	/^BenchmarkPaneWriter/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "MB/s") mb=$i; if ($(i+1) == "lines/s") ls=$i }
		printf "  %-28s %8.0f MB/s, %.1f million lines/s\n", "pane writer", mb, ls/1e6 }'

echo "== idle CPU, and the replay against the real CLI"
NATSLAB_PERF=1 go test ./lab -run 'TestPerf' -count 1 -v -timeout 30m |
	sed -n -e 's/^.*perf: /  /p' -e 's/^--- FAIL/  FAIL/p'
