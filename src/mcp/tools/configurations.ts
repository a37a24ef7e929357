/** `get_debugger_configurations`: the launch configurations an agent can start. */
import { z } from 'zod';
import { readLaunchConfigurations } from '../launchConfig';
import { noWorkspace } from '../errors';
import { baseOutputShape, error } from '../results';
import { ANNOTATIONS, defineTool } from './context';

export const getDebuggerConfigurations = defineTool({
  name: 'get_debugger_configurations',
  title: 'List debug configurations',
  description:
    'Lists the configurations of .vscode/launch.json (name, type, request, attributes). Call this ' +
    'first; pass a name to start_debugging. "error": no launch.json, or it does not parse.',
  inputSchema: {},
  outputSchema: {
    ...baseOutputShape,
    configurations: z.array(z.object({ name: z.string() })).optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(_args, context) {
    const [folder] = context.channel.workspaceFolders();
    if (!folder) return noWorkspace('is no launch.json to read');
    try {
      const configurations = await readLaunchConfigurations(folder);
      return { status: 'success', workspace_folder: folder, configurations };
    } catch (e) {
      return error('invalid-configuration', (e as Error).message);
    }
  },
});
