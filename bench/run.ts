/** `npm run bench`: every benchmark of the project, one after another, printing ratios. */
import { runAgentPathBench } from './agentPath';
import { runAttachBench } from './attach';
import { runGameLoopBench } from './gameLoop';
import { runHotReloadBench } from './hotReload';
import { runMcpBench } from './mcp';
import { runProtocolBench } from './protocol';
import { runRuntimeBench } from './runtime';

async function main(): Promise<void> {
  await runProtocolBench();
  await runMcpBench();
  await runRuntimeBench();
  await runGameLoopBench();
  await runAttachBench();
  await runHotReloadBench();
  await runAgentPathBench();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
