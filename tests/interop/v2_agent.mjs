#!/usr/bin/env node
// ACP **v2** agent for acp-tray interop tests, written against the official
// TypeScript SDK `@agentclientprotocol/sdk` 2.4.0 (pinned in package.json /
// package-lock.json; install with `npm ci --prefix tests/interop`), on its
// experimental draft-v2 API.
//
// Run: node tests/interop/v2_agent.mjs   (speaks ACP v2 as ndjson on stdin/stdout)
//
// stdout carries only the protocol; every diagnostic goes to stderr (and, when
// V2_AGENT_LOG names a file, one JSON line per event there too).
//
// SDK API used, all from the entry point `@agentclientprotocol/sdk/experimental/v2/unstable`
// (package.json "exports" -> dist/v2/unstable/acp.js, which re-exports dist/v2/acp.js):
//   - `agent()` / `AgentApp.onRequest` / `.onNotification` / `.connect`   the v2 agent app
//   - `ndJsonStream(output, input)`                                       the v2 stdio stream
//   - `methods.agent.*` / `methods.client.session.update|requestPermission`
//   - `PROTOCOL_VERSION` (= 2)
//   - `AgentContext.notify` / `AgentContext.request` (typed by method)
//   - `RequestPermissionOutcome.isSelected`   the v2 validated type guard for the answer
//   - `RequestError.sessionNotFound`
//
// Behaviour:
//   initialize        -> { protocolVersion: 2, info, capabilities: { session: {} } }
//   session/new       -> { sessionId }, then 4 notices (v2 needs no client capability):
//                        info, warning, error and the extension severity `_acme.custom`
//   session/prompt    -> acknowledged at once with { messageId }; the turn runs on:
//                        user_message (echo, same messageId), state_update running,
//                        agent_message_chunk text (one messageId), state_update requires_action,
//                        session/request_permission (v2: top-level title "Delete build/", a
//                        description, subject.toolCall with kind "delete", the session's
//                        build/ as its location and rawInput.command "rm -rf build/",
//                        options allow_once / reject_once), state_update running, a chunk naming
//                        the chosen option, an `agent_message` upsert of that same message (its
//                        whole text so far plus "Done.\n": replaces the chunks' content), a
//                        whole `agent_message` of a new messageId ("Summary: 1 directory
//                        removed.\n", two text blocks, no chunks), an unknown update variant
//                        `_acme.progress`, and state_update idle with stopReason "end_turn"
//                        With V2_AGENT_AUTH=1 (it offers the `agent` sign-in method "Log in
//                        with the interop agent"): until `auth/login`, the turn ends at once
//                        in state_update idle, stopReason "error", error -32000
//                        "Authentication required" (as claude-agent-acp does over ACP 2)
//                        With V2_AGENT_FAIL set to a JSON-RPC error object (JSON): the prompt
//                        is refused with that error when V2_AGENT_FAIL_AS=reject, else the turn
//                        ends at once in state_update idle, stopReason "error", with that error
//   auth/login        -> {} (signed in from then on)
//   session/cancel    -> the running turn ends idle with stopReason "cancelled"
//   session/resume    -> only sessions of this process; otherwise -32002 (session not found)
//   session/close     -> {}

import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";

const AGENT_INFO = { name: "ts-v2-interop-agent", title: "TS v2 interop agent", version: "1.0.0" };

const log = (event, details = {}) => {
  console.error("[ts-v2-agent]", event, JSON.stringify(details));
  if (process.env.V2_AGENT_LOG) {
    appendFileSync(process.env.V2_AGENT_LOG, JSON.stringify({ event, ...details }) + "\n");
  }
};

/** @type {Array<acp.Notice & { sessionUpdate: "notice" }>} */
const NOTICES = [
  { sessionUpdate: "notice", severity: "info", title: "V2 info", description: "from the TypeScript SDK, ACP v2" },
  { sessionUpdate: "notice", severity: "warning", title: "V2 warning" },
  { sessionUpdate: "notice", severity: "error", title: "V2 error", description: "nothing is really wrong" },
  { sessionUpdate: "notice", severity: "_acme.custom", title: "V2 extension", description: null },
];

const NEEDS_AUTH = process.env.V2_AGENT_AUTH === "1";
const FAILURE = process.env.V2_AGENT_FAIL ? JSON.parse(process.env.V2_AGENT_FAIL) : null;
const REJECT = process.env.V2_AGENT_FAIL_AS === "reject";
const AUTH_METHODS = [{ type: "agent", methodId: "interop-login", name: "Log in with the interop agent" }];
let signedIn = false;
const sessions = new Map(); // session id -> its cwd
const cancelled = new Set();
let nextSession = 1;

/** One `session/update` through the SDK's typed notify. */
const update = (client, sessionId, sessionUpdate) =>
  client.notify(acp.methods.client.session.update, { sessionId, update: sessionUpdate });

async function sendNotices(client, sessionId) {
  for (const notice of NOTICES) {
    await update(client, sessionId, notice);
  }
  log("notices sent", { sessionId, count: NOTICES.length });
}

async function runTurn(client, sessionId, userMessageId, prompt) {
  cancelled.delete(sessionId);
  const failure = NEEDS_AUTH && !signedIn ? { code: -32000, message: "Authentication required" } : FAILURE;
  if (failure) {
    await update(client, sessionId, { sessionUpdate: "state_update", state: "running" });
    await update(client, sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "error", error: failure });
    log("turn ended", { sessionId, stopReason: "error", error: failure });
    return;
  }
  const replyId = randomUUID();
  let said = "";
  const say = (text) => {
    said += text;
    return update(client, sessionId, {
      sessionUpdate: "agent_message_chunk",
      messageId: replyId,
      content: { type: "text", text },
    });
  };
  const state = (s) => update(client, sessionId, { sessionUpdate: "state_update", ...s });

  await update(client, sessionId, { sessionUpdate: "user_message", messageId: userMessageId, content: prompt });
  await state({ state: "running" });
  await say("Cleaning up: ");
  await say("build/ must go.\n");
  await state({ state: "requires_action" });
  /** @type {acp.RequestPermissionRequest} */
  const ask = {
    sessionId,
    title: "Delete build/",
    description: "rm -rf build/ (v2 interop agent)",
    subject: {
      type: "tool_call",
      toolCall: {
        toolCallId: "call-delete-build",
        title: "Delete build/",
        kind: "delete",
        locations: [{ path: `${sessions.get(sessionId)}/build` }],
        rawInput: { command: "rm -rf build/" },
      },
    },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  };
  const answer = await client.request(acp.methods.client.session.requestPermission, ask);
  log("permission answered", { answer });
  await state({ state: "running" });
  if (acp.RequestPermissionOutcome.isSelected(answer.outcome)) {
    const option = ask.options.find((o) => o.optionId === answer.outcome.optionId);
    await say(`chosen: ${answer.outcome.optionId} (${option?.kind ?? "unknown kind"})\n`);
  } else {
    await say(`outcome: ${answer.outcome.outcome}\n`);
  }
  // whole-message upserts: the reply so far and one more line; then a message sent only whole
  await update(client, sessionId, {
    sessionUpdate: "agent_message",
    messageId: replyId,
    content: [{ type: "text", text: said + "Done.\n" }],
  });
  await update(client, sessionId, {
    sessionUpdate: "agent_message",
    messageId: randomUUID(),
    content: [
      { type: "text", text: "Summary: " },
      { type: "text", text: "1 directory removed.\n" },
    ],
  });
  // an update variant acp-tray cannot know: `_`-prefixed, so an extension (never an error)
  await update(client, sessionId, { sessionUpdate: "_acme.progress", percent: 100, label: "done" });
  const stopReason = cancelled.has(sessionId) ? "cancelled" : "end_turn";
  await state({ state: "idle", stopReason });
  log("turn ended", { sessionId, stopReason });
}

const app = acp
  .agent({ name: AGENT_INFO.name })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    log("initialize", { protocolVersion: params.protocolVersion, info: params.info, capabilities: params.capabilities });
    return {
      protocolVersion: acp.PROTOCOL_VERSION, // 2
      info: AGENT_INFO,
      capabilities: { session: {} },
      ...(NEEDS_AUTH ? { authMethods: AUTH_METHODS } : {}),
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params, client }) => {
    const sessionId = `ts-v2-session-${nextSession++}`;
    sessions.set(sessionId, params.cwd);
    log("session/new", { cwd: params.cwd, sessionId });
    // The SDK writes the response after this handler returns; setImmediate runs after
    // that, so the notices follow the response on the wire.
    setImmediate(() => sendNotices(client, sessionId).catch((err) => log("notices failed", { err: String(err) })));
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => {
    if (FAILURE && REJECT) {
      throw new acp.RequestError(FAILURE.code, FAILURE.message, FAILURE.data);
    }
    const messageId = randomUUID();
    log("session/prompt", { sessionId: params.sessionId, messageId });
    setImmediate(() =>
      runTurn(client, params.sessionId, messageId, params.prompt).catch((err) =>
        log("turn failed", { err: String(err) }),
      ),
    );
    return { messageId }; // v2: the prompt is acknowledged, not answered
  })
  .onRequest(acp.methods.agent.session.resume, ({ params }) => {
    if (!sessions.has(params.sessionId)) {
      throw acp.RequestError.sessionNotFound(params.sessionId);
    }
    return {};
  })
  .onRequest(acp.methods.agent.auth.login, ({ params }) => {
    log("auth/login", { methodId: params.methodId });
    signedIn = true;
    return {};
  })
  .onRequest(acp.methods.agent.session.close, ({ params }) => {
    log("session/close", { sessionId: params.sessionId });
    sessions.delete(params.sessionId);
    return {};
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    cancelled.add(params.sessionId);
  });

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const connection = app.connect(stream);
log("listening", { protocol: acp.PROTOCOL_VERSION });
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error", { err: String(err) }),
);
