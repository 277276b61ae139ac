#!/bin/sh
# A random agent speaking arcade-lab-agent/1 in POSIX sh + awk (proof that any language will do).
#   arcade-lab run ext:cmd:"sh examples/agents/random_agent.sh" breakout
# Arcade Lab writes compact JSON with "type" first, so dispatching on the line's prefix is enough here.
seed=${1:-}   # default: the seed Arcade Lab sends in its hello
ids=""
n=0
while IFS= read -r line; do
  case "$line" in
    '{"type":"hello"'*)
      # the action ids: the list after "actions": (not "action_meanings")
      ids=$(printf '%s\n' "$line" | sed -n 's/.*"actions":\[\([0-9,]*\)\].*/\1/p')
      n=$(printf '%s\n' "$ids" | awk -F, '{print NF}')
      [ -n "$seed" ] || seed=$(printf '%s\n' "$line" | sed -n 's/.*"seed":\([0-9]*\).*/\1/p')
      [ -n "$seed" ] || seed=1
      state=$(( seed % 2147483648 ))
      printf '%s\n' '{"type":"hello","protocol":"arcade-lab-agent/1","name":"random-sh","observation":"none"}'
      ;;
    '{"type":"observation"'*)
      # a linear congruential generator in shell arithmetic: reproducible for a seed, no $RANDOM needed
      state=$(( (state * 1103515245 + 12345) % 2147483648 ))
      k=$(( (state / 65536) % n + 1 ))
      a=$(printf '%s\n' "$ids" | cut -d, -f"$k")
      printf '{"type":"action","action":%s}\n' "$a"
      ;;
    '{"type":"bye"'*)
      exit 0
      ;;
  esac
done
