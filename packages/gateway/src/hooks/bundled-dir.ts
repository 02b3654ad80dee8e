import { fileURLToPath } from "node:url";

/** The repository's `hooks/` folder of example hooks that ship with the gateway. */
export const BUNDLED_HOOKS_DIR = fileURLToPath(new URL("../../../../hooks", import.meta.url));
