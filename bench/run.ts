/** `npm run bench`: every benchmark of the project, one after another, printing ratios. */
import { runProtocolBench } from './protocol';

async function main(): Promise<void> {
  await runProtocolBench();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
