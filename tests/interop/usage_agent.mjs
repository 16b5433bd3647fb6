#!/usr/bin/env node
// An agent for acp-tray's usage tests, on the official TypeScript SDK `@agentclientprotocol/sdk`
// 2.4.0 (pinned in package.json / package-lock.json): ACP 1 (`--version=1`, the SDK's v1 app from
// `@agentclientprotocol/sdk/unstable`) or ACP 2 (`--version=2`, its experimental v2 app).
//
// Run: node tests/interop/usage_agent.mjs --version=2   (ndjson on stdin/stdout; diagnostics on
// stderr, and one JSON line per event in the file USAGE_AGENT_LOG names)
//
// A prompt's turn sends, through the SDK's typed `notify` of `session/update`:
//   session_info_update  title "say hello"
//   usage_update         used 1230 of 1,000,000 tokens, cost 0.0054 USD
//   compaction_update    "c1" in_progress; then the turn waits until the file USAGE_AGENT_GO
//                        exists (the test looks at the session meanwhile)
//   compaction_update    "c1" completed
//   usage_update         used 2048, cost 0.027 USD, and claude's rate-limit meta
//                        (`_claude/rateLimit`: allowed_warning, 90 % of five_hour, resetting in 1 h)
//   usage_update         the same rate-limit report again (one warning per limit window)
// and ends end_turn (v1: the prompt's answer; v2: state_update idle). Compaction is sent in v1
// only when the client advertised `session.compaction` (as the schema requires).
//
// A prompt that says "over the limit" fails instead, as claude does when refused for its usage
// limit: code -32000, "Claude AI usage limit reached", data `{ resetsAt }` (in 1 h); v1: the
// prompt's error (`RequestError`); v2: `state_update` idle, stopReason "error", with that error.

import { appendFileSync, existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";

const VERSION = process.argv.includes("--version=1") ? 1 : 2;
const acp = await import(
  VERSION === 1 ? "@agentclientprotocol/sdk/unstable" : "@agentclientprotocol/sdk/experimental/v2/unstable"
);
const AGENT_INFO = { name: "ts-usage-agent", title: "TS usage agent", version: "1.0.0" };
const RESETS_AT = Math.floor(Date.now() / 1000) + 3600;

const log = (event, details = {}) => {
  console.error("[ts-usage-agent]", event, JSON.stringify(details));
  if (process.env.USAGE_AGENT_LOG) {
    appendFileSync(process.env.USAGE_AGENT_LOG, JSON.stringify({ event, ...details }) + "\n");
  }
};

const REFUSAL = { code: -32000, message: "Claude AI usage limit reached", data: { resetsAt: RESETS_AT } };
const refused = (params) => params.prompt.some((block) => block.type === "text" && block.text.includes("over the limit"));

let compaction = VERSION === 2; // v2: in the baseline; v1: when the client advertises it
let nextSession = 1;

const update = (client, sessionId, sessionUpdate) =>
  client.notify(acp.methods.client.session.update, { sessionId, update: sessionUpdate });

async function goSignal() {
  const go = process.env.USAGE_AGENT_GO;
  while (go && !existsSync(go)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runTurn(client, sessionId) {
  await update(client, sessionId, { sessionUpdate: "session_info_update", title: "say hello" });
  await update(client, sessionId, {
    sessionUpdate: "usage_update",
    used: 1230,
    size: 1000000,
    cost: { amount: 0.0054, currency: "USD" },
  });
  if (compaction) {
    await update(client, sessionId, { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" });
    log("compacting", { sessionId });
    await goSignal();
    await update(client, sessionId, { sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" });
  }
  const limit = {
    status: "allowed_warning",
    resetsAt: RESETS_AT,
    rateLimitType: "five_hour",
    utilization: 0.9,
    surpassedThreshold: 0.9,
  };
  await update(client, sessionId, {
    sessionUpdate: "usage_update",
    used: 2048,
    size: 1000000,
    cost: { amount: 0.027, currency: "USD" },
    _meta: { "_claude/rateLimit": limit },
  });
  await update(client, sessionId, {
    sessionUpdate: "usage_update",
    used: 2048,
    size: 1000000,
    _meta: { "_claude/rateLimit": limit },
  });
  await update(client, sessionId, {
    sessionUpdate: "agent_message_chunk",
    ...(VERSION === 2 ? { messageId: randomUUID() } : {}),
    content: { type: "text", text: "hello\n" },
  });
  log("turn ended", { sessionId });
}

let app = acp.agent({ name: AGENT_INFO.name });
if (VERSION === 1) {
  app = app
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      compaction = params.clientCapabilities?.session?.compaction != null;
      log("initialize", { protocolVersion: params.protocolVersion, clientCapabilities: params.clientCapabilities });
      return { protocolVersion: acp.PROTOCOL_VERSION, agentInfo: AGENT_INFO, agentCapabilities: { loadSession: false } };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      if (refused(params)) {
        log("refused", { resetsAt: RESETS_AT });
        throw new acp.RequestError(REFUSAL.code, REFUSAL.message, REFUSAL.data);
      }
      await runTurn(client, params.sessionId);
      return { stopReason: "end_turn" };
    });
} else {
  app = app
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      log("initialize", { protocolVersion: params.protocolVersion });
      return { protocolVersion: acp.PROTOCOL_VERSION, info: AGENT_INFO, capabilities: { session: {} } };
    })
    .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => {
      const sessionId = params.sessionId;
      setImmediate(async () => {
        try {
          await update(client, sessionId, { sessionUpdate: "state_update", state: "running" });
          if (refused(params)) {
            log("refused", { resetsAt: RESETS_AT });
            const idle = { sessionUpdate: "state_update", state: "idle", stopReason: "error", error: REFUSAL };
            await update(client, sessionId, idle);
            return;
          }
          await runTurn(client, sessionId);
          await update(client, sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
        } catch (err) {
          log("turn failed", { err: String(err) });
        }
      });
      return { messageId: randomUUID() };
    })
    .onRequest(acp.methods.agent.session.close, () => ({}));
}
app = app
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `ts-usage-session-${nextSession++}`;
    log("session/new", { cwd: params.cwd, sessionId });
    return { sessionId };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
log("listening", { protocol: acp.PROTOCOL_VERSION });
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error", { err: String(err) }),
);
