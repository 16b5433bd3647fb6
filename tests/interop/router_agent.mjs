#!/usr/bin/env node
// An ACP agent behind the TypeScript SDK's dual-version router, for acp-tray interop
// tests (`@agentclientprotocol/sdk` 2.4.0, pinned in package.json / package-lock.json).
//
// Run: node tests/interop/router_agent.mjs --versions=1     (router.withV1 only)
//      node tests/interop/router_agent.mjs --versions=1,2   (router.withV1 + withV2)
// (or ROUTER_AGENT_VERSIONS=1 / 1,2 in the environment; the flag wins). Default: 1,2.
//
// stdout carries only the protocol; every diagnostic goes to stderr (and, when
// ROUTER_AGENT_LOG names a file, one JSON line per event there too).
//
// SDK API used:
//   - `agentProtocolRouter()` / `.withV1(connector)` / `.withV2(connector)` / `.connect(stream)`
//        dist/protocol-router.js, exported by `@agentclientprotocol/sdk/experimental/v2/unstable`
//   - v1 implementation: `agent()`, `methods`, `PROTOCOL_VERSION` (= 1) from
//        `@agentclientprotocol/sdk/unstable`
//   - v2 implementation: `agent()`, `methods`, `PROTOCOL_VERSION` (= 2), `ndJsonStream` from
//        `@agentclientprotocol/sdk/experimental/v2/unstable`
//   - `AgentConnector` (the `{ connect(stream, options) }` shape the router accepts): each
//     implementation is wrapped in one that records the raw `initialize` message the router
//     hands it (after the router's own rewriting, before the app's zod parse).
//
// The v1 implementation sends notices only when the initialize params it received carry
// `clientCapabilities.session.notices` (as the session-notices RFD requires); otherwise it
// sends an agent_message_chunk instead. It logs both the raw capabilities (what the router
// passed on) and the SDK-parsed ones. The v2 implementation always sends notices (v2 needs
// no client capability for them).

import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk/unstable";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";

const flag = process.argv.find((arg) => arg.startsWith("--versions="));
const VERSIONS = (flag ? flag.slice("--versions=".length) : (process.env.ROUTER_AGENT_VERSIONS ?? "1,2"))
  .split(",")
  .map((v) => Number(v.trim()));
if (!VERSIONS.includes(1) || !VERSIONS.every((v) => v === 1 || v === 2)) {
  console.error(`[router-agent] --versions must be 1 or 1,2; got ${JSON.stringify(VERSIONS)}`);
  process.exit(2);
}

const log = (event, details = {}) => {
  console.error("[router-agent]", event, JSON.stringify(details));
  if (process.env.ROUTER_AGENT_LOG) {
    appendFileSync(process.env.ROUTER_AGENT_LOG, JSON.stringify({ event, pid: process.pid, ...details }) + "\n");
  }
};

const AGENT_INFO = { name: "ts-router-agent", version: "1.0.0" };
const NOTICES = [
  { sessionUpdate: "notice", severity: "info", title: "Router info" },
  { sessionUpdate: "notice", severity: "warning", title: "Router warning" },
  { sessionUpdate: "notice", severity: "_router.custom", title: "Router extension" },
];

/**
 * An `AgentConnector` around `app` that records the raw `initialize` message the router
 * hands to it, then lets the app connect as usual (with the router's options).
 */
function tapped(impl, app, raw) {
  return {
    connect(stream, options) {
      const tap = new TransformStream({
        transform(message, controller) {
          if (message && typeof message === "object" && message.method === "initialize") {
            raw.params = message.params;
            log("router handed initialize", { impl, params: message.params });
          }
          controller.enqueue(message);
        },
      });
      return app.connect({ readable: stream.readable.pipeThrough(tap), writable: stream.writable }, options);
    },
  };
}

// --- v1 --------------------------------------------------------------------------------------

const v1Raw = { params: undefined };
let v1Notices = false;

const v1App = v1
  .agent({ name: AGENT_INFO.name })
  .onRequest(v1.methods.agent.initialize, ({ params }) => {
    // the decision is taken on the raw params (what arrived), not on the SDK's parse of them
    const rawCapabilities = v1Raw.params?.clientCapabilities;
    v1Notices = rawCapabilities?.session?.notices != null;
    log("v1 initialize", {
      impl: "v1",
      protocolVersion: params.protocolVersion,
      rawClientCapabilities: rawCapabilities ?? null,
      parsedClientCapabilities: params.clientCapabilities ?? null,
      notices: v1Notices,
    });
    return {
      protocolVersion: v1.PROTOCOL_VERSION, // 1
      agentInfo: AGENT_INFO,
      agentCapabilities: { loadSession: false },
    };
  })
  .onRequest(v1.methods.agent.session.new, ({ client }) => {
    const sessionId = `router-v1-${randomUUID()}`;
    setImmediate(async () => {
      try {
        const update = (u) => client.notify(v1.methods.client.session.update, { sessionId, update: u });
        if (v1Notices) {
          for (const notice of NOTICES) await update(notice);
          log("sent notices", { impl: "v1", sessionId, count: NOTICES.length });
        } else {
          await update({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: "notices unsupported: router v1 fallback" },
          });
          log("sent fallback chunk", { impl: "v1", sessionId });
        }
      } catch (err) {
        log("session updates failed", { impl: "v1", err: String(err) });
      }
    });
    return { sessionId };
  })
  .onRequest(v1.methods.agent.session.prompt, async ({ params, client }) => {
    await client.notify(v1.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong from v1\n" } },
    });
    return { stopReason: "end_turn" };
  })
  .onNotification(v1.methods.agent.session.cancel, () => {});

// --- v2 --------------------------------------------------------------------------------------

const v2Raw = { params: undefined };
const v2Sessions = new Set();

const v2App = v2
  .agent({ name: AGENT_INFO.name })
  .onRequest(v2.methods.agent.initialize, ({ params }) => {
    log("v2 initialize", {
      impl: "v2",
      protocolVersion: params.protocolVersion,
      rawParams: v2Raw.params ?? null,
      parsedCapabilities: params.capabilities ?? null,
      notices: true,
    });
    return { protocolVersion: v2.PROTOCOL_VERSION, info: AGENT_INFO, capabilities: { session: {} } };
  })
  .onRequest(v2.methods.agent.session.new, ({ client }) => {
    const sessionId = `router-v2-${randomUUID()}`;
    v2Sessions.add(sessionId);
    setImmediate(async () => {
      try {
        for (const notice of NOTICES) {
          await client.notify(v2.methods.client.session.update, { sessionId, update: notice });
        }
        log("sent notices", { impl: "v2", sessionId, count: NOTICES.length });
      } catch (err) {
        log("session updates failed", { impl: "v2", err: String(err) });
      }
    });
    return { sessionId };
  })
  .onRequest(v2.methods.agent.session.prompt, ({ params, client }) => {
    const messageId = randomUUID();
    setImmediate(async () => {
      const { sessionId } = params;
      const update = (u) => client.notify(v2.methods.client.session.update, { sessionId, update: u });
      try {
        await update({ sessionUpdate: "user_message", messageId, content: params.prompt });
        await update({ sessionUpdate: "state_update", state: "running" });
        await update({
          sessionUpdate: "agent_message_chunk",
          messageId: randomUUID(),
          content: { type: "text", text: "pong from v2\n" },
        });
        await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      } catch (err) {
        log("turn failed", { impl: "v2", err: String(err) });
      }
    });
    return { messageId };
  })
  .onRequest(v2.methods.agent.session.resume, ({ params }) => {
    if (!v2Sessions.has(params.sessionId)) throw v2.RequestError.sessionNotFound(params.sessionId);
    return {};
  })
  .onRequest(v2.methods.agent.session.close, ({ params }) => {
    v2Sessions.delete(params.sessionId);
    return {};
  })
  .onNotification(v2.methods.agent.session.cancel, () => {});

// --- the router ------------------------------------------------------------------------------

const router = v2.agentProtocolRouter().withV1(tapped("v1", v1App, v1Raw));
if (VERSIONS.includes(2)) {
  router.withV2(tapped("v2", v2App, v2Raw));
}

// The router reads raw JSON-RPC messages; v1 and v2 frame them the same way (ndjson).
const stream = v2.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));

// What the client sent, before the router: logged to compare with what each implementation got.
const clientSide = new TransformStream({
  transform(message, controller) {
    if (message && typeof message === "object" && message.method === "initialize") {
      log("client sent initialize", { params: message.params });
    }
    controller.enqueue(message);
  },
});
const connection = router.connect({ readable: stream.readable.pipeThrough(clientSide), writable: stream.writable });
log("listening", { versions: VERSIONS });
connection.closed.then(
  () => log("connection closed"),
  (err) => log("connection closed with error", { err: String(err) }),
);
