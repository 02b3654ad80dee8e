import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export declare const RED_DOT_PNG: string;
export declare function buildFakeMcpServer(options?: { name?: string }): McpServer;
