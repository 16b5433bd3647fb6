#!/usr/bin/env node
// ACP agent for acp-tray interop tests of what an agent is doing (its subagents, "waiting for
// you", its progress words and its silences), written against the official TypeScript SDK
// `@agentclientprotocol/sdk` 2.4.0 (pinned in package.json / package-lock.json; install with
// `npm ci --prefix tests/interop`).
//
// Run: node tests/interop/activity_agent.mjs --protocol=1|2   (ndjson on stdin/stdout)
//
// stdout carries only the protocol; every diagnostic goes to stderr (and, when ACTIVITY_AGENT_LOG
// names a file, one JSON line per event there too).
//
// SDK API used: `agent()` / `AgentApp.onRequest` / `.onNotification` / `.connect`,
// `ndJsonStream`, `methods.agent.*`, `methods.client.session.update|requestPermission`,
// `AgentContext.notify|request`, `PROTOCOL_VERSION`; from `@agentclientprotocol/sdk/unstable`
// (ACP 1, with its unstable `subagent_update`) or `@agentclientprotocol/sdk/experimental/v2/unstable`
// (ACP 2).
//
// Behaviour, by the prompt's text:
//   "subagent" -> the session announces a child ("Child check", general-purpose, running:
//                 `subagent_update`), the child says a notice ("Child notice") and asks permission
//                 on its own session ("touch marker"; v2: `requires_action` on the child and its
//                 mirror on the parent first). The parent's turn ends at once (end_turn) while the
//                 child's request is open, as a parent that left its child in the background. Once
//                 answered, the child reports idle.
//   "wait"     -> v2: `state_update` requires_action (blocked on the person, no request sent);
//                 then nothing until session/cancel, which ends the turn cancelled.
//   "retry"    -> codex's retry word (`session_info_update` `_meta.codex.error` "Reconnecting...
//                 2/5", willRetry), then nothing until session/cancel (ends the turn cancelled).
//   anything else -> a chunk "pong", end_turn.

import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk/unstable";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";

const flag = process.argv.find((arg) => arg.startsWith("--protocol="));
const VERSION = Number(flag ? flag.slice("--protocol=".length) : "2");
const acp = VERSION === 1 ? v1 : v2;
const CHILD = "child-1";

const log = (event, details = {}) => {
  console.error("[activity-agent]", event, JSON.stringify(details));
  if (process.env.ACTIVITY_AGENT_LOG) {
    appendFileSync(process.env.ACTIVITY_AGENT_LOG, JSON.stringify({ event, ...details }) + "\n");
  }
};

const cancels = new Map(); // session id -> resolve the turn waiting for its cancel
const update = (client, sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const state = (client, sessionId, s) =>
  VERSION === 2 ? update(client, sessionId, { sessionUpdate: "state_update", state: s }) : Promise.resolve();

async function child(client, parent) {
  await update(client, parent, {
    sessionUpdate: "subagent_update",
    sessionId: CHILD,
    title: "Child check",
    description: "general-purpose",
    state: { state: "running" },
  });
  await state(client, CHILD, "running");
  await update(client, CHILD, { sessionUpdate: "notice", severity: "warning", title: "Child notice" });
  await update(client, parent, { sessionUpdate: "subagent_update", sessionId: CHILD, state: { state: "requires_action" } });
  await state(client, CHILD, "requires_action");
  log("child asks");
  const answer = await client.request(acp.methods.client.session.requestPermission, {
    sessionId: CHILD,
    ...(VERSION === 2
      ? { title: "touch marker" }
      : { toolCall: { toolCallId: "call-1", title: "touch marker", kind: "execute" } }),
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  });
  log("child answered", { answer });
  await update(client, parent, { sessionUpdate: "subagent_update", sessionId: CHILD, state: { state: "idle" } });
  await state(client, CHILD, "idle");
}

/** Until session/cancel for `sessionId`. */
const cancelled = (sessionId) => new Promise((resolve) => cancels.set(sessionId, resolve));

async function turn(client, sessionId, text) {
  if (text.includes("subagent")) {
    child(client, sessionId).catch((err) => log("child failed", { err: String(err) }));
    // the parent ends once its child has asked (its request open)
    await new Promise((resolve) => setTimeout(resolve, 300));
    log("parent ended");
    return "end_turn";
  }
  if (text.includes("wait")) {
    await state(client, sessionId, "requires_action");
    log("waiting");
    await cancelled(sessionId);
    return "cancelled";
  }
  if (text.includes("retry")) {
    await update(client, sessionId, {
      sessionUpdate: "session_info_update",
      _meta: { codex: { error: { message: "Reconnecting... 2/5", willRetry: true } } },
    });
    log("retrying");
    await cancelled(sessionId);
    return "cancelled";
  }
  await update(client, sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong" } });
  return "end_turn";
}

const textOf = (prompt) => prompt.map((block) => block.text ?? "").join(" ");
let nextSession = 1;

const app = acp
  .agent({ name: "ts-activity-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    log("initialize", { protocolVersion: params.protocolVersion, clientCapabilities: params.clientCapabilities });
    const info = { name: "ts-activity-agent", version: "1.0.0" };
    return VERSION === 2
      ? { protocolVersion: 2, info, capabilities: { session: {} } }
      : { protocolVersion: 1, agentInfo: info, agentCapabilities: { loadSession: false } };
  })
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `activity-${nextSession++}` }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = textOf(params.prompt);
    log("prompt", { text });
    if (VERSION === 1) {
      return { stopReason: await turn(client, params.sessionId, text) };
    }
    const messageId = randomUUID();
    setImmediate(async () => {
      await state(client, params.sessionId, "running");
      const stopReason = await turn(client, params.sessionId, text);
      await update(client, params.sessionId, { sessionUpdate: "state_update", state: "idle", stopReason });
    });
    return { messageId };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    log("cancel", { sessionId: params.sessionId });
    cancels.get(params.sessionId)?.();
  });

if (VERSION === 2) {
  app.onRequest(acp.methods.agent.session.resume, () => ({})).onRequest(acp.methods.agent.session.close, () => ({}));
}

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
log("listening", { protocol: VERSION });
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error", { err: String(err) }),
);
