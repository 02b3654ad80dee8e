// Logs like a process that is shutting down, then exits at once, the way the apps do after `main` resolves.
import { createGatewayLogger } from "../create-logger.js";

const [logsDir = ""] = process.argv.slice(2);
const logger = await createGatewayLogger({ level: "info", logsDir, name: "gateway", stderrLevel: "info", secrets: [] });
for (let i = 0; i < 200; i++) logger.info("draining", { i, pad: "z".repeat(200) });
logger.info("gateway stopped");
process.exit(0);
