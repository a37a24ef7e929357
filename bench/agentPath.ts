/**
 * The shortest path an agent can take to a planted bug, played through the MCP tools (the SDK's
 * client over stdio against headless `luapanda-mcp`), counting its tool calls and the bytes it
 * reads. The agent's policy is fixed: set the breakpoint it would set after reading the code,
 * start, and at each stop look for the values it needs in what the result already shows; only a
 * value it cannot see there costs another call (`get_variables` on the table that holds it). So
 * the count measures what the results show, not how clever an agent is.
 *
 * Run: `npm run compile && node out/bench/agentPath.js` (also part of `npm run bench`).
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(__dirname, '..', '..');

interface Needed {
  /** A local (`damage`) or a field of a local table (`self.hp`). */
  readonly path: string;
}

interface Scenario {
  readonly title: string;
  readonly workspace: string;
  readonly configuration: string;
  readonly breakpoint: { file_path: string; line_number: number; condition?: string };
  /** What the agent must see at the first stop, and again after one step over. */
  readonly atStop: Needed[];
  readonly afterStep: Needed[];
}

const SCENARIOS: Scenario[] = [
  {
    title: 'example game: poison heals',
    workspace: path.join(ROOT, 'examples', 'game'),
    configuration: 'Launch the game',
    breakpoint: { file_path: 'entity.lua', line_number: 14, condition: 'self.poison > 0' },
    atStop: [{ path: 'damage' }, { path: 'self.hp' }, { path: 'self.poison' }],
    afterStep: [{ path: 'self.hp' }],
  },
  {
    title: 'arena: the shield absorbs nothing',
    workspace: path.join(ROOT, 'examples', 'arena'),
    configuration: 'Launch the arena',
    breakpoint: { file_path: 'fighter.lua', line_number: 16, condition: 'self.name == "knight"' },
    atStop: [
      { path: 'damage' },
      { path: 'absorbed' },
      { path: 'self.hp' },
      { path: 'self.shield' },
    ],
    afterStep: [{ path: 'self.hp' }],
  },
];

type Result = Record<string, unknown>;

interface Variable {
  name: string;
  value: string;
  variables_reference?: number;
}

class Agent {
  calls = 0;
  bytes = 0;

  constructor(private readonly client: Client) {}

  async call(name: string, args: Record<string, unknown> = {}): Promise<Result> {
    const response = await this.client.callTool({ name, arguments: args });
    this.calls++;
    // What the agent reads: the text content (the JSON of the result).
    this.bytes += Buffer.byteLength(JSON.stringify(response.content ?? []));
    return (response.structuredContent ?? {}) as Result;
  }
}

function topVariables(result: Result): Variable[] {
  const stop = result.stop_event_data as Result | undefined;
  const top = stop?.top_frame_variables as { upvalues?: unknown } | undefined;
  // The upvalues come as a scope of their own inside top_frame_variables.
  const scopes = [top, top?.upvalues, ...((stop?.top_frame_scopes as unknown[]) ?? [])];
  const out: Variable[] = [];
  for (const scope of scopes) {
    const vars = (scope as { variables?: Variable[] } | undefined)?.variables;
    if (vars) out.push(...vars);
  }
  return out;
}

/** Escapes a string for a regular expression. */
function quote(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Finds each needed value in the stop result; a field hidden in a table costs a get_variables. */
async function see(agent: Agent, result: Result, needed: Needed[]): Promise<string[]> {
  const vars = topVariables(result);
  const seen: string[] = [];
  const expanded = new Map<string, Variable[]>();
  for (const need of needed) {
    const [head, field] = need.path.split('.');
    const variable = vars.find((v) => v.name === head);
    if (!variable) throw new Error(`${head} is not among the stop's variables`);
    if (!field) {
      seen.push(`${need.path} = ${variable.value}`);
      continue;
    }
    // A preview shows `field = value` inside the table's value.
    const inPreview = new RegExp(`(^|[{,\\s])${quote(field)} = ([^,}]+)`).exec(variable.value);
    if (inPreview) {
      seen.push(`${need.path} = ${inPreview[2].trim()}`);
      continue;
    }
    let children = expanded.get(head);
    if (!children) {
      const listed = await agent.call('get_variables', {
        variables_reference: variable.variables_reference,
      });
      children = (listed.variables as Variable[] | undefined) ?? [];
      expanded.set(head, children);
    }
    const child = children.find((c) => c.name === field || c.name === `"${field}"`);
    if (!child) throw new Error(`${need.path} is not among ${head}'s children`);
    seen.push(`${need.path} = ${child.value}`);
  }
  return seen;
}

async function play(scenario: Scenario): Promise<{ calls: number; bytes: number; seen: string[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      path.join(ROOT, 'out', 'src', 'cli', 'mcp.js'),
      '--stdio',
      '--workspace',
      scenario.workspace,
    ],
    stderr: 'ignore',
  });
  const client = new Client({ name: 'luapanda-agent-path', version: '1.0.0' });
  await client.connect(transport);
  const agent = new Agent(client);
  try {
    await agent.call('get_debugger_configurations');
    await agent.call('set_breakpoint', scenario.breakpoint);
    const started = await agent.call('start_debugging', {
      configuration_name: scenario.configuration,
      timeout_seconds: 30,
    });
    if (started.status !== 'stopped')
      throw new Error(`start_debugging: ${JSON.stringify(started)}`);
    const seen = await see(agent, started, scenario.atStop);
    const threadId = (started.stop_event_data as Result).thread_id;
    const stepped = await agent.call('step_execution', {
      thread_id: threadId,
      step_type: 'over',
      timeout_seconds: 30,
    });
    if (stepped.status !== 'stopped') throw new Error(`step_execution: ${JSON.stringify(stepped)}`);
    seen.push(...(await see(agent, stepped, scenario.afterStep)));
    await agent.call('stop_debugging');
    return { calls: agent.calls, bytes: agent.bytes, seen };
  } finally {
    await client.close();
  }
}

export async function runAgentPathBench(): Promise<void> {
  console.log(
    "\nAn agent's shortest path to a planted bug through the MCP tools (fixed policy: a field " +
      'hidden in a table costs a get_variables call)',
  );
  console.log('| scenario | tool calls | bytes read | what it saw |');
  console.log('|---|---|---|---|');
  for (const scenario of SCENARIOS) {
    const r = await play(scenario);
    console.log(`| ${scenario.title} | ${r.calls} | ${r.bytes} | ${r.seen.join('; ')} |`);
  }
}

if (require.main === module) {
  runAgentPathBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
