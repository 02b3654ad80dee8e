import { describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { AdapterStatus } from "@hermes/gateway";
import { ConnectionStatus } from "./connection-status.js";

function tracked(): { status: ConnectionStatus; reports: AdapterStatus[] } {
  const reports: AdapterStatus[] = [];
  return { status: new ConnectionStatus((next) => void reports.push(next), silentLogger), reports };
}

const REFUSED = "Slack refused SLACK_BOT_TOKEN (invalid_auth)";

describe("ConnectionStatus with a bot token refused while running", () => {
  it("is not connected while the socket is down, even once the token is accepted; the socket's return connects it", () => {
    const { status, reports } = tracked();
    status.connected({ mode: "socket" });
    status.tokenRefused(REFUSED, 100, 100);
    status.retrying("the Socket Mode connection closed", 200, 100);
    status.tokenAccepted();
    expect(reports.at(-1)).toEqual({ state: "retrying", error: "the Socket Mode connection closed", retryAt: 200 });
    status.connected({ mode: "socket" });
    expect(reports.map((r) => r.state)).toEqual(["connected", "retrying", "retrying", "connected"]);
  });

  it("keeps the token's cause when the socket comes back before the token is accepted", () => {
    const { status, reports } = tracked();
    status.connected({ mode: "socket" });
    status.tokenRefused(REFUSED, 100, 100);
    status.retrying("the Socket Mode connection closed", 200, 100);
    status.connected({ mode: "socket" });
    expect(reports.at(-1)).toEqual({ state: "retrying", error: REFUSED, retryAt: 100 });
    status.tokenAccepted();
    expect(reports.map((r) => r.state)).toEqual(["connected", "retrying", "retrying", "retrying", "connected"]);
  });

  it("reports nothing once closed", () => {
    const { status, reports } = tracked();
    status.connected({ mode: "http" });
    status.close();
    status.tokenRefused(REFUSED, 100, 100);
    status.tokenAccepted();
    expect(reports).toEqual([{ state: "connected" }]);
  });
});
