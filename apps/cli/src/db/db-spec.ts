import type { GroupSpec } from "../cli/command-spec.js";

export const DB_GROUP: GroupSpec = {
  name: "db",
  summary: "migrate the state database, or copy a SQLite install into PostgreSQL",
  subcommands: [
    {
      name: "migrate",
      positionals: [0, 0],
      summary: "bring the configured database's schema up to date: PostgreSQL at HERMES_DATABASE_URL, else $HERMES_HOME/state.db",
      details: [
        "Every process also migrates at start-up, one at a time (an advisory lock on PostgreSQL, the write lock on SQLite);",
        "this runs the same migrations on their own, e.g. before rolling out a new version.",
        "Exit 0 when migrated or already up to date, 1 when the database cannot be reached or a migration fails",
        "(nothing is changed then), 2 on a usage or configuration error.",
      ].join("\n"),
    },
    {
      name: "copy",
      positionals: [0, 0],
      options: { to: { type: "string", placeholder: "<postgres-url>", description: "the empty PostgreSQL database to copy into (required)" } },
      summary: "copy $HERMES_HOME/state.db into an empty PostgreSQL database, verified by row counts",
      details: [
        "Stop the gateway and workers first: what they write after the copy starts is not copied.",
        "The SQLite file is only read (an older schema is migrated first). The target is migrated, then every table is",
        "copied in one transaction, so a failure leaves it empty; the row counts of both sides are compared before it",
        "commits and printed. NUL characters, which PostgreSQL's text cannot hold, are taken out of text values.",
        "Then the agent-made skills ($HERMES_HOME/skills/) and the hook choices (hooks/state.json) go into the database.",
        "There is no --force: a target that holds any row is refused and nothing is written, so two installs are never",
        "mixed and nothing is overwritten. To copy again, drop and create the database (or empty its tables).",
        "Afterwards set HERMES_DATABASE_URL to the same URL for the gateway, the workers and this CLI.",
        "Leave the password out of the URL and set PGPASSWORD to keep it out of the process list.",
        "Exit 0 when copied and verified, 1 when refused or failed (nothing committed), 2 on a usage or configuration error.",
      ].join("\n"),
    },
  ],
};
