#!/bin/sh
# A random agent speaking arcade-lab-agent/1 in POSIX sh + awk (proof that any language will do).
#   arcade-lab run ext:cmd:"sh examples/agents/random_agent.sh" breakout
# Arcade Lab writes compact JSON with "type" first, so dispatching on the line's prefix is enough here.
seed=${1:-1}
ids=""
n=0
i=0
while IFS= read -r line; do
  case "$line" in
    '{"type":"hello"'*)
      # the action ids: the list after "actions": (not "action_meanings")
      ids=$(printf '%s\n' "$line" | sed -n 's/.*"actions":\[\([0-9,]*\)\].*/\1/p')
      n=$(printf '%s\n' "$ids" | awk -F, '{print NF}')
      printf '%s\n' '{"type":"hello","protocol":"arcade-lab-agent/1","name":"random-sh","observation":"none"}'
      ;;
    '{"type":"observation"'*)
      i=$((i + 1))
      # awk's rand() seeded per decision: reproducible without bash's $RANDOM
      a=$(printf '%s\n' "$ids" | awk -F, -v s=$((seed * 100003 + i)) '{srand(s); print $(int(rand() * NF) + 1)}')
      printf '{"type":"action","action":%s}\n' "$a"
      ;;
    '{"type":"bye"'*)
      exit 0
      ;;
  esac
done
