/**
 * The package version, read once from package.json (bundled by webpack): the one place every
 * part that names a version takes it from — the CLI, the MCP server and its `/health`, and the
 * Lua runtime (src/protocol/contract.ts stamps it into the Lua build).
 */
import packageJson from '../../package.json';

export const PACKAGE_VERSION: string = packageJson.version;
