import type { GroupSpec } from "../cli/command-spec.js";

export const MCP_GROUP: GroupSpec = {
  name: "mcp",
  summary: "list and try the MCP tool servers of config.yaml (mcp_servers)",
  subcommands: [
    {
      name: "list",
      positionals: [0, 0],
      options: { json: { type: "boolean", description: "print JSON instead of a table" } },
      summary: "connect to each configured server and show its state and tools",
    },
    { name: "test", args: "<name>", positionals: [1, 1], summary: "connect to one server, list its tools and disconnect" },
  ],
  details:
    "Servers are configured under mcp_servers in $HERMES_HOME/config.yaml. Exit 0 when every server tried connected, 1 when\none failed, 2 for a name that is not configured.",
};
