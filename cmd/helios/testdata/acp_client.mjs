// An ACP client on the official TypeScript SDK (@agentclientprotocol/sdk,
// its ClientSideConnection), driving `helios acp` for TestACPTypeScriptSDK:
// initialize, a new session, a prompt whose scripted model reads, edits,
// runs a command and writes (the write's permission request rejected), a
// prompt cancelled while its command runs, then in a new process a load of
// the saved session. It prints what it saw as one JSON object.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [exe, cfg, work] = process.argv.slice(2);

function start(updates, perms) {
  const child = spawn(exe, ["acp", "--config", cfg], { stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const waiters = [];
  const client = {
    async requestPermission(p) {
      perms.push(p);
      const reject = p.options.find((o) => o.kind === "reject_once");
      return { outcome: { outcome: "selected", optionId: reject.optionId } };
    },
    async sessionUpdate(n) {
      updates.push(n);
      for (const w of waiters.splice(0)) w(n);
    },
    async readTextFile() { throw new Error("not offered"); },
    async writeTextFile() { throw new Error("not offered"); },
  };
  const conn = new acp.ClientSideConnection(() => client, stream);
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const next = () => new Promise((resolve) => waiters.push(resolve));
  return { conn, child, exited, next };
}

const out = {};
const updates = [], perms = [];
const a = start(updates, perms);
out.init = await a.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
const { sessionId } = await a.conn.newSession({ cwd: work, mcpServers: [] });
out.sessionId = sessionId;
const first = await a.conn.prompt({ sessionId, prompt: [
  { type: "text", text: "tidy " },
  { type: "resource", resource: { uri: "file://" + work + "/a.txt", text: "hello world\n", mimeType: "text/plain" } },
] });
out.firstStop = first.stopReason;
out.firstUsage = first.usage ?? null;
out.updates = updates.slice();
out.perms = perms;

// The second prompt runs a long command; cancel it once it runs.
const second = a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "wait" }] });
for (;;) {
  const n = await a.next();
  const u = n.update;
  if (u.sessionUpdate === "tool_call" && u.kind === "execute" && String(u.title).includes("sleep")) break;
}
const t0 = Date.now();
await a.conn.cancel({ sessionId });
out.cancelStop = (await second).stopReason;
out.cancelMs = Date.now() - t0;
a.child.stdin.end();
out.firstExit = await a.exited;

const replay = [];
const b = start(replay, []);
await b.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
await b.conn.loadSession({ sessionId, cwd: work, mcpServers: [] });
out.replay = replay.slice();
b.child.stdin.end();
out.secondExit = await b.exited;
process.stdout.write(JSON.stringify(out) + "\n");
