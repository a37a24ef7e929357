/**
 * "LuaPanda: Doctor": why a game does not connect, why a breakpoint does not bind, and how the MCP
 * server stands — checked on this machine and written as a Markdown report with what to do.
 * `gatherFacts` looks (VS Code, sockets, the interpreter); `renderReport` only writes.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { LaunchConfiguration } from '../../mcp/channel';
import {
  DEFAULT_CONNECTION_HOST,
  describeListenHost,
  isLoopbackHost,
} from '../../session/link/listenHost';
import {
  VscodeOnlyVariableError,
  readLaunchConfigurations,
  resolveVariables,
} from '../../mcp/launchConfig';
import { InterpreterFact, checkInterpreters } from './doctorInterpreters';

export interface PortFact {
  readonly config: string;
  readonly port: number;
  readonly asClient: boolean;
  readonly ip?: string;
  /** Where VS Code listens for the game (`connectionHost`; default 127.0.0.1). */
  readonly host: string;
  /** `listening`: something (a waiting attach session?) holds the port; `free`: nothing does. */
  readonly local: 'listening' | 'free' | 'error';
  /** The configuration names a pairing secret (`connectionSecret`). */
  readonly secret: boolean;
}

export interface BreakpointFact {
  readonly file: string;
  readonly line: number;
  readonly verified: boolean;
  readonly message?: string;
  readonly inWorkspace: boolean;
}

export interface DoctorFacts {
  readonly workspace?: string;
  readonly launchError?: string;
  readonly luaConfigs: readonly LaunchConfiguration[];
  readonly ports: readonly PortFact[];
  readonly runtimeInWorkspace: readonly string[];
  readonly interpreters: readonly InterpreterFact[];
  /** Configurations fine in VS Code that the headless `luapanda-mcp` cannot start, and why. */
  readonly vscodeOnly: readonly { readonly config: string; readonly variable: string }[];
  readonly breakpoints: readonly BreakpointFact[];
  readonly liveLuaSessions: number;
  readonly mcp: string;
  readonly lanAddresses: readonly string[];
}

/** Whether something listens on the port on this machine (we try to bind it). */
export function probeLocalPort(port: number): Promise<PortFact['local']> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (e: NodeJS.ErrnoException) =>
      resolve(e.code === 'EADDRINUSE' ? 'listening' : 'error'),
    );
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () =>
      server.close(() => resolve('free')),
    );
  });
}

export async function gatherFacts(input: {
  workspace?: string;
  /** The bundled runtime's folder, for the launch configurations without `runtimePath`. */
  runtimeDir: string;
  /** The active editor's file: VS Code resolves `${file}` and its kin from it at launch. */
  editorFile?: string;
  breakpoints: readonly BreakpointFact[];
  liveLuaSessions: number;
  mcp: string;
}): Promise<DoctorFacts> {
  let luaConfigs: LaunchConfiguration[] = [];
  let launchError: string | undefined;
  if (input.workspace) {
    try {
      luaConfigs = (await readLaunchConfigurations(input.workspace)).filter(
        (c) => c.type === 'luapanda',
      );
    } catch (e) {
      launchError = (e as Error).message;
    }
  }
  const ports: PortFact[] = [];
  for (const config of luaConfigs.filter((c) => c.request === 'attach')) {
    const port = typeof config.connectionPort === 'number' ? config.connectionPort : 8818;
    const asClient = config.VSCodeAsClient === true;
    ports.push({
      config: config.name,
      port,
      asClient,
      ip: typeof config.connectionIP === 'string' ? config.connectionIP : undefined,
      host:
        typeof config.connectionHost === 'string' && config.connectionHost !== ''
          ? config.connectionHost
          : DEFAULT_CONNECTION_HOST,
      local: asClient ? 'free' : await probeLocalPort(port),
      secret: typeof config.connectionSecret === 'string' && config.connectionSecret !== '',
    });
  }
  const interpreters = await checkInterpreters(
    luaConfigs,
    input.workspace,
    input.runtimeDir,
    input.editorFile,
  );
  return {
    workspace: input.workspace,
    launchError,
    luaConfigs,
    ports,
    runtimeInWorkspace: input.workspace ? findRuntimeCopies(input.workspace) : [],
    interpreters,
    vscodeOnly: input.workspace ? vscodeOnlyVariables(luaConfigs, input.workspace) : [],
    breakpoints: input.breakpoints,
    liveLuaSessions: input.liveLuaSessions,
    mcp: input.mcp,
    lanAddresses: Object.values(os.networkInterfaces())
      .flat()
      .filter((a): a is os.NetworkInterfaceInfo => !!a && a.family === 'IPv4' && !a.internal)
      .map((a) => a.address),
  };
}

/**
 * The link beyond this machine without a pairing secret: a game that listens on the network
 * refuses to without one (or, told `insecure`, obeys anyone), and VS Code listening on the
 * network takes any program that connects for the game.
 */
function pairingWarnings(ports: readonly PortFact[]): string[] {
  const out: string[] = [];
  const fix =
    'Set `"connectionSecret"` (the snippets fill in a random one; `"${env:LUAPANDA_SECRET}"` keeps it out of the repository) ' +
    'and give the game the same: `{ secret = "…" }` as the third argument of start/startServer, or the environment variable LUAPANDA_SECRET.';
  for (const port of ports) {
    if (port.secret) continue;
    if (port.asClient && !isLoopbackHost(port.ip ?? '127.0.0.1')) {
      out.push(
        `- ⚠ "${port.config}": the game listens on the network with no pairing secret. Our LuaPanda.lua refuses to ` +
          "(it says so on stderr); told `{ insecure = true }`, or with upstream's LuaPanda.lua, anyone who reaches the port can run code in the game. " +
          fix,
      );
    } else if (!port.asClient && !isLoopbackHost(port.host)) {
      out.push(
        `- ⚠ "${port.config}": VS Code is to listen on ${describeListenHost(port.host)} with no pairing secret: it refuses to (the session ends with a message) unless the configuration says \`"connectionInsecure": true\`, and then any program that reaches the port is taken for the game. ` +
          fix,
      );
    }
  }
  return out;
}

/** The first variable of each configuration that only VS Code resolves (as `luapanda-mcp` sees it). */
function vscodeOnlyVariables(
  configs: readonly LaunchConfiguration[],
  workspace: string,
): DoctorFacts['vscodeOnly'] {
  const found: { config: string; variable: string }[] = [];
  for (const config of configs) {
    try {
      resolveVariables(config, workspace);
    } catch (e) {
      if (e instanceof VscodeOnlyVariableError) {
        found.push({ config: config.name, variable: e.variable });
      }
    }
  }
  return found;
}

function findRuntimeCopies(root: string, limit = 2000): string[] {
  const found: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < limit) {
    const dir = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      seen++;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && entry.name !== 'node_modules') {
          queue.push(path.join(dir, entry.name));
        }
      } else if (entry.name === 'LuaPanda.lua') {
        found.push(path.relative(root, path.join(dir, entry.name)));
      }
    }
  }
  return found;
}

export function renderReport(facts: DoctorFacts): string {
  const out: string[] = ['# LuaPanda Doctor', ''];
  out.push('## The game does not connect', '');
  if (!facts.workspace) out.push('- No folder is open: open the game project folder.');
  if (facts.launchError) out.push(`- launch.json: ${facts.launchError}`);
  if (!facts.launchError && facts.luaConfigs.length === 0 && facts.workspace) {
    out.push(
      '- launch.json has no "luapanda" configuration. Add one (Run → Add Configuration… → LuaPanda), or change `"type": "lua"` of an upstream LuaPanda configuration to `"type": "luapanda"`.',
    );
  }
  for (const port of facts.ports) {
    if (port.asClient) {
      out.push(
        `- "${port.config}": VS Code connects to ${port.ip ?? '(no connectionIP!)'}:${port.port}. The game must listen: ` +
          'its LuaPanda start must be in server mode, the device must be reachable from this machine (same network; for Android over USB `adb forward tcp:' +
          `${port.port} tcp:${port.port}\` and connectionIP 127.0.0.1), and its firewall must allow the port.`,
      );
    } else if (port.local === 'listening') {
      out.push(
        `- "${port.config}": port ${port.port} is listening on this machine (a waiting attach session, or another program). ` +
          `The game must call \`require("LuaPanda").start("<this machine>", ${port.port})\`.`,
      );
    } else if (port.local === 'free') {
      out.push(
        `- "${port.config}": nothing listens on port ${port.port} now. Start this configuration first (F5): VS Code then waits for the game ` +
          `on ${describeListenHost(port.host)}, for "connectionTimeout" seconds (default 30), until it calls ` +
          `\`require("LuaPanda").start("${isLoopbackHost(port.host) ? port.host : '<this machine>'}", ${port.port})\`. ` +
          'A game started first is fine too: it tries again about once a second.',
      );
    } else {
      out.push(`- "${port.config}": port ${port.port} cannot be checked (permissions?).`);
    }
  }
  out.push(...pairingWarnings(facts.ports));
  const loopbackOnly = facts.ports.filter((p) => !p.asClient && isLoopbackHost(p.host));
  out.push(
    `- A game on another machine or a phone must use this machine's address (${facts.lanAddresses.join(', ') || 'no LAN address found'}) instead of 127.0.0.1, ` +
      'and the attach configuration must listen beyond this machine: `"connectionHost": "0.0.0.0"` (every interface) or that address' +
      (loopbackOnly.length > 0
        ? ` (${loopbackOnly.map((p) => `"${p.config}"`).join(', ')} listen${loopbackOnly.length === 1 ? 's' : ''} on ${loopbackOnly[0].host} only)`
        : '') +
      '. The firewall here must allow inbound TCP on the port (Windows: allow VS Code in "Windows Defender Firewall"). ' +
      'Android over USB: `adb reverse tcp:8818 tcp:8818` lets the game use 127.0.0.1 with no `connectionHost`.',
  );
  out.push(
    facts.runtimeInWorkspace.length > 0
      ? `- LuaPanda.lua found in the workspace: ${facts.runtimeInWorkspace.join(', ')}. The game must \`require\` it before \`start\`.`
      : '- No LuaPanda.lua in the workspace: run "LuaPanda: Copy LuaPanda.lua into the Workspace" and require it from the game.',
  );
  out.push(
    '',
    '### Interpreters (for "launch" configurations)',
    '',
    'Each launch configuration, and the usual interpreter names, checked as a launch checks them: the interpreter must load luasocket and the runtime.',
    '',
  );
  const marks = { ok: '✓', failed: '✗', unchecked: '–' } as const;
  for (const lua of facts.interpreters)
    out.push(`- ${marks[lua.verdict]} ${lua.name}: ${lua.detail}`);
  if (facts.vscodeOnly.length > 0) {
    out.push(
      '',
      '### Agents without VS Code',
      '',
      'These configurations start fine from VS Code, and an agent inside VS Code can start them too. ' +
        'The headless `luapanda-mcp` has no editor, so it cannot resolve their variables:',
      '',
    );
    for (const only of facts.vscodeOnly) {
      out.push(
        `- "${only.config}" uses ${only.variable}: give the headless server a configuration with a path instead.`,
      );
    }
  }

  out.push('', '## A breakpoint does not bind', '');
  const unverified = facts.breakpoints.filter((b) => !b.verified);
  if (facts.breakpoints.length === 0) out.push('- No breakpoints are set.');
  else if (facts.liveLuaSessions === 0) {
    out.push('- No Lua session is running: breakpoints bind when a session starts.');
  }
  for (const bp of unverified) {
    out.push(
      `- ${bp.file}:${bp.line} — ${bp.message ?? 'not confirmed by the debugger'}${bp.inWorkspace ? '' : ' (outside the workspace folder)'}`,
    );
  }
  if (unverified.length > 0 || facts.breakpoints.length === 0) {
    out.push(
      "- Path mapping: the game reports each chunk's path as it loaded it. If it loads from another folder (a build output, the device), " +
        'set `cwd` to the folder that mirrors the game\'s scripts, use `docPathReplace: ["<path the game reports>", "${workspaceFolder}/<folder>"]`, ' +
        'or `truncatedOPath` to cut a prefix. With relative require paths keep `autoPathMode: true`; for files with the same name in different folders set ' +
        '`distinguishSameNameFile: true`. If the game loads files without the .lua extension, set `luaFileExtension`.',
    );
  }
  out.push('', '## MCP server', '', `- ${facts.mcp}`, '');
  return out.join('\n');
}
