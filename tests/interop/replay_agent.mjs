#!/usr/bin/env node
// ACP v1 agent that loads its sessions again and replays their history, as ACP 1 requires of
// `session/load`, for acp-tray interop tests. Written against the official TypeScript SDK
// `@agentclientprotocol/sdk` 2.4.0 (pinned in package.json / package-lock.json), on its v1 API:
// `agent()` / `AgentApp.onRequest` / `.connect`, `ndJsonStream`, `methods.agent.*`,
// `methods.client.session.update`, `AgentContext.notify`.
//
// Run: node tests/interop/replay_agent.mjs   (ACP v1 as ndjson on stdin/stdout)
// REPLAY_AGENT_STATE names a JSON file where the sessions it started are kept (so a new process
// can load them); REPLAY_AGENT_LOG, when set, gets one JSON line per event.
//
//   initialize    -> protocolVersion 1, agentCapabilities.loadSession true
//   session/new   -> a new session id (kept in the state file); then, live, the notice
//                    warning "Deprecated setting" (the kind of config warning codex sends)
//   session/load  -> before answering, the session's history replayed: the person's first
//                    prompt (user_message_chunk), the agent's reply (agent_message_chunk) and the
//                    same notice; then {}
//   session/prompt-> "pong", end_turn

import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const STATE = process.env.REPLAY_AGENT_STATE;
const NOTICE = {
  sessionUpdate: "notice",
  severity: "warning",
  title: "Deprecated setting",
  description: "`approval_policy` in config.toml is deprecated; use `approvals` instead",
};

const log = (event, details = {}) => {
  console.error("[replay-agent]", event, JSON.stringify(details));
  if (process.env.REPLAY_AGENT_LOG) {
    appendFileSync(process.env.REPLAY_AGENT_LOG, JSON.stringify({ event, pid: process.pid, ...details }) + "\n");
  }
};

const known = () => (STATE && existsSync(STATE) ? JSON.parse(readFileSync(STATE, "utf8")) : []);
const update = (client, sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });

const app = acp
  .agent({ name: "ts-replay-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION, // 1
    agentInfo: { name: "ts-replay-agent", version: "1.0.0" },
    agentCapabilities: { loadSession: true },
  }))
  .onRequest(acp.methods.agent.session.new, ({ client }) => {
    const sessionId = `replay-${randomUUID()}`;
    if (STATE) writeFileSync(STATE, JSON.stringify([...known(), sessionId]));
    log("session/new", { sessionId });
    setImmediate(() => update(client, sessionId, NOTICE).then(() => log("notice sent live", { sessionId })));
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    if (!known().includes(params.sessionId)) {
      throw acp.RequestError.resourceNotFound(params.sessionId);
    }
    const sessionId = params.sessionId;
    await update(client, sessionId, { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } });
    await update(client, sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong" } });
    await update(client, sessionId, NOTICE);
    log("session/load replayed", { sessionId });
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    await update(client, params.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong" } });
    return { stopReason: "end_turn" };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
log("listening", { protocol: acp.PROTOCOL_VERSION });
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error", { err: String(err) }),
);
