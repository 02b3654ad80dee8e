#!/usr/bin/env node
// The compiled CLI (built by `npm ci` / `npm run build`).
await import("../dist/main.js");
