/**
 * `luapanda-mcp`: the MCP debugger tools without VS Code. The MCP server is not built yet, so
 * this entry only answers --help and --version, and says so plainly for anything else.
 */
import { PACKAGE_VERSION } from './version';

const USAGE = `luapanda-mcp ${PACKAGE_VERSION}
Serve the LuaPanda MCP debugger tools to an AI agent, without VS Code.

usage: luapanda-mcp --workspace DIR [--http PORT | --stdio]
       luapanda-mcp --stdio --connect http://127.0.0.1:6009/mcp
       luapanda-mcp --help | --version`;

export function main(argv: string[]): number {
  if (argv.includes('--version')) {
    console.log(PACKAGE_VERSION);
    return 0;
  }
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  console.error('luapanda-mcp: the MCP server is not available in this build yet.');
  return 2;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
