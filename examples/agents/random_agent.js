#!/usr/bin/env node
// A random agent speaking arcade-lab-agent/1 in Node.js (no dependencies):
//   arcade-lab run ext:cmd:"node examples/agents/random_agent.js" pong
const readline = require("readline");
let actions = [];
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    actions = msg.actions;
    send({ type: "hello", protocol: "arcade-lab-agent/1", name: "random-js", observation: "none" });
  } else if (msg.type === "observation") {
    send({ type: "action", action: actions[Math.floor(Math.random() * actions.length)] });
  } else if (msg.type === "bye") {
    process.exit(0);
  }
});
